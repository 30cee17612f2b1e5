//! What a demo app does under the pointer, gesture by gesture, as a Mac app would. A left
//! click runs the hit element's `click` effects if it has any, else its `press` semantics,
//! else selects it (list rows), else focuses it (text fields), walking up to the nearest
//! ancestor that reacts; with Shift held a row click extends the selection, with Command it
//! toggles the row, and Control makes a left click a right click (as macOS does). A right
//! click opens the element's context menu when it has `show_menu`. Hovering runs the nearest
//! `hover` effects (a help tag shown); a long press opens a button's menu when it has one
//! (`show_menu`), else it is the click its release makes. Scrolling and dragging are
//! `scroll.rs`'s. Disabled elements ignore the pointer.

use axgate_engine::backend::{Gesture, MouseButton, Pointer};
use axgate_engine::keys::Modifiers;
use axgate_engine::{AxError, ChangeEvent, NodeId, Role};

use super::hit::element_at;
use super::tree::AppTree;
use super::{effects, roles, scroll, selection, state};

/// Runs one pointer gesture on the app, returning the change events it caused.
pub(super) fn gesture(tree: &mut AppTree, act: &Pointer) -> Result<Vec<ChangeEvent>, AxError> {
    let mut events = Vec::new();
    match act.gesture {
        Gesture::Click { button, count } => click(tree, act.at, button, count, act.held),
        Gesture::Hover => {
            if let Some(hit) = element_at(tree, act.at) {
                run_nearest(tree, hit, "hover", &mut events);
            }
            Ok(events)
        }
        Gesture::Press { button, .. } => {
            let button_hit = element_at(tree, act.at).filter(|hit| {
                tree.get(*hit)
                    .is_some_and(|n| matches!(n.role, Role::Button | Role::PopupButton))
            });
            if let Some(hit) = button_hit
                && show_menu(tree, hit, &mut events)
            {
                return Ok(events);
            }
            click(tree, act.at, button, 1, act.held)
        }
        Gesture::Scroll { delta } => scroll::scroll_at(tree, act.at, delta),
        Gesture::Drag { to } => Ok(scroll::drag(tree, act.at, to)),
    }
}

/// `count` clicks (at most three), delivered one after another, hit-testing each time.
fn click(
    tree: &mut AppTree,
    point: (f64, f64),
    button: MouseButton,
    count: u32,
    held: Modifiers,
) -> Result<Vec<ChangeEvent>, AxError> {
    let button = if held.ctrl {
        MouseButton::Right
    } else {
        button
    };
    let mut events = Vec::new();
    for _ in 0..count.clamp(1, 3) {
        let Some(hit) = element_at(tree, point) else {
            break;
        };
        match button {
            MouseButton::Left => left_click(tree, hit, held, &mut events),
            MouseButton::Right => {
                show_menu(tree, hit, &mut events);
            }
        }
    }
    Ok(events)
}

/// Opens `hit`'s own menu (its `show_menu` effects) if it is enabled and has one; whether it
/// did.
fn show_menu(tree: &mut AppTree, hit: NodeId, events: &mut Vec<ChangeEvent>) -> bool {
    let reaction = tree
        .get(hit)
        .filter(|n| n.states.enabled && n.has_action("show_menu"))
        .and_then(|n| n.effects("show_menu"));
    if let Some(reaction) = &reaction {
        effects::run(tree, hit, reaction, events);
    }
    reaction.is_some()
}

/// Runs the `trigger` effects of `hit` or of its nearest ancestor that has them; a disabled
/// element on the way stops it.
fn run_nearest(tree: &mut AppTree, hit: NodeId, trigger: &str, events: &mut Vec<ChangeEvent>) {
    let mut cursor = Some(hit);
    while let Some(node) = cursor.and_then(|id| tree.get(id)) {
        if !node.states.enabled {
            return;
        }
        if let Some(reaction) = node.effects(trigger) {
            let id = node.id;
            effects::run(tree, id, &reaction, events);
            return;
        }
        cursor = node.parent;
    }
}

fn left_click(tree: &mut AppTree, hit: NodeId, held: Modifiers, events: &mut Vec<ChangeEvent>) {
    let mut cursor = Some(hit);
    while let Some(id) = cursor {
        let Some(node) = tree.get(id) else {
            return;
        };
        if !node.states.enabled {
            return;
        }
        if let Some(reaction) = node.effects("click") {
            effects::run(tree, id, &reaction, events);
            return;
        }
        if node.has_action("press") {
            if let Some(reaction) = node.effects("press") {
                effects::run(tree, id, &reaction, events);
            }
            return;
        }
        if matches!(node.role, Role::ListItem | Role::Row | Role::Cell) {
            if held.shift {
                selection::extend_to(tree, id, events);
            } else if held.cmd {
                selection::toggle(tree, id, events);
            } else {
                selection::select_item(tree, id, events);
            }
            return;
        }
        if roles::focusable(node.role) {
            state::set_focus(tree, id, events);
            return;
        }
        cursor = node.parent;
    }
}
