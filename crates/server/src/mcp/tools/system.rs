//! Apps, windows, clipboard and screenshots: `launch_app` (waits until the tree is ready),
//! `quit_app` (verifies the exit), `activate_app`, `window_action`, `read_clipboard`,
//! `write_clipboard` and `screenshot`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::app_arg::{AppArg, app_ref};
use super::target::{acted, locate, locate_for_write, observe};
use super::{Profile, TaskSupport, ToolDef, input_schema, output_schema, parse_args, structured};
use crate::mcp::confirm::{activates_nothing, decide_command};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::{ActSummary, AppOut};
use axgate_engine::{
    AppInfo, AxError, LaunchRequest, Rect, Role, SnapshotRequest, WindowAction, WindowRequest,
    downscale, region,
};

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

pub(super) static LAUNCH_APP: ToolDef = ToolDef {
    name: "launch_app",
    title: "Launch an app",
    description: "Launches an app by name, bundle id or path and waits for a window.",
    profile: Profile {
        idempotent: true,
        task: TaskSupport::Optional,
        ..Profile::ACT
    },
    input: input_schema::<LaunchArgs>,
    output: Some(output_schema::<LaunchOut>),
    run: |ctx, args| Box::pin(launch_app(ctx, args)),
};

pub(super) async fn launch_app(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: LaunchArgs = parse_args(args)?;
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
    // Name, bundle id or pid: said once, by list_apps, not in every schema.
    #[serde(deserialize_with = "app_ref")]
    #[schemars(with = "AppArg")]
    app: String,
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

pub(super) static QUIT_APP: ToolDef = ToolDef {
    name: "quit_app",
    title: "Quit an app",
    description: "Quits an app (or kills it with `force`) and verifies that it exited.",
    profile: Profile {
        idempotent: true,
        destructive: true,
        ..Profile::ACT
    },
    input: input_schema::<QuitArgs>,
    output: Some(output_schema::<QuitOut>),
    run: |ctx, args| Box::pin(quit_app(ctx, args)),
};

pub(super) async fn quit_app(ctx: &ToolCtx, args: JsonObject) -> Result<CallToolResult, ToolError> {
    let args: QuitArgs = parse_args(args)?;
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

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct AppArgs {
    // Name, bundle id or pid: said once, by list_apps, not in every schema.
    #[serde(deserialize_with = "app_ref")]
    #[schemars(with = "AppArg")]
    app: String,
}

pub(super) static ACTIVATE_APP: ToolDef = ToolDef {
    name: "activate_app",
    title: "Bring an app to the front",
    description: "Makes an app frontmost and verifies that it is.",
    profile: Profile {
        idempotent: true,
        ..Profile::ACT
    },
    input: input_schema::<AppArgs>,
    output: Some(output_schema::<AppOut>),
    run: |ctx, args| Box::pin(activate_app(ctx, args)),
};

pub(super) async fn activate_app(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: AppArgs = parse_args(args)?;
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

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum WindowOp {
    Focus,
    Minimize,
    Maximize,
    Fullscreen,
    Restore,
    Close,
    Move,
    Resize,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct WindowArgs {
    // Name, bundle id or pid: said once, by list_apps, not in every schema.
    #[serde(deserialize_with = "app_ref")]
    #[schemars(with = "AppArg")]
    app: String,
    /// The window: a path such as `window[0]` or a handle.
    target: String,
    /// `move` takes x and y; `resize` takes w and h.
    action: WindowOp,
    #[serde(default)]
    x: Option<f64>,
    #[serde(default)]
    y: Option<f64>,
    #[serde(default)]
    w: Option<f64>,
    #[serde(default)]
    h: Option<f64>,
}

pub(super) static WINDOW_ACTION: ToolDef = ToolDef {
    name: "window_action",
    title: "Operate a window",
    description: "Does one of its actions to a window.",
    profile: Profile {
        destructive: true,
        ..Profile::ACT
    },
    input: input_schema::<WindowArgs>,
    output: Some(output_schema::<ActSummary>),
    run: |ctx, args| Box::pin(window_action(ctx, args)),
};

pub(super) async fn window_action(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: WindowArgs = parse_args(args)?;
    let need = |v: Option<f64>, name: &str| {
        v.ok_or_else(|| ToolError::Usage(format!("this window action needs `{name}`")))
    };
    let action = match args.action {
        WindowOp::Focus => WindowAction::Focus,
        WindowOp::Minimize => WindowAction::Minimize,
        WindowOp::Maximize => WindowAction::Maximize,
        WindowOp::Fullscreen => WindowAction::FullScreen,
        WindowOp::Restore => WindowAction::Restore,
        WindowOp::Close => WindowAction::Close,
        WindowOp::Move => WindowAction::Move {
            x: need(args.x, "x")?,
            y: need(args.y, "y")?,
        },
        WindowOp::Resize => WindowAction::Resize {
            w: need(args.w, "w")?,
            h: need(args.h, "h")?,
        },
    };
    let located = locate_for_write(ctx, &args.app, &args.target).await?;
    if !matches!(
        located.element.node.role,
        Role::Window | Role::Dialog | Role::Sheet
    ) {
        return Err(ToolError::Usage(format!(
            "{} is not a window; use list_windows",
            located.label()
        )));
    }
    // Closing presses the window's close button; the other operations press nothing.
    if matches!(action, WindowAction::Close) {
        let what = format!("close {}", located.label());
        decide_command(ctx, "close button", &what).await?;
    } else {
        activates_nothing(ctx);
    }
    let scope = axgate_engine::act::Reach::app();
    let app = located.conn.app.clone();
    let (pid, id) = (app.pid, located.element.node.id);
    let changes = observe(ctx, &app, &scope, || {
        ctx.engine
            .run(&app, &ctx.stats, "window_action", move |b, c| {
                b.window_action(pid, WindowRequest { window: id, action }, c)
            })
    })
    .await?;
    Ok(acted(ctx, &located, "window_action", changes, None).await)
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NoArgs {}

#[derive(Serialize, JsonSchema)]
pub(super) struct ClipboardOut {
    text: String,
}

pub(super) static READ_CLIPBOARD: ToolDef = ToolDef {
    name: "read_clipboard",
    title: "Read the clipboard",
    description: "Returns the clipboard's text.",
    profile: Profile::READ,
    input: input_schema::<NoArgs>,
    output: Some(output_schema::<ClipboardOut>),
    run: |ctx, args| Box::pin(read_clipboard(ctx, args)),
};

pub(super) async fn read_clipboard(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    super::no_args(args)?;
    let text = ctx
        .engine
        .run_global(
            ctx.engine.deadline(),
            &ctx.stats,
            "read_clipboard",
            |b, c| b.read_clipboard(c),
        )
        .await?;
    Ok(structured(text.clone(), &ClipboardOut { text }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct WriteClipArgs {
    text: String,
}

pub(super) static WRITE_CLIPBOARD: ToolDef = ToolDef {
    name: "write_clipboard",
    title: "Write the clipboard",
    description: "Replaces the clipboard's text and reads it back.",
    profile: Profile {
        idempotent: true,
        ..Profile::ACT
    },
    input: input_schema::<WriteClipArgs>,
    output: Some(output_schema::<ClipboardOut>),
    run: |ctx, args| Box::pin(write_clipboard(ctx, args)),
};

pub(super) async fn write_clipboard(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: WriteClipArgs = parse_args(args)?;
    activates_nothing(ctx);
    let text = args.text;
    let written = text.clone();
    let read = ctx
        .engine
        .run_global(
            ctx.engine.deadline(),
            &ctx.stats,
            "write_clipboard",
            move |b, c| {
                b.write_clipboard(&written, c)?;
                b.read_clipboard(c)
            },
        )
        .await?;
    if read != text {
        return Err(AxError::Unsupported("the clipboard did not keep the text".into()).into());
    }
    Ok(structured(
        format!("clipboard holds {} characters", text.chars().count()),
        &ClipboardOut { text },
    ))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ShotArgs {
    // Name, bundle id or pid: said once, by list_apps, not in every schema.
    #[serde(deserialize_with = "app_ref")]
    #[schemars(with = "AppArg")]
    app: String,
    /// Capture this element's frame.
    #[serde(default)]
    target: Option<String>,
    /// A region in global points: x, y, w, h.
    #[serde(default)]
    region: Option<[f64; 4]>,
}

pub(super) static SCREENSHOT: ToolDef = ToolDef {
    name: "screenshot",
    title: "Take a screenshot",
    description: "Captures an app's window, an element or a screen region as a PNG.",
    profile: Profile::READ,
    input: input_schema::<ShotArgs>,
    output: None,
    run: |ctx, args| Box::pin(screenshot(ctx, args)),
};

pub(super) async fn screenshot(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: ShotArgs = parse_args(args)?;
    let (app, region) = match (&args.target, args.region) {
        (Some(t), None) => {
            let located = locate(ctx, &args.app, t).await?;
            let frame = located.element.node.frame.ok_or_else(|| {
                AxError::Unsupported(format!("{} has no frame to capture", located.label()))
            })?;
            (located.conn.app.clone(), Some(frame))
        }
        (None, Some([x, y, w, h])) if w > 0.0 && h > 0.0 => {
            let conn = ctx
                .session
                .connections
                .open(&ctx.engine, &args.app, &ctx.stats)
                .await?;
            (conn.app.clone(), Some(Rect { x, y, w, h }))
        }
        (None, None) => {
            let conn = ctx
                .session
                .connections
                .open(&ctx.engine, &args.app, &ctx.stats)
                .await?;
            (conn.app.clone(), None)
        }
        _ => {
            return Err(ToolError::Usage(
                "give `target`, or `region` [x, y, w, h] with a positive size, or neither".into(),
            ));
        }
    };
    let pid = app.pid;
    let shot = ctx
        .engine
        .run(&app, &ctx.stats, "screenshot", move |b, c| {
            b.screenshot(pid, region, c)
        })
        .await?;
    // A region is cut from the app's own window (`engine/region`): never the screen as it is.
    let shot = match region {
        Some(area) => region::crop(shot, area, &app.name)?,
        None => shot,
    };
    // Resampling a big capture is CPU work: off the async threads.
    let fitted =
        tokio::task::spawn_blocking(move || downscale::fit(shot, downscale::MAX_PNG_BYTES))
            .await
            .map_err(|e| AxError::Backend(format!("the screenshot task failed: {e}")))??;
    let shot = fitted.capture;
    let data = base64::engine::general_purpose::STANDARD.encode(&shot.png);
    let mut summary = format!("screenshot of {} ({} bytes PNG)", app.name, shot.png.len());
    if let Some(((w, h), (tw, th))) = fitted.shrunk {
        summary.push_str(&format!(
            "; downscaled from {w}×{h} to {tw}×{th} pixels to keep the result under 1 MiB \
             (capture an element or a smaller region for full detail)"
        ));
    }
    let mut content = vec![
        ContentBlock::image(data, "image/png"),
        ContentBlock::text(summary),
    ];
    content.extend(shot.describe_geometry().map(ContentBlock::text));
    Ok(CallToolResult::success(content))
}
