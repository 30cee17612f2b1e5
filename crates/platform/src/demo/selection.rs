//! Semantic selection in a demo app: list rows, table rows and cells, tabs and radio buttons
//! take the selection (single selection among their siblings) and run their `select` effects
//! (else their `press` effects, which is how tabs swap panels); menu items and menu bar items
//! are pressed, as choosing them does.

use axgate_engine::{AxError, ChangeEvent, NodeId, Role};

use super::tree::AppTree;
use super::{effects, scroll, state};

/// Selects an element on behalf of `select`.
pub(super) fn select(tree: &mut AppTree, id: NodeId) -> Result<Vec<ChangeEvent>, AxError> {
    let node = tree.live(id)?;
    if !node.states.enabled {
        return Err(AxError::Disabled {
            element: node.describe(),
        });
    }
    let mut events = Vec::new();
    match node.role {
        Role::ListItem | Role::Row | Role::Cell | Role::Tab | Role::RadioButton => {
            select_item(tree, id, &mut events);
        }
        Role::MenuItem | Role::MenuBarItem => {
            if !node.has_action("press") {
                return Err(AxError::UnsupportedAction {
                    element: node.describe(),
                    action: "press".to_owned(),
                    available: node.actions.clone(),
                });
            }
            if let Some(reaction) = node.effects("press") {
                effects::run(tree, id, &reaction, &mut events);
            }
        }
        _ => {
            return Err(AxError::Unsupported(format!(
                "{} cannot be selected; select works on list items, rows, cells, tabs, radio \
                 buttons and menu items (press or set_value other elements)",
                node.describe()
            )));
        }
    }
    Ok(events)
}

/// Makes `id` the selected one of its siblings, runs its `select` (else `press`) effects and
/// scrolls it into view.
pub(super) fn select_item(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    state::select(tree, id, events);
    let reaction = tree
        .get(id)
        .and_then(|n| n.effects("select").or_else(|| n.effects("press")));
    if let Some(reaction) = reaction {
        effects::run(tree, id, &reaction, events);
    }
    scroll::scroll_into_view(tree, id, events);
}
