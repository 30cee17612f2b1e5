//! An app's life: `launch_app` (waits until a window is up), `quit_app` (verifies the exit,
//! decided like the app's own Quit command) and `activate_app` (verifies it is frontmost).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::app_arg::{App, AppArgs};
use super::{Profile, ToolDef, ToolResult, structured};
use crate::mcp::confirm::{activates_nothing, decide_command};
use crate::mcp::context::ToolCtx;
use crate::mcp::wire::AppOut;
use axgate_engine::{AppInfo, AxError, LaunchRequest, Role, SnapshotRequest};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LaunchArgs {
    /// App name, bundle id, or path such as `/Applications/Notes.app`.
    app: String,
    /// Wait for a window this long (default 15000).
    #[serde(default)]
    timeout_ms: Option<u64>,
    // Arguments and environment variables of a new process (no descriptions: the tool list
    // has a byte budget, and the names say it; docs/TOOLS.md).
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    environment: Option<BTreeMap<String, String>>,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct LaunchOut {
    app: AppOut,
    windows: usize,
    elapsed_ms: u64,
}

async fn launch_app(ctx: &ToolCtx, args: LaunchArgs) -> ToolResult {
    let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(15_000).clamp(100, 300_000));
    let started = Instant::now();
    ctx.report_progress(0.0, Some(2.0), "launching").await;
    // Launching presses nothing; the app rules decide what may start (by identity).
    activates_nothing(ctx);
    // The app policy sees every name of what would start before anything starts; the
    // environment is checked first (engine `launch_request`).
    let request = LaunchRequest {
        spec: args.app,
        arguments: args.arguments.unwrap_or_default(),
        environment: args.environment.unwrap_or_default().into_iter().collect(),
    };
    let app: AppInfo = ctx
        .engine
        .launch_app(&request, started + timeout, &ctx.stats)
        .await?;
    ctx.report_progress(1.0, Some(2.0), "waiting for a window")
        .await;
    let mut events = ctx.engine.subscribe();
    loop {
        let windows = window_count(ctx, &app).await.unwrap_or(0);
        if windows > 0 {
            ctx.report_progress(2.0, Some(2.0), "ready").await;
            let out = LaunchOut {
                app: AppOut::from(&app),
                windows,
                elapsed_ms: started.elapsed().as_millis() as u64,
            };
            let text = format!(
                "{} is ready (pid {}, {windows} window(s)) after {} ms",
                app.name, app.pid, out.elapsed_ms
            );
            return Ok(structured(text, &out));
        }
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(AxError::Timeout {
                app: app.name,
                after: timeout,
            }
            .into());
        }
        tokio::select! {
            _ = axgate_engine::act::next_event(&mut events, app.pid, Duration::from_millis(100).min(left)) => {}
            _ = ctx.cancel.cancelled() => return Err(AxError::Cancelled.into()),
        }
    }
}

pub(super) static LAUNCH_APP: ToolDef = ToolDef {
    name: "launch_app",
    title: "Launch an app",
    description: "Launches an app by name, bundle id or path and waits for a window.",
    profile: Profile::ACT.idempotent(true).optional_task(),
    io: typed!(launch_app, LaunchArgs, LaunchOut),
};

async fn window_count(ctx: &ToolCtx, app: &AppInfo) -> Result<usize, AxError> {
    let request = SnapshotRequest {
        root: None,
        max_depth: 1,
        max_nodes: 1_000,
        skip_children: 0,
    };
    let snapshot = ctx
        .engine
        .snapshot(app, request, ctx.engine.deadline(), &ctx.stats)
        .await?;
    Ok(snapshot
        .nodes
        .iter()
        .filter(|n| n.parent == Some(0) && matches!(n.role, Role::Window | Role::Dialog))
        .count())
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct QuitArgs {
    app: App,
    /// Kill the app instead of asking it to quit.
    #[serde(default)]
    force: bool,
    /// Wait for the exit this long (default 5000).
    #[serde(default)]
    timeout_ms: Option<u64>,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct QuitOut {
    app: String,
    pid: u32,
    exited: bool,
    forced: bool,
}

async fn quit_app(ctx: &ToolCtx, args: QuitArgs) -> ToolResult {
    let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(5_000).clamp(100, 120_000));
    let app = ctx.engine.resolve_app(&args.app, &ctx.stats).await?;
    ctx.engine.check_write(&app, &ctx.session.owner)?;
    let (pid, force) = (app.pid, args.force);
    // Quitting is the app's own Quit command, decided on that label like the menu item.
    let (label, verb) = match force {
        true => (format!("Force Quit {}", app.name), "force quit"),
        false => (format!("Quit {}", app.name), "quit"),
    };
    decide_command(
        ctx,
        &label,
        &format!("{verb} {} (pid {})", app.name, app.pid),
    )
    .await?;
    ctx.engine
        .run(&app, &ctx.stats, "quit_app", move |b, c| {
            b.quit_app(pid, force, c)
        })
        .await?;
    let started = Instant::now();
    loop {
        let apps = ctx.engine.list_apps(&ctx.stats).await?;
        let alive = apps
            .iter()
            .any(|a| a.pid == app.pid && a.started_at == app.started_at);
        if !alive {
            ctx.session.connections.close(app.pid);
            ctx.engine.forget_app(app.pid);
            let out = QuitOut {
                app: app.name.clone(),
                pid: app.pid,
                exited: true,
                forced: force,
            };
            return Ok(structured(
                format!("{} (pid {}) exited", app.name, app.pid),
                &out,
            ));
        }
        if started.elapsed() >= timeout {
            return Err(AxError::Unsupported(format!(
                "{} is still running after {} ms; it may be showing a dialog (check get_tree), or use force: true",
                app.name,
                timeout.as_millis()
            ))
            .into());
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(50)) => {}
            _ = ctx.cancel.cancelled() => return Err(AxError::Cancelled.into()),
        }
    }
}

pub(super) static QUIT_APP: ToolDef = ToolDef {
    name: "quit_app",
    title: "Quit an app",
    description: "Quits an app (or kills it with `force`) and verifies that it exited.",
    profile: Profile::ACT.idempotent(true).destructive(),
    io: typed!(quit_app, QuitArgs, QuitOut),
};

async fn activate_app(ctx: &ToolCtx, args: AppArgs) -> ToolResult {
    let app = ctx.engine.resolve_app(&args.app, &ctx.stats).await?;
    ctx.engine.check_write(&app, &ctx.session.owner)?;
    activates_nothing(ctx);
    let pid = app.pid;
    ctx.engine
        .run(&app, &ctx.stats, "activate_app", move |b, c| {
            b.activate_app(pid, c)
        })
        .await?;
    let now = ctx.engine.resolve_app(&pid.to_string(), &ctx.stats).await?;
    if !now.frontmost {
        return Err(AxError::Unsupported(format!(
            "{} did not become frontmost; another app may hold the front (check list_apps)",
            app.name
        ))
        .into());
    }
    Ok(structured(
        format!("{} is frontmost", now.name),
        &AppOut::from(&now),
    ))
}

pub(super) static ACTIVATE_APP: ToolDef = ToolDef {
    name: "activate_app",
    title: "Bring an app to the front",
    description: "Makes an app frontmost and verifies that it is.",
    profile: Profile::ACT.idempotent(true),
    io: typed!(activate_app, AppArgs, AppOut),
};
