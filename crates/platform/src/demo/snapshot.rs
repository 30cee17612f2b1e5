//! Reading a demo app: bounded pre-order snapshots and the window list.

use axgate_engine::{AxError, CallCtx, Snapshot, SnapshotRequest, WindowInfo};

use super::roles;
use super::tree::AppTree;

/// Copies a bounded subtree in pre-order. Each node copied counts as one round trip: it
/// models the one batched attribute fetch per element a real backend makes. The walk stops,
/// marking the snapshot truncated, at the node budget or the deadline; descending stops at
/// `max_depth` (not a truncation: `child_count` still says what lies below). The root's first
/// `skip_children` children are left out (a paged read's continuation). Everything in a
/// minimized window, or under any invisible ancestor (a hidden panel, a closed menu), reports
/// itself invisible.
pub(super) fn snapshot(
    tree: &AppTree,
    request: &SnapshotRequest,
    ctx: &mut CallCtx,
) -> Result<Snapshot, AxError> {
    let root = match request.root {
        None => tree.root(),
        Some(id) => tree.live(id)?.id,
    };
    let mut snap = Snapshot::default();
    let hidden_root = tree
        .window_of(root)
        .is_some_and(|w| tree.get(w).is_some_and(|n| n.extra.minimized))
        || hidden_ancestor(tree, root);
    let mut stack = vec![(root, 0u32, None, hidden_root)];
    while let Some((id, depth, parent, hidden)) = stack.pop() {
        if snap.nodes.len() >= request.max_nodes || ctx.expired() {
            snap.truncated = true;
            break;
        }
        let Some(node) = tree.get(id) else {
            continue;
        };
        ctx.trips(1);
        let index = snap.nodes.len();
        let mut raw = tree.raw(node);
        raw.parent = parent;
        raw.states.visible &= !hidden;
        snap.nodes.push(raw);
        let hide = hidden || node.extra.minimized || !node.states.visible;
        if depth < request.max_depth {
            let skipped = if parent.is_none() {
                request.skip_children
            } else {
                0
            };
            for child in node.children.iter().skip(skipped).rev() {
                stack.push((*child, depth + 1, Some(index), hide));
            }
        }
    }
    Ok(snap)
}

/// Whether any ancestor of `id` is invisible.
fn hidden_ancestor(tree: &AppTree, id: axgate_engine::NodeId) -> bool {
    let mut cursor = tree.get(id).and_then(|n| n.parent);
    while let Some(p) = cursor {
        let Some(node) = tree.get(p) else {
            return false;
        };
        if !node.states.visible {
            return true;
        }
        cursor = node.parent;
    }
    false
}

/// The app's top-level windows, dialogs and sheets, in tree order.
pub(super) fn list_windows(tree: &AppTree) -> Vec<WindowInfo> {
    let Some(app) = tree.get(tree.root()) else {
        return Vec::new();
    };
    app.children
        .iter()
        .filter_map(|id| tree.get(*id))
        .filter(|n| roles::is_window(n.role))
        .map(|n| WindowInfo {
            node: n.id,
            title: n.title.clone(),
            frame: n.frame,
            focused: n.states.focused,
            minimized: n.extra.minimized,
        })
        .collect()
}
