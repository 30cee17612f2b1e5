//! Building a demo app's live tree from its [`AppSpec`]: expanding repeats and templates,
//! substituting repeat variables, and checking the data (roles, triggers, shortcuts).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axgate_engine::keys::KeyCombo;
use axgate_engine::{AxValue, ChangeEvent, ChangeKind, NodeId, Pid, Rect, Role, States};

use super::roles;
use super::spec::{AppSpec, ChildSpec, NodeSpec, ValueSpec};
use super::tree::{AppTree, Extra, Node};

/// Repeat variables in scope while instantiating (`{g}` → `"3"`).
type Vars = BTreeMap<String, String>;

/// Keys in `on` that are not action names.
const EXTRA_TRIGGERS: &[&str] = &["change", "click", "hover", "select", "close_edited"];

impl AppTree {
    /// Builds the live tree; ids start at `first_id` so different apps never share ids.
    /// Without `ready` only the application element exists (an app still launching); call
    /// [`AppTree::populate`] later.
    pub(super) fn build(
        spec: &AppSpec,
        pid: Pid,
        first_id: u64,
        clipboard: Arc<Mutex<String>>,
        ready: bool,
    ) -> Result<AppTree, String> {
        let mut tree = AppTree {
            pid,
            name: spec.name.clone(),
            nodes: HashMap::new(),
            root: NodeId(first_id),
            next_id: first_id,
            templates: Arc::new(spec.templates.clone()),
            clipboard,
            launching: true,
            quit_pending: false,
            exit_requested: false,
            later: Vec::new(),
        };
        let root = tree.mint();
        let (native, _) = roles::native_role(Role::Application);
        let mut app = blank_node(root, None, Role::Application, native.to_owned());
        app.title = Some(spec.name.clone());
        tree.nodes.insert(root, app);
        if ready {
            tree.populate(spec)?;
        }
        Ok(tree)
    }

    /// Adds the app's menu bar and windows (the app finished launching). Returns the events a
    /// real app's observers would see; does nothing if the app is already populated.
    pub(super) fn populate(&mut self, spec: &AppSpec) -> Result<Vec<ChangeEvent>, String> {
        if !self.launching {
            return Ok(Vec::new());
        }
        self.launching = false;
        let root = self.root;
        self.instantiate_children(&spec.children, root, &Vars::new(), (0.0, 0.0))?;
        let mut events: Vec<ChangeEvent> = self
            .windows()
            .into_iter()
            .map(|id| self.event(id, ChangeKind::WindowCreated))
            .collect();
        events.push(self.event(root, ChangeKind::ChildrenChanged));
        Ok(events)
    }

    pub(super) fn event(&self, id: NodeId, kind: ChangeKind) -> ChangeEvent {
        ChangeEvent {
            pid: self.pid,
            node: Some(id),
            kind,
        }
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
                        inner.insert(repeat.var.clone(), (i + repeat.from).to_string());
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
                    "{} {:?}: effects on {trigger:?}, which is neither an action nor one of {}",
                    spec.role,
                    spec.title,
                    EXTRA_TRIGGERS.join(", ")
                ));
            }
        }
        let shortcut = match &spec.shortcut {
            Some(text) => Some(
                KeyCombo::parse(text, &[])
                    .map_err(|e| format!("{} {:?}: shortcut: {e}", spec.role, spec.title))?,
            ),
            None => None,
        };
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
        node.placeholder = text(&spec.placeholder);
        node.help = text(&spec.help);
        node.labelled_by = text(&spec.labelled_by);
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
        node.extra = Extra {
            shortcut,
            default_button: spec.default_button,
            cancel_button: spec.cancel_button,
            marks_edited: spec.marks_edited,
            ..Extra::default()
        };
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
        placeholder: None,
        help: None,
        labelled_by: None,
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
        extra: Extra::default(),
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
