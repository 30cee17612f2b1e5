//! Turning a backend snapshot into an indexed tree with paths, and rendering it as the
//! compact line-per-element text (`[button] "Save" e12 (x,y w×h) press`).

use std::fmt::Write as _;

use super::backend::Snapshot;
use super::model::{RawNode, Role};
use super::path::{ElementPath, Selector, Step};

/// A snapshot node with its path, depth and children (indices into the same vector).
#[derive(Clone, Debug)]
pub struct IndexedNode {
    pub node: RawNode,
    pub path: ElementPath,
    pub depth: u32,
    pub children: Vec<usize>,
}

/// Indexes a pre-order snapshot whose root lives at `root_path`.
pub fn index(snapshot: Snapshot, root_path: &ElementPath) -> Vec<IndexedNode> {
    index_continued(snapshot, root_path, 0, &[])
}

/// [`index`] for a snapshot that continues a paged walk: its root sits at `root_depth`, and
/// `before` says how many of the root's children of each role came before the first one
/// the snapshot holds (`SnapshotRequest::skip_children`), so the children's paths count
/// from there.
pub fn index_continued(
    snapshot: Snapshot,
    root_path: &ElementPath,
    root_depth: u32,
    before: &[(Role, usize)],
) -> Vec<IndexedNode> {
    let mut out: Vec<IndexedNode> = Vec::with_capacity(snapshot.nodes.len());
    for node in snapshot.nodes {
        let (path, depth) = match node.parent {
            None => (root_path.clone(), root_depth),
            Some(p) => {
                let parent = &out[p];
                let earlier = if p == 0 {
                    before
                        .iter()
                        .find(|(role, _)| *role == node.role)
                        .map_or(0, |(_, n)| *n)
                } else {
                    0
                };
                let same_role = parent
                    .children
                    .iter()
                    .filter(|&&c| out[c].node.role == node.role)
                    .count();
                let step = Step {
                    role: node.role,
                    selector: Selector::Index(earlier + same_role),
                };
                (parent.path.child(step), parent.depth + 1)
            }
        };
        let me = out.len();
        if let Some(p) = node.parent {
            out[p].children.push(me);
        }
        out.push(IndexedNode {
            node,
            path,
            depth,
            children: Vec::new(),
        });
    }
    out
}

/// Whether a node is an unlabelled group with exactly one child, which renderings skip.
pub fn collapsible(n: &IndexedNode) -> bool {
    n.node.role == Role::Group && n.node.label().is_none() && n.children.len() == 1
}

/// One compact line for a node, without indentation:
/// `[button] "Save" e12 (10,20 80×24) press`. The quoted text is the accessible name; static
/// text without one shows its value there. An element with no name shows its identifier
/// instead, if it has one: `[text_field] #email e13` (docs/TOOLS.md, "Names").
pub fn compact_line(node: &RawNode, handle: Option<&str>) -> String {
    compact_line_with(node, handle, true)
}

/// [`compact_line`], with the frame `(x,y w×h)` only when `frame` is set: coordinates are
/// about two fifths of a line's tokens, and an agent that acts by path or handle rarely needs
/// them (`get_tree` leaves them out unless asked: docs/TOOLS.md, "What a result costs").
pub fn compact_line_with(node: &RawNode, handle: Option<&str>, frame: bool) -> String {
    let mut line = format!("[{}]", node.role);
    let value = node.visible_value().map(|v| v.to_string());
    let label = node.label().map(str::to_owned).or_else(|| {
        (node.role == Role::StaticText)
            .then(|| value.clone())
            .flatten()
    });
    match (&label, node.identifier.as_deref()) {
        (Some(label), _) => {
            let _ = write!(line, " {:?}", truncate(label, 80));
        }
        (None, Some(id)) if !id.is_empty() => {
            let _ = write!(line, " #{}", truncate(id, 80));
        }
        _ => {}
    }
    match (&value, node.states.secure) {
        (_, true) => line.push_str(" = •••"),
        (Some(v), false) if label.as_deref() != Some(v.as_str()) => {
            let _ = write!(line, " = {:?}", truncate(v, 80));
        }
        _ => {}
    }
    if let Some(h) = handle {
        let _ = write!(line, " {h}");
    }
    if let Some(f) = node.frame.filter(|_| frame) {
        let _ = write!(
            line,
            " ({},{} {}×{})",
            f.x as i64, f.y as i64, f.w as i64, f.h as i64
        );
    }
    if !node.states.enabled {
        line.push_str(" disabled");
    }
    if node.states.focused {
        line.push_str(" focused");
    }
    if !node.actions.is_empty() {
        let _ = write!(line, " {}", node.actions.join(","));
    }
    line
}

/// Visits `nodes` (an indexed snapshot) in pre-order, calling `emit` with the depth at which
/// each shown node renders. `keep` is asked about every node in pre-order; a node is shown
/// when `keep` accepts it and it is not a collapsible group. Hidden nodes' children take their
/// place one level up.
pub fn visit_shown(
    nodes: &[IndexedNode],
    mut keep: impl FnMut(&IndexedNode) -> bool,
    mut emit: impl FnMut(&IndexedNode, u32),
) {
    let mut stack: Vec<(usize, u32)> = if nodes.is_empty() {
        Vec::new()
    } else {
        vec![(0, 0)]
    };
    while let Some((at, depth)) = stack.pop() {
        let n = &nodes[at];
        // `keep` sees every node in pre-order (cursors count them all), collapsed or not.
        let kept = keep(n);
        let shown = kept && !collapsible(n);
        if shown {
            emit(n, depth);
        }
        let next = if shown { depth + 1 } else { depth };
        stack.extend(n.children.iter().rev().map(|&c| (c, next)));
    }
}

/// Indentation of a rendered line: one space per level keeps deep trees compact.
pub fn indent(depth: u32) -> String {
    " ".repeat(depth as usize)
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AxValue, NodeId, Rect};

    fn raw(id: u64, parent: Option<usize>, role: Role, title: Option<&str>) -> RawNode {
        let mut n = RawNode::new(NodeId(id), role, "native");
        n.parent = parent;
        n.title = title.map(str::to_owned);
        n
    }

    #[test]
    fn paths_count_siblings_of_the_same_role() {
        let snapshot = Snapshot {
            nodes: vec![
                raw(1, None, Role::Application, Some("Form")),
                raw(2, Some(0), Role::Window, Some("Main")),
                raw(3, Some(1), Role::Button, Some("OK")),
                raw(4, Some(1), Role::TextField, None),
                raw(5, Some(1), Role::Button, Some("Cancel")),
            ],
            truncated: false,
            skipped: Vec::new(),
        };
        let tree = index(snapshot, &ElementPath::default());
        let paths: Vec<String> = tree.iter().map(|n| n.path.to_string()).collect();
        assert_eq!(
            paths,
            [
                "",
                "window[0]",
                "window[0]/button[0]",
                "window[0]/text_field[0]",
                "window[0]/button[1]"
            ]
        );
        assert_eq!(tree[1].children, [2, 3, 4]);
    }

    #[test]
    fn compact_line_shape() {
        let mut n = raw(1, None, Role::Button, Some("Save"));
        n.frame = Some(Rect {
            x: 10.0,
            y: 20.0,
            w: 80.0,
            h: 24.0,
        });
        n.actions = vec!["press".into()];
        assert_eq!(
            compact_line(&n, Some("e12")),
            "[button] \"Save\" e12 (10,20 80×24) press"
        );
        assert_eq!(
            compact_line_with(&n, Some("e12"), false),
            "[button] \"Save\" e12 press"
        );
        let mut secret = raw(2, None, Role::SecureTextField, Some("Password"));
        secret.value = Some(AxValue::Text("hunter2".into()));
        secret.states.secure = true;
        assert!(!compact_line(&secret, None).contains("hunter2"));
    }
}
