//! Turns the slots of one batched attribute read into engine types: a [`RawNode`] for a
//! snapshot node, the fields of a [`WindowInfo`]. Plain Rust with no Apple types: `attrs.rs`
//! converts Core Foundation values into [`AttrValue`] first, so every decision here (roles,
//! secure values, toggles, frames, visibility) is testable on any host.

use axgate_engine::{AxValue, NodeId, RawNode, Rect, Role};

use super::{budget, naming, roles};

pub(crate) use super::attr_value::AttrValue;

impl AttrValue {
    fn text(&self) -> Option<&str> {
        match self {
            AttrValue::Text(s) if !s.is_empty() => Some(s),
            _ => None,
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            AttrValue::Number(n) if n.is_finite() => Some(*n),
            _ => None,
        }
    }

    fn flag(&self) -> Option<bool> {
        match self {
            AttrValue::Bool(b) => Some(*b),
            AttrValue::Number(n) => Some(*n != 0.0),
            _ => None,
        }
    }
}

/// Every attribute a snapshot node needs, fetched in one round trip.
pub(crate) const NODE_ATTRS: &[&str] = &[
    "AXRole",
    "AXSubrole",
    "AXTitle",
    "AXDescription",
    "AXIdentifier",
    "AXValue",
    "AXMinValue",
    "AXMaxValue",
    "AXPosition",
    "AXSize",
    "AXEnabled",
    "AXFocused",
    "AXSelected",
    "AXExpanded",
    "AXMinimized",
    "AXActivationPoint",
    // Naming (`naming`): the role description refines SwiftUI lists; the placeholder and
    // the linked label can name an element; the help text is kept for `get_element`.
    "AXRoleDescription",
    "AXPlaceholderValue",
    "AXHelp",
    "AXTitleUIElement",
];

/// The slot in [`NODE_ATTRS`] and [`WINDOW_ATTRS`] that holds the linked label element.
pub(crate) const LINK_ATTR: &str = "AXTitleUIElement";

/// Every attribute `list_windows` needs per window, fetched in one round trip.
pub(crate) const WINDOW_ATTRS: &[&str] = &[
    "AXTitle",
    "AXPosition",
    "AXSize",
    "AXFocused",
    "AXMain",
    "AXMinimized",
    "AXTitleUIElement",
];

static MISSING: AttrValue = AttrValue::Missing;

/// The slot of `name` in a read of `names`; missing when the read came back short.
fn slot<'a>(names: &[&str], values: &'a [AttrValue], name: &str) -> &'a AttrValue {
    names
        .iter()
        .position(|n| *n == name)
        .and_then(|i| values.get(i))
        .unwrap_or(&MISSING)
}

/// The error code shared by every slot, when all of them failed alike (an element that died
/// or an app that stopped answering mid-read); `None` when any slot holds anything else.
pub(crate) fn uniform_failure(values: &[AttrValue]) -> Option<i32> {
    let AttrValue::Failed(first) = values.first()? else {
        return None;
    };
    values
        .iter()
        .all(|v| *v == AttrValue::Failed(*first))
        .then_some(*first)
}

/// A frame from `AXPosition` and `AXSize`, both in global top-left points.
pub(crate) fn frame(position: &AttrValue, size: &AttrValue) -> Option<Rect> {
    match (position, size) {
        (AttrValue::Point { x, y }, AttrValue::Size { w, h })
            if [x, y, w, h].iter().all(|v| v.is_finite()) =>
        {
            Some(Rect {
                x: *x,
                y: *y,
                w: *w,
                h: *h,
            })
        }
        (AttrValue::Rect(r), _) => Some(*r),
        _ => None,
    }
}

/// A snapshot node from a read of [`NODE_ATTRS`]. The id, parent, actions, settable flag and
/// child count are filled in by the caller. A secure field's value is dropped here, at the
/// source: it is never returned, logged or audited.
pub(crate) fn decode_node(values: &[AttrValue]) -> RawNode {
    let get = |name| slot(NODE_ATTRS, values, name);
    let native = get("AXRole").text().unwrap_or("AXUnknown");
    let subrole = get("AXSubrole").text();
    let role = naming::refine_role(
        roles::normalise(native, subrole),
        native,
        get("AXRoleDescription").text(),
    );
    let mut node = RawNode::new(NodeId(0), role, native);
    node.subrole = subrole.map(str::to_owned);
    node.title = get("AXTitle").text().map(str::to_owned);
    node.description = get("AXDescription").text().map(str::to_owned);
    node.placeholder = get("AXPlaceholderValue").text().map(str::to_owned);
    node.help = get("AXHelp").text().map(str::to_owned);
    node.identifier = get("AXIdentifier").text().map(str::to_owned);
    node.states.secure = role == Role::SecureTextField;
    if !node.states.secure {
        node.value = value(role, get("AXValue"));
    }
    node.min_value = get("AXMinValue").number();
    node.max_value = get("AXMaxValue").number();
    node.frame = frame(get("AXPosition"), get("AXSize"));
    node.activation_point = match get("AXActivationPoint") {
        AttrValue::Point { x, y } if x.is_finite() && y.is_finite() => Some((*x, *y)),
        _ => None,
    };
    node.states.enabled = get("AXEnabled").flag().unwrap_or(true);
    node.states.focused = get("AXFocused").flag().unwrap_or(false);
    node.states.expanded = get("AXExpanded").flag().unwrap_or(false);
    let chosen =
        matches!(role, Role::RadioButton | Role::Tab) && node.value == Some(AxValue::Bool(true));
    node.states.selected = get("AXSelected").flag().unwrap_or(false) || chosen;
    let minimized = get("AXMinimized").flag().unwrap_or(false);
    let collapsed = node.frame.is_some_and(|f| f.w <= 0.0 || f.h <= 0.0);
    node.states.visible = !minimized && !collapsed;
    node.name = naming::own_name(&node);
    node
}

/// Whether a node read from `values` (a read of [`NODE_ATTRS`]) and decoded as `node`
/// should have its linked label read (see `naming`): only then is it worth a round trip.
pub(crate) fn wants_linked_label(node: &RawNode, values: &[AttrValue]) -> bool {
    naming::wants_linked_label(node, slot(NODE_ATTRS, values, LINK_ATTR))
}

/// An element's `AXValue` as an engine value. Toggles (check boxes, radio buttons, tabs)
/// report 0/1 numbers, which become booleans; a mixed check box (2) stays a number. Text
/// is capped at [`budget::MAX_VALUE_CHARS`] characters.
fn value(role: Role, raw: &AttrValue) -> Option<AxValue> {
    match raw {
        AttrValue::Text(s) => Some(AxValue::Text(cap_text(s, budget::MAX_VALUE_CHARS))),
        AttrValue::Bool(b) => Some(AxValue::Bool(*b)),
        AttrValue::Number(n) if roles::is_toggle(role) && (*n == 0.0 || *n == 1.0) => {
            Some(AxValue::Bool(*n == 1.0))
        }
        AttrValue::Number(n) if n.is_finite() => Some(AxValue::Number(*n)),
        _ => None,
    }
}

/// The first `max` characters of `text` (a document in a text area can be megabytes; the
/// engine compares and renders values, it does not need whole documents).
pub(crate) fn cap_text(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}

/// Completes a node once its actions are known: editable roles report a writable value
/// (checked against the app at write time), and so does a toggle that can be pressed,
/// because `set_value` writes toggles by pressing them.
pub(crate) fn finish_states(node: &mut RawNode) {
    if roles::implies_settable(node.role)
        || (roles::is_toggle(node.role) && node.actions.iter().any(|a| a == "press"))
    {
        node.states.value_settable = true;
    }
}

/// The fields of one window from a read of [`WINDOW_ATTRS`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WindowFields {
    pub(crate) title: Option<String>,
    pub(crate) frame: Option<Rect>,
    pub(crate) focused: bool,
    pub(crate) minimized: bool,
}

impl WindowFields {
    /// Whether the window's title must come from its linked label: `AXTitle` is empty and
    /// `AXTitleUIElement` holds an element (System Settings, About This Mac).
    pub(crate) fn wants_linked_label(&self, values: &[AttrValue]) -> bool {
        self.title.is_none() && *slot(WINDOW_ATTRS, values, LINK_ATTR) == AttrValue::Element(())
    }

    /// Takes the title from a read of `naming::LABEL_ATTRS` of the linked label.
    pub(crate) fn apply_linked_label(&mut self, label_values: &[AttrValue]) {
        if self.title.is_none() {
            self.title = naming::linked_label(label_values);
        }
    }
}

/// Decodes a window read. `focused` is the window's `AXFocused` (key window), falling back to
/// `AXMain` for apps that only report that.
pub(crate) fn decode_window(values: &[AttrValue]) -> WindowFields {
    let get = |name| slot(WINDOW_ATTRS, values, name);
    WindowFields {
        title: get("AXTitle").text().map(str::to_owned),
        frame: frame(get("AXPosition"), get("AXSize")),
        focused: get("AXFocused")
            .flag()
            .or_else(|| get("AXMain").flag())
            .unwrap_or(false),
        minimized: get("AXMinimized").flag().unwrap_or(false),
    }
}

/// How errors name an element: its role and label, never its value.
pub(crate) fn describe(node: &RawNode) -> String {
    let role = if node.role == Role::Unknown {
        node.native_role.as_str()
    } else {
        node.role.as_str()
    };
    match node.label() {
        Some(label) => format!("{role} {label:?}"),
        None => role.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, AttrValue)]) -> Vec<AttrValue> {
        NODE_ATTRS
            .iter()
            .map(|name| {
                pairs
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(AttrValue::Missing, |(_, v)| v.clone())
            })
            .collect()
    }

    fn text(s: &str) -> AttrValue {
        AttrValue::Text(s.to_owned())
    }

    #[test]
    fn button_with_frame() {
        let node = decode_node(&read(&[
            ("AXRole", text("AXButton")),
            ("AXTitle", text("Save")),
            ("AXPosition", AttrValue::Point { x: 10.0, y: 20.0 }),
            ("AXSize", AttrValue::Size { w: 80.0, h: 24.0 }),
            ("AXEnabled", AttrValue::Bool(false)),
        ]));
        assert_eq!(node.role, Role::Button);
        assert_eq!(node.native_role, "AXButton");
        assert_eq!(node.title.as_deref(), Some("Save"));
        assert_eq!(
            node.frame,
            Some(Rect {
                x: 10.0,
                y: 20.0,
                w: 80.0,
                h: 24.0
            })
        );
        assert!(!node.states.enabled);
        assert!(node.states.visible);
        assert_eq!(describe(&node), "button \"Save\"");
    }

    #[test]
    fn missing_attributes_take_defaults() {
        let node = decode_node(&read(&[]));
        assert_eq!(node.role, Role::Unknown);
        assert_eq!(node.native_role, "AXUnknown");
        assert!(node.states.enabled);
        assert!(node.states.visible);
        assert_eq!(node.value, None);
        assert_eq!(node.frame, None);
    }

    #[test]
    fn short_reads_are_missing_slots() {
        let node = decode_node(&[text("AXButton")]);
        assert_eq!(node.role, Role::Button);
        assert_eq!(node.title, None);
    }

    #[test]
    fn secure_field_value_is_dropped_at_the_source() {
        let node = decode_node(&read(&[
            ("AXRole", text("AXTextField")),
            ("AXSubrole", text("AXSecureTextField")),
            ("AXValue", text("hunter2")),
        ]));
        assert_eq!(node.role, Role::SecureTextField);
        assert!(node.states.secure);
        assert_eq!(node.value, None);
    }

    #[test]
    fn toggles_read_as_booleans() {
        let on = decode_node(&read(&[
            ("AXRole", text("AXCheckBox")),
            ("AXValue", AttrValue::Number(1.0)),
        ]));
        assert_eq!(on.value, Some(AxValue::Bool(true)));
        assert!(!on.states.selected);
        let mixed = decode_node(&read(&[
            ("AXRole", text("AXCheckBox")),
            ("AXValue", AttrValue::Number(2.0)),
        ]));
        assert_eq!(mixed.value, Some(AxValue::Number(2.0)));
        let tab = decode_node(&read(&[
            ("AXRole", text("AXRadioButton")),
            ("AXSubrole", text("AXTabButton")),
            ("AXValue", AttrValue::Number(1.0)),
        ]));
        assert_eq!(tab.role, Role::Tab);
        assert!(tab.states.selected);
    }

    #[test]
    fn sliders_keep_numbers_and_range() {
        let node = decode_node(&read(&[
            ("AXRole", text("AXSlider")),
            ("AXValue", AttrValue::Number(0.25)),
            ("AXMinValue", AttrValue::Number(0.0)),
            ("AXMaxValue", AttrValue::Number(1.0)),
        ]));
        assert_eq!(node.value, Some(AxValue::Number(0.25)));
        assert_eq!((node.min_value, node.max_value), (Some(0.0), Some(1.0)));
    }

    #[test]
    fn minimized_and_empty_frames_are_invisible() {
        let minimized = decode_node(&read(&[
            ("AXRole", text("AXWindow")),
            ("AXMinimized", AttrValue::Bool(true)),
        ]));
        assert!(!minimized.states.visible);
        let empty = decode_node(&read(&[
            ("AXRole", text("AXMenu")),
            ("AXPosition", AttrValue::Point { x: 0.0, y: 0.0 }),
            ("AXSize", AttrValue::Size { w: 0.0, h: 0.0 }),
        ]));
        assert!(!empty.states.visible);
    }

    #[test]
    fn empty_strings_are_absent() {
        let node = decode_node(&read(&[
            ("AXRole", text("AXGroup")),
            ("AXTitle", text("")),
            ("AXIdentifier", text("")),
        ]));
        assert_eq!(node.title, None);
        assert_eq!(node.identifier, None);
        assert_eq!(describe(&node), "group");
    }

    #[test]
    fn unknown_roles_are_described_natively() {
        let node = decode_node(&read(&[
            ("AXRole", text("AXHeading")),
            ("AXDescription", text("Intro")),
        ]));
        assert_eq!(describe(&node), "AXHeading \"Intro\"");
    }

    #[test]
    fn pressable_toggles_are_settable() {
        let mut node = decode_node(&read(&[("AXRole", text("AXCheckBox"))]));
        finish_states(&mut node);
        assert!(!node.states.value_settable);
        node.actions = vec!["press".into()];
        finish_states(&mut node);
        assert!(node.states.value_settable);
    }

    #[test]
    fn editable_roles_are_settable_without_asking() {
        let mut node = decode_node(&read(&[("AXRole", text("AXTextField"))]));
        finish_states(&mut node);
        assert!(node.states.value_settable);
        let mut label = decode_node(&read(&[("AXRole", text("AXStaticText"))]));
        finish_states(&mut label);
        assert!(!label.states.value_settable);
    }

    #[test]
    fn activation_points_are_read_when_present() {
        let node = decode_node(&read(&[
            ("AXRole", text("AXButton")),
            ("AXActivationPoint", AttrValue::Point { x: 12.0, y: 30.0 }),
        ]));
        assert_eq!(node.activation_point, Some((12.0, 30.0)));
        let none = decode_node(&read(&[("AXRole", text("AXButton"))]));
        assert_eq!(none.activation_point, None);
        let nan = decode_node(&read(&[(
            "AXActivationPoint",
            AttrValue::Point {
                x: f64::NAN,
                y: 1.0,
            },
        )]));
        assert_eq!(nan.activation_point, None);
    }

    #[test]
    fn large_text_values_are_capped() {
        let long = "é".repeat(budget::MAX_VALUE_CHARS + 10);
        let node = decode_node(&read(&[
            ("AXRole", text("AXTextArea")),
            ("AXValue", AttrValue::Text(long)),
        ]));
        let Some(AxValue::Text(value)) = node.value else {
            panic!("{:?}", node.value)
        };
        assert_eq!(value.chars().count(), budget::MAX_VALUE_CHARS);
        assert_eq!(cap_text("abc", 2), "ab");
        assert_eq!(cap_text("abc", 5), "abc");
    }

    #[test]
    fn uniform_failures_are_detected() {
        assert_eq!(uniform_failure(&[]), None);
        assert_eq!(
            uniform_failure(&[AttrValue::Failed(-25202), AttrValue::Failed(-25202)]),
            Some(-25202)
        );
        assert_eq!(
            uniform_failure(&[AttrValue::Failed(-25202), AttrValue::Missing]),
            None
        );
        assert_eq!(
            uniform_failure(&[AttrValue::Failed(-25202), AttrValue::Failed(-25204)]),
            None
        );
    }

    #[test]
    fn windows_fall_back_to_main() {
        let values = vec![
            text("Untitled"),
            AttrValue::Point { x: 0.0, y: 25.0 },
            AttrValue::Size { w: 800.0, h: 600.0 },
            AttrValue::Missing,
            AttrValue::Bool(true),
            AttrValue::Bool(false),
        ];
        let w = decode_window(&values);
        assert_eq!(w.title.as_deref(), Some("Untitled"));
        assert!(w.focused);
        assert!(!w.minimized);
        assert_eq!(w.frame.map(|f| f.h), Some(600.0));
    }

    #[test]
    fn names_come_from_the_batch_as_voiceover_computes_them() {
        let swiftui = decode_node(&read(&[
            ("AXRole", text("AXButton")),
            ("AXDescription", text("New Chat")),
            ("AXHelp", text("Start a chat")),
        ]));
        assert_eq!(swiftui.name.as_deref(), Some("New Chat"));
        assert_eq!(swiftui.title, None);
        assert_eq!(swiftui.help.as_deref(), Some("Start a chat"));
        let field = decode_node(&read(&[
            ("AXRole", text("AXTextField")),
            ("AXPlaceholderValue", text("Name")),
            ("AXTitleUIElement", AttrValue::Element(())),
        ]));
        assert_eq!(field.name.as_deref(), Some("Name"));
        assert_eq!(field.placeholder.as_deref(), Some("Name"));
        let values = read(&[
            ("AXRole", text("AXTextField")),
            ("AXTitleUIElement", AttrValue::Element(())),
        ]);
        assert!(wants_linked_label(&field, &values));
        assert!(!wants_linked_label(&swiftui, &values));
        assert!(!wants_linked_label(
            &field,
            &read(&[("AXRole", text("AXTextField"))])
        ));
        let label = decode_node(&read(&[
            ("AXRole", text("AXStaticText")),
            ("AXValue", text("Message")),
        ]));
        assert_eq!(label.name.as_deref(), Some("Message"));
    }

    #[test]
    fn a_list_is_known_by_its_role_description() {
        let list = decode_node(&read(&[
            ("AXRole", text("AXTable")),
            ("AXRoleDescription", text("list")),
        ]));
        assert_eq!(list.role, Role::List);
        assert_eq!(list.native_role, "AXTable");
    }

    #[test]
    fn untitled_windows_take_the_linked_title() {
        let mut values = vec![AttrValue::Text(String::new()); 1];
        values.resize(WINDOW_ATTRS.len(), AttrValue::Missing);
        values[WINDOW_ATTRS.len() - 1] = AttrValue::Element(());
        let mut w = decode_window(&values);
        assert!(w.wants_linked_label(&values));
        w.apply_linked_label(&[AttrValue::Missing, text("System Settings")]);
        assert_eq!(w.title.as_deref(), Some("System Settings"));
        let titled = decode_window(&[text("Calculator")]);
        assert!(!titled.wants_linked_label(&values));
    }

    #[test]
    fn frames_need_finite_numbers() {
        assert_eq!(
            frame(
                &AttrValue::Point {
                    x: f64::NAN,
                    y: 0.0
                },
                &AttrValue::Size { w: 1.0, h: 1.0 }
            ),
            None
        );
        assert_eq!(frame(&AttrValue::Missing, &AttrValue::Missing), None);
    }
}
