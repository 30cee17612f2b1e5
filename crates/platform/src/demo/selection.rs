//! Semantic selection in a demo app: list rows, table rows and cells, tabs and radio buttons
//! take the selection (single selection among their siblings) and run their `select` effects
//! (else their `press` effects, which is how tabs swap panels); menu items and menu bar items
//! are pressed, as choosing them does. A pointer click with Shift or Command held selects
//! several rows of a list (`extend_to`, `toggle`).

use axgate_engine::{AxError, ChangeEvent, ChangeKind, NodeId, Role};

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

/// The rows of `id`'s role among its siblings, in order, with whether each is selected.
fn rows(tree: &AppTree, id: NodeId) -> Vec<(NodeId, bool)> {
    let Some(node) = tree.get(id) else {
        return Vec::new();
    };
    let role = node.role;
    let siblings = match node.parent.and_then(|p| tree.get(p)) {
        Some(parent) => parent.children.clone(),
        None => vec![id],
    };
    siblings
        .into_iter()
        .filter_map(|s| tree.get(s))
        .filter(|n| n.role == role)
        .map(|n| (n.id, n.states.selected))
        .collect()
}

fn set_selected(tree: &mut AppTree, id: NodeId, on: bool, events: &mut Vec<ChangeEvent>) {
    if let Some(node) = tree.get_mut(id)
        && node.states.selected != on
    {
        node.states.selected = on;
        events.push(state::event(tree, id, ChangeKind::StateChanged));
    }
}

/// A shift-click: selects the rows from the selection's nearest end to `id` (the first
/// selected row when `id` is below it, else the last), and only those; with nothing selected
/// it selects `id` alone, as a plain click.
pub(super) fn extend_to(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    let rows = rows(tree, id);
    let Some(at) = rows.iter().position(|(r, _)| *r == id) else {
        return;
    };
    let selected: Vec<usize> = (0..rows.len()).filter(|i| rows[*i].1).collect();
    let (Some(&first), Some(&last)) = (selected.first(), selected.last()) else {
        select_item(tree, id, events);
        return;
    };
    let range = if at >= first { first..=at } else { at..=last };
    for (i, (row, _)) in rows.iter().enumerate() {
        set_selected(tree, *row, range.contains(&i), events);
    }
    scroll::scroll_into_view(tree, id, events);
}

/// A command-click: adds `id` to the selection, or takes it out; other rows keep theirs.
pub(super) fn toggle(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    let on = tree.get(id).is_some_and(|n| !n.states.selected);
    set_selected(tree, id, on, events);
    scroll::scroll_into_view(tree, id, events);
}
