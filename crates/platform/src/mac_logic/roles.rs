//! The table from native AX roles and subroles to the normalised [`Role`] vocabulary, and the
//! per-role policies of a snapshot (implied actions, implied settable values). Plain data
//! and lookups with no Apple types.

use axgate_engine::Role;

/// Native role → normalised role. Roles not listed become [`Role::Unknown`] and keep their
/// native name in `RawNode::native_role`.
pub(crate) const BY_ROLE: &[(&str, Role)] = &[
    ("AXApplication", Role::Application),
    ("AXWindow", Role::Window),
    ("AXSheet", Role::Sheet),
    ("AXDrawer", Role::Sheet),
    ("AXPopover", Role::Dialog),
    ("AXMenuBar", Role::MenuBar),
    ("AXMenuBarItem", Role::MenuBarItem),
    ("AXMenu", Role::Menu),
    ("AXMenuItem", Role::MenuItem),
    ("AXButton", Role::Button),
    ("AXDisclosureTriangle", Role::Button),
    ("AXColorWell", Role::Button),
    ("AXDockItem", Role::Button),
    ("AXCheckBox", Role::CheckBox),
    ("AXRadioButton", Role::RadioButton),
    ("AXRadioGroup", Role::RadioGroup),
    ("AXTextField", Role::TextField),
    ("AXDateField", Role::TextField),
    ("AXTimeField", Role::TextField),
    ("AXTextArea", Role::TextArea),
    ("AXStaticText", Role::StaticText),
    ("AXSlider", Role::Slider),
    ("AXIncrementor", Role::SpinButton),
    ("AXPopUpButton", Role::PopupButton),
    ("AXMenuButton", Role::PopupButton),
    ("AXComboBox", Role::ComboBox),
    ("AXList", Role::List),
    ("AXTable", Role::Table),
    ("AXRow", Role::Row),
    ("AXCell", Role::Cell),
    ("AXOutline", Role::Outline),
    ("AXGroup", Role::Group),
    ("AXLayoutArea", Role::Group),
    ("AXLayoutItem", Role::Group),
    ("AXMatte", Role::Group),
    ("AXScrollArea", Role::ScrollArea),
    ("AXScrollBar", Role::ScrollBar),
    ("AXTabGroup", Role::TabGroup),
    ("AXToolbar", Role::Toolbar),
    ("AXImage", Role::Image),
    ("AXLink", Role::Link),
    ("AXProgressIndicator", Role::ProgressIndicator),
    ("AXBusyIndicator", Role::ProgressIndicator),
    ("AXLevelIndicator", Role::ProgressIndicator),
    ("AXRelevanceIndicator", Role::ProgressIndicator),
    ("AXSplitter", Role::Splitter),
    ("AXSplitGroup", Role::SplitGroup),
    ("AXWebArea", Role::WebArea),
    ("AXRuler", Role::Ruler),
    ("AXRulerMarker", Role::RulerMarker),
];

/// (native role, subrole) pairs whose subrole decides the normalised role.
pub(crate) const BY_SUBROLE: &[(&str, &str, Role)] = &[
    ("AXWindow", "AXDialog", Role::Dialog),
    ("AXWindow", "AXSystemDialog", Role::Dialog),
    ("AXTextField", "AXSecureTextField", Role::SecureTextField),
    ("AXRadioButton", "AXTabButton", Role::Tab),
];

/// The normalised role of an element from its `AXRole` and `AXSubrole`.
pub(crate) fn normalise(role: &str, subrole: Option<&str>) -> Role {
    if let Some(sub) = subrole
        && let Some(&(_, _, mapped)) = BY_SUBROLE.iter().find(|(r, s, _)| *r == role && *s == sub)
    {
        return mapped;
    }
    BY_ROLE
        .iter()
        .find(|(native, _)| *native == role)
        .map_or(Role::Unknown, |&(_, mapped)| mapped)
}

/// The actions a snapshot reports for a role without asking the app: the actions elements
/// of that role offer by AppKit convention. Reading the real names would cost one more round
/// trip per node; `perform_action` reads them afresh when acting and reports the real list
/// when the action is missing.
pub(crate) fn implied_actions(role: Role) -> &'static [&'static str] {
    match role {
        Role::Button
        | Role::CheckBox
        | Role::RadioButton
        | Role::Tab
        | Role::MenuItem
        | Role::Link => &["press"],
        Role::MenuBarItem => &["press", "cancel"],
        Role::PopupButton => &["press", "show_menu"],
        Role::ComboBox => &["confirm", "show_menu"],
        Role::Slider | Role::SpinButton => &["increment", "decrement"],
        Role::Window | Role::Dialog | Role::Sheet => &["raise"],
        _ => &[],
    }
}

/// Roles whose `AXValue` a person edits, reported settable without asking the app. The
/// write checks `AXUIElementIsAttributeSettable` before writing, so an app that refuses
/// still fails as "not settable".
pub(crate) fn implies_settable(role: Role) -> bool {
    matches!(
        role,
        Role::TextField
            | Role::SecureTextField
            | Role::TextArea
            | Role::ComboBox
            | Role::Slider
            | Role::SpinButton
    )
}

/// Roles whose value is an on/off state written by pressing (there is no toggle attribute).
pub(crate) fn is_toggle(role: Role) -> bool {
    matches!(role, Role::CheckBox | Role::RadioButton | Role::Tab)
}

/// Roles that are windows of their own: focusing one raises it.
pub(crate) fn is_window(role: Role) -> bool {
    matches!(role, Role::Window | Role::Dialog | Role::Sheet)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_roles_map() {
        assert_eq!(normalise("AXButton", None), Role::Button);
        assert_eq!(normalise("AXButton", Some("AXCloseButton")), Role::Button);
        assert_eq!(
            normalise("AXWindow", Some("AXStandardWindow")),
            Role::Window
        );
        assert_eq!(normalise("AXPopUpButton", None), Role::PopupButton);
        assert_eq!(normalise("AXIncrementor", None), Role::SpinButton);
    }

    #[test]
    fn a_text_ruler_and_its_markers_have_roles_of_their_own() {
        assert_eq!(normalise("AXRuler", None), Role::Ruler);
        assert_eq!(normalise("AXRulerMarker", None), Role::RulerMarker);
    }

    #[test]
    fn subroles_decide_dialogs_secure_fields_and_tabs() {
        assert_eq!(normalise("AXWindow", Some("AXDialog")), Role::Dialog);
        assert_eq!(normalise("AXWindow", Some("AXSystemDialog")), Role::Dialog);
        assert_eq!(
            normalise("AXTextField", Some("AXSecureTextField")),
            Role::SecureTextField
        );
        assert_eq!(
            normalise("AXTextField", Some("AXSearchField")),
            Role::TextField
        );
        assert_eq!(normalise("AXRadioButton", Some("AXTabButton")), Role::Tab);
    }

    #[test]
    fn a_subrole_only_counts_with_its_role() {
        assert_eq!(normalise("AXGroup", Some("AXSecureTextField")), Role::Group);
    }

    #[test]
    fn unmapped_roles_are_unknown() {
        assert_eq!(normalise("AXHeading", None), Role::Unknown);
        assert_eq!(normalise("", None), Role::Unknown);
    }

    #[test]
    fn tables_have_no_duplicates_and_no_unknown_targets() {
        for (i, (native, role)) in BY_ROLE.iter().enumerate() {
            assert!(native.starts_with("AX"), "{native}");
            assert_ne!(*role, Role::Unknown, "{native}");
            assert!(
                BY_ROLE[i + 1..].iter().all(|(other, _)| other != native),
                "{native} listed twice"
            );
        }
        for (role, sub, mapped) in BY_SUBROLE {
            assert!(
                BY_ROLE.iter().any(|(native, _)| native == role),
                "{role}/{sub} has an unlisted role"
            );
            assert_ne!(*mapped, Role::Unknown);
        }
    }

    #[test]
    fn editable_roles_are_settable_and_controls_pressable() {
        for role in [
            Role::TextField,
            Role::Slider,
            Role::ComboBox,
            Role::TextArea,
        ] {
            assert!(implies_settable(role), "{role}");
        }
        assert!(!implies_settable(Role::Button));
        assert!(
            !implies_settable(Role::CheckBox),
            "toggles are written by pressing"
        );
        for role in [Role::Button, Role::CheckBox, Role::Tab, Role::MenuItem] {
            assert!(implied_actions(role).contains(&"press"), "{role}");
        }
        assert!(implied_actions(Role::ScrollArea).is_empty());
        assert!(implied_actions(Role::Group).is_empty());
        assert_eq!(implied_actions(Role::Slider), ["increment", "decrement"]);
    }

    #[test]
    fn implied_actions_have_native_names() {
        for role in Role::ALL {
            for action in implied_actions(*role) {
                assert!(
                    crate::mac_logic::action_names::to_native(action).is_some(),
                    "{action}"
                );
            }
        }
    }
}
