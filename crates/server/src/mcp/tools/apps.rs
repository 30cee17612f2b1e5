//! App and window discovery tools: `list_apps`, `list_windows`.

use std::sync::Arc;

use rmcp::model::{CallToolResult, JsonObject};
use schemars::JsonSchema;
use serde::Deserialize;

use super::app_arg::{AppArg, app_ref};
use super::{Profile, ToolDef, input_schema, output_schema, parse_args, structured};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::resources::windows_out;
use crate::mcp::wire::{AppOut, ListAppsOut, ListWindowsOut};
use axgate_engine::{AppConnection, SnapshotRequest, tree};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NoArgs {}

pub(super) static LIST_APPS: ToolDef = ToolDef {
    name: "list_apps",
    title: "List running apps",
    description: "Lists running apps; a name, bundle id or pid shown works as `app`.",
    profile: Profile::READ,
    input: input_schema::<NoArgs>,
    output: Some(output_schema::<ListAppsOut>),
    run: |ctx, args| Box::pin(list_apps(ctx, args)),
};

pub(super) async fn list_apps(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    super::no_args(args)?;
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
    // Name, bundle id or pid: said once, by list_apps, not in every schema.
    #[serde(deserialize_with = "app_ref")]
    #[schemars(with = "AppArg")]
    app: String,
}

/// Parses the arguments of a tool that takes only `app` ([`AppArgs`]) and opens this
/// session's connection to that app.
pub(super) async fn open_app_of(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<Arc<AppConnection>, ToolError> {
    let args: AppArgs = parse_args(args)?;
    let conn = ctx
        .session
        .connections
        .open(&ctx.engine, &args.app, &ctx.stats)
        .await?;
    Ok(conn)
}

pub(super) static LIST_WINDOWS: ToolDef = ToolDef {
    name: "list_windows",
    title: "List an app's windows",
    description: "Lists an app's windows, dialogs and sheets.",
    profile: Profile::READ,
    input: input_schema::<AppArgs>,
    output: Some(output_schema::<ListWindowsOut>),
    run: |ctx, args| Box::pin(list_windows(ctx, args)),
};

pub(super) async fn list_windows(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let conn = open_app_of(ctx, args).await?;
    let request = SnapshotRequest {
        root: None,
        max_depth: 1,
        max_nodes: 10_000,
        skip_children: 0,
    };
    let snapshot = ctx
        .engine
        .snapshot(&conn.app, request, ctx.engine.deadline(), &ctx.stats)
        .await?;
    let states = ctx.engine.list_windows(&conn.app, &ctx.stats).await?;
    let nodes = tree::index(snapshot, &Default::default());
    let windows = windows_out(&conn, &nodes, &states, !ctx.sessionless());
    let text = windows
        .iter()
        .map(|w| {
            let title = w.title.as_deref().unwrap_or("");
            let flags = match (w.focused, w.minimized) {
                (true, _) => " focused",
                (_, true) => " minimized",
                _ => "",
            };
            let handle = w
                .handle
                .as_deref()
                .map(|h| format!(" {h}"))
                .unwrap_or_default();
            format!("{} {:?}{handle}{flags}", w.path, title)
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
