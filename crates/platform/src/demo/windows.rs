//! Window operations of a demo app: focus, minimize and restore, close (which asks about
//! unsaved changes, as document apps do), move and resize, zoom (maximize: the screen's
//! visible area, a second zoom gives the size back, as macOS's zoom does) and full screen
//! (the whole screen; idempotent; `Restore` leaves it); and the unsaved-changes check that
//! quitting an app makes.

use axgate_engine::backend::WindowAction;
use axgate_engine::{AxError, ChangeEvent, ChangeKind, NodeId, Rect, Role};

use super::tree::AppTree;
use super::{effects, state};

/// The smallest size a demo window takes, like a real window's minimum size.
pub(super) const MIN_SIZE: (f64, f64) = (100.0, 60.0);

/// The demo machine's one screen, in global points: what a full-screen window covers.
pub(super) const SCREEN: Rect = Rect {
    x: 0.0,
    y: 0.0,
    w: 1440.0,
    h: 900.0,
};

/// The screen below the menu bar: what a zoomed (maximized) window covers.
pub(super) const VISIBLE_SCREEN: Rect = Rect {
    x: 0.0,
    y: 25.0,
    w: 1440.0,
    h: 875.0,
};

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
    let (unzoomed, full_screen_from) = (node.extra.unzoomed, node.extra.full_screen_from);
    let describe = node.describe();
    let mut events = Vec::new();
    let frame_change = matches!(
        action,
        WindowAction::Move { .. }
            | WindowAction::Resize { .. }
            | WindowAction::Maximize
            | WindowAction::FullScreen
    );
    let zoom = matches!(action, WindowAction::Maximize | WindowAction::FullScreen);
    if frame_change && minimized {
        let what = if zoom {
            "zooming"
        } else {
            "moving or resizing"
        };
        return Err(AxError::Unsupported(format!(
            "{describe} is minimized; restore it before {what} it"
        )));
    }
    if zoom && role == Role::Sheet {
        return Err(AxError::Unsupported(format!(
            "{describe} is a sheet and moves with its window; act on its window"
        )));
    }
    // A full-screen window has no frame of its own to change, as on macOS.
    if frame_change && full_screen_from.is_some() && action != WindowAction::FullScreen {
        return Err(AxError::Unsupported(format!(
            "{describe} is in full screen; restore it (window_action restore) first"
        )));
    }
    let Some(frame) = frame.filter(|_| frame_change) else {
        if frame_change {
            return Err(AxError::Unsupported(format!("{describe} has no frame")));
        }
        return other_action(
            tree,
            id,
            action,
            role,
            minimized,
            full_screen_from,
            &describe,
        );
    };
    match action {
        WindowAction::Maximize => {
            let to = unzoomed.unwrap_or(VISIBLE_SCREEN);
            set_frame(tree, id, to, &mut events);
            if let Some(node) = tree.get_mut(id) {
                node.extra.unzoomed = unzoomed.is_none().then_some(frame);
            }
        }
        // Already in full screen: nothing changes (no toggle).
        WindowAction::FullScreen if full_screen_from.is_none() => {
            set_frame(tree, id, SCREEN, &mut events);
            if let Some(node) = tree.get_mut(id) {
                node.extra.full_screen_from = Some(frame);
            }
        }
        WindowAction::Move { x, y } | WindowAction::Resize { w: x, h: y } => {
            if !x.is_finite() || !y.is_finite() {
                return Err(AxError::InvalidValue {
                    element: describe,
                    reason: "expected finite coordinates".to_owned(),
                });
            }
            let to = if let WindowAction::Move { .. } = action {
                Rect { x, y, ..frame }
            } else {
                Rect {
                    w: x.max(MIN_SIZE.0),
                    h: y.max(MIN_SIZE.1),
                    ..frame
                }
            };
            set_frame(tree, id, to, &mut events);
            // A frame set by hand is the window's own size again: the next zoom zooms.
            if let Some(node) = tree.get_mut(id) {
                node.extra.unzoomed = None;
            }
        }
        _ => {}
    }
    Ok((events, false))
}

/// The actions that leave the frame alone, or give back the one before full screen.
fn other_action(
    tree: &mut AppTree,
    id: NodeId,
    action: WindowAction,
    role: Role,
    minimized: bool,
    full_screen_from: Option<Rect>,
    describe: &str,
) -> Result<(Vec<ChangeEvent>, bool), AxError> {
    let mut events = Vec::new();
    match action {
        WindowAction::Focus | WindowAction::Restore => {
            if let Some(before) = full_screen_from.filter(|_| action == WindowAction::Restore) {
                set_frame(tree, id, before, &mut events);
                if let Some(node) = tree.get_mut(id) {
                    node.extra.full_screen_from = None;
                }
            }
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
        _ => {}
    }
    Ok((events, false))
}

/// Moves and sizes a window (its content moves with it); a bounds event when it changed.
fn set_frame(tree: &mut AppTree, id: NodeId, to: Rect, events: &mut Vec<ChangeEvent>) {
    let Some(from) = tree.get(id).and_then(|n| n.frame) else {
        return;
    };
    if from == to {
        return;
    }
    let delta = (to.x - from.x, to.y - from.y);
    if delta != (0.0, 0.0) {
        tree.shift(id, delta);
    }
    if let Some(f) = tree.get_mut(id).and_then(|n| n.frame.as_mut()) {
        (f.w, f.h) = (to.w, to.h);
    }
    events.push(tree.event(id, ChangeKind::BoundsChanged));
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
