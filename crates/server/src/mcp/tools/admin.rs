//! Admin tools (scope `axgate:admin`): `list_sessions` and `end_session`, for an operator
//! to see who is connected and to end a runaway session without restarting the server, and
//! `set_draining`, which tells balancers to send new sessions elsewhere (before an upgrade).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{NoArgs, Profile, ToolDef, ToolResult, structured};
use crate::mcp::admin::{Admin, CapacitySummary, SessionSummary};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;

#[derive(Serialize, JsonSchema)]
pub(super) struct SessionsOut {
    sessions: Vec<SessionSummary>,
}

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

fn admin(ctx: &ToolCtx) -> Result<&Admin, ToolError> {
    ctx.admin.as_ref().ok_or_else(|| {
        ToolError::Usage("session administration is not available on this transport".into())
    })
}

async fn list_sessions(ctx: &ToolCtx, _: NoArgs) -> ToolResult {
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

pub(super) static LIST_SESSIONS: ToolDef = ToolDef {
    name: "list_sessions",
    title: "List sessions",
    description: "Lists live MCP sessions: tag, principal, version, age, idle time.",
    profile: Profile::ADMIN_READ,
    io: typed!(list_sessions, NoArgs, SessionsOut),
};

async fn end_session(ctx: &ToolCtx, args: EndArgs) -> ToolResult {
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

pub(super) static END_SESSION: ToolDef = ToolDef {
    name: "end_session",
    title: "End a session",
    description: "Ends a live MCP session by its tag from list_sessions.",
    profile: Profile::ADMIN.idempotent(true).destructive(),
    io: typed!(end_session, EndArgs, EndOut),
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DrainArgs {
    /// true: start draining; false: take new sessions again.
    draining: bool,
}

async fn set_draining(ctx: &ToolCtx, args: DrainArgs) -> ToolResult {
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

pub(super) static SET_DRAINING: ToolDef = ToolDef {
    name: "set_draining",
    title: "Drain the server",
    description: "Starts or ends draining: new sessions are refused, current ones go on.",
    profile: Profile::ADMIN.idempotent(true),
    io: typed!(set_draining, DrainArgs, CapacitySummary),
};
