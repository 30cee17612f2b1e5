//! The macOS backend (AXUIElement), compiled only for Apple targets.
