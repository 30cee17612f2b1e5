//! Menus at run time: opening one (from a hidden child or a template), closing it, finding
//! the open ones, and menu items' key equivalents.

use axgate_engine::keys::{Key, KeyCombo};
use axgate_engine::{ChangeEvent, ChangeKind, NodeId, Role};

use super::tree::AppTree;

/// Opens `opener`'s menu, closing any other open menu first (one menu open at a time).
pub(super) fn open_menu(
    tree: &mut AppTree,
    opener: NodeId,
    template: Option<&str>,
    events: &mut Vec<ChangeEvent>,
) {
    for menu in open_menus(tree) {
        let encloses_opener = tree.preorder(menu).contains(&opener);
        if tree.get(menu).and_then(|m| m.parent) != Some(opener) && !encloses_opener {
            close_menu(tree, menu, events);
        }
    }
    let existing = tree.get(opener).and_then(|n| {
        n.children
            .iter()
            .copied()
            .find(|c| tree.get(*c).is_some_and(|c| c.role == Role::Menu))
    });
    let menu = match (existing, template) {
        (Some(menu), _) => menu,
        (None, Some(template)) => match tree.instantiate_template(template, opener) {
            Ok(menu) => {
                if let Some(node) = tree.get_mut(menu) {
                    node.transient = true;
                }
                events.push(tree.event(opener, ChangeKind::ChildrenChanged));
                menu
            }
            Err(e) => {
                tracing::warn!(app = %tree.name, "demo effect open_menu failed: {e}");
                return;
            }
        },
        (None, None) => return,
    };
    let already_open = tree.get(opener).is_some_and(|n| n.states.expanded)
        && tree.get(menu).is_some_and(|m| m.states.visible);
    if let Some(node) = tree.get_mut(menu) {
        node.states.visible = true;
    }
    if let Some(node) = tree.get_mut(opener) {
        node.states.expanded = true;
    }
    if !already_open {
        events.push(tree.event(menu, ChangeKind::MenuOpened));
    }
}

/// Menus whose opener is expanded.
pub(super) fn open_menus(tree: &AppTree) -> Vec<NodeId> {
    tree.preorder(tree.root())
        .into_iter()
        .filter(|id| {
            tree.get(*id).is_some_and(|n| {
                n.role == Role::Menu
                    && n.parent
                        .and_then(|p| tree.get(p))
                        .is_some_and(|p| p.states.expanded)
            })
        })
        .collect()
}

/// Closes a menu: removes it if it came from a template, hides it otherwise.
pub(super) fn close_menu(tree: &mut AppTree, menu: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(node) = tree.get(menu) else {
        return;
    };
    let (opener, transient, visible) = (node.parent, node.transient, node.states.visible);
    if let Some(opener) = opener.and_then(|o| tree.get_mut(o)) {
        opener.states.expanded = false;
    }
    if transient {
        events.push(tree.event(menu, ChangeKind::MenuClosed));
        tree.remove(menu);
        if let Some(opener) = opener {
            events.push(tree.event(opener, ChangeKind::ChildrenChanged));
        }
    } else if visible {
        if let Some(node) = tree.get_mut(menu) {
            node.states.visible = false;
        }
        events.push(tree.event(menu, ChangeKind::MenuClosed));
    }
}

/// The menu item whose key equivalent is `combo` (letters compare case-insensitively; shift
/// must match), if the app has one.
pub(super) fn shortcut_item(tree: &AppTree, combo: &KeyCombo) -> Option<NodeId> {
    let wanted = normalise(combo);
    tree.preorder(tree.root()).into_iter().find(|id| {
        tree.get(*id).is_some_and(|n| {
            n.role == Role::MenuItem && n.extra.shortcut.as_ref().map(normalise) == Some(wanted)
        })
    })
}

fn normalise(combo: &KeyCombo) -> KeyCombo {
    let key = match combo.key {
        Key::Char(c) => Key::Char(c.to_lowercase().next().unwrap_or(c)),
        other => other,
    };
    KeyCombo {
        key,
        modifiers: combo.modifiers,
    }
}
