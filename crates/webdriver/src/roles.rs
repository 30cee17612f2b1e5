//! The one table from axgate's roles to XCUITest's element types: `XCUIElementType*` names
//! with their numbers (0–82, in the order of XCUIElementType in XCTest's headers), and
//! [`MAPPING`], which says which type each normalised role, macOS native role or subrole,
//! and AT-SPI role name becomes. docs/WEBDRIVER.md prints [`MAPPING`] (a test holds the two
//! equal).

use axgate_engine::Role;

/// `XCUIElementType` names by number.
pub const TYPES: [&str; 83] = [
    "Any",
    "Other",
    "Application",
    "Group",
    "Window",
    "Sheet",
    "Drawer",
    "Alert",
    "Dialog",
    "Button",
    "RadioButton",
    "RadioGroup",
    "CheckBox",
    "DisclosureTriangle",
    "PopUpButton",
    "ComboBox",
    "MenuButton",
    "ToolbarButton",
    "Popover",
    "Keyboard",
    "Key",
    "NavigationBar",
    "TabBar",
    "TabGroup",
    "Toolbar",
    "StatusBar",
    "Table",
    "TableRow",
    "TableColumn",
    "Outline",
    "OutlineRow",
    "Browser",
    "CollectionView",
    "Slider",
    "PageIndicator",
    "ProgressIndicator",
    "ActivityIndicator",
    "SegmentedControl",
    "Picker",
    "PickerWheel",
    "Switch",
    "Toggle",
    "Link",
    "Image",
    "Icon",
    "SearchField",
    "ScrollView",
    "ScrollBar",
    "StaticText",
    "TextField",
    "SecureTextField",
    "DatePicker",
    "TextView",
    "Menu",
    "MenuItem",
    "MenuBar",
    "MenuBarItem",
    "Map",
    "WebView",
    "IncrementArrow",
    "DecrementArrow",
    "Timeline",
    "RatingIndicator",
    "ValueIndicator",
    "SplitGroup",
    "Splitter",
    "RelevanceIndicator",
    "ColorWell",
    "HelpTag",
    "Matte",
    "DockItem",
    "Ruler",
    "RulerMarker",
    "Grid",
    "LevelIndicator",
    "Cell",
    "LayoutArea",
    "LayoutItem",
    "Handle",
    "Stepper",
    "Tab",
    "TouchBar",
    "StatusItem",
];

/// `XCUIElementTypeOther`, what an unmapped element is.
pub const OTHER: u8 = 1;

/// What a row of [`MAPPING`] matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum From {
    /// A macOS subrole (`AXSearchField`): checked first.
    Subrole(&'static str),
    /// A native role: a macOS `AX*` role or an AT-SPI role name, checked next.
    Native(&'static str),
    /// axgate's normalised role, checked last.
    Role(Role),
}

/// The mapping, one row per source. Subroles first, then native roles, then roles; the first
/// row that matches decides.
pub const MAPPING: &[(From, u8)] = &[
    (From::Subrole("AXSearchField"), 45),
    (From::Subrole("AXSwitch"), 40),
    (From::Subrole("AXToggle"), 41),
    (From::Subrole("AXOutlineRow"), 30),
    (From::Subrole("AXSortButton"), 9),
    (From::Subrole("AXTabButton"), 80),
    (From::Subrole("AXDecrementArrow"), 60),
    (From::Subrole("AXIncrementArrow"), 59),
    (From::Native("AXDrawer"), 6),
    (From::Native("AXDisclosureTriangle"), 13),
    (From::Native("AXMenuButton"), 16),
    (From::Native("AXPopover"), 18),
    (From::Native("AXColumn"), 28),
    (From::Native("AXBrowser"), 31),
    (From::Native("AXBusyIndicator"), 36),
    (From::Native("AXDateField"), 51),
    (From::Native("AXIncrementor"), 79),
    (From::Native("AXValueIndicator"), 63),
    (From::Native("AXRelevanceIndicator"), 66),
    (From::Native("AXColorWell"), 67),
    (From::Native("AXHelpTag"), 68),
    (From::Native("AXMatte"), 69),
    (From::Native("AXDockItem"), 70),
    (From::Native("AXRuler"), 71),
    (From::Native("AXRulerMarker"), 72),
    (From::Native("AXGrid"), 73),
    (From::Native("AXLevelIndicator"), 74),
    (From::Native("AXLayoutArea"), 76),
    (From::Native("AXLayoutItem"), 77),
    (From::Native("AXHandle"), 78),
    (From::Native("toggle button"), 41),
    (From::Native("icon"), 44),
    (From::Native("calendar"), 51),
    (From::Native("date editor"), 51),
    (From::Native("tree"), 29),
    (From::Native("tree table"), 29),
    (From::Native("tree item"), 30),
    (From::Native("column header"), 28),
    (From::Native("status bar"), 25),
    (From::Native("ruler"), 71),
    (From::Native("alert"), 7),
    (From::Native("level bar"), 74),
    (From::Role(Role::Application), 2),
    (From::Role(Role::Window), 4),
    (From::Role(Role::Dialog), 8),
    (From::Role(Role::Sheet), 5),
    (From::Role(Role::MenuBar), 55),
    (From::Role(Role::MenuBarItem), 56),
    (From::Role(Role::Menu), 53),
    (From::Role(Role::MenuItem), 54),
    (From::Role(Role::Button), 9),
    (From::Role(Role::CheckBox), 12),
    (From::Role(Role::RadioButton), 10),
    (From::Role(Role::RadioGroup), 11),
    (From::Role(Role::TextField), 49),
    (From::Role(Role::SecureTextField), 50),
    (From::Role(Role::TextArea), 52),
    (From::Role(Role::StaticText), 48),
    (From::Role(Role::Label), 48),
    (From::Role(Role::Slider), 33),
    (From::Role(Role::SpinButton), 79),
    (From::Role(Role::PopupButton), 14),
    (From::Role(Role::ComboBox), 15),
    (From::Role(Role::List), 26),
    (From::Role(Role::ListItem), 75),
    (From::Role(Role::Table), 26),
    (From::Role(Role::Row), 27),
    (From::Role(Role::Cell), 75),
    (From::Role(Role::Outline), 29),
    (From::Role(Role::Group), 3),
    (From::Role(Role::ScrollArea), 46),
    (From::Role(Role::ScrollBar), 47),
    (From::Role(Role::Ruler), 71),
    (From::Role(Role::RulerMarker), 72),
    (From::Role(Role::TabGroup), 23),
    (From::Role(Role::Tab), 80),
    (From::Role(Role::Toolbar), 24),
    (From::Role(Role::Image), 43),
    (From::Role(Role::Link), 42),
    (From::Role(Role::ProgressIndicator), 35),
    (From::Role(Role::Splitter), 65),
    (From::Role(Role::SplitGroup), 64),
    (From::Role(Role::WebArea), 58),
    (From::Role(Role::Separator), 1),
    (From::Role(Role::Unknown), 1),
];

/// The element type of an element: the first row of [`MAPPING`] that matches its subrole,
/// native role or role; `Other` when none does.
pub fn element_type(role: Role, native: &str, subrole: Option<&str>) -> u8 {
    let hit = |from: &From| match *from {
        From::Subrole(s) => subrole == Some(s),
        From::Native(n) => native == n,
        From::Role(r) => r == role,
    };
    MAPPING
        .iter()
        .find(|(from, _)| hit(from))
        .map_or(OTHER, |(_, ty)| *ty)
}

/// `XCUIElementTypeButton` for 9; `None` past the table.
pub fn type_name(ty: u8) -> Option<String> {
    TYPES
        .get(usize::from(ty))
        .map(|n| format!("XCUIElementType{n}"))
}

/// The number of `XCUIElementTypeButton` (or of the bare `Button`).
pub fn type_number(name: &str) -> Option<u8> {
    let bare = name.strip_prefix("XCUIElementType").unwrap_or(name);
    TYPES.iter().position(|t| *t == bare).map(|i| i as u8)
}

/// The mapping as the Markdown table docs/WEBDRIVER.md prints.
pub fn markdown_table() -> String {
    let mut out =
        String::from("| axgate | source | XCUIElementType | number |\n|---|---|---|---|\n");
    for (from, ty) in MAPPING {
        let (name, kind) = match from {
            From::Subrole(s) => ((*s).to_owned(), "macOS subrole"),
            From::Native(n) if n.starts_with("AX") => ((*n).to_owned(), "macOS role"),
            From::Native(n) => ((*n).to_owned(), "AT-SPI role"),
            From::Role(r) => (r.as_str().to_owned(), "axgate role"),
        };
        let ty_name = type_name(*ty).unwrap_or_default();
        out.push_str(&format!("| `{name}` | {kind} | `{ty_name}` | {ty} |\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_numbers_are_xctests() {
        assert_eq!(type_name(0).unwrap(), "XCUIElementTypeAny");
        assert_eq!(type_number("XCUIElementTypeButton"), Some(9));
        assert_eq!(type_number("XCUIElementTypeTextField"), Some(49));
        assert_eq!(type_number("XCUIElementTypeMenuBarItem"), Some(56));
        assert_eq!(type_number("XCUIElementTypeCell"), Some(75));
        assert_eq!(type_number("XCUIElementTypeStatusItem"), Some(82));
        assert_eq!(type_number("Nope"), None);
        assert!(type_name(83).is_none());
    }

    #[test]
    fn every_role_maps_and_native_rows_come_first() {
        for role in Role::ALL {
            assert!(
                MAPPING.iter().any(|(f, _)| *f == From::Role(*role)),
                "{role:?} has no row"
            );
        }
        assert_eq!(
            element_type(Role::TextField, "AXTextField", Some("AXSearchField")),
            45
        );
        assert_eq!(element_type(Role::Unknown, "AXRuler", None), 71);
        assert_eq!(element_type(Role::Button, "push button", None), 9);
        assert_eq!(element_type(Role::Unknown, "whatever", None), OTHER);
    }

    #[test]
    fn docs_print_the_table_the_code_has() {
        let docs = include_str!("../../../docs/WEBDRIVER.md");
        assert!(
            docs.contains(&markdown_table()),
            "docs/WEBDRIVER.md (\"Element types\") must print roles::markdown_table() as it is"
        );
    }
}
