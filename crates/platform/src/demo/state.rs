//! The state changes every reaction of a demo app is made of: writing a value, moving focus
//! (to an element, or to a window and back to the last shown window), selecting,
//! removing a node; each appends the change events a real app would send. The effect
//! language (`effects.rs`), window operations (`windows.rs`) and input all build on these.

use axgate_engine::{AxValue, ChangeEvent, ChangeKind, NodeId, Role};

use super::menus::close_menu;
use super::roles;
use super::tree::AppTree;

/// Writes a value (numbers clamped to min/max); emits `ValueChanged` when it changed.
pub(super) fn write_value(
    tree: &mut AppTree,
    id: NodeId,
    value: AxValue,
    events: &mut Vec<ChangeEvent>,
) {
    let Some(node) = tree.get_mut(id) else {
        return;
    };
    let value = match value {
        AxValue::Number(n) => AxValue::Number(
            n.max(node.min.unwrap_or(f64::NEG_INFINITY))
                .min(node.max.unwrap_or(f64::INFINITY)),
        ),
        other => other,
    };
    if node.value.as_ref() == Some(&value) {
        return;
    }
    node.previous_value = node.value.replace(value);
    let marks_edited = node.extra.marks_edited;
    if marks_edited && let Some(window) = tree.window_of(id).and_then(|w| tree.get_mut(w)) {
        window.extra.edited = true;
    }
    events.push(event(tree, id, ChangeKind::ValueChanged));
}

/// Moves keyboard focus to `id` and makes its window the focused one.
pub(super) fn set_focus(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    if tree.get(id).is_none_or(|n| n.states.focused) {
        return;
    }
    let window = tree.window_of(id);
    let root = tree.root();
    for other in tree.preorder(root) {
        let is_window = tree.window_of(other) == Some(other);
        let Some(node) = tree.get_mut(other) else {
            continue;
        };
        if is_window {
            if window.is_some() {
                node.states.focused = Some(other) == window;
            }
        } else {
            node.states.focused = other == id;
        }
    }
    events.push(event(tree, id, ChangeKind::FocusChanged));
}

/// Selects `id` and deselects its siblings of the same role (their bool values follow).
pub(super) fn select(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(node) = tree.get(id) else {
        return;
    };
    let role = node.role;
    let siblings = match node.parent.and_then(|p| tree.get(p)) {
        Some(parent) => parent.children.clone(),
        None => vec![id],
    };
    for sibling in siblings {
        let chosen = sibling == id;
        let Some(node) = tree.get_mut(sibling) else {
            continue;
        };
        if node.role != role {
            continue;
        }
        if node.states.selected != chosen {
            node.states.selected = chosen;
            events.push(event(tree, sibling, ChangeKind::StateChanged));
        }
        if matches!(
            tree.get(sibling).and_then(|n| n.value.as_ref()),
            Some(AxValue::Bool(_))
        ) {
            write_value(tree, sibling, AxValue::Bool(chosen), events);
        }
    }
}

/// Removes a subtree (a menu is closed instead), with the events a real app emits.
pub(super) fn remove(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(role) = tree.get(id).map(|n| n.role) else {
        return;
    };
    if role == Role::Menu {
        close_menu(tree, id, events);
        return;
    }
    if roles::is_window(role) {
        events.push(event(tree, id, ChangeKind::WindowClosed));
    }
    if let Some(parent) = tree.remove(id) {
        events.push(event(tree, parent, ChangeKind::ChildrenChanged));
    }
}

pub(super) fn event(tree: &AppTree, id: NodeId, kind: ChangeKind) -> ChangeEvent {
    ChangeEvent {
        pid: tree.pid,
        node: Some(id),
        kind,
    }
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
pub(super) fn focus_next_window(tree: &mut AppTree, events: &mut Vec<ChangeEvent>) {
    let mut shown = tree.windows().into_iter().filter(|w| {
        tree.get(*w)
            .is_some_and(|n| n.states.visible && !n.extra.minimized)
    });
    if let Some(next) = shown.next_back() {
        focus_window(tree, next, events);
    }
}
