//! The normalised role vocabulary of the element model: the snake_case names element paths,
//! queries and output use. The engine (`axgate::ax::model`) re-exports [`Role`]; backends map
//! their native roles onto it.

use std::fmt;

/// The normalised role vocabulary shared by paths, queries and output. One table per backend
/// maps native roles onto it; anything unmapped becomes [`Role::Unknown`] and keeps its
/// native name beside it (the engine's `RawNode::native_role`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Application,
    Window,
    Dialog,
    Sheet,
    MenuBar,
    MenuBarItem,
    Menu,
    MenuItem,
    Button,
    CheckBox,
    RadioButton,
    RadioGroup,
    TextField,
    SecureTextField,
    TextArea,
    StaticText,
    Slider,
    SpinButton,
    PopupButton,
    ComboBox,
    List,
    ListItem,
    Table,
    Row,
    Cell,
    Outline,
    Group,
    ScrollArea,
    ScrollBar,
    TabGroup,
    Tab,
    Toolbar,
    Image,
    Link,
    ProgressIndicator,
    Splitter,
    SplitGroup,
    WebArea,
    Label,
    Separator,
    /// A text ruler (`AXRuler`): the bar above a text view that shows tab stops and indents.
    Ruler,
    /// A marker on a ruler (`AXRulerMarker`): a tab stop or an indent, its value the position.
    RulerMarker,
    Unknown,
}

impl Role {
    /// Every role, in the order of the vocabulary table (used by parsers and docs).
    pub const ALL: &'static [Role] = &[
        Role::Application,
        Role::Window,
        Role::Dialog,
        Role::Sheet,
        Role::MenuBar,
        Role::MenuBarItem,
        Role::Menu,
        Role::MenuItem,
        Role::Button,
        Role::CheckBox,
        Role::RadioButton,
        Role::RadioGroup,
        Role::TextField,
        Role::SecureTextField,
        Role::TextArea,
        Role::StaticText,
        Role::Slider,
        Role::SpinButton,
        Role::PopupButton,
        Role::ComboBox,
        Role::List,
        Role::ListItem,
        Role::Table,
        Role::Row,
        Role::Cell,
        Role::Outline,
        Role::Group,
        Role::ScrollArea,
        Role::ScrollBar,
        Role::TabGroup,
        Role::Tab,
        Role::Toolbar,
        Role::Image,
        Role::Link,
        Role::ProgressIndicator,
        Role::Splitter,
        Role::SplitGroup,
        Role::WebArea,
        Role::Label,
        Role::Separator,
        Role::Ruler,
        Role::RulerMarker,
        Role::Unknown,
    ];

    /// The snake_case name used in paths, queries and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Application => "application",
            Role::Window => "window",
            Role::Dialog => "dialog",
            Role::Sheet => "sheet",
            Role::MenuBar => "menu_bar",
            Role::MenuBarItem => "menu_bar_item",
            Role::Menu => "menu",
            Role::MenuItem => "menu_item",
            Role::Button => "button",
            Role::CheckBox => "check_box",
            Role::RadioButton => "radio_button",
            Role::RadioGroup => "radio_group",
            Role::TextField => "text_field",
            Role::SecureTextField => "secure_text_field",
            Role::TextArea => "text_area",
            Role::StaticText => "static_text",
            Role::Slider => "slider",
            Role::SpinButton => "spin_button",
            Role::PopupButton => "popup_button",
            Role::ComboBox => "combo_box",
            Role::List => "list",
            Role::ListItem => "list_item",
            Role::Table => "table",
            Role::Row => "row",
            Role::Cell => "cell",
            Role::Outline => "outline",
            Role::Group => "group",
            Role::ScrollArea => "scroll_area",
            Role::ScrollBar => "scroll_bar",
            Role::TabGroup => "tab_group",
            Role::Tab => "tab",
            Role::Toolbar => "toolbar",
            Role::Image => "image",
            Role::Link => "link",
            Role::ProgressIndicator => "progress_indicator",
            Role::Splitter => "splitter",
            Role::SplitGroup => "split_group",
            Role::WebArea => "web_area",
            Role::Label => "label",
            Role::Separator => "separator",
            Role::Ruler => "ruler",
            Role::RulerMarker => "ruler_marker",
            Role::Unknown => "unknown",
        }
    }

    /// Parses a snake_case role name; `None` for names outside the vocabulary.
    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|r| r.as_str() == name)
    }

    /// Roles whose elements a user acts on directly (used by `interactive_only` filters).
    pub fn is_interactive(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::CheckBox
                | Role::RadioButton
                | Role::TextField
                | Role::SecureTextField
                | Role::TextArea
                | Role::Slider
                | Role::SpinButton
                | Role::PopupButton
                | Role::ComboBox
                | Role::MenuBarItem
                | Role::MenuItem
                | Role::Tab
                | Role::Link
                | Role::ListItem
                | Role::Row
                | Role::Cell
        )
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_round_trip() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(*role));
        }
        assert_eq!(Role::parse("Button"), None);
    }
}
