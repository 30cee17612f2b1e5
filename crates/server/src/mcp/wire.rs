//! MCP wire types: the JSON shapes of tool results (`structuredContent`) and the
//! conversions from engine types. Engine types never derive `Serialize`; this is the one
//! boundary that turns them into JSON for MCP.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use axgate_engine::diff::Change;
use axgate_engine::{AppInfo, AxValue, RawNode, Rect};

#[derive(Serialize, JsonSchema)]
pub struct FrameOut {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl From<Rect> for FrameOut {
    fn from(r: Rect) -> Self {
        FrameOut {
            x: r.x,
            y: r.y,
            w: r.w,
            h: r.h,
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct AppOut {
    pub name: String,
    pub pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
    pub frontmost: bool,
}

impl From<&AppInfo> for AppOut {
    fn from(a: &AppInfo) -> Self {
        AppOut {
            name: a.name.clone(),
            pid: a.pid,
            bundle_id: a.bundle_id.clone(),
            frontmost: a.frontmost,
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct ListAppsOut {
    pub apps: Vec<AppOut>,
}

/// One element in a result. `path` and `handle` both name it in later calls.
#[derive(Serialize, JsonSchema)]
pub struct NodeOut {
    /// Session-scoped handle such as `e12`; absent where no session keeps it (a sessionless
    /// 2026-07-28 request), where `path` names the element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Readable path relative to the app, such as `window[0]/button["Save"]`.
    pub path: String,
    /// Normalised role (`button`, `text_field`, …).
    pub role: String,
    /// The platform's own role name.
    pub native_role: String,
    /// The accessible name: what a screen reader says, what `find` matches by default and
    /// what `role["Name"]` in a path names (docs/TOOLS.md, "Names"). Absent when the element
    /// has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The raw fields the name is computed from, as the platform reports them: its title
    /// (macOS `AXTitle`, AT-SPI name)…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// …description (macOS `AXDescription`, AT-SPI description)…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// …the hint an empty field shows…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// …the tooltip…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// …and the developer's identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identifier: Option<String>,
    /// The value (text, bool or number); absent for secure fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameOut>,
    pub enabled: bool,
    pub focused: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub secure: bool,
    pub actions: Vec<String>,
    /// Depth below the result's root.
    pub depth: u32,
    pub child_count: usize,
}

impl NodeOut {
    pub fn new(node: &RawNode, handle: Option<String>, path: String, depth: u32) -> NodeOut {
        NodeOut {
            handle,
            path,
            role: node.role.as_str().to_owned(),
            native_role: node.native_role.clone(),
            name: node.label().map(str::to_owned),
            title: node.title.clone(),
            description: node.description.clone(),
            placeholder: node.placeholder.clone(),
            help: node.help.clone(),
            identifier: node.identifier.clone(),
            value: node.visible_value().map(value_json),
            frame: node.frame.map(FrameOut::from),
            enabled: node.states.enabled,
            focused: node.states.focused,
            secure: node.states.secure,
            actions: node.actions.clone(),
            depth,
            child_count: node.child_count,
        }
    }
}

pub fn value_json(v: &AxValue) -> Value {
    match v {
        AxValue::Text(s) => Value::String(s.clone()),
        AxValue::Bool(b) => Value::Bool(*b),
        AxValue::Number(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
    }
}

#[derive(Serialize, JsonSchema)]
pub struct WindowOut {
    /// As in an element: absent where no session keeps it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameOut>,
    pub focused: bool,
    pub minimized: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct ListWindowsOut {
    pub app: String,
    pub pid: u32,
    pub windows: Vec<WindowOut>,
}

#[derive(Serialize, JsonSchema)]
pub struct TreeOut {
    pub app: String,
    pub pid: u32,
    /// Elements in pre-order, when asked for (`nodes: true`); unlabelled single-child groups
    /// are left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<NodeOut>>,
    /// True when the depth, node budget or deadline cut the walk short.
    pub truncated: bool,
    /// Pass as `cursor` to continue a walk the node budget or deadline cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Nodes walked in the backend (including collapsed ones).
    pub walked: usize,
    /// Backend round trips this call cost.
    pub round_trips: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct FindOut {
    pub app: String,
    pub pid: u32,
    pub matches: Vec<NodeOut>,
    /// True when more elements matched than `max_results`, or the walk was cut short.
    pub truncated: bool,
    pub searched: usize,
    pub round_trips: u64,
}

/// One property change in a diff.
#[derive(Serialize, JsonSchema)]
pub struct FieldOut {
    pub field: String,
    pub before: String,
    pub after: String,
}

/// One change: `added`, `removed` or `changed` (with the fields that changed).
#[derive(Serialize, JsonSchema)]
pub struct ChangeOut {
    pub kind: String,
    pub role: String,
    /// The element's accessible name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub path: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldOut>,
}

impl From<&Change> for ChangeOut {
    fn from(c: &Change) -> Self {
        let s = c.seen();
        let (kind, fields) = match c {
            Change::Added(_) => ("added", Vec::new()),
            Change::Removed(_) => ("removed", Vec::new()),
            Change::Changed { fields, .. } => ("changed", fields.clone()),
        };
        ChangeOut {
            kind: kind.to_owned(),
            role: s.node.role.as_str().to_owned(),
            name: s.node.label().map(str::to_owned),
            path: s.path.clone(),
            fields: fields
                .into_iter()
                .map(|f| FieldOut {
                    field: f.field.to_owned(),
                    before: f.before,
                    after: f.after,
                })
                .collect(),
        }
    }
}

/// What the acting tools' output schema lists of [`ActOut`]: the fields a caller decides on.
/// The others (`app`, `pid`, `tool`, `element_gone`, `rung`, `round_trips`) are in every
/// result too and in docs/TOOLS.md; listing them in eleven tools' schemas cost about 500
/// tokens of the tool list a model reads on every session (docs/PERFORMANCE.md).
#[derive(JsonSchema)]
#[allow(dead_code)] // only its schema is used
pub struct ActSummary {
    element: NodeOut,
    verified: bool,
    changes: Vec<ChangeOut>,
}

/// The result of every acting tool.
#[derive(Serialize, JsonSchema)]
pub struct ActOut {
    pub app: String,
    pub pid: u32,
    pub tool: String,
    /// The element's state after the act.
    pub element: NodeOut,
    /// True when the element no longer exists after the act (a menu item, a closed window).
    pub element_gone: bool,
    /// True when an effect was observed.
    pub verified: bool,
    /// For `click`: the rung of the actuation ladder that produced the effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rung: Option<String>,
    /// What changed in the app.
    pub changes: Vec<ChangeOut>,
    pub round_trips: u64,
}
