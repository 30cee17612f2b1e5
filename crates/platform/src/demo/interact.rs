//! What a demo app does when it is driven: semantic actions, value writes, focus (pointer
//! gestures are `pointer.rs`, hit testing `hit.rs`). Each function works on one locked app
//! tree and returns the change events to deliver once the lock is released. Values are never
//! logged.

use axgate_engine::{AxError, AxValue, ChangeEvent, NodeId, Role};

use super::tree::AppTree;
use super::{effects, roles, scroll, state};

/// Performs a semantic action: checks the element is enabled and supports the action, then
/// runs the element's effects for it (an element without effects accepts and ignores it,
/// except that a window's `raise` makes it the focused window).
pub(super) fn perform_action(
    tree: &mut AppTree,
    id: NodeId,
    action: &str,
) -> Result<Vec<ChangeEvent>, AxError> {
    let node = tree.live(id)?;
    if !node.states.enabled {
        return Err(AxError::Disabled {
            element: node.describe(),
        });
    }
    if !node.actions.iter().any(|a| a == action) {
        return Err(AxError::UnsupportedAction {
            element: node.describe(),
            action: action.to_owned(),
            available: node.actions.clone(),
        });
    }
    let mut events = Vec::new();
    if let Some(reaction) = node.effects(action) {
        effects::run(tree, id, &reaction, &mut events);
    } else if action == "raise" && tree.window_of(id) == Some(id) {
        state::focus_window(tree, id, &mut events);
    }
    Ok(events)
}

/// Writes a value of the element's own type (numbers are clamped to min/max), then runs the
/// element's `change` effects if the value changed.
pub(super) fn set_value(
    tree: &mut AppTree,
    id: NodeId,
    value: &AxValue,
) -> Result<Vec<ChangeEvent>, AxError> {
    let node = tree.live(id)?;
    let element = node.describe();
    if !node.states.enabled {
        return Err(AxError::Disabled { element });
    }
    if !node.states.value_settable {
        return Err(AxError::NotSettable { element });
    }
    let invalid = |reason: String| AxError::InvalidValue {
        element: element.clone(),
        reason,
    };
    match (&node.value, value) {
        (_, AxValue::Number(n)) if !n.is_finite() => {
            return Err(invalid("expected a finite number".to_owned()));
        }
        (None, _)
        | (Some(AxValue::Text(_)), AxValue::Text(_))
        | (Some(AxValue::Bool(_)), AxValue::Bool(_))
        | (Some(AxValue::Number(_)), AxValue::Number(_)) => {}
        (Some(current), given) => {
            let mut reason = format!("expected {}, got {}", kind(current), kind(given));
            if let (Some(min), Some(max)) = (node.min, node.max) {
                reason.push_str(&format!(" (range {min} to {max})"));
            }
            return Err(invalid(reason));
        }
    }
    let mut events = Vec::new();
    effects::change_value(tree, id, value.clone(), &mut events);
    if tree.get(id).is_some_and(|n| n.role == Role::ScrollBar) {
        scroll::follow_bar(tree, id, &mut events);
    }
    Ok(events)
}

fn kind(value: &AxValue) -> &'static str {
    match value {
        AxValue::Text(_) => "text",
        AxValue::Bool(_) => "a bool",
        AxValue::Number(_) => "a number",
    }
}

/// Moves keyboard focus to a control or window.
pub(super) fn focus(tree: &mut AppTree, id: NodeId) -> Result<Vec<ChangeEvent>, AxError> {
    let node = tree.live(id)?;
    if !node.states.enabled {
        return Err(AxError::Disabled {
            element: node.describe(),
        });
    }
    if !roles::focusable(node.role) {
        return Err(AxError::Unsupported(format!(
            "{} cannot take keyboard focus; focus a text field, control or window instead",
            node.describe()
        )));
    }
    let mut events = Vec::new();
    state::set_focus(tree, id, &mut events);
    Ok(events)
}
