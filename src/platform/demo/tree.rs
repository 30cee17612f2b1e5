//! One demo app's live element tree: nodes in an id-keyed arena, built from an [`AppSpec`]
//! (expanding repeats and templates), with the lookups every operation needs. Node ids are
//! minted from a per-app counter and never reused, so a removed element's id stays dead.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::ax::{AxError, AxValue, NodeId, Pid, RawNode, Rect, Role, States};

use super::roles;
use super::spec::{AppSpec, ChildSpec, Effect, NodeSpec, ValueSpec};

/// Repeat variables in scope while instantiating (`{g}` → `"3"`).
type Vars = BTreeMap<String, String>;

/// Event keys in `on` that are not action names.
const EXTRA_TRIGGERS: &[&str] = &["change", "click"];

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
    pub(super) identifier: Option<String>,
    pub(super) value: Option<AxValue>,
    /// The value before the last change (for `undo`).
    pub(super) previous_value: Option<AxValue>,
    pub(super) min: Option<f64>,
    pub(super) max: Option<f64>,
    pub(super) frame: Option<Rect>,
    pub(super) states: States,
    pub(super) actions: Vec<String>,
    pub(super) on: BTreeMap<String, Arc<[Effect]>>,
    /// Created by `open_menu` from a template: closing removes it instead of hiding it.
    pub(super) transient: bool,
}

impl Node {
    /// The node as the engine sees it. Secure values never leave the app.
    pub(super) fn to_raw(&self) -> RawNode {
        let mut raw = RawNode::new(self.id, self.role, self.native_role.clone());
        raw.subrole = self.subrole.clone();
        raw.title = self.title.clone();
        raw.description = self.description.clone();
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
}

#[derive(Debug)]
pub(super) struct AppTree {
    pub(super) pid: Pid,
    pub(super) name: String,
    nodes: HashMap<NodeId, Node>,
    root: NodeId,
    next_id: u64,
    templates: Arc<BTreeMap<String, NodeSpec>>,
    /// The app's pasteboard (`copy`/`paste` effects).
    pub(super) clipboard: String,
}

impl AppTree {
    /// Builds the live tree; ids start at `first_id` so different apps never share ids.
    pub(super) fn build(spec: &AppSpec, pid: Pid, first_id: u64) -> Result<AppTree, String> {
        let mut tree = AppTree {
            pid,
            name: spec.name.clone(),
            nodes: HashMap::new(),
            root: NodeId(first_id),
            next_id: first_id,
            templates: Arc::new(spec.templates.clone()),
            clipboard: String::new(),
        };
        let root = tree.mint();
        let (native, _) = roles::native_role(Role::Application);
        let mut app = blank_node(root, None, Role::Application, native.to_owned());
        app.title = Some(spec.name.clone());
        tree.nodes.insert(root, app);
        tree.instantiate_children(&spec.children, root, &Vars::new(), (0.0, 0.0))?;
        Ok(tree)
    }

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

    /// The first node in tree order with this identifier.
    pub(super) fn find_identifier(&self, identifier: &str) -> Option<NodeId> {
        self.preorder(self.root)
            .into_iter()
            .find(|id| self.nodes[id].identifier.as_deref() == Some(identifier))
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

    /// The identifier a template's root node carries, if it has one.
    pub(super) fn template_identifier(&self, template: &str) -> Option<String> {
        self.templates.get(template)?.identifier.clone()
    }

    /// Instantiates a template as the last child of `parent`.
    pub(super) fn instantiate_template(
        &mut self,
        template: &str,
        parent: NodeId,
    ) -> Result<NodeId, String> {
        let templates = Arc::clone(&self.templates);
        let spec = templates
            .get(template)
            .ok_or_else(|| format!("{}: no template {template:?}", self.name))?;
        self.instantiate(spec, parent, &Vars::new(), (0.0, 0.0))
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

    fn mint(&mut self) -> NodeId {
        let id = NodeId(self.next_id);
        self.next_id += 1;
        id
    }

    fn instantiate_children(
        &mut self,
        children: &[ChildSpec],
        parent: NodeId,
        vars: &Vars,
        shift: (f64, f64),
    ) -> Result<(), String> {
        for child in children {
            match child {
                ChildSpec::Node(spec) => {
                    self.instantiate(spec, parent, vars, shift)?;
                }
                ChildSpec::Template { template } => {
                    self.instantiate_template(template, parent)?;
                }
                ChildSpec::Repeat { repeat } => {
                    let rounds: Vec<Vars> = match (&repeat.count, &repeat.each) {
                        (Some(n), None) => (0..*n).map(|_| Vars::new()).collect(),
                        (None, Some(each)) => each.clone(),
                        _ => return Err("a repeat needs exactly one of count, each".to_owned()),
                    };
                    for (i, extra) in rounds.into_iter().enumerate() {
                        let mut inner = vars.clone();
                        inner.extend(extra);
                        inner.insert(repeat.var.clone(), i.to_string());
                        let k = i as f64;
                        let moved = (
                            shift.0 + repeat.offset[0] * k,
                            shift.1 + repeat.offset[1] * k,
                        );
                        self.instantiate_children(&repeat.nodes, parent, &inner, moved)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn instantiate(
        &mut self,
        spec: &NodeSpec,
        parent: NodeId,
        vars: &Vars,
        shift: (f64, f64),
    ) -> Result<NodeId, String> {
        let role = Role::parse(&spec.role).ok_or_else(|| {
            format!(
                "unknown role {:?}; use a role name such as button or text_field",
                spec.role
            )
        })?;
        for trigger in spec.on.keys() {
            if !spec.actions.contains(trigger) && !EXTRA_TRIGGERS.contains(&trigger.as_str()) {
                return Err(format!(
                    "{} {:?}: effects on {trigger:?}, which is neither an action nor change/click",
                    spec.role, spec.title
                ));
            }
        }
        let id = self.mint();
        let (native, subrole) = roles::native_role(role);
        let text = |s: &Option<String>| s.as_deref().map(|s| substitute(s, vars));
        let mut node = blank_node(
            id,
            Some(parent),
            role,
            spec.native_role
                .clone()
                .unwrap_or_else(|| native.to_owned()),
        );
        node.subrole = spec.subrole.clone().or(subrole.map(str::to_owned));
        node.title = text(&spec.title);
        node.description = text(&spec.description);
        node.identifier = text(&spec.identifier);
        node.value = spec.value.as_ref().map(|v| value_of(v, vars));
        node.min = spec.min;
        node.max = spec.max;
        node.frame = spec.frame.map(|[x, y, w, h]| Rect {
            x: x + shift.0,
            y: y + shift.1,
            w,
            h,
        });
        let s = spec.states;
        let d = States::default();
        node.states = States {
            enabled: s.enabled.unwrap_or(d.enabled),
            visible: s.visible.unwrap_or(d.visible),
            focused: s.focused.unwrap_or(d.focused),
            selected: s.selected.unwrap_or(d.selected),
            expanded: s.expanded.unwrap_or(d.expanded),
            secure: s.secure.unwrap_or(role == Role::SecureTextField),
            value_settable: s.value_settable.unwrap_or(roles::settable_by_default(role)),
        };
        node.actions = spec.actions.clone();
        node.on = spec
            .on
            .iter()
            .map(|(k, v)| (k.clone(), Arc::from(v.as_slice())))
            .collect();
        self.nodes.insert(id, node);
        if let Some(p) = self.nodes.get_mut(&parent) {
            p.children.push(id);
        }
        self.instantiate_children(&spec.children, id, vars, shift)?;
        Ok(id)
    }
}

fn blank_node(id: NodeId, parent: Option<NodeId>, role: Role, native_role: String) -> Node {
    Node {
        id,
        parent,
        children: Vec::new(),
        role,
        native_role,
        subrole: None,
        title: None,
        description: None,
        identifier: None,
        value: None,
        previous_value: None,
        min: None,
        max: None,
        frame: None,
        states: States::default(),
        actions: Vec::new(),
        on: BTreeMap::new(),
        transient: false,
    }
}

/// A data value as an engine value, with repeat variables substituted into text.
pub(super) fn value_of(spec: &ValueSpec, vars: &Vars) -> AxValue {
    match spec {
        ValueSpec::Bool(b) => AxValue::Bool(*b),
        ValueSpec::Number(n) => AxValue::Number(*n),
        ValueSpec::Text(s) => AxValue::Text(substitute(s, vars)),
    }
}

/// Replaces `{var}` with its value for every variable in scope.
fn substitute(text: &str, vars: &Vars) -> String {
    let mut out = text.to_owned();
    for (k, v) in vars {
        if out.contains('{') {
            out = out.replace(&format!("{{{k}}}"), v);
        }
    }
    out
}
