//! Admin tools (scope `axgate:admin`): `list_sessions` and `end_session`, for an operator
//! to see who is connected and to end a runaway session without restarting the server, and
//! `set_draining`, which tells balancers to send new sessions elsewhere (before an upgrade).

use rmcp::model::{CallToolResult, JsonObject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Profile, ToolDef, input_schema, output_schema, parse_args, structured};
use crate::mcp::admin::{Admin, CapacitySummary, SessionSummary};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NoArgs {}

#[derive(Serialize, JsonSchema)]
pub(super) struct SessionsOut {
    sessions: Vec<SessionSummary>,
}

pub(super) static LIST_SESSIONS: ToolDef = ToolDef {
    name: "list_sessions",
    title: "List sessions",
    description: "Lists live MCP sessions: tag, principal, version, age, idle time.",
    profile: Profile::ADMIN_READ,
    input: input_schema::<NoArgs>,
    output: Some(output_schema::<SessionsOut>),
    run: |ctx, args| Box::pin(list_sessions(ctx, args)),
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct EndArgs {
    /// The session's tag from list_sessions.
    tag: String,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct EndOut {
    tag: String,
    ended: bool,
}

pub(super) static END_SESSION: ToolDef = ToolDef {
    name: "end_session",
    title: "End a session",
    description: "Ends a live MCP session by its tag from list_sessions.",
    profile: Profile {
        idempotent: true,
        destructive: true,
        ..Profile::ADMIN
    },
    input: input_schema::<EndArgs>,
    output: Some(output_schema::<EndOut>),
    run: |ctx, args| Box::pin(end_session(ctx, args)),
};

fn admin(ctx: &ToolCtx) -> Result<&Admin, ToolError> {
    ctx.admin.as_ref().ok_or_else(|| {
        ToolError::Usage("session administration is not available on this transport".into())
    })
}

pub(super) async fn list_sessions(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    super::no_args(args)?;
    let sessions = admin(ctx)?.sessions();
    let mut text = format!("{} live session(s)", sessions.len());
    for s in &sessions {
        text.push_str(&format!(
            "\n{} principal={} version={} age={}s idle={}s",
            s.tag,
            s.principal.as_deref().unwrap_or("-"),
            s.protocol_version.as_deref().unwrap_or("-"),
            s.age_secs,
            s.idle_secs
        ));
    }
    Ok(structured(text, &SessionsOut { sessions }))
}

pub(super) async fn end_session(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: EndArgs = parse_args(args)?;
    let tag = args.tag.trim().to_owned();
    if !admin(ctx)?.end(&tag).await {
        return Err(ToolError::Usage(format!(
            "no live session has the tag {tag:?}; call list_sessions for the current tags"
        )));
    }
    tracing::info!(session = %tag, "session ended by an administrator");
    Ok(structured(
        format!("session {tag} ended"),
        &EndOut { tag, ended: true },
    ))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DrainArgs {
    /// true: start draining; false: take new sessions again.
    draining: bool,
}

pub(super) static SET_DRAINING: ToolDef = ToolDef {
    name: "set_draining",
    title: "Drain the server",
    description: "Starts or ends draining: new sessions are refused, current ones go on.",
    profile: Profile {
        idempotent: true,
        ..Profile::ADMIN
    },
    input: input_schema::<DrainArgs>,
    output: Some(output_schema::<CapacitySummary>),
    run: |ctx, args| Box::pin(set_draining(ctx, args)),
};

pub(super) async fn set_draining(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: DrainArgs = parse_args(args)?;
    let Some(capacity) = admin(ctx)?.set_draining(args.draining) else {
        return Err(ToolError::Usage(
            "this server gives balancers no capacity signal".into(),
        ));
    };
    tracing::info!(draining = args.draining, "draining set by an administrator");
    let text = format!(
        "state={} draining={} sessions={}{}",
        capacity.state,
        capacity.draining,
        capacity.sessions,
        capacity
            .holder
            .as_deref()
            .map(|tag| format!(" holder={tag}"))
            .unwrap_or_default()
    );
    Ok(structured(text, &capacity))
}
