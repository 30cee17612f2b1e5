//! Tree diffs: what was added, removed or changed between two snapshots of the same app,
//! matched by element identity, with scroll-bar and coordinate-only noise filtered out.
//! Secure values are compared but never shown.

use std::collections::HashMap;

use super::model::{AxValue, NodeId, RawNode, Role};
use super::tree::IndexedNode;

/// A node as the diff remembers it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub node: RawNode,
    pub path: String,
}

/// One changed property, rendered for people and models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldChange {
    pub field: &'static str,
    pub before: String,
    pub after: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    Added(Seen),
    Removed(Seen),
    Changed { now: Seen, fields: Vec<FieldChange> },
}

impl Change {
    pub fn seen(&self) -> &Seen {
        match self {
            Change::Added(s) | Change::Removed(s) | Change::Changed { now: s, .. } => s,
        }
    }
}

/// A snapshot reduced to what diffs compare, keyed by element identity.
#[derive(Clone, Debug, Default)]
pub struct Picture {
    order: Vec<NodeId>,
    nodes: HashMap<NodeId, Seen>,
}

impl Picture {
    pub fn new(tree: &[IndexedNode]) -> Picture {
        let mut order = Vec::with_capacity(tree.len());
        let mut nodes = HashMap::with_capacity(tree.len());
        for n in tree {
            if is_noise(&n.node) {
                continue;
            }
            order.push(n.node.id);
            nodes.insert(
                n.node.id,
                Seen {
                    node: n.node.clone(),
                    path: n.path.to_string(),
                },
            );
        }
        Picture { order, nodes }
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    pub fn get(&self, id: NodeId) -> Option<&Seen> {
        self.nodes.get(&id)
    }

    /// Replaces what the picture holds of an element (its path stays): a re-read of one
    /// element an event named. False when the picture does not hold it.
    pub fn update(&mut self, node: RawNode) -> bool {
        match self.nodes.get_mut(&node.id) {
            Some(seen) => {
                seen.node = node;
                true
            }
            None => false,
        }
    }

    /// The elements that have keyboard focus in this picture.
    pub fn focused(&self) -> Vec<NodeId> {
        let focused = |id: &&NodeId| self.nodes[*id].node.states.focused;
        self.order.iter().filter(focused).copied().collect()
    }
}

/// Scroll bars move whenever anything scrolls; they are never news.
fn is_noise(node: &RawNode) -> bool {
    node.role == Role::ScrollBar
}

/// The changes from `before` to `after`, in the order of `after` (removals last).
pub fn diff(before: &Picture, after: &Picture) -> Vec<Change> {
    let mut out = Vec::new();
    for id in &after.order {
        let now = &after.nodes[id];
        match before.nodes.get(id) {
            None => out.push(Change::Added(now.clone())),
            Some(old) => {
                let fields = compare(&old.node, &now.node);
                if !fields.is_empty() {
                    out.push(Change::Changed {
                        now: now.clone(),
                        fields,
                    });
                }
            }
        }
    }
    for id in &before.order {
        if !after.nodes.contains_key(id) {
            out.push(Change::Removed(before.nodes[id].clone()));
        }
    }
    out
}

/// Property changes between two versions of one element. Frames are left out: a move or
/// resize alone is coordinate noise (the element's own properties did not change).
fn compare(a: &RawNode, b: &RawNode) -> Vec<FieldChange> {
    let mut out = Vec::new();
    let mut push = |field: &'static str, before: String, after: String| {
        if before != after {
            out.push(FieldChange {
                field,
                before,
                after,
            });
        }
    };
    // A static text's name is its content: the value change below says it once.
    let name = |n: &RawNode| {
        let name = n.label().unwrap_or_default();
        let follows_value = matches!(&n.value, Some(AxValue::Text(v)) if v == name);
        (!follows_value).then(|| name.to_owned())
    };
    if let (Some(before), Some(after)) = (name(a), name(b)) {
        push("name", before, after);
    }
    // A description that is the name was already compared as the name.
    let described = |n: &RawNode| n.label() == n.description.as_deref();
    if !(described(a) && described(b)) {
        push("description", opt(&a.description), opt(&b.description));
    }
    if a.value != b.value {
        if a.states.secure || b.states.secure {
            // Masked on both sides; the field name alone says it changed.
            push("value", "•••".into(), "••• (changed)".into());
        } else {
            let show = |n: &RawNode| {
                n.value
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            };
            push("value", show(a), show(b));
        }
    }
    let flag = |v: bool| if v { "true" } else { "false" }.to_owned();
    push("enabled", flag(a.states.enabled), flag(b.states.enabled));
    push("focused", flag(a.states.focused), flag(b.states.focused));
    push("selected", flag(a.states.selected), flag(b.states.selected));
    push("expanded", flag(a.states.expanded), flag(b.states.expanded));
    push("visible", flag(a.states.visible), flag(b.states.visible));
    push("actions", a.actions.join(","), b.actions.join(","));
    out
}

fn opt(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

/// One line per change: `+ [button] "OK" window[0]/button[0]`, `~ … value: "a" → "b"`.
pub fn render(changes: &[Change]) -> String {
    let mut out = String::new();
    for c in changes {
        let s = c.seen();
        let label = s
            .node
            .label()
            .map(|l| format!(" {l:?}"))
            .unwrap_or_default();
        match c {
            Change::Added(_) => out.push_str(&format!("+ [{}]{label} {}\n", s.node.role, s.path)),
            Change::Removed(_) => out.push_str(&format!("- [{}]{label} {}\n", s.node.role, s.path)),
            Change::Changed { fields, .. } => {
                let what: Vec<String> = fields
                    .iter()
                    .map(|f| format!("{}: {:?} → {:?}", f.field, f.before, f.after))
                    .collect();
                out.push_str(&format!(
                    "~ [{}]{label} {} {}\n",
                    s.node.role,
                    s.path,
                    what.join("; ")
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Snapshot;
    use crate::model::{AxValue, Rect};
    use crate::path::ElementPath;
    use crate::tree;

    fn node(id: u64, parent: Option<usize>, role: Role, title: &str) -> RawNode {
        let mut n = RawNode::new(NodeId(id), role, "native");
        n.parent = parent;
        n.title = Some(title.into());
        n
    }

    fn picture(nodes: Vec<RawNode>) -> Picture {
        let tree = tree::index(
            Snapshot {
                nodes,
                truncated: false,
                skipped: Vec::new(),
            },
            &ElementPath::default(),
        );
        Picture::new(&tree)
    }

    #[test]
    fn added_removed_changed_and_noise() {
        let mut status = node(3, Some(0), Role::StaticText, "Status");
        status.value = Some(AxValue::Text("Ready".into()));
        let before = vec![
            node(1, None, Role::Window, "W"),
            node(2, Some(0), Role::Button, "Gone"),
            status.clone(),
            node(4, Some(0), Role::ScrollBar, ""),
        ];
        let mut moved = node(5, Some(0), Role::Button, "Moved");
        let mut after_status = status;
        after_status.value = Some(AxValue::Text("Done".into()));
        let mut bar = node(4, Some(0), Role::ScrollBar, "");
        bar.value = Some(AxValue::Number(0.5));
        let mut before = before;
        before.push(moved.clone());
        moved.frame = Some(Rect {
            x: 9.0,
            y: 9.0,
            w: 1.0,
            h: 1.0,
        });
        let after = vec![
            node(1, None, Role::Window, "W"),
            after_status,
            bar,
            moved,
            node(6, Some(0), Role::Button, "New"),
        ];
        let changes = diff(&picture(before), &picture(after));
        let text = render(&changes);
        assert_eq!(
            text,
            "~ [static_text] \"Status\" static_text[0] value: \"Ready\" → \"Done\"\n\
             + [button] \"New\" button[1]\n\
             - [button] \"Gone\" button[0]\n"
        );
    }

    #[test]
    fn a_name_change_is_a_change_said_once() {
        let mut a = node(1, None, Role::Button, "");
        a.title = None;
        a.description = Some("Search".into());
        a.name = Some("Search".into());
        let mut b = a.clone();
        b.description = Some("Find".into());
        b.name = Some("Find".into());
        assert_eq!(
            render(&diff(&picture(vec![a.clone()]), &picture(vec![b]))),
            "~ [button] \"Find\"  name: \"Search\" → \"Find\"\n"
        );
        // A name from a label elsewhere changes while the element's own fields stay.
        let mut c = a.clone();
        c.name = Some("Look up".into());
        let changes = diff(&picture(vec![a]), &picture(vec![c]));
        let Change::Changed { fields, .. } = &changes[0] else {
            panic!("{changes:?}");
        };
        assert_eq!(fields.len(), 1);
        assert_eq!(fields[0].field, "name");
    }

    #[test]
    fn secure_values_never_show() {
        let mut a = node(1, None, Role::SecureTextField, "Password");
        a.states.secure = true;
        a.value = Some(AxValue::Text("old-secret".into()));
        let mut b = a.clone();
        b.value = Some(AxValue::Text("new-secret".into()));
        let text = render(&diff(&picture(vec![a]), &picture(vec![b])));
        assert!(text.contains("value") && !text.contains("secret"), "{text}");
    }
}
