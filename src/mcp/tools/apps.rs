//! App and window discovery tools: `list_apps`, `list_windows`.

use rmcp::model::{CallToolResult, JsonObject};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, ToolDef, input_schema, output_schema, parse_args, structured};
use crate::ax::{Role, SnapshotRequest, tree};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::{AppOut, FrameOut, ListAppsOut, ListWindowsOut, WindowOut};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NoArgs {}

pub(super) static LIST_APPS: ToolDef = ToolDef {
    name: "list_apps",
    title: "List running apps",
    description: "Lists running applications that have an accessibility tree, with name, pid and \
                  bundle id. Use any of them as the `app` argument of other tools.",
    effect: Effect::Read,
    idempotent: true,
    input: input_schema::<NoArgs>,
    output: Some(output_schema::<ListAppsOut>),
};

pub(super) async fn list_apps(ctx: &ToolCtx) -> Result<CallToolResult, ToolError> {
    let apps = ctx.engine.list_apps(&ctx.stats).await?;
    let text = apps
        .iter()
        .map(|a| {
            let bundle = a.bundle_id.as_deref().unwrap_or("-");
            let front = if a.frontmost { " frontmost" } else { "" };
            format!("{} pid={} {bundle}{front}", a.name, a.pid)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let out = ListAppsOut {
        apps: apps.iter().map(AppOut::from).collect(),
    };
    Ok(structured(text, &out))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct AppArgs {
    /// App name, bundle id or pid.
    app: String,
}

pub(super) static LIST_WINDOWS: ToolDef = ToolDef {
    name: "list_windows",
    title: "List an app's windows",
    description: "Lists an app's windows (and dialogs/sheets) with handle, path, title, frame, \
                  focus and minimized state.",
    effect: Effect::Read,
    idempotent: true,
    input: input_schema::<AppArgs>,
    output: Some(output_schema::<ListWindowsOut>),
};

pub(super) async fn list_windows(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: AppArgs = parse_args(args)?;
    let conn = ctx
        .session
        .connections
        .open(&ctx.engine, &args.app, &ctx.stats)
        .await?;
    let request = SnapshotRequest {
        root: None,
        max_depth: 1,
        max_nodes: 10_000,
    };
    let snapshot = ctx
        .engine
        .snapshot(&conn.app, request, ctx.engine.deadline(), &ctx.stats)
        .await?;
    let states = ctx.engine.list_windows(&conn.app, &ctx.stats).await?;
    let nodes = tree::index(snapshot, &Default::default());
    let mut windows = Vec::new();
    for n in nodes.iter().filter(|n| n.depth == 1) {
        if !matches!(n.node.role, Role::Window | Role::Dialog | Role::Sheet) {
            continue;
        }
        let state = states.iter().find(|w| w.node == n.node.id);
        windows.push(WindowOut {
            handle: conn.mint(&n.node, &n.path),
            path: n.path.to_string(),
            title: n.node.title.clone(),
            frame: n.node.frame.map(FrameOut::from),
            focused: state.is_some_and(|w| w.focused) || n.node.states.focused,
            minimized: state.is_some_and(|w| w.minimized),
        });
    }
    let text = windows
        .iter()
        .map(|w| {
            let title = w.title.as_deref().unwrap_or("");
            let flags = match (w.focused, w.minimized) {
                (true, _) => " focused",
                (_, true) => " minimized",
                _ => "",
            };
            format!("{} {:?} {}{flags}", w.path, title, w.handle)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let out = ListWindowsOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        windows,
    };
    Ok(structured(text, &out))
}
