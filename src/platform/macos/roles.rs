//! The table from native AX roles and subroles to the normalised [`Role`] vocabulary, and the
//! per-role read policies of a snapshot. Plain data and lookups with no Apple types, so this
//! file can move to platform-neutral code and be tested on any host.

use crate::ax::Role;

/// Native role → normalised role. Roles not listed become [`Role::Unknown`] and keep their
/// native name in `RawNode::native_role`.
pub(super) const BY_ROLE: &[(&str, Role)] = &[
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
];

/// (native role, subrole) pairs whose subrole decides the normalised role.
pub(super) const BY_SUBROLE: &[(&str, &str, Role)] = &[
    ("AXWindow", "AXDialog", Role::Dialog),
    ("AXWindow", "AXSystemDialog", Role::Dialog),
    ("AXTextField", "AXSecureTextField", Role::SecureTextField),
    ("AXRadioButton", "AXTabButton", Role::Tab),
];

/// The normalised role of an element from its `AXRole` and `AXSubrole`.
pub(super) fn normalise(role: &str, subrole: Option<&str>) -> Role {
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

/// Whether a snapshot reads the element's action names (one more round trip). Pure
/// containers and decoration skip it: their actions are never what an agent acts on (the
/// engine only offers actions a snapshot listed; `perform_action` reads them afresh).
pub(super) fn reads_actions(role: Role) -> bool {
    !matches!(
        role,
        Role::Application
            | Role::MenuBar
            | Role::List
            | Role::Table
            | Role::Outline
            | Role::ScrollArea
            | Role::ScrollBar
            | Role::SplitGroup
            | Role::TabGroup
            | Role::Toolbar
            | Role::ProgressIndicator
            | Role::Separator
            | Role::Label
    )
}

/// Whether a snapshot asks if the element's `AXValue` is settable (one more round trip):
/// only roles whose value a person edits.
pub(super) fn reads_settable(role: Role) -> bool {
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
pub(super) fn is_toggle(role: Role) -> bool {
    matches!(role, Role::CheckBox | Role::RadioButton | Role::Tab)
}

/// Roles that are windows of their own: focusing one raises it.
pub(super) fn is_window(role: Role) -> bool {
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
    fn editable_roles_read_actions_and_settable() {
        for role in [Role::TextField, Role::Slider, Role::ComboBox] {
            assert!(reads_settable(role));
            assert!(reads_actions(role));
        }
        assert!(!reads_settable(Role::Button));
        assert!(!reads_actions(Role::ScrollArea));
    }
}
