//! The AT-SPI role table: each numeric role (`AtspiRole`, as `GetRole` and `Cache.GetItems`
//! report it) with its native name (what `GetRoleName` and pyatspi print) and the normalised
//! [`Role`] it maps to, plus the per-role read policies of a snapshot. Plain data, no D-Bus.

use axgate_engine::Role;

/// AT-SPI role numbers and names, in numeric order (`ATSPI_ROLE_*`), each with its
/// normalised role. Index `n` of this table is role number `n`.
const TABLE: &[(&str, Role)] = &[
    ("invalid", Role::Unknown),
    ("accelerator label", Role::Label),
    ("alert", Role::Dialog),
    ("animation", Role::Image),
    ("arrow", Role::Image),
    ("calendar", Role::Group),
    ("canvas", Role::Group),
    ("check box", Role::CheckBox),
    ("check menu item", Role::MenuItem),
    ("color chooser", Role::Dialog),
    ("column header", Role::Cell),
    ("combo box", Role::ComboBox),
    ("date editor", Role::TextField),
    ("desktop icon", Role::Image),
    ("desktop frame", Role::Window),
    ("dial", Role::Slider),
    ("dialog", Role::Dialog),
    ("directory pane", Role::Group),
    ("drawing area", Role::Group),
    ("file chooser", Role::Dialog),
    ("filler", Role::Group),
    ("focus traversable", Role::Group),
    ("font chooser", Role::Dialog),
    ("frame", Role::Window),
    ("glass pane", Role::Group),
    ("html container", Role::WebArea),
    ("icon", Role::Image),
    ("image", Role::Image),
    ("internal frame", Role::Window),
    ("label", Role::StaticText),
    ("layered pane", Role::Group),
    ("list", Role::List),
    ("list item", Role::ListItem),
    ("menu", Role::Menu),
    ("menu bar", Role::MenuBar),
    ("menu item", Role::MenuItem),
    ("option pane", Role::Group),
    ("page tab", Role::Tab),
    ("page tab list", Role::TabGroup),
    ("panel", Role::Group),
    ("password text", Role::SecureTextField),
    ("popup menu", Role::Menu),
    ("progress bar", Role::ProgressIndicator),
    ("push button", Role::Button),
    ("radio button", Role::RadioButton),
    ("radio menu item", Role::MenuItem),
    ("root pane", Role::Group),
    ("row header", Role::Cell),
    ("scroll bar", Role::ScrollBar),
    ("scroll pane", Role::ScrollArea),
    ("separator", Role::Separator),
    ("slider", Role::Slider),
    ("spin button", Role::SpinButton),
    ("split pane", Role::SplitGroup),
    ("status bar", Role::StaticText),
    ("table", Role::Table),
    ("table cell", Role::Cell),
    ("table column header", Role::Cell),
    ("table row header", Role::Cell),
    ("tearoff menu item", Role::MenuItem),
    ("terminal", Role::TextArea),
    ("text", Role::TextField),
    ("toggle button", Role::Button),
    ("tool bar", Role::Toolbar),
    ("tool tip", Role::StaticText),
    ("tree", Role::Outline),
    ("tree table", Role::Outline),
    ("unknown", Role::Unknown),
    ("viewport", Role::Group),
    ("window", Role::Window),
    ("extended", Role::Unknown),
    ("header", Role::Group),
    ("footer", Role::Group),
    ("paragraph", Role::StaticText),
    ("ruler", Role::Ruler),
    ("application", Role::Application),
    ("autocomplete", Role::ComboBox),
    ("editbar", Role::TextField),
    ("embedded", Role::Group),
    ("entry", Role::TextField),
    ("chart", Role::Image),
    ("caption", Role::StaticText),
    ("document frame", Role::WebArea),
    ("heading", Role::StaticText),
    ("page", Role::Group),
    ("section", Role::Group),
    ("redundant object", Role::Unknown),
    ("form", Role::Group),
    ("link", Role::Link),
    ("input method window", Role::Window),
    ("table row", Role::Row),
    ("tree item", Role::Row),
    ("document spreadsheet", Role::WebArea),
    ("document presentation", Role::WebArea),
    ("document text", Role::WebArea),
    ("document web", Role::WebArea),
    ("document email", Role::WebArea),
    ("comment", Role::StaticText),
    ("list box", Role::List),
    ("grouping", Role::Group),
    ("image map", Role::Image),
    ("notification", Role::StaticText),
    ("info bar", Role::Group),
    ("level bar", Role::ProgressIndicator),
    ("title bar", Role::Group),
    ("block quote", Role::Group),
    ("audio", Role::Group),
    ("video", Role::Group),
    ("definition", Role::StaticText),
    ("article", Role::Group),
    ("landmark", Role::Group),
    ("log", Role::Group),
    ("marquee", Role::Group),
    ("math", Role::Group),
    ("rating", Role::Slider),
    ("timer", Role::StaticText),
    ("static", Role::StaticText),
    ("math fraction", Role::Group),
    ("math root", Role::Group),
    ("subscript", Role::StaticText),
    ("superscript", Role::StaticText),
    ("description list", Role::List),
    ("description term", Role::StaticText),
    ("description value", Role::StaticText),
    ("footnote", Role::StaticText),
    ("content deletion", Role::Group),
    ("content insertion", Role::Group),
    ("mark", Role::Group),
    ("suggestion", Role::Group),
    ("push button menu", Role::PopupButton),
];

/// The native role name of an AT-SPI role number (`push button`); `unknown` past the table.
pub(super) fn native_name(role: u32) -> &'static str {
    TABLE.get(role as usize).map_or("unknown", |(name, _)| name)
}

/// The normalised role of an element. A multi-line text is a text area; a dialog that is a
/// file or colour chooser stays a dialog; everything else comes from the table.
pub(super) fn normalise(role: u32, multi_line: bool) -> Role {
    let mapped = TABLE.get(role as usize).map_or(Role::Unknown, |(_, r)| *r);
    match mapped {
        Role::TextField if multi_line => Role::TextArea,
        other => other,
    }
}

/// The normalised role of an element given its parent's native role: GTK gives a menu-bar
/// entry and a submenu opener the role `menu`; they are a menu bar item and a menu item.
pub(super) fn contextual(role: u32, multi_line: bool, parent_role: Option<u32>) -> Role {
    const MENU: u32 = 33;
    const MENU_BAR: u32 = 34;
    const POPUP_MENU: u32 = 41;
    match (role, parent_role) {
        (MENU, Some(MENU_BAR)) => Role::MenuBarItem,
        (MENU, Some(MENU | POPUP_MENU)) => Role::MenuItem,
        _ => normalise(role, multi_line),
    }
}

/// Roles that are top-level windows of an app.
pub(super) fn is_window(role: Role) -> bool {
    matches!(role, Role::Window | Role::Dialog | Role::Sheet)
}

/// Roles whose value is an on/off state (`checked` or `pressed`).
pub(super) fn is_toggle(native: &str) -> bool {
    matches!(
        native,
        "check box"
            | "radio button"
            | "toggle button"
            | "check menu item"
            | "radio menu item"
            | "page tab"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_the_atspi_enumeration() {
        assert_eq!(native_name(0), "invalid");
        assert_eq!(native_name(7), "check box");
        assert_eq!(native_name(23), "frame");
        assert_eq!(native_name(43), "push button");
        assert_eq!(native_name(61), "text");
        assert_eq!(native_name(75), "application");
        assert_eq!(native_name(116), "static");
        assert_eq!(native_name(129), "push button menu");
        assert_eq!(native_name(999), "unknown");
    }

    #[test]
    fn common_roles_normalise() {
        assert_eq!(normalise(43, false), Role::Button);
        assert_eq!(normalise(61, false), Role::TextField);
        assert_eq!(normalise(61, true), Role::TextArea);
        assert_eq!(normalise(40, false), Role::SecureTextField);
        assert_eq!(normalise(23, false), Role::Window);
        assert_eq!(normalise(51, false), Role::Slider);
        assert_eq!(normalise(52, false), Role::SpinButton);
        assert_eq!(normalise(999, false), Role::Unknown);
    }

    #[test]
    fn the_table_is_complete_and_matches_the_atspi_crate() {
        assert_eq!(TABLE.len(), 130);
        for (n, (name, _)) in TABLE.iter().enumerate() {
            let theirs = atspi::Role::try_from(n as u32).map(|r| r.name());
            // The crate names role 43 "button"; GetRoleName says "push button".
            if n != 43 {
                assert_eq!(theirs.ok(), Some(*name), "role {n}");
            }
        }
    }

    #[test]
    fn menus_depend_on_their_parent() {
        assert_eq!(contextual(33, false, Some(34)), Role::MenuBarItem);
        assert_eq!(contextual(33, false, Some(33)), Role::MenuItem);
        assert_eq!(contextual(33, false, None), Role::Menu);
        assert_eq!(contextual(35, false, Some(33)), Role::MenuItem);
    }

    #[test]
    fn toggles() {
        assert!(is_toggle("check box"));
        assert!(!is_toggle("push button"));
        assert!(is_window(Role::Dialog));
    }
}
