//! Window operations of a demo app: focus, minimize and restore, close (which asks about
//! unsaved changes, as document apps do), move and resize; and the unsaved-changes check
//! that quitting an app makes.

use axgate_engine::backend::WindowAction;
use axgate_engine::{AxError, ChangeEvent, ChangeKind, NodeId, Role};

use super::tree::AppTree;
use super::{effects, state};

/// The smallest size a demo window takes, like a real window's minimum size.
pub(super) const MIN_SIZE: (f64, f64) = (100.0, 60.0);

/// Performs `action` on a top-level window. Returns the events, and whether the app should
/// come to the front (focus and restore activate it).
pub(super) fn window_action(
    tree: &mut AppTree,
    id: NodeId,
    action: WindowAction,
) -> Result<(Vec<ChangeEvent>, bool), AxError> {
    let node = tree.live(id)?;
    if tree.window_of(id) != Some(id) {
        return Err(AxError::Unsupported(format!(
            "{} is not a window; pass one of the app's windows (list_windows)",
            node.describe()
        )));
    }
    let (role, minimized, frame) = (node.role, node.extra.minimized, node.frame);
    let describe = node.describe();
    let mut events = Vec::new();
    match action {
        WindowAction::Focus | WindowAction::Restore => {
            if minimized {
                set_minimized(tree, id, false, &mut events);
            }
            state::focus_window(tree, id, &mut events);
            return Ok((events, true));
        }
        WindowAction::Minimize => {
            if role == Role::Sheet {
                return Err(AxError::Unsupported(format!(
                    "{describe} is a sheet and cannot be minimized; minimize its window"
                )));
            }
            if !minimized {
                set_minimized(tree, id, true, &mut events);
                state::focus_next_window(tree, &mut events);
            }
        }
        WindowAction::Close => effects::request_close(tree, id, &mut events),
        WindowAction::Move { x, y } | WindowAction::Resize { w: x, h: y } => {
            if !x.is_finite() || !y.is_finite() {
                return Err(AxError::InvalidValue {
                    element: describe,
                    reason: "expected finite coordinates".to_owned(),
                });
            }
            let Some(frame) = frame else {
                return Err(AxError::Unsupported(format!("{describe} has no frame")));
            };
            if minimized {
                return Err(AxError::Unsupported(format!(
                    "{describe} is minimized; restore it before moving or resizing it"
                )));
            }
            if let WindowAction::Move { .. } = action {
                let delta = (x - frame.x, y - frame.y);
                if delta == (0.0, 0.0) {
                    return Ok((events, false));
                }
                tree.shift(id, delta);
            } else {
                let size = (x.max(MIN_SIZE.0), y.max(MIN_SIZE.1));
                if size == (frame.w, frame.h) {
                    return Ok((events, false));
                }
                if let Some(f) = tree.get_mut(id).and_then(|n| n.frame.as_mut()) {
                    (f.w, f.h) = size;
                }
            }
            events.push(tree.event(id, ChangeKind::BoundsChanged));
        }
    }
    Ok((events, false))
}

fn set_minimized(tree: &mut AppTree, id: NodeId, on: bool, events: &mut Vec<ChangeEvent>) {
    if let Some(node) = tree.get_mut(id) {
        node.extra.minimized = on;
        node.states.visible = !on;
        if on {
            node.states.focused = false;
        }
        events.push(tree.event(id, ChangeKind::StateChanged));
    }
}
