//! The element model every backend produces: normalised roles (with the native role kept
//! beside them), values, frames, states and actions. Engine types only; no serde here.

use std::fmt;

/// A process id on the target machine.
pub type Pid = u32;

/// A backend's opaque reference to one element of one app. Only meaningful to the backend
/// that minted it, and only together with the app's pid. Backends keep whatever table they
/// need behind it (macOS: retained `AXUIElement`s; AT-SPI: object paths; demo: node ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u64);

/// The normalised role vocabulary shared by paths, queries and output. One table per backend
/// maps native roles onto it; anything unmapped becomes [`Role::Unknown`] and keeps its
/// native name in [`RawNode::native_role`].
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

/// An element's value, as the engine sees it after backend conversion.
#[derive(Clone, Debug, PartialEq)]
pub enum AxValue {
    Text(String),
    Bool(bool),
    Number(f64),
}

impl fmt::Display for AxValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxValue::Text(s) => f.write_str(s),
            AxValue::Bool(b) => write!(f, "{b}"),
            AxValue::Number(n) => write!(f, "{n}"),
        }
    }
}

/// A rectangle in global screen points, origin at the primary display's top-left.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }

    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.w && y < self.y + self.h
    }

    /// Whether the two rects share any area.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }
}

/// Boolean states of an element. Backends fill what they know; unknown states stay false
/// except `enabled` and `visible`, which default to true.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct States {
    pub enabled: bool,
    pub visible: bool,
    pub focused: bool,
    pub selected: bool,
    pub expanded: bool,
    /// A secure (password) field: its value is never returned, logged or audited.
    pub secure: bool,
    /// Whether the element's value can be written.
    pub value_settable: bool,
}

impl Default for States {
    fn default() -> Self {
        States {
            enabled: true,
            visible: true,
            focused: false,
            selected: false,
            expanded: false,
            secure: false,
            value_settable: false,
        }
    }
}

/// One element as read from a backend, in a snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct RawNode {
    pub id: NodeId,
    /// Index of the parent within the same snapshot; `None` for the snapshot's root.
    pub parent: Option<usize>,
    pub role: Role,
    /// The platform's own role name (`AXButton`, `push button`, …).
    pub native_role: String,
    pub subrole: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub identifier: Option<String>,
    pub value: Option<AxValue>,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub frame: Option<Rect>,
    pub states: States,
    /// Normalised action names (`press`, `increment`, `show_menu`, …).
    pub actions: Vec<String>,
    /// How many children the element has, even when the snapshot did not descend into them.
    pub child_count: usize,
}

impl RawNode {
    /// A node with only the essentials set; backends fill the rest.
    pub fn new(id: NodeId, role: Role, native_role: impl Into<String>) -> Self {
        RawNode {
            id,
            parent: None,
            role,
            native_role: native_role.into(),
            subrole: None,
            title: None,
            description: None,
            identifier: None,
            value: None,
            min_value: None,
            max_value: None,
            frame: None,
            states: States::default(),
            actions: Vec::new(),
            child_count: 0,
        }
    }

    /// The label a person would read: the title, else the description.
    pub fn label(&self) -> Option<&str> {
        self.title
            .as_deref()
            .filter(|t| !t.is_empty())
            .or(self.description.as_deref().filter(|d| !d.is_empty()))
    }

    /// The value, unless the element is a secure field.
    pub fn visible_value(&self) -> Option<&AxValue> {
        if self.states.secure {
            None
        } else {
            self.value.as_ref()
        }
    }
}

/// A running application as discovered by a backend.
#[derive(Clone, Debug, PartialEq)]
pub struct AppInfo {
    pub pid: Pid,
    pub name: String,
    /// macOS bundle id; on other platforms a stable identifier when one exists.
    pub bundle_id: Option<String>,
    /// Process start time in seconds since the epoch (guards against pid reuse).
    pub started_at: u64,
    pub frontmost: bool,
}

/// A window of an application, from `list_windows`.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowInfo {
    pub node: NodeId,
    pub title: Option<String>,
    pub frame: Option<Rect>,
    pub focused: bool,
    pub minimized: bool,
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

    #[test]
    fn secure_values_are_hidden() {
        let mut node = RawNode::new(NodeId(1), Role::SecureTextField, "AXTextField");
        node.value = Some(AxValue::Text("hunter2".into()));
        node.states.secure = true;
        assert_eq!(node.visible_value(), None);
    }
}
