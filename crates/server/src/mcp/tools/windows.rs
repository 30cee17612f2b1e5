//! Operating a window: `window_action` (focus, minimise, maximise, full screen, restore,
//! close, move, resize); closing is decided like a press of its close button.

use schemars::JsonSchema;
use serde::Deserialize;

use super::app_arg::App;
use super::target::{acted, locate_for_write, observe};
use super::{Profile, ToolDef, ToolResult};
use crate::mcp::confirm::{activates_nothing, decide_command};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::ActSummary;
use axgate_engine::{Role, WindowAction, WindowRequest};

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
    app: App,
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

async fn window_action(ctx: &ToolCtx, args: WindowArgs) -> ToolResult {
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

pub(super) static WINDOW_ACTION: ToolDef = ToolDef {
    name: "window_action",
    title: "Operate a window",
    description: "Does one of its actions to a window.",
    profile: Profile::ACT.destructive(),
    io: typed!(window_action, WindowArgs, ActSummary),
};
