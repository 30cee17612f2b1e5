//! The effect language at run time: what a demo app does when an action, a value write, a
//! click or another trigger runs a node's `on` list, and the change events each step
//! produces. Effects whose target does not exist are skipped (the app simply does nothing),
//! as real apps do. Menus live in `menus.rs`; the state changes
//! effects are made of in `state.rs`. Closing a window and quitting run effects too (a window
//! with unsaved changes asks first), so they live here.

use axgate_engine::{AxValue, ChangeEvent, ChangeKind, NodeId, Role};

use super::build::value_of;
use super::menus::{close_menu, open_menu};
use super::spec::{Effect, ValueSpec};
use super::tree::AppTree;
use super::{lock, state};

/// Runs `effects` on behalf of `origin` (the node acted on), appending the events they cause.
pub(super) fn run(
    tree: &mut AppTree,
    origin: NodeId,
    effects: &[Effect],
    events: &mut Vec<ChangeEvent>,
) {
    for effect in effects {
        apply(tree, origin, effect, events);
    }
}

fn apply(tree: &mut AppTree, origin: NodeId, effect: &Effect, events: &mut Vec<ChangeEvent>) {
    if let Effect::Later { ms, effects } = effect {
        let due = std::time::Instant::now() + std::time::Duration::from_millis(*ms);
        tree.later.push((due, origin, effects.clone()));
        return;
    }
    let Some(target) = resolve(tree, origin, effect) else {
        tracing::debug!(app = %tree.name, ?effect, "demo effect target is absent; skipped");
        return;
    };
    match effect {
        Effect::SetValue { value, .. } => {
            let value = match value {
                ValueSpec::Text(text) => AxValue::Text(interpolate(tree, origin, text)),
                other => value_of(other, &Default::default()),
            };
            state::write_value(tree, target, value, events);
        }
        Effect::SetTitle { title, .. } => {
            let title = interpolate(tree, origin, title);
            if let Some(node) = tree.get_mut(target)
                && node.title.as_deref() != Some(title.as_str())
            {
                node.title = Some(title);
                events.push(state::event(tree, target, ChangeKind::TitleChanged));
            }
        }
        Effect::SetState {
            enabled,
            visible,
            selected,
            expanded,
            ..
        } => {
            let Some(node) = tree.get_mut(target) else {
                return;
            };
            let before = node.states;
            let s = &mut node.states;
            s.enabled = enabled.unwrap_or(s.enabled);
            s.visible = visible.unwrap_or(s.visible);
            s.selected = selected.unwrap_or(s.selected);
            s.expanded = expanded.unwrap_or(s.expanded);
            if node.states != before {
                events.push(state::event(tree, target, ChangeKind::StateChanged));
            }
        }
        Effect::Choose { key, values, .. } => {
            if let Some(chosen) = values.get(&interpolate(tree, origin, key)) {
                state::write_value(tree, target, AxValue::Text(chosen.clone()), events);
            }
        }
        Effect::Toggle { .. } => {
            if let Some(AxValue::Bool(b)) = tree.get(target).and_then(|n| n.value.clone()) {
                state::write_value(tree, target, AxValue::Bool(!b), events);
            }
        }
        Effect::Adjust { by, .. } => {
            if let Some(AxValue::Number(n)) = tree.get(target).and_then(|n| n.value.clone()) {
                state::write_value(tree, target, AxValue::Number(n + by), events);
            }
        }
        Effect::Select { .. } => state::select(tree, target, events),
        Effect::Focus { .. } => state::set_focus(tree, target, events),
        Effect::OpenMenu { template, .. } => open_menu(tree, target, template.as_deref(), events),
        Effect::CloseMenu { .. } => {
            let menu = tree.ancestor_with_role(target, Role::Menu).or_else(|| {
                let node = tree.get(target)?;
                node.children
                    .iter()
                    .copied()
                    .find(|c| tree.get(*c).is_some_and(|c| c.role == Role::Menu))
            });
            if let Some(menu) = menu {
                close_menu(tree, menu, events);
            }
        }
        Effect::Open {
            template,
            again,
            copy_values,
            ..
        } => open(tree, target, template, *again, *copy_values, events),
        Effect::Remove { .. } => state::remove(tree, target, events),
        Effect::Copy { .. } => {
            if let Some(node) = tree.get(target)
                && !node.states.secure
                && let Some(AxValue::Text(text)) = &node.value
            {
                *lock(&tree.clipboard) = text.clone();
            }
        }
        Effect::Paste { .. } => {
            if let Some(AxValue::Text(text)) = tree.get(target).and_then(|n| n.value.clone()) {
                let clip = lock(&tree.clipboard).clone();
                state::write_value(tree, target, AxValue::Text(text + &clip), events);
            }
        }
        Effect::Undo { .. } => {
            if let Some(previous) = tree.get(target).and_then(|n| n.previous_value.clone()) {
                state::write_value(tree, target, previous, events);
            }
        }
        Effect::MarkSaved { .. } => {
            if let Some(window) = tree.window_of(target).and_then(|w| tree.get_mut(w)) {
                window.extra.edited = false;
            }
        }
        Effect::CloseWindow { .. } => {
            if let Some(window) = tree.window_of(target) {
                request_close(tree, window, events);
            }
        }
        Effect::ContinueQuit {} => {
            if tree.quit_pending {
                tree.quit_pending = false;
                tree.exit_requested = may_quit(tree, events);
            }
        }
        Effect::CancelQuit {} => tree.quit_pending = false,
        Effect::Later { .. } => {}
    }
}

/// Instantiates a template under `parent` (see [`Effect::Open`]); a new window becomes the
/// key window.
fn open(
    tree: &mut AppTree,
    parent: NodeId,
    template: &str,
    again: bool,
    copy_values: bool,
    events: &mut Vec<ChangeEvent>,
) {
    let exists = !again
        && tree
            .template_identifier(template)
            .is_some_and(|ident| tree.find_identifier(&ident).is_some());
    if exists {
        return;
    }
    let source = if copy_values { tree.key_window() } else { None };
    let new = match tree.instantiate_template(template, parent) {
        Ok(new) => new,
        Err(e) => {
            tracing::warn!(app = %tree.name, "demo effect open failed: {e}");
            return;
        }
    };
    if let Some(source) = source {
        copy_values_from(tree, source, new);
    }
    let window = tree.window_of(new) == Some(new);
    if window {
        events.push(state::event(tree, new, ChangeKind::WindowCreated));
    }
    events.push(state::event(tree, parent, ChangeKind::ChildrenChanged));
    // A new window or dialog becomes the key window, as on a desktop. Its template may say
    // it is focused already; the other windows still have to lose focus, so it counts as
    // unfocused until then.
    if window {
        if let Some(node) = tree.get_mut(new) {
            node.states.focused = false;
        }
        state::focus_window(tree, new, events);
    }
}

/// Gives each identified node under `to` the value of the node with the same identifier
/// under `from` (a duplicated document starts as a copy of its original).
fn copy_values_from(tree: &mut AppTree, from: NodeId, to: NodeId) {
    let originals = tree.preorder(from);
    for id in tree.preorder(to) {
        let Some(ident) = tree.get(id).and_then(|n| n.identifier.clone()) else {
            continue;
        };
        let value = originals
            .iter()
            .filter_map(|o| tree.get(*o))
            .find(|o| o.identifier.as_deref() == Some(ident.as_str()))
            .and_then(|o| o.value.clone());
        if let (Some(value), Some(node)) = (value, tree.get_mut(id)) {
            node.value = Some(value);
        }
    }
}

/// Runs the `later` effects that are due, in the order they were scheduled.
pub(super) fn run_due(tree: &mut AppTree, events: &mut Vec<ChangeEvent>) {
    let now = std::time::Instant::now();
    if tree.later.iter().all(|(due, ..)| *due > now) {
        return;
    }
    let (due, wait) = std::mem::take(&mut tree.later)
        .into_iter()
        .partition::<Vec<_>, _>(|(at, ..)| *at <= now);
    tree.later = wait;
    for (_, origin, effects) in due {
        run(tree, origin, &effects, events);
    }
}

/// The node an effect acts on: its named target, else the origin (`Open`: the parent).
fn resolve(tree: &AppTree, origin: NodeId, effect: &Effect) -> Option<NodeId> {
    match effect {
        // App-wide: they act even after their dialog removed itself.
        Effect::ContinueQuit {} | Effect::CancelQuit {} => Some(tree.root()),
        Effect::Open { parent, .. } => match parent {
            Some(p) => tree.find_identifier_near(origin, p),
            None => Some(tree.root()),
        },
        _ => match effect.named() {
            None | Some("self") => tree.get(origin).map(|n| n.id),
            Some(identifier) => tree.find_identifier_near(origin, identifier),
        },
    }
}

/// Replaces `{self.title}`, `{self.value}`, `{identifier}` (that node's value, the copy
/// nearest the origin) and `{#identifier}` (how many nodes carry it). Secure values are
/// never interpolated.
fn interpolate(tree: &AppTree, origin: NodeId, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let key = &rest[start + 1..start + len];
        if let Some(ident) = key.strip_prefix('#') {
            out.push_str(&tree.count_identifier(ident).to_string());
            rest = &rest[start + len + 1..];
            continue;
        }
        let node = match key {
            "self.title" | "self.value" => tree.get(origin),
            ident => tree
                .find_identifier_near(origin, ident)
                .and_then(|id| tree.get(id)),
        };
        match (key, node) {
            ("self.title", Some(n)) => out.push_str(n.title.as_deref().unwrap_or("")),
            (_, Some(n)) if !n.states.secure => {
                out.push_str(&n.value.as_ref().map(|v| v.to_string()).unwrap_or_default());
            }
            (_, Some(_)) => {}
            (_, None) => out.push_str(&rest[start..=start + len]),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
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
        run(tree, window, &ask, events);
        return;
    }
    let was_focused = node.states.focused;
    state::remove(tree, window, events);
    if was_focused {
        state::focus_next_window(tree, events);
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
    run(tree, window, &ask, events);
    false
}

/// Writes a value as the user's own edit would: `write_value`, then the node's `change`
/// effects if the value changed.
pub(super) fn change_value(
    tree: &mut AppTree,
    id: NodeId,
    value: AxValue,
    events: &mut Vec<ChangeEvent>,
) {
    let before = events.len();
    state::write_value(tree, id, value, events);
    if events.len() > before
        && let Some(reaction) = tree.get(id).and_then(|n| n.effects("change"))
    {
        run(tree, id, &reaction, events);
    }
}
