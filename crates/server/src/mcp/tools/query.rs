//! Element inspection tools: `get_element` (every attribute, the actions, what is
//! settable), `get_focused` and `element_at` (x, y).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::app_arg::{App, AppArgs, TargetArgs};
use super::target::{locate, open_app};
use super::{Profile, ToolDef, ToolResult, structured};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::NodeOut;
use axgate_engine::tree::{self, IndexedNode};
use axgate_engine::{AppConnection, ElementPath, NodeId, RawNode, Resolved, SnapshotRequest};

/// Nodes searched for the focused element or a node's path.
const SEARCH_BUDGET: usize = 20_000;

/// What the element tools' output schema lists of [`ElementOut`] (the rest is in every result
/// and in docs/TOOLS.md; the schema is read by a model on every session, as for
/// `ActSummary`).
#[derive(JsonSchema)]
#[allow(dead_code)] // only its schema is used
pub(super) struct ElementSummary {
    element: NodeOut,
    settable: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct ElementOut {
    app: String,
    pid: u32,
    element: NodeOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    subrole: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_value: Option<f64>,
    visible: bool,
    selected: bool,
    expanded: bool,
    /// Attributes a write tool can change: `value` (set_value, type_text), `focused` (focus).
    settable: Vec<String>,
}

fn element_out(
    ctx: &ToolCtx,
    conn: &AppConnection,
    node: &RawNode,
    path: &ElementPath,
) -> (String, ElementOut) {
    let handle = ctx.handle(conn, node, path);
    let mut settable = Vec::new();
    if node.states.value_settable {
        settable.push("value".to_owned());
    }
    if node.role.is_interactive() {
        settable.push("focused".to_owned());
    }
    let text = format!(
        "{}\npath: {path}\nnative role: {}{}\nsettable: {}\n",
        tree::compact_line(node, handle.as_deref()),
        node.native_role,
        node.subrole
            .as_deref()
            .map(|s| format!(" ({s})"))
            .unwrap_or_default(),
        if settable.is_empty() {
            "nothing".to_owned()
        } else {
            settable.join(", ")
        },
    );
    let out = ElementOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        element: NodeOut::new(node, handle, path.to_string(), 0),
        subrole: node.subrole.clone(),
        min_value: node.min_value,
        max_value: node.max_value,
        visible: node.states.visible,
        selected: node.states.selected,
        expanded: node.states.expanded,
        settable,
    };
    (text, out)
}

async fn get_element(ctx: &ToolCtx, args: TargetArgs) -> ToolResult {
    let located = locate(ctx, &args.app, &args.target).await?;
    let (text, out) = element_out(
        ctx,
        &located.conn,
        &located.element.node,
        &located.element.path,
    );
    Ok(structured(text, &out))
}

pub(super) static GET_ELEMENT: ToolDef = ToolDef {
    name: "get_element",
    title: "Inspect an element",
    description: "Returns every attribute of one element, and which can be set.",
    profile: Profile::READ,
    io: typed!(get_element, TargetArgs, ElementSummary),
};

async fn get_focused(ctx: &ToolCtx, args: AppArgs) -> ToolResult {
    let conn = open_app(ctx, &args.app).await?;
    let found = focused(ctx, &conn).await?.ok_or_else(|| {
        ToolError::Usage(format!(
            "nothing has focus in {}; use focus or click first",
            conn.app.name
        ))
    })?;
    let (text, out) = element_out(ctx, &conn, &found.node, &found.path);
    Ok(structured(text, &out))
}

pub(super) static GET_FOCUSED: ToolDef = ToolDef {
    name: "get_focused",
    title: "Get the focused element",
    description: "Returns the element with keyboard focus in an app.",
    profile: Profile::READ,
    io: typed!(get_focused, AppArgs, ElementSummary),
};

/// The deepest focused element of the app (windows report focus too; prefer what is in them).
pub(super) async fn focused(
    ctx: &ToolCtx,
    conn: &AppConnection,
) -> Result<Option<Resolved>, ToolError> {
    let nodes = whole_app(ctx, conn).await?;
    Ok(nodes
        .into_iter()
        .filter(|n| n.node.states.focused)
        .max_by_key(|n| n.depth)
        .map(|n| Resolved {
            node: n.node,
            path: n.path,
        }))
}

async fn whole_app(ctx: &ToolCtx, conn: &AppConnection) -> Result<Vec<IndexedNode>, ToolError> {
    let request = SnapshotRequest {
        root: None,
        max_depth: 64,
        max_nodes: SEARCH_BUDGET,
        skip_children: 0,
    };
    let snapshot = ctx
        .engine
        .snapshot(&conn.app, request, ctx.engine.deadline(), &ctx.stats)
        .await?;
    Ok(tree::index(snapshot, &ElementPath::default()))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct PointArgs {
    app: App,
    /// Global x in points (origin at the primary display's top-left).
    x: f64,
    /// Global y in points.
    y: f64,
}

async fn element_at(ctx: &ToolCtx, args: PointArgs) -> ToolResult {
    let conn = open_app(ctx, &args.app).await?;
    let pid = conn.app.pid;
    let point = (args.x, args.y);
    let hit: Option<NodeId> = ctx
        .engine
        .run(&conn.app, &ctx.stats, "element_at", move |b, c| {
            b.element_at(pid, point, c)
        })
        .await?;
    let miss = || {
        ToolError::Usage(format!(
            "no element of {} at ({}, {})",
            conn.app.name, args.x, args.y
        ))
    };
    let id = hit.ok_or_else(miss)?;
    let nodes = whole_app(ctx, &conn).await?;
    let found = nodes
        .into_iter()
        .find(|n| n.node.id == id)
        .ok_or_else(miss)?;
    let (text, out) = element_out(ctx, &conn, &found.node, &found.path);
    Ok(structured(text, &out))
}

pub(super) static ELEMENT_AT: ToolDef = ToolDef {
    name: "element_at",
    title: "Element at a point",
    description: "Returns the app's element at a screen point.",
    profile: Profile::READ,
    io: typed!(element_at, PointArgs, ElementSummary),
};
