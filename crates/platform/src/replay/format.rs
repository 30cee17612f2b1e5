//! The `axgate-recording/1` file (docs/RECORDINGS.md): recorded macOS apps, each an
//! `AXApplication` root with its subtree, every node's raw attributes as JSON. Parsed into
//! an arena (one index per node, apps' nodes side by side) with `{"ref": "…"}` links resolved
//! to indexes, so the replay source can answer reads by index.

use std::collections::HashMap;

use axgate_engine::Rect;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::mac_logic::attr_value::AttrValue;

/// The format tag a recording must carry.
pub const FORMAT: &str = "axgate-recording/1";

/// The most nodes one recording may hold (a bound against a runaway file).
pub(crate) const MAX_NODES: usize = 500_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileJson {
    format: String,
    #[serde(default)]
    os: Option<String>,
    apps: Vec<AppJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AppJson {
    name: String,
    #[serde(default)]
    bundle_id: Option<String>,
    pid: u32,
    root: NodeJson,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeJson {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    attributes: Map<String, Value>,
    /// Recorded for readers and for acting once the replay backend can; the walk implies
    /// actions from roles, as on a Mac.
    #[serde(default, rename = "actions")]
    _actions: Vec<String>,
    #[serde(default, rename = "settable")]
    _settable: Vec<String>,
    #[serde(default)]
    children: Vec<NodeJson>,
}

/// One recorded attribute value: `null` is `Missing`, `{"ref": "n3"}` an `Element` resolved
/// to the node's index, `{"error": -25204}` a `Failed` read with that AX error code, an
/// array a `List` by its length (references in it are kept in `Node::lists`).
pub(crate) type Recorded = AttrValue<usize, usize>;

/// One recorded node.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) attributes: HashMap<String, Recorded>,
    /// Arrays of references by attribute name (`AXWindows`), resolved to indexes.
    pub(crate) lists: HashMap<String, Vec<usize>>,
    pub(crate) children: Vec<usize>,
}

/// One recorded app.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) name: String,
    pub(crate) bundle_id: Option<String>,
    pub(crate) pid: u32,
    pub(crate) root: usize,
    /// Its nodes are the arena's `root..end`.
    pub(crate) end: usize,
}

/// A parsed recording.
#[derive(Debug)]
pub struct Recording {
    pub(crate) os: Option<String>,
    pub(crate) apps: Vec<App>,
    pub(crate) nodes: Vec<Node>,
}

impl Recording {
    /// Parses a recording; the error says where the text is wrong and how.
    pub fn parse(text: &str) -> Result<Recording, String> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let file: FileJson = serde_path_to_error::deserialize(de)
            .map_err(|e| format!("not an {FORMAT} file: at `{}`: {}", e.path(), e.inner()))?;
        if file.format != FORMAT {
            return Err(format!(
                "`format` is {:?}; this axgate reads {FORMAT:?}",
                file.format
            ));
        }
        let mut builder = Builder::default();
        let mut apps = Vec::new();
        let mut pids = Vec::new();
        for app in file.apps {
            if pids.contains(&app.pid) {
                return Err(format!("two apps have pid {}; give each its own", app.pid));
            }
            pids.push(app.pid);
            let root = builder.add(app.root)?;
            apps.push(App {
                name: app.name,
                bundle_id: app.bundle_id,
                pid: app.pid,
                root,
                end: builder.raw.len(),
            });
        }
        let nodes = builder.resolve()?;
        Ok(Recording {
            os: file.os,
            apps,
            nodes,
        })
    }

    /// The app recorded under `pid`.
    pub(crate) fn app(&self, pid: u32) -> Option<&App> {
        self.apps.iter().find(|a| a.pid == pid)
    }
}

#[derive(Default)]
struct Builder {
    /// Nodes in pre-order, attributes still JSON.
    raw: Vec<(Map<String, Value>, Vec<usize>)>,
    ids: HashMap<String, usize>,
}

impl Builder {
    /// Adds a subtree in pre-order; returns its root's index.
    fn add(&mut self, root: NodeJson) -> Result<usize, String> {
        let index = self.raw.len();
        if index >= MAX_NODES {
            return Err(format!(
                "more than {MAX_NODES} nodes; record a smaller part"
            ));
        }
        if let Some(id) = root.id
            && self.ids.insert(id.clone(), index).is_some()
        {
            return Err(format!(
                "the node id {id:?} is used twice; ids must be unique"
            ));
        }
        self.raw.push((root.attributes, Vec::new()));
        let mut children = Vec::with_capacity(root.children.len());
        for child in root.children {
            children.push(self.add(child)?);
        }
        self.raw[index].1 = children;
        Ok(index)
    }

    fn resolve(self) -> Result<Vec<Node>, String> {
        let ids = self.ids;
        let lookup = |id: &str, attr: &str| {
            ids.get(id).copied().ok_or_else(|| {
                format!("{attr} refers to {id:?}, but no node has that id; add \"id\": {id:?} to the node it means")
            })
        };
        let mut nodes = Vec::with_capacity(self.raw.len());
        for (attrs, children) in self.raw {
            let mut attributes = HashMap::new();
            let mut lists = HashMap::new();
            for (name, value) in attrs {
                if let Value::Array(items) = &value {
                    let refs: Vec<usize> = items
                        .iter()
                        .filter_map(|v| ref_of(v).map(|id| lookup(id, &name)))
                        .collect::<Result<_, _>>()?;
                    if !refs.is_empty() {
                        lists.insert(name.clone(), refs);
                    }
                }
                let recorded = match ref_of(&value) {
                    Some(id) => Recorded::Element(lookup(id, &name)?),
                    None => convert(&value),
                };
                attributes.insert(name, recorded);
            }
            nodes.push(Node {
                attributes,
                lists,
                children,
            });
        }
        Ok(nodes)
    }
}

fn ref_of(value: &Value) -> Option<&str> {
    match value {
        Value::Object(o) if o.len() == 1 => o.get("ref")?.as_str(),
        _ => None,
    }
}

fn convert(value: &Value) -> Recorded {
    let num = |o: &Map<String, Value>, k: &str| o.get(k).and_then(Value::as_f64);
    match value {
        Value::Null => Recorded::Missing,
        Value::String(s) => Recorded::Text(s.clone()),
        Value::Bool(b) => Recorded::Bool(*b),
        Value::Number(n) => n.as_f64().map_or(Recorded::Other, Recorded::Number),
        Value::Array(items) => Recorded::List(items.len()),
        Value::Object(o) => {
            let keys: Vec<&str> = {
                let mut k: Vec<&str> = o.keys().map(String::as_str).collect();
                k.sort_unstable();
                k
            };
            match (
                keys.as_slice(),
                num(o, "x"),
                num(o, "y"),
                num(o, "w"),
                num(o, "h"),
            ) {
                (["h", "w", "x", "y"], Some(x), Some(y), Some(w), Some(h)) => {
                    Recorded::Rect(Rect { x, y, w, h })
                }
                (["x", "y"], Some(x), Some(y), _, _) => Recorded::Point { x, y },
                (["h", "w"], _, _, Some(w), Some(h)) => Recorded::Size { w, h },
                (["error"], ..) => o
                    .get("error")
                    .and_then(Value::as_i64)
                    .and_then(|c| i32::try_from(c).ok())
                    .map_or(Recorded::Other, Recorded::Failed),
                _ => Recorded::Other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"{"format": "axgate-recording/1", "os": "macOS 15.5",
      "apps": [{"name": "Calculator", "bundle_id": "com.apple.calculator", "pid": 4242,
        "root": {"attributes": {"AXRole": "AXApplication", "AXTitle": "Calculator",
                                "AXWindows": [{"ref": "w1"}]},
          "children": [{"id": "w1", "attributes": {"AXRole": "AXWindow", "AXTitle": "",
              "AXTitleUIElement": {"ref": "t"}, "AXPosition": {"x": 10, "y": 20},
              "AXSize": {"w": 80, "h": 24}, "AXFrame": {"x": 1, "y": 2, "w": 3, "h": 4},
              "AXValue": null, "AXSubrole": {"error": -25204}},
            "children": [{"id": "t", "attributes": {"AXRole": "AXStaticText", "AXValue": "Calc"},
                          "actions": ["AXShowMenu"], "settable": []}]}]}}]}"#;

    #[test]
    fn a_recording_parses_into_an_arena_with_links_resolved() {
        let r = Recording::parse(SMALL).unwrap();
        assert_eq!(r.os.as_deref(), Some("macOS 15.5"));
        assert_eq!(r.apps.len(), 1);
        assert_eq!((r.apps[0].root, r.apps[0].end, r.apps[0].pid), (0, 3, 4242));
        assert_eq!(r.nodes[0].children, [1]);
        assert_eq!(r.nodes[0].lists["AXWindows"], [1]);
        let w = &r.nodes[1].attributes;
        assert_eq!(w["AXTitleUIElement"], Recorded::Element(2));
        assert_eq!(w["AXPosition"], Recorded::Point { x: 10.0, y: 20.0 });
        assert_eq!(w["AXSize"], Recorded::Size { w: 80.0, h: 24.0 });
        assert_eq!(
            w["AXFrame"],
            Recorded::Rect(Rect {
                x: 1.0,
                y: 2.0,
                w: 3.0,
                h: 4.0
            })
        );
        assert_eq!(w["AXValue"], Recorded::Missing);
        assert_eq!(w["AXSubrole"], Recorded::Failed(-25204));
        assert!(r.app(4242).is_some() && r.app(1).is_none());
    }

    #[test]
    fn mistakes_are_named() {
        let wrong = SMALL.replace("axgate-recording/1", "axgate-recording/9");
        assert!(
            Recording::parse(&wrong)
                .unwrap_err()
                .contains("axgate-recording/1")
        );
        let dangling = SMALL.replace(r#"{"ref": "t"}"#, r#"{"ref": "nope"}"#);
        let e = Recording::parse(&dangling).unwrap_err();
        assert!(
            e.contains("\"nope\"") && e.contains("AXTitleUIElement"),
            "{e}"
        );
        let typo = SMALL.replace("\"children\": [{\"id\": \"t\"", "\"kids\": [{\"id\": \"t\"");
        let e = Recording::parse(&typo).unwrap_err();
        assert!(e.contains("kids"), "{e}");
        let twice = SMALL.replace("\"id\": \"t\"", "\"id\": \"w1\"");
        assert!(Recording::parse(&twice).unwrap_err().contains("used twice"));
    }
}
