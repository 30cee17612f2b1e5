//! The demo backend's role table: the macOS-like native role and subrole each normalised
//! role reports, and which roles take a value write or keyboard focus by default.

use axgate_engine::Role;

/// The native role and subrole a demo element of this role reports (`AXButton`, …).
pub(super) fn native_role(role: Role) -> (&'static str, Option<&'static str>) {
    match role {
        Role::Application => ("AXApplication", None),
        Role::Window => ("AXWindow", Some("AXStandardWindow")),
        Role::Dialog => ("AXWindow", Some("AXDialog")),
        Role::Sheet => ("AXSheet", None),
        Role::MenuBar => ("AXMenuBar", None),
        Role::MenuBarItem => ("AXMenuBarItem", None),
        Role::Menu => ("AXMenu", None),
        Role::MenuItem => ("AXMenuItem", None),
        Role::Button => ("AXButton", None),
        Role::CheckBox => ("AXCheckBox", None),
        Role::RadioButton => ("AXRadioButton", None),
        Role::RadioGroup => ("AXRadioGroup", None),
        Role::TextField => ("AXTextField", None),
        Role::SecureTextField => ("AXTextField", Some("AXSecureTextField")),
        Role::TextArea => ("AXTextArea", None),
        Role::StaticText => ("AXStaticText", None),
        Role::Slider => ("AXSlider", None),
        Role::SpinButton => ("AXIncrementor", None),
        Role::PopupButton => ("AXPopUpButton", None),
        Role::ComboBox => ("AXComboBox", None),
        Role::List => ("AXList", None),
        Role::ListItem => ("AXGroup", Some("AXListItem")),
        Role::Table => ("AXTable", None),
        Role::Row => ("AXRow", None),
        Role::Cell => ("AXCell", None),
        Role::Outline => ("AXOutline", None),
        Role::Group => ("AXGroup", None),
        Role::ScrollArea => ("AXScrollArea", None),
        Role::ScrollBar => ("AXScrollBar", None),
        Role::TabGroup => ("AXTabGroup", None),
        Role::Tab => ("AXRadioButton", Some("AXTabButton")),
        Role::Toolbar => ("AXToolbar", None),
        Role::Image => ("AXImage", None),
        Role::Link => ("AXLink", None),
        Role::ProgressIndicator => ("AXProgressIndicator", None),
        Role::Splitter => ("AXSplitter", None),
        Role::SplitGroup => ("AXSplitGroup", None),
        Role::WebArea => ("AXWebArea", None),
        Role::Label => ("AXStaticText", None),
        Role::Separator => ("AXMenuItem", Some("AXSeparator")),
        Role::Ruler => ("AXRuler", None),
        Role::RulerMarker => ("AXRulerMarker", None),
        Role::Unknown => ("AXUnknown", None),
    }
}

/// Whether elements of this role accept value writes unless the data says otherwise.
pub(super) fn settable_by_default(role: Role) -> bool {
    matches!(
        role,
        Role::TextField
            | Role::SecureTextField
            | Role::TextArea
            | Role::Slider
            | Role::ComboBox
            | Role::SpinButton
    )
}

/// Whether an element of this role can take keyboard focus.
pub(super) fn focusable(role: Role) -> bool {
    role.is_interactive() || matches!(role, Role::Window | Role::Dialog | Role::Sheet)
}

/// Whether this role is a top-level window of an app.
pub(super) fn is_window(role: Role) -> bool {
    matches!(role, Role::Window | Role::Dialog | Role::Sheet)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_has_an_ax_native_role() {
        for role in Role::ALL {
            let (native, _) = native_role(*role);
            assert!(native.starts_with("AX"), "{role}: {native}");
        }
    }
}
