//! Writes an `axgate-recording/1` file from generic attribute reads: the platform-neutral
//! half of `axgate record`. A [`RecordSource`] (the macOS adapter, or a test's tree) reads
//! one element's attributes, actions, settable names and children per call; [`record`] walks
//! the app in pre-order within a node count and a deadline, guards against cycles, drops a
//! secure field's value at once (it is never stored), caps long texts, turns element
//! references into `{"ref": id}` (ids only where referenced; a reference to an element
//! outside the recording is left out) and returns the JSON.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::format::FORMAT;
use crate::mac_logic::budget::MAX_VALUE_CHARS;
use crate::mac_logic::decode::{NODE_ATTRS, WINDOW_ATTRS, cap_text};

/// Attributes recorded beyond what a snapshot reads: the app's windows and front state, a
/// window's buttons ([`BUTTON_ATTRS`]), and the role description.
const EXTRA_ATTRS: &[&str] = &["AXWindows", "AXFrontmost"];

/// A window's buttons, in the order the title bar shows them (recorded as references).
pub const BUTTON_ATTRS: &[&str] = &[
    "AXCloseButton",
    "AXMinimizeButton",
    "AXZoomButton",
    "AXFullScreenButton",
    "AXDefaultButton",
    "AXCancelButton",
];

/// Values a secure text field must never give away.
pub const SECRET_ATTRS: &[&str] = &["AXValue", "AXSelectedText", "AXNumberOfCharacters"];

/// Every attribute `axgate record` reads per element, in one batch.
pub fn record_attrs() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = NODE_ATTRS.to_vec();
    for name in WINDOW_ATTRS.iter().chain(EXTRA_ATTRS).chain(BUTTON_ATTRS) {
        if !names.contains(name) {
            names.push(name);
        }
    }
    names
}

pub use crate::mac_logic::attr_value::AttrValue;

/// One attribute value as the source read it: `Missing` is recorded as `null`, a `Failed`
/// read as `{"error": code}`, a `List` holds the elements of an array; `Other` is left out.
pub type RecValue<E> = AttrValue<E, Vec<E>>;

/// What one read of one element returns. Attributes the element lacks are left out.
pub struct RecordRead<E> {
    pub attributes: Vec<(String, RecValue<E>)>,
    pub actions: Vec<String>,
    pub settable: Vec<String>,
    pub children: Vec<E>,
}

/// The reads `record` makes.
pub trait RecordSource {
    type Element: Clone + Eq + Hash;
    /// Reads [`record_attrs`], the action names, the settable names and the children of
    /// `element`; `Err` when the element cannot be read at all.
    fn read(&self, element: &Self::Element) -> Result<RecordRead<Self::Element>, String>;
}

/// The app being recorded.
pub struct AppMeta {
    pub name: String,
    pub bundle_id: Option<String>,
    pub pid: u32,
}

/// How far a recording goes.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub max_nodes: usize,
    pub deadline: Instant,
}

/// What a recording holds, for the command's summary.
#[derive(Debug, PartialEq, Eq)]
pub struct Summary {
    pub nodes: usize,
    /// The node count or the deadline stopped the walk, or elements could not be read.
    pub truncated: bool,
}

/// Whether an element's attributes say it is a secure text field.
pub fn is_secure<E>(attributes: &[(String, RecValue<E>)]) -> bool {
    attributes.iter().any(|(name, value)| {
        (name == "AXRole" || name == "AXSubrole")
            && matches!(value, RecValue::Text(t) if t == "AXSecureTextField")
    })
}

/// Removes what a secure field must not give away, and caps long texts.
fn sanitise<E>(attributes: &mut Vec<(String, RecValue<E>)>) {
    if is_secure(attributes) {
        attributes.retain(|(name, _)| !SECRET_ATTRS.contains(&name.as_str()));
    }
    for (_, value) in attributes.iter_mut() {
        if let RecValue::Text(t) = value
            && t.chars().count() > MAX_VALUE_CHARS
        {
            *t = cap_text(t, MAX_VALUE_CHARS);
        }
    }
}

struct Walked<E> {
    attributes: Vec<(String, RecValue<E>)>,
    actions: Vec<String>,
    settable: Vec<String>,
    children: Vec<usize>,
}

/// Records the subtree of `root` (the app element) and returns the file's JSON.
pub fn record<S: RecordSource>(
    source: &S,
    root: S::Element,
    app: AppMeta,
    os: Option<String>,
    bounds: Bounds,
) -> Result<(Value, Summary), String> {
    let mut nodes: Vec<Walked<S::Element>> = Vec::new();
    let mut index: HashMap<S::Element, usize> = HashMap::new();
    let mut truncated = false;
    // (element, parent index)
    let mut stack = vec![(root, None::<usize>)];
    while let Some((element, parent)) = stack.pop() {
        if nodes.len() >= bounds.max_nodes.max(1) || Instant::now() >= bounds.deadline {
            truncated = true;
            break;
        }
        let read = match source.read(&element) {
            Ok(read) => read,
            Err(e) if nodes.is_empty() => return Err(e),
            Err(_) => {
                truncated = true;
                continue;
            }
        };
        let mut attributes = read.attributes;
        sanitise(&mut attributes);
        let at = nodes.len();
        index.insert(element, at);
        if let Some(p) = parent {
            nodes[p].children.push(at);
        }
        let fresh: Vec<S::Element> = read
            .children
            .into_iter()
            .filter(|c| !index.contains_key(c))
            .collect();
        stack.extend(fresh.into_iter().rev().map(|c| (c, Some(at))));
        nodes.push(Walked {
            attributes,
            actions: read.actions,
            settable: read.settable,
            children: Vec::new(),
        });
    }
    if nodes.is_empty() {
        return Err("the time ran out before the app element was read; give it more time".into());
    }
    let mut referenced = HashSet::new();
    for node in &nodes {
        for (_, value) in &node.attributes {
            match value {
                RecValue::Element(e) => referenced.extend(index.get(e)),
                RecValue::List(list) => referenced.extend(list.iter().filter_map(|e| index.get(e))),
                _ => {}
            }
        }
    }
    let json_of = |i: usize| -> Value { node_json(&nodes, i, &index, &referenced) };
    let summary = Summary {
        nodes: nodes.len(),
        truncated,
    };
    let file = json!({
        "format": FORMAT,
        "os": os,
        "apps": [{
            "name": app.name,
            "bundle_id": app.bundle_id,
            "pid": app.pid,
            "root": json_of(0),
        }],
    });
    Ok((file, summary))
}

fn node_json<E: Eq + Hash>(
    nodes: &[Walked<E>],
    at: usize,
    index: &HashMap<E, usize>,
    referenced: &HashSet<usize>,
) -> Value {
    let node = &nodes[at];
    let reference = |e: &E| index.get(e).map(|i| json!({ "ref": format!("n{i}") }));
    let mut attributes = Map::new();
    for (name, value) in &node.attributes {
        let json = match value {
            RecValue::Missing => Value::Null,
            RecValue::Text(t) => json!(t),
            RecValue::Number(n) => json!(n),
            RecValue::Bool(b) => json!(b),
            RecValue::Point { x, y } => json!({"x": x, "y": y}),
            RecValue::Size { w, h } => json!({"w": w, "h": h}),
            RecValue::Rect(r) => json!({"x": r.x, "y": r.y, "w": r.w, "h": r.h}),
            RecValue::Failed(code) => json!({ "error": code }),
            RecValue::Element(e) => match reference(e) {
                Some(r) => r,
                None => continue,
            },
            RecValue::List(list) => Value::Array(list.iter().filter_map(reference).collect()),
            RecValue::Other => continue,
        };
        attributes.insert(name.clone(), json);
    }
    let mut out = Map::new();
    if referenced.contains(&at) {
        out.insert("id".into(), json!(format!("n{at}")));
    }
    out.insert("attributes".into(), Value::Object(attributes));
    if !node.actions.is_empty() {
        out.insert("actions".into(), json!(node.actions));
    }
    if !node.settable.is_empty() {
        out.insert("settable".into(), json!(node.settable));
    }
    if !node.children.is_empty() {
        let children: Vec<Value> = node
            .children
            .iter()
            .map(|c| node_json(nodes, *c, index, referenced))
            .collect();
        out.insert("children".into(), Value::Array(children));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::format::Recording;
    use super::*;

    type Attrs = Vec<(String, RecValue<u32>)>;

    /// element → (attributes, children)
    struct Tree(HashMap<u32, (Attrs, Vec<u32>)>);

    impl RecordSource for Tree {
        type Element = u32;
        fn read(&self, element: &u32) -> Result<RecordRead<u32>, String> {
            let (attributes, children) = self.0.get(element).ok_or("gone")?.clone();
            Ok(RecordRead {
                attributes,
                actions: vec!["AXPress".into()],
                settable: Vec::new(),
                children,
            })
        }
    }

    fn text(name: &str, value: &str) -> (String, RecValue<u32>) {
        (name.into(), RecValue::Text(value.into()))
    }

    fn app() -> Tree {
        let mut t = HashMap::new();
        t.insert(
            0,
            (
                vec![
                    text("AXRole", "AXApplication"),
                    ("AXWindows".into(), RecValue::List(vec![1])),
                ],
                vec![1],
            ),
        );
        t.insert(
            1,
            (
                vec![
                    text("AXRole", "AXWindow"),
                    text("AXTitle", ""),
                    ("AXTitleUIElement".into(), RecValue::Element(2)),
                    ("AXPosition".into(), RecValue::Point { x: 0.0, y: 25.0 }),
                    ("AXParent".into(), RecValue::Element(99)),
                ],
                vec![2, 3, 0],
            ),
        );
        t.insert(
            2,
            (
                vec![text("AXRole", "AXStaticText"), text("AXValue", "Settings")],
                vec![],
            ),
        );
        t.insert(
            3,
            (
                vec![
                    text("AXRole", "AXTextField"),
                    text("AXSubrole", "AXSecureTextField"),
                    text("AXValue", "hunter2"),
                ],
                vec![4],
            ),
        );
        t.insert(4, (vec![text("AXRole", "AXStaticText")], vec![]));
        Tree(t)
    }

    fn meta() -> AppMeta {
        AppMeta {
            name: "Settings".into(),
            bundle_id: Some("com.example.settings".into()),
            pid: 7,
        }
    }

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn a_recording_reads_back_with_references_and_no_secrets() {
        let bounds = Bounds {
            max_nodes: 100,
            deadline: far(),
        };
        let (json, summary) = record(&app(), 0, meta(), Some("macOS 15.5".into()), bounds).unwrap();
        assert_eq!(
            summary,
            Summary {
                nodes: 5,
                truncated: false
            }
        );
        let text = serde_json::to_string(&json).unwrap();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(
            !text.contains("AXParent"),
            "a reference out of the recording is left out"
        );
        let r = Recording::parse(&text).unwrap();
        assert_eq!(
            r.nodes.len(),
            5,
            "the cycle back to the app is not followed"
        );
        assert_eq!(r.nodes[0].lists["AXWindows"], [1]);
        assert_eq!(
            r.nodes[1].attributes["AXTitleUIElement"],
            super::super::format::Recorded::Element(2)
        );
    }

    #[test]
    fn the_node_count_and_the_deadline_bound_it() {
        let (_, summary) = record(
            &app(),
            0,
            meta(),
            None,
            Bounds {
                max_nodes: 2,
                deadline: far(),
            },
        )
        .unwrap();
        assert_eq!(
            summary,
            Summary {
                nodes: 2,
                truncated: true
            }
        );
        let expired = Bounds {
            max_nodes: 100,
            deadline: Instant::now(),
        };
        assert!(
            record(&app(), 0, meta(), None, expired)
                .unwrap_err()
                .contains("time")
        );
        assert!(
            record(
                &app(),
                42,
                meta(),
                None,
                Bounds {
                    max_nodes: 9,
                    deadline: far()
                }
            )
            .is_err()
        );
    }

    #[test]
    fn long_texts_are_capped() {
        let mut tree = app();
        tree.0.get_mut(&2).unwrap().0[1] = text("AXValue", &"x".repeat(MAX_VALUE_CHARS + 5));
        let (json, _) = record(
            &tree,
            0,
            meta(),
            None,
            Bounds {
                max_nodes: 100,
                deadline: far(),
            },
        )
        .unwrap();
        assert!(json.to_string().contains(&"x".repeat(MAX_VALUE_CHARS)));
        assert!(!json.to_string().contains(&"x".repeat(MAX_VALUE_CHARS + 1)));
    }
}
