//! The platform-neutral half of the macOS backend: every decision of the AXUIElement
//! adapter that needs no Apple API, compiled and tested on every OS. `platform/macos` calls
//! into it and keeps only the code that touches Apple frameworks.
//!
//! Tables and rules: `roles` (native role/subrole → [`crate::ax::Role`], implied actions),
//! `action_names`, `notifications`, `decode` (attribute slots → engine types, value caps),
//! `writes` (write plans, clamping, the verdict on a timed-out write). Walks: `walk` (the
//! bounded, cycle-guarded tree walk over an [`walk::AxSource`], ≈1 round trip per node) and
//! `budget` (timeouts sliced from the deadline, child caps). Input: `input_guard` (may a
//! synthetic event be posted?), `gestures`, `keystrokes`. (The click point, activation
//! point or frame centre, is engine-generic: `RawNode::click_point`.)
//! Capture and launch: `capture` (screencapture arguments, image scale and frame),
//! `launch_spec`.
//!
//! Must not know: Apple types (Core Foundation, AX, CoreGraphics), HTTP, MCP or sessions.
// On other hosts the adapter that calls most of this is not compiled; the tests use it all.
#![cfg_attr(not(target_os = "macos"), allow(dead_code))]

pub(crate) mod action_names;
pub(crate) mod budget;
pub(crate) mod capture;
pub(crate) mod decode;
pub(crate) mod gestures;
pub(crate) mod input_guard;
pub(crate) mod keystrokes;
pub(crate) mod launch_spec;
pub(crate) mod notifications;
pub(crate) mod roles;
pub(crate) mod walk;
pub(crate) mod writes;
