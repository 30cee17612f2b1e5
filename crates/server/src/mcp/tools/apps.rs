//! App and window discovery tools: `list_apps`, `list_windows`.

use super::app_arg::AppArgs;
use super::target::open_app;
use super::{NoArgs, Profile, ToolDef, ToolResult, structured};
use crate::mcp::context::ToolCtx;
use crate::mcp::resources::windows_out;
use crate::mcp::wire::{AppOut, ListAppsOut, ListWindowsOut};
use axgate_engine::{SnapshotRequest, tree};

async fn list_apps(ctx: &ToolCtx, _: NoArgs) -> ToolResult {
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

pub(super) static LIST_APPS: ToolDef = ToolDef {
    name: "list_apps",
    title: "List running apps",
    description: "Lists running apps; a name, bundle id or pid shown works as `app`.",
    profile: Profile::READ,
    io: typed!(list_apps, NoArgs, ListAppsOut),
};

async fn list_windows(ctx: &ToolCtx, args: AppArgs) -> ToolResult {
    let conn = open_app(ctx, &args.app).await?;
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

pub(super) static LIST_WINDOWS: ToolDef = ToolDef {
    name: "list_windows",
    title: "List an app's windows",
    description: "Lists an app's windows, dialogs and sheets.",
    profile: Profile::READ,
    io: typed!(list_windows, AppArgs, ListWindowsOut),
};
