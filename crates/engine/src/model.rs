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

/// The normalised role vocabulary (in `axgate_parse`, which the element path grammar uses).
pub use axgate_parse::role::Role;

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
    /// The accessible name: what a person hears from a screen reader and what paths
    /// (`button["Search"]`), `find`, handles and the compact text use. Each backend computes it
    /// from its own fields the way its platform's assistive technology does (docs/TOOLS.md,
    /// "Names"); `None` when the element has no name at all.
    pub name: Option<String>,
    /// The raw fields the name may come from, kept for `get_element` and for `find` asked for
    /// one field: the platform's title (macOS `AXTitle`, AT-SPI name)…
    pub title: Option<String>,
    /// …its description (macOS `AXDescription`, which `setAccessibilityLabel` sets; AT-SPI
    /// description)…
    pub description: Option<String>,
    /// …the hint text an empty field shows (macOS `AXPlaceholderValue`)…
    pub placeholder: Option<String>,
    /// …the tooltip (macOS `AXHelp`, AT-SPI tooltip text)…
    pub help: Option<String>,
    /// …and the developer's identifier (macOS `AXIdentifier`, AT-SPI `accessible-id`).
    pub identifier: Option<String>,
    pub value: Option<AxValue>,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub frame: Option<Rect>,
    /// Where a pointer click activates the element (macOS `AXActivationPoint`), in global
    /// points, when the backend knows it; see [`RawNode::click_point`].
    pub activation_point: Option<(f64, f64)>,
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
            name: None,
            title: None,
            description: None,
            placeholder: None,
            help: None,
            identifier: None,
            value: None,
            min_value: None,
            max_value: None,
            frame: None,
            activation_point: None,
            states: States::default(),
            actions: Vec::new(),
            child_count: 0,
        }
    }

    /// The label a person would read: the accessible name, else (for a backend that does not
    /// compute one yet) the title, else the description.
    pub fn label(&self) -> Option<&str> {
        self.name
            .as_deref()
            .filter(|n| !n.is_empty())
            .or(self.title.as_deref().filter(|t| !t.is_empty()))
            .or(self.description.as_deref().filter(|d| !d.is_empty()))
    }

    /// Where a pointer click on the element goes: its activation point when the backend
    /// reports one inside (or on the edge of) the frame, else the frame's centre; `None`
    /// without a frame. A point outside the frame is distrusted: it would click elsewhere.
    pub fn click_point(&self) -> Option<(f64, f64)> {
        let frame = self.frame?;
        let inside = |&(x, y): &(f64, f64)| {
            x.is_finite()
                && y.is_finite()
                && x >= frame.x
                && y >= frame.y
                && x <= frame.x + frame.w
                && y <= frame.y + frame.h
        };
        Some(
            self.activation_point
                .filter(inside)
                .unwrap_or(frame.center()),
        )
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
    fn clicks_go_to_the_activation_point_when_it_is_inside_the_frame() {
        let mut node = RawNode::new(NodeId(1), Role::Button, "AXButton");
        assert_eq!(node.click_point(), None);
        node.frame = Some(Rect {
            x: 10.0,
            y: 20.0,
            w: 100.0,
            h: 40.0,
        });
        assert_eq!(node.click_point(), Some((60.0, 40.0)));
        node.activation_point = Some((15.0, 25.0));
        assert_eq!(node.click_point(), Some((15.0, 25.0)));
        node.activation_point = Some((110.0, 60.0));
        assert_eq!(
            node.click_point(),
            Some((110.0, 60.0)),
            "the edge is inside"
        );
        node.activation_point = Some((500.0, 25.0));
        assert_eq!(
            node.click_point(),
            Some((60.0, 40.0)),
            "outside: the centre"
        );
        node.activation_point = Some((f64::NAN, 25.0));
        assert_eq!(node.click_point(), Some((60.0, 40.0)));
    }

    #[test]
    fn secure_values_are_hidden() {
        let mut node = RawNode::new(NodeId(1), Role::SecureTextField, "AXTextField");
        node.value = Some(AxValue::Text("hunter2".into()));
        node.states.secure = true;
        assert_eq!(node.visible_value(), None);
    }
}
