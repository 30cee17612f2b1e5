//! Window operations of a demo app: focus, minimize and restore, close (which asks about
//! unsaved changes, as document apps do), move and resize; and the unsaved-changes check
//! that quitting an app makes.

use crate::ax::backend::WindowAction;
use crate::ax::{AxError, ChangeEvent, ChangeKind, NodeId, Role};

use super::effects;
use super::tree::AppTree;

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
            focus_window(tree, id, &mut events);
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
                focus_next_window(tree, &mut events);
            }
        }
        WindowAction::Close => request_close(tree, id, &mut events),
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

/// Closes a window the way its close button does: a window with unsaved changes and
/// `close_edited` effects runs those instead (shows a save dialog) and stays open.
pub(super) fn request_close(tree: &mut AppTree, window: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(node) = tree.get(window) else {
        return;
    };
    if node.extra.edited
        && let Some(ask) = node.effects("close_edited")
    {
        effects::run(tree, window, &ask, events);
        return;
    }
    let was_focused = node.states.focused;
    effects::remove(tree, window, events);
    if was_focused {
        focus_next_window(tree, events);
    }
}

/// Whether the app may quit now. If a window has unsaved changes and `close_edited` effects,
/// runs them (shows its save dialog), marks the quit pending and says no.
pub(super) fn may_quit(tree: &mut AppTree, events: &mut Vec<ChangeEvent>) -> bool {
    let asking = tree.windows().into_iter().find_map(|w| {
        let node = tree.get(w).filter(|n| n.extra.edited)?;
        Some((w, node.effects("close_edited")?))
    });
    let Some((window, ask)) = asking else {
        return true;
    };
    tree.quit_pending = true;
    effects::run(tree, window, &ask, events);
    false
}

/// Makes `window` the focused (key and main) window. Elements of other windows lose focus;
/// the window's own focused element keeps it.
pub(super) fn focus_window(tree: &mut AppTree, window: NodeId, events: &mut Vec<ChangeEvent>) {
    if tree.get(window).is_some_and(|n| n.states.focused) {
        return;
    }
    let root = tree.root();
    for id in tree.preorder(root) {
        let in_window = tree.window_of(id) == Some(window);
        let top = tree.window_of(id) == Some(id);
        if let Some(node) = tree.get_mut(id) {
            if top {
                node.states.focused = id == window;
            } else if !in_window {
                node.states.focused = false;
            }
        }
    }
    events.push(tree.event(window, ChangeKind::FocusChanged));
}

/// After the focused window went away: focuses the last shown window, if any.
fn focus_next_window(tree: &mut AppTree, events: &mut Vec<ChangeEvent>) {
    let mut shown = tree.windows().into_iter().filter(|w| {
        tree.get(*w)
            .is_some_and(|n| n.states.visible && !n.extra.minimized)
    });
    if let Some(next) = shown.next_back() {
        focus_window(tree, next, events);
    }
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
