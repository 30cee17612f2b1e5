//! Synthetic keyboard input to a demo app, dispatched the way a desktop app does: Escape
//! closes an open menu or cancels a dialog; the focused text element takes editing keys
//! (characters, Backspace, cmd+a/c/x/v); menu items' key equivalents run their command;
//! then Tab moves focus, Return presses the window's default button, Space presses the
//! focused control and the arrows step a focused slider. Typed text is never logged.

use axgate_engine::keys::{Key, KeyCombo, Modifiers, NamedKey};
use axgate_engine::{AxError, ChangeEvent, NodeId, Role};

use super::tree::AppTree;
use super::{effects, menus, roles, state, text};

/// Types `input` grapheme by grapheme into the focused element. Newlines press Return and
/// tabs press Tab (so focus may move mid-text, as with a real keyboard). A disabled or
/// read-only focused element ignores the keys.
pub(super) fn type_text(tree: &mut AppTree, input: &str) -> Result<Vec<ChangeEvent>, AxError> {
    let Some(focused) = tree
        .focused_element()
        .filter(|f| tree.get(*f).is_some_and(|n| text::editable(n.role)))
    else {
        return Err(AxError::Unsupported(format!(
            "no text field of {} has keyboard focus; focus a text field first (focus or \
             click it), then type",
            tree.name
        )));
    };
    let before = tree.get(focused).and_then(|n| n.value.clone());
    let mut events = Vec::new();
    // Only Return and Tab can move focus, so the target is looked up again only after them.
    let mut target = Some(focused).filter(|f| text::accepts_input(tree, *f));
    for g in text::graphemes(input) {
        let named = match g {
            "\n" | "\r" | "\r\n" => Some(NamedKey::Return),
            "\t" => Some(NamedKey::Tab),
            _ => None,
        };
        match named {
            Some(key) => {
                press_key(tree, &plain(Key::Named(key)), &mut events);
                target = tree
                    .focused_element()
                    .filter(|f| text::accepts_input(tree, *f));
            }
            None => {
                if let Some(f) = target {
                    text::insert(tree, f, g, &mut events);
                }
            }
        }
    }
    // One typing run is one undo step, as in real text views.
    if let Some(node) = tree.get_mut(focused)
        && node.value != before
    {
        node.previous_value = before;
    }
    Ok(events)
}

fn plain(key: Key) -> KeyCombo {
    KeyCombo {
        key,
        modifiers: Modifiers::default(),
    }
}

/// Presses one key combination in the app.
pub(super) fn press_key(tree: &mut AppTree, combo: &KeyCombo, events: &mut Vec<ChangeEvent>) {
    let m = combo.modifiers;
    let command = m.cmd || m.ctrl || m.opt;
    if combo.key == Key::Named(NamedKey::Escape)
        && !command
        && let Some(menu) = menus::open_menus(tree).last()
    {
        menus::close_menu(tree, *menu, events);
        return;
    }
    let focused = tree.focused_element();
    if let Some(f) = focused.filter(|f| tree.get(*f).is_some_and(|n| text::editable(n.role)))
        && edit_key(tree, f, combo, events)
    {
        return;
    }
    // Everything a key presses is found by `receiver`, which the confirmation of destructive
    // acts asks first: the two cannot disagree.
    if let Some(id) = receiver(tree, combo) {
        press(tree, id, events);
        return;
    }
    if command {
        return;
    }
    match combo.key {
        Key::Named(NamedKey::Tab) => move_focus(tree, focused, m.shift, events),
        Key::Named(k @ (NamedKey::Up | NamedKey::Down | NamedKey::Left | NamedKey::Right)) => {
            let action = match k {
                NamedKey::Up | NamedKey::Right => "increment",
                _ => "decrement",
            };
            if let Some(f) =
                focused.filter(|f| tree.get(*f).is_some_and(|n| n.role == Role::Slider))
            {
                run_action(tree, f, action, events);
            }
        }
        _ => {}
    }
}

/// The element `press_key(combo)` would press, without pressing it: Escape's cancel button
/// (when no menu is open), a menu item's key equivalent, Return's default button, Space's
/// focused control; `None` when the key presses nothing (a text element takes it, say).
pub(super) fn receiver(tree: &AppTree, combo: &KeyCombo) -> Option<NodeId> {
    let m = combo.modifiers;
    let command = m.cmd || m.ctrl || m.opt;
    if combo.key == Key::Named(NamedKey::Escape) && !command {
        if !menus::open_menus(tree).is_empty() {
            return None;
        }
        return window_button(tree, |n| n.extra.cancel_button);
    }
    let focused = tree.focused_element();
    if let Some(f) = focused.filter(|f| tree.get(*f).is_some_and(|n| text::editable(n.role)))
        && edit_consumes(tree, f, combo)
    {
        return None;
    }
    if command {
        return menus::shortcut_item(tree, combo)
            .filter(|item| tree.get(*item).is_some_and(|n| n.states.enabled));
    }
    match combo.key {
        Key::Named(NamedKey::Return) => window_button(tree, |n| n.extra.default_button),
        Key::Named(NamedKey::Space) => {
            focused.filter(|f| tree.get(*f).is_some_and(|n| n.has_action("press")))
        }
        _ => None,
    }
}

/// The keys that move a text element's caret (and collapse its selection).
fn moves_caret(key: NamedKey) -> bool {
    matches!(
        key,
        NamedKey::Left
            | NamedKey::Right
            | NamedKey::Up
            | NamedKey::Down
            | NamedKey::Home
            | NamedKey::End
            | NamedKey::PageUp
            | NamedKey::PageDown
    )
}

/// Whether the focused text element `id` takes `combo` (see [`edit_key`]).
fn edit_consumes(tree: &AppTree, id: NodeId, combo: &KeyCombo) -> bool {
    let m = combo.modifiers;
    if m.cmd && !m.ctrl && !m.opt {
        return matches!(combo.key, Key::Char(c) if !m.shift && matches!(c.to_ascii_lowercase(), 'a' | 'c' | 'x' | 'v'));
    }
    if m.cmd || m.ctrl || m.opt {
        return false;
    }
    let multi_line = tree.get(id).is_some_and(|n| n.role == Role::TextArea);
    match combo.key {
        Key::Char(_) => true,
        Key::Named(NamedKey::Return) => multi_line,
        Key::Named(NamedKey::Space | NamedKey::Backspace | NamedKey::Delete) => true,
        Key::Named(key) => moves_caret(key),
    }
}

/// A text element's share of the keys; returns whether it consumed the key. Disabled or
/// read-only elements swallow editing keys without changing.
fn edit_key(
    tree: &mut AppTree,
    id: NodeId,
    combo: &KeyCombo,
    events: &mut Vec<ChangeEvent>,
) -> bool {
    if !edit_consumes(tree, id, combo) {
        return false;
    }
    let m = combo.modifiers;
    let live = text::accepts_input(tree, id);
    let multi_line = tree.get(id).is_some_and(|n| n.role == Role::TextArea);
    if m.cmd && !m.ctrl && !m.opt {
        let Key::Char(c) = combo.key else {
            return false;
        };
        match c.to_ascii_lowercase() {
            'a' if !m.shift => text::select_all(tree, id, events),
            'c' if !m.shift => text::copy(tree, id, false, events),
            'x' if !m.shift && live => text::copy(tree, id, true, events),
            'v' if !m.shift && live => text::paste(tree, id, events),
            'x' | 'v' if !m.shift => {}
            _ => return false,
        }
        return true;
    }
    if m.cmd || m.ctrl || m.opt {
        return false;
    }
    match combo.key {
        Key::Char(c) => {
            if live {
                let c = if m.shift {
                    c.to_uppercase().next().unwrap_or(c)
                } else {
                    c
                };
                text::insert(tree, id, c.encode_utf8(&mut [0; 4]), events);
            }
        }
        Key::Named(NamedKey::Space) if live => text::insert(tree, id, " ", events),
        Key::Named(NamedKey::Return) if multi_line => {
            if live {
                text::insert(tree, id, "\n", events);
            }
        }
        Key::Named(NamedKey::Backspace) if live => text::backspace(tree, id, events),
        Key::Named(NamedKey::Delete) if live => text::delete_forward(tree, id, events),
        Key::Named(key) if moves_caret(key) => text::collapse(tree, id, events),
        Key::Named(NamedKey::Space | NamedKey::Backspace | NamedKey::Delete) => {}
        Key::Named(_) => return false,
    }
    true
}

/// The enabled, shown button of the key window that `pick` selects.
fn window_button(tree: &AppTree, pick: impl Fn(&super::tree::Node) -> bool) -> Option<NodeId> {
    let window = tree.key_window()?;
    tree.preorder(window).into_iter().find(|id| {
        tree.get(*id)
            .is_some_and(|n| pick(n) && n.states.enabled && tree.shown(*id))
    })
}

/// Presses an element as its `press` action would (keys do not check the action list).
fn press(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    run_action(tree, id, "press", events);
}

fn run_action(tree: &mut AppTree, id: NodeId, action: &str, events: &mut Vec<ChangeEvent>) {
    if let Some(reaction) = tree
        .get(id)
        .filter(|n| n.states.enabled)
        .and_then(|n| n.effects(action))
    {
        effects::run(tree, id, &reaction, events);
    }
}

/// Tab / shift+Tab: the next (previous) control of the key window in tree order, wrapping.
fn move_focus(
    tree: &mut AppTree,
    focused: Option<NodeId>,
    backwards: bool,
    events: &mut Vec<ChangeEvent>,
) {
    let Some(window) = tree.key_window() else {
        return;
    };
    let order: Vec<NodeId> = tree
        .preorder(window)
        .into_iter()
        .filter(|id| *id == focused.unwrap_or(*id) || tab_stop(tree, *id))
        .filter(|id| *id != window)
        .collect();
    let stops: Vec<NodeId> = order
        .iter()
        .copied()
        .filter(|id| tab_stop(tree, *id))
        .collect();
    if stops.is_empty() {
        return;
    }
    let at = focused.and_then(|f| order.iter().position(|id| *id == f));
    let next = match (at, backwards) {
        (None, false) => stops[0],
        (None, true) => stops[stops.len() - 1],
        (Some(i), false) => order[i + 1..]
            .iter()
            .copied()
            .find(|id| tab_stop(tree, *id))
            .unwrap_or(stops[0]),
        (Some(i), true) => order[..i]
            .iter()
            .rev()
            .copied()
            .find(|id| tab_stop(tree, *id))
            .unwrap_or(stops[stops.len() - 1]),
    };
    state::set_focus(tree, next, events);
}

/// Whether Tab stops at this element: an enabled, shown control (not a menu, nor a list row:
/// lists take focus as a whole).
fn tab_stop(tree: &AppTree, id: NodeId) -> bool {
    tree.get(id).is_some_and(|n| {
        roles::focusable(n.role)
            && !roles::is_window(n.role)
            && !matches!(
                n.role,
                Role::MenuItem | Role::MenuBarItem | Role::ListItem | Role::Row | Role::Cell
            )
            && n.states.enabled
            && tree.shown(id)
    })
}
