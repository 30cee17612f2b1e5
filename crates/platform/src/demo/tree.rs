//! One demo app's live element tree: nodes in an id-keyed arena with the lookups and edits
//! every operation needs. `build.rs` fills it from an [`AppSpec`](super::spec::AppSpec). Node
//! ids are minted from a per-app counter and never reused, so a removed element's id stays dead.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axgate_engine::keys::KeyCombo;
use axgate_engine::{AxError, AxValue, NodeId, Pid, RawNode, Rect, Role, States};

use super::roles;
use super::spec::{Effect, NodeSpec};

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) id: NodeId,
    pub(super) parent: Option<NodeId>,
    pub(super) children: Vec<NodeId>,
    pub(super) role: Role,
    pub(super) native_role: String,
    pub(super) subrole: Option<String>,
    pub(super) title: Option<String>,
    pub(super) description: Option<String>,
    pub(super) placeholder: Option<String>,
    pub(super) help: Option<String>,
    /// The identifier of the label element that names this one.
    pub(super) labelled_by: Option<String>,
    pub(super) identifier: Option<String>,
    pub(super) value: Option<AxValue>,
    /// The value before the last change (for `undo`).
    pub(super) previous_value: Option<AxValue>,
    pub(super) min: Option<f64>,
    pub(super) max: Option<f64>,
    pub(super) frame: Option<Rect>,
    /// For text elements `selected` means "all text selected" (cmd+a): the next typed
    /// character, Backspace, cut or paste replaces the whole value.
    pub(super) states: States,
    pub(super) actions: Vec<String>,
    pub(super) on: BTreeMap<String, Arc<[Effect]>>,
    /// Created by `open_menu` from a template: closing removes it instead of hiding it.
    pub(super) transient: bool,
    pub(super) extra: Extra,
}

/// Behaviour the engine does not see directly: keyboard roles, window and scroll state.
#[derive(Clone, Debug, Default)]
pub(super) struct Extra {
    /// A menu item's key equivalent.
    pub(super) shortcut: Option<KeyCombo>,
    pub(super) default_button: bool,
    pub(super) cancel_button: bool,
    pub(super) marks_edited: bool,
    /// Windows: changed since the last save.
    pub(super) edited: bool,
    /// Windows: minimized (then also not visible, and neither are its descendants).
    pub(super) minimized: bool,
    /// Windows: zoomed (maximized) from this frame, which a second zoom gives back.
    pub(super) unzoomed: Option<Rect>,
    /// Windows: in full screen, entered from this frame, which `Restore` gives back.
    pub(super) full_screen_from: Option<Rect>,
    /// Content of a live scroll area that lies outside its viewport: reported invisible.
    pub(super) scrolled_out: bool,
    /// Scroll areas: how far the content is scrolled right and down, in points.
    pub(super) scroll_offset: (f64, f64),
}

impl Node {
    /// The node as the engine sees it, without its accessible name (which may come from
    /// another node: [`AppTree::raw`] sets it). Secure values never leave the app.
    fn to_raw(&self) -> RawNode {
        let mut raw = RawNode::new(self.id, self.role, self.native_role.clone());
        raw.subrole = self.subrole.clone();
        raw.title = self.title.clone();
        raw.description = self.description.clone();
        raw.placeholder = self.placeholder.clone();
        raw.help = self.help.clone();
        raw.identifier = self.identifier.clone();
        raw.value = if self.states.secure {
            None
        } else {
            self.value.clone()
        };
        raw.min_value = self.min;
        raw.max_value = self.max;
        raw.frame = self.frame;
        raw.states = self.states;
        raw.states.visible &= !self.extra.scrolled_out;
        raw.actions = self.actions.clone();
        raw.child_count = self.children.len();
        raw
    }

    /// The label a person would read: the title, else the description.
    pub(super) fn label(&self) -> Option<&str> {
        [&self.title, &self.description]
            .into_iter()
            .filter_map(|s| s.as_deref())
            .find(|s| !s.is_empty())
    }

    /// The name this node gives an element it labels: its own title or description, or (a
    /// static text) its text.
    fn label_text(&self) -> Option<&str> {
        self.label().or_else(|| match (&self.value, self.role) {
            (Some(AxValue::Text(t)), Role::StaticText) => {
                Some(t.as_str()).filter(|t| !t.is_empty())
            }
            _ => None,
        })
    }

    /// `button "Submit"` (or `menu #color_menu`), for error messages.
    pub(super) fn describe(&self) -> String {
        match (self.label(), &self.identifier) {
            (Some(label), _) => format!("{} {label:?}", self.role),
            (None, Some(identifier)) => format!("{} #{identifier}", self.role),
            (None, None) => format!("{} (node {})", self.role, self.id.0),
        }
    }

    pub(super) fn effects(&self, trigger: &str) -> Option<Arc<[Effect]>> {
        self.on.get(trigger).cloned()
    }

    pub(super) fn has_action(&self, action: &str) -> bool {
        self.actions.iter().any(|a| a == action)
    }

    /// The node's text value (`""` for none or a non-text value).
    pub(super) fn text(&self) -> &str {
        match &self.value {
            Some(AxValue::Text(t)) => t,
            _ => "",
        }
    }
}

#[derive(Debug)]
pub(super) struct AppTree {
    pub(super) pid: Pid,
    pub(super) name: String,
    pub(super) nodes: HashMap<NodeId, Node>,
    pub(super) root: NodeId,
    pub(super) next_id: u64,
    pub(super) templates: Arc<BTreeMap<String, NodeSpec>>,
    /// The machine-wide text clipboard, shared with every app and the backend. Locked only
    /// briefly and never while taking another lock.
    pub(super) clipboard: Arc<Mutex<String>>,
    /// Launched but not ready yet: the application element has no windows.
    pub(super) launching: bool,
    /// A quit waits on a save dialog (`continue_quit` / `cancel_quit` settle it).
    pub(super) quit_pending: bool,
    /// The app decided to exit; the backend removes it after the current call.
    pub(super) exit_requested: bool,
    /// Effects of `later` steps still to run: when, on behalf of which node, what.
    pub(super) later: Vec<(std::time::Instant, NodeId, Vec<super::spec::Effect>)>,
}

impl AppTree {
    pub(super) fn root(&self) -> NodeId {
        self.root
    }

    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(super) fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(&id)
    }

    pub(super) fn get_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.get_mut(&id)
    }

    /// The node, or the error an agent gets for an element that no longer exists.
    pub(super) fn live(&self, id: NodeId) -> Result<&Node, AxError> {
        self.nodes.get(&id).ok_or_else(|| AxError::Stale {
            handle: format!("node {} of {}", id.0, self.name),
            expected: "a live element".to_owned(),
            found: "nothing: the element is gone (its menu, dialog or window closed)".to_owned(),
        })
    }

    /// The node as the engine sees it, with its accessible name computed the way macOS does
    /// (the demo's native roles are macOS's): the title, else the description, else the name
    /// its `labelled_by` label gives (that label's title, description or text), else the
    /// placeholder; a static text without a title or description is named by its text.
    pub(super) fn raw(&self, node: &Node) -> RawNode {
        let mut raw = node.to_raw();
        let label = || {
            let id = self.find_identifier(node.labelled_by.as_deref()?)?;
            self.nodes.get(&id)?.label_text()
        };
        let placeholder = || node.placeholder.as_deref().filter(|p| !p.is_empty());
        let name = node
            .label()
            .or_else(label)
            .or_else(placeholder)
            .or_else(|| (!node.states.secure).then(|| node.label_text()).flatten());
        raw.name = name.map(str::to_owned);
        raw
    }

    /// The first node in tree order with this identifier.
    pub(super) fn find_identifier(&self, identifier: &str) -> Option<NodeId> {
        self.preorder(self.root)
            .into_iter()
            .find(|id| self.nodes[id].identifier.as_deref() == Some(identifier))
    }

    /// The node with this identifier that an effect of `origin` means: the copy in
    /// `origin`'s own window, else in the key window, else the first in tree order. Apps with
    /// one copy of each identifier get the same answer as [`Self::find_identifier`]; an app
    /// with two document windows acts on the window the command came from.
    pub(super) fn find_identifier_near(&self, origin: NodeId, identifier: &str) -> Option<NodeId> {
        let within = |window: Option<NodeId>| {
            let window = window?;
            self.preorder(window)
                .into_iter()
                .find(|id| self.nodes[id].identifier.as_deref() == Some(identifier))
        };
        within(self.window_of(origin))
            .or_else(|| within(self.key_window()))
            .or_else(|| self.find_identifier(identifier))
    }

    /// How many nodes carry this identifier (`{#identifier}` in effect text).
    pub(super) fn count_identifier(&self, identifier: &str) -> usize {
        self.preorder(self.root)
            .into_iter()
            .filter(|id| self.nodes[id].identifier.as_deref() == Some(identifier))
            .count()
    }

    /// `start` and everything below it, parents before children, siblings in order.
    pub(super) fn preorder(&self, start: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![start];
        while let Some(id) = stack.pop() {
            if let Some(node) = self.nodes.get(&id) {
                out.push(id);
                stack.extend(node.children.iter().rev());
            }
        }
        out
    }

    /// The nearest ancestor-or-self with this role.
    pub(super) fn ancestor_with_role(&self, start: NodeId, role: Role) -> Option<NodeId> {
        let mut cursor = Some(start);
        while let Some(id) = cursor {
            let node = self.nodes.get(&id)?;
            if node.role == role {
                return Some(id);
            }
            cursor = node.parent;
        }
        None
    }

    /// The top-level window containing `start`, if any.
    pub(super) fn window_of(&self, start: NodeId) -> Option<NodeId> {
        let mut cursor = Some(start);
        while let Some(id) = cursor {
            let node = self.nodes.get(&id)?;
            if roles::is_window(node.role) && node.parent == Some(self.root) {
                return Some(id);
            }
            cursor = node.parent;
        }
        None
    }

    /// The app's top-level windows, dialogs and sheets, in tree order.
    pub(super) fn windows(&self) -> Vec<NodeId> {
        self.nodes[&self.root]
            .children
            .iter()
            .copied()
            .filter(|id| self.nodes.get(id).is_some_and(|n| roles::is_window(n.role)))
            .collect()
    }

    /// Whether `id` and all its ancestors are visible (and not scrolled out of view).
    pub(super) fn shown(&self, id: NodeId) -> bool {
        let mut cursor = Some(id);
        while let Some(node) = cursor.and_then(|c| self.nodes.get(&c)) {
            if !node.states.visible || node.extra.scrolled_out {
                return false;
            }
            cursor = node.parent;
        }
        true
    }

    /// The element (not a window) with keyboard focus, if any: it must be in the focused
    /// window (a minimized or background window's element does not get keys).
    pub(super) fn focused_element(&self) -> Option<NodeId> {
        self.preorder(self.root).into_iter().find(|id| {
            let node = &self.nodes[id];
            node.states.focused
                && !roles::is_window(node.role)
                && self.window_of(*id).is_none_or(|w| {
                    let window = &self.nodes[&w];
                    window.states.focused && !window.extra.minimized
                })
        })
    }

    /// The window keyboard input goes to: the focused element's, else the focused window,
    /// else the first shown window.
    pub(super) fn key_window(&self) -> Option<NodeId> {
        if let Some(window) = self.focused_element().and_then(|f| self.window_of(f)) {
            return Some(window);
        }
        let windows = self.windows();
        let shown = |id: &NodeId| self.nodes[id].states.visible;
        windows
            .iter()
            .copied()
            .find(|w| shown(w) && self.nodes[w].states.focused)
            .or_else(|| windows.iter().copied().find(shown))
    }

    /// The identifier a template's root node carries, if it has one.
    pub(super) fn template_identifier(&self, template: &str) -> Option<String> {
        self.templates.get(template)?.identifier.clone()
    }

    /// Removes `id` and its subtree; returns its parent. Removed ids are never minted again.
    pub(super) fn remove(&mut self, id: NodeId) -> Option<NodeId> {
        let parent = self.nodes.get(&id)?.parent;
        for gone in self.preorder(id) {
            self.nodes.remove(&gone);
        }
        if let Some(p) = parent.and_then(|p| self.nodes.get_mut(&p)) {
            p.children.retain(|c| *c != id);
        }
        parent
    }

    /// Moves the frames of `id` and everything below it by (dx, dy).
    pub(super) fn shift(&mut self, id: NodeId, (dx, dy): (f64, f64)) {
        for node_id in self.preorder(id) {
            if let Some(frame) = self.nodes.get_mut(&node_id).and_then(|n| n.frame.as_mut()) {
                frame.x += dx;
                frame.y += dy;
            }
        }
    }

    pub(super) fn mint(&mut self) -> NodeId {
        let id = NodeId(self.next_id);
        self.next_id += 1;
        id
    }
}
