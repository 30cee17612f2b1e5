//! `screenshot`: an app's window, an element's frame or a region of the window as a PNG,
//! downscaled to stay under the result's size limit.

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::Deserialize;

use super::app_arg::App;
use super::target::{locate, open_app};
use super::{Profile, ToolDef, ToolResult};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use axgate_engine::{AxError, Rect, downscale, region};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ShotArgs {
    app: App,
    /// Capture this element's frame.
    #[serde(default)]
    target: Option<String>,
    /// A region in global points: x, y, w, h.
    #[serde(default)]
    region: Option<[f64; 4]>,
}

async fn screenshot(ctx: &ToolCtx, args: ShotArgs) -> ToolResult {
    let (app, region) = match (&args.target, args.region) {
        (Some(t), None) => {
            let located = locate(ctx, &args.app, t).await?;
            let frame = located.element.node.frame.ok_or_else(|| {
                AxError::Unsupported(format!("{} has no frame to capture", located.label()))
            })?;
            (located.conn.app.clone(), Some(frame))
        }
        (None, Some([x, y, w, h])) if w > 0.0 && h > 0.0 => {
            let conn = open_app(ctx, &args.app).await?;
            (conn.app.clone(), Some(Rect { x, y, w, h }))
        }
        (None, None) => {
            let conn = open_app(ctx, &args.app).await?;
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

pub(super) static SCREENSHOT: ToolDef = ToolDef {
    name: "screenshot",
    title: "Take a screenshot",
    description: "Captures an app's window, an element or a screen region as a PNG.",
    profile: Profile::READ,
    io: typed!(screenshot, ShotArgs),
};
