//! The data format of the demo apps (serde types only) and the built-in app files embedded
//! in the binary. The files live in `apps/*.json`; `tree.rs` turns a spec into a live tree.
//!
//! An app is `{name, bundle_id, behavior?, children, templates?}`. A node is
//! `{role, title?, description?, placeholder?, help?, labelled_by?, identifier?, value?, min?,
//! max?, frame?: [x, y, w, h], states?, actions?, on?: {action | trigger: [effect…]},
//! shortcut?, default_button?, cancel_button?, marks_edited?, children?}`. `labelled_by` names
//! (by identifier) the label element that names this one, like macOS `AXTitleUIElement`
//! and AT-SPI `labelled-by`; `tree.rs` computes each node's accessible name from these. Triggers that are not actions: `change` (after a value write),
//! `click` (pointer only), `hover` (the pointer rests on it), `select` (after the node was selected) and `close_edited` (a window
//! asked to close, or its app to quit, with unsaved changes: these effects run instead, e.g.
//! opening a save dialog). `shortcut` (`"cmd+s"`) is a menu item's key equivalent;
//! `default_button`/`cancel_button` mark the buttons Return and Escape press in their window;
//! `marks_edited` makes every value change of the node mark its window edited (unsaved).
//!
//! A child entry is a node, `{"repeat": {count | each, var?, from?, offset?: [dx, dy], nodes}}`
//! (strings `{var}` in titles, descriptions, identifiers and text values are replaced per
//! iteration, counting from `from`; frames shift by `offset` per iteration) or
//! `{"template": "name"}` (instantiate a template in place).
//!
//! [`BUILT_IN`] apps run when the backend starts, in pid order; [`LAUNCHABLE`] apps run only
//! once launched. Any of them can be launched by name, bundle id or `/Applications/Name.app`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The built-in apps, in pid order: (file name, JSON text).
pub(super) const BUILT_IN: &[(&str, &str)] = &[
    ("form.json", include_str!("apps/form.json")),
    ("editor.json", include_str!("apps/editor.json")),
    ("huge.json", include_str!("apps/huge.json")),
    ("hung.json", include_str!("apps/hung.json")),
    ("settings.json", include_str!("apps/settings.json")),
    ("list.json", include_str!("apps/list.json")),
];

/// Apps that are not running at start but can be launched.
pub(super) const LAUNCHABLE: &[(&str, &str)] = &[
    ("notes.json", include_str!("apps/notes.json")),
    ("contract.json", include_str!("apps/contract.json")),
    ("counter.json", include_str!("apps/counter.json")),
    ("textedit.json", include_str!("apps/textedit.json")),
    ("rows.json", include_str!("apps/rows.json")),
];

/// How an app answers calls.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum Behavior {
    #[default]
    Normal,
    /// Never answers: every per-app call blocks past its deadline, then times out.
    Hung,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AppSpec {
    pub(super) name: String,
    pub(super) bundle_id: String,
    #[serde(default)]
    pub(super) behavior: Behavior,
    /// The application element's children: the menu bar (if any) and the windows.
    pub(super) children: Vec<ChildSpec>,
    /// Subtrees that effects instantiate on demand (popup menus, dialogs, re-opened windows).
    #[serde(default)]
    pub(super) templates: BTreeMap<String, NodeSpec>,
}

/// One entry of a `children` list.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum ChildSpec {
    Repeat { repeat: RepeatSpec },
    Template { template: String },
    Node(Box<NodeSpec>),
}

/// A generator: `nodes` instantiated once per iteration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RepeatSpec {
    /// Iterate `0..count`, binding the index to `var`.
    #[serde(default)]
    pub(super) count: Option<usize>,
    /// Iterate over these variable maps (the index is still bound to `var`).
    #[serde(default)]
    pub(super) each: Option<Vec<BTreeMap<String, String>>>,
    #[serde(default = "default_var")]
    pub(super) var: String,
    /// The value `var` takes in the first iteration (frames still start unshifted).
    #[serde(default)]
    pub(super) from: usize,
    /// Frame shift per iteration, in points.
    #[serde(default)]
    pub(super) offset: [f64; 2],
    pub(super) nodes: Vec<ChildSpec>,
}

fn default_var() -> String {
    "i".to_owned()
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NodeSpec {
    /// A normalised role name (`Role::as_str`).
    pub(super) role: String,
    /// Overrides the macOS-like native role derived from `role`.
    #[serde(default)]
    pub(super) native_role: Option<String>,
    #[serde(default)]
    pub(super) subrole: Option<String>,
    #[serde(default)]
    pub(super) title: Option<String>,
    #[serde(default)]
    pub(super) description: Option<String>,
    /// The hint text an empty field shows.
    #[serde(default)]
    pub(super) placeholder: Option<String>,
    /// The tooltip.
    #[serde(default)]
    pub(super) help: Option<String>,
    /// The identifier of the label element that names this one.
    #[serde(default)]
    pub(super) labelled_by: Option<String>,
    #[serde(default)]
    pub(super) identifier: Option<String>,
    #[serde(default)]
    pub(super) value: Option<ValueSpec>,
    #[serde(default)]
    pub(super) min: Option<f64>,
    #[serde(default)]
    pub(super) max: Option<f64>,
    #[serde(default)]
    pub(super) frame: Option<[f64; 4]>,
    #[serde(default)]
    pub(super) states: StatesSpec,
    #[serde(default)]
    pub(super) actions: Vec<String>,
    /// Effects keyed by action name or trigger (`change`, `click`, `hover`, `select`,
    /// `close_edited`).
    #[serde(default)]
    pub(super) on: BTreeMap<String, Vec<Effect>>,
    /// A menu item's key equivalent, such as `cmd+shift+s`.
    #[serde(default)]
    pub(super) shortcut: Option<String>,
    /// The button Return presses in this node's window.
    #[serde(default)]
    pub(super) default_button: bool,
    /// The button Escape presses in this node's window.
    #[serde(default)]
    pub(super) cancel_button: bool,
    /// Value changes of this node mark its window edited (unsaved changes).
    #[serde(default)]
    pub(super) marks_edited: bool,
    #[serde(default)]
    pub(super) children: Vec<ChildSpec>,
}

/// A value as written in the data: text, bool or number.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(super) enum ValueSpec {
    Bool(bool),
    Number(f64),
    Text(String),
}

/// States that differ from the defaults; `value_settable` defaults by role.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StatesSpec {
    pub(super) enabled: Option<bool>,
    pub(super) visible: Option<bool>,
    pub(super) focused: Option<bool>,
    pub(super) selected: Option<bool>,
    pub(super) expanded: Option<bool>,
    pub(super) secure: Option<bool>,
    pub(super) value_settable: Option<bool>,
}

/// One step an app takes in reaction to an action or a value change. `target` names a node by
/// identifier; absent (or `"self"`) means the node the action was performed on. Where an app
/// has several copies of a node (two document windows), an identifier means the copy in the
/// origin's own window, else in the key window, else the first in tree order. Text in
/// `set_value`/`set_title`/`choose` is a template: `{self.title}`, `{self.value}`,
/// `{identifier}` (that node's value) and `{#identifier}` (how many nodes carry it) are
/// replaced when the effect runs.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(super) enum Effect {
    /// Runs `effects` `ms` milliseconds from now, as an app whose reaction waits on a network
    /// call or a timer does. Due effects run when the app is next touched (any call on it).
    Later { ms: u64, effects: Vec<Effect> },
    SetValue {
        #[serde(default)]
        target: Option<String>,
        value: ValueSpec,
    },
    SetTitle {
        #[serde(default)]
        target: Option<String>,
        title: String,
    },
    /// Changes the given states; absent ones stay as they are.
    SetState {
        #[serde(default)]
        target: Option<String>,
        #[serde(default)]
        enabled: Option<bool>,
        #[serde(default)]
        visible: Option<bool>,
        #[serde(default)]
        selected: Option<bool>,
        #[serde(default)]
        expanded: Option<bool>,
    },
    /// Sets the target's text value to the entry of `values` whose key is `key` filled in as
    /// a template (`"{bold}/{italic}"` → `"true/false"`); no entry, no change. How a font's
    /// typeface follows the bold and italic traits (TextEdit's format bar).
    Choose {
        #[serde(default)]
        target: Option<String>,
        key: String,
        values: BTreeMap<String, String>,
    },
    /// Flips a bool value.
    Toggle {
        #[serde(default)]
        target: Option<String>,
    },
    /// Adds `by` to a number value, clamped to min/max.
    Adjust {
        #[serde(default)]
        target: Option<String>,
        by: f64,
    },
    /// Selects the target and deselects its siblings of the same role (tabs, radio buttons).
    Select {
        #[serde(default)]
        target: Option<String>,
    },
    Focus {
        #[serde(default)]
        target: Option<String>,
    },
    /// Opens the target's menu: instantiates `template` as its child, or shows its hidden
    /// menu child. Any other open menu of the app closes first.
    OpenMenu {
        #[serde(default)]
        target: Option<String>,
        #[serde(default)]
        template: Option<String>,
    },
    /// Closes the menu containing the target: removes it if it came from a template,
    /// hides it otherwise.
    CloseMenu {
        #[serde(default)]
        target: Option<String>,
    },
    /// Instantiates a template under `parent` (default: the application), unless a node
    /// with the template's identifier already exists and `again` is not set (`again`: one
    /// more copy, as File ▸ New opens a second document window). With `copy_values`, each
    /// identified node of the new copy takes the value of its namesake in the key window
    /// (File ▸ Duplicate).
    Open {
        template: String,
        #[serde(default)]
        parent: Option<String>,
        #[serde(default)]
        again: bool,
        #[serde(default)]
        copy_values: bool,
    },
    /// Removes a subtree (closes a window or dialog).
    Remove { target: String },
    /// Copies the source's text value to the clipboard (shared by every app).
    Copy {
        #[serde(default)]
        source: Option<String>,
    },
    /// Appends the clipboard to the target's text value.
    Paste {
        #[serde(default)]
        target: Option<String>,
    },
    /// Restores the target's previous value.
    Undo {
        #[serde(default)]
        target: Option<String>,
    },
    /// Clears the edited (unsaved changes) mark of the target's window.
    MarkSaved {
        #[serde(default)]
        target: Option<String>,
    },
    /// Asks the target's window to close: runs its `close_edited` effects instead when it has
    /// unsaved changes and such effects, else closes it.
    CloseWindow {
        #[serde(default)]
        target: Option<String>,
    },
    /// If a quit of the app waits on this dialog, carries it on: the app exits (after asking
    /// about any other edited window).
    ContinueQuit {},
    /// Forgets a quit that waits on this dialog: the app keeps running.
    CancelQuit {},
}

impl Effect {
    /// The identifier the effect names: its target, `Copy`'s source, `Open`'s parent; `None`
    /// where it names none (it acts on its origin) or is app-wide.
    pub(super) fn named(&self) -> Option<&str> {
        match self {
            Effect::SetValue { target, .. }
            | Effect::SetTitle { target, .. }
            | Effect::SetState { target, .. }
            | Effect::Choose { target, .. }
            | Effect::Toggle { target }
            | Effect::Adjust { target, .. }
            | Effect::Select { target }
            | Effect::Focus { target }
            | Effect::OpenMenu { target, .. }
            | Effect::CloseMenu { target }
            | Effect::Paste { target }
            | Effect::Undo { target }
            | Effect::MarkSaved { target }
            | Effect::CloseWindow { target } => target.as_deref(),
            Effect::ContinueQuit {} | Effect::CancelQuit {} | Effect::Later { .. } => None,
            Effect::Copy { source } => source.as_deref(),
            Effect::Remove { target } => Some(target.as_str()),
            Effect::Open { parent, .. } => parent.as_deref(),
        }
    }
}

/// Parses one app file; the error names the file and the JSON path that is wrong.
pub(super) fn parse_app(file: &str, text: &str) -> Result<AppSpec, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de)
        .map_err(|e| format!("demo app {file}: at {}: {}", e.path(), e.inner()))
}
