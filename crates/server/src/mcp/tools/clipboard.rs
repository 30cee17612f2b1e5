//! The clipboard's text: `read_clipboard` and `write_clipboard` (which reads it back).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{NoArgs, Profile, ToolDef, ToolResult, structured};
use crate::mcp::confirm::activates_nothing;
use crate::mcp::context::ToolCtx;
use axgate_engine::AxError;
use axgate_engine::engine::BackendOp;

#[derive(Serialize, JsonSchema)]
pub(super) struct ClipboardOut {
    text: String,
}

/// Runs `op` on the global worker: the clipboard is the machine's, not an app's.
async fn on_clipboard(
    ctx: &ToolCtx,
    op: &'static str,
    f: impl BackendOp<String>,
) -> Result<String, AxError> {
    let deadline = ctx.engine.deadline();
    ctx.engine.run_global(deadline, &ctx.stats, op, f).await
}

async fn read_clipboard(ctx: &ToolCtx, _: NoArgs) -> ToolResult {
    let text = on_clipboard(ctx, "read_clipboard", |b, c| b.read_clipboard(c)).await?;
    Ok(structured(text.clone(), &ClipboardOut { text }))
}

pub(super) static READ_CLIPBOARD: ToolDef = ToolDef {
    name: "read_clipboard",
    title: "Read the clipboard",
    description: "Returns the clipboard's text.",
    profile: Profile::READ,
    io: typed!(read_clipboard, NoArgs, ClipboardOut),
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct WriteClipArgs {
    text: String,
}

async fn write_clipboard(ctx: &ToolCtx, args: WriteClipArgs) -> ToolResult {
    activates_nothing(ctx);
    let text = args.text;
    let written = text.clone();
    let read = on_clipboard(ctx, "write_clipboard", move |b, c| {
        b.write_clipboard(&written, c)?;
        b.read_clipboard(c)
    })
    .await?;
    if read != text {
        return Err(AxError::Unsupported("the clipboard did not keep the text".into()).into());
    }
    Ok(structured(
        format!("clipboard holds {} characters", text.chars().count()),
        &ClipboardOut { text },
    ))
}

pub(super) static WRITE_CLIPBOARD: ToolDef = ToolDef {
    name: "write_clipboard",
    title: "Write the clipboard",
    description: "Replaces the clipboard's text and reads it back.",
    profile: Profile::ACT.idempotent(true),
    io: typed!(write_clipboard, WriteClipArgs, ClipboardOut),
};
