//! Session tools: `lease_app` / `release_app` (an exclusive, time-limited right to change an
//! app, so two CI jobs can share a machine safely) and `session_info`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::app_arg::{App, AppArgs};
use super::target::open_app;
use super::{NoArgs, Profile, ToolDef, ToolResult, structured};
use crate::mcp::confirm::activates_nothing;
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;

const MAX_LEASE_SECS: u64 = 3_600;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LeaseArgs {
    app: App,
    /// Seconds (default 300, at most 3600); calling again extends it.
    #[serde(default)]
    seconds: Option<u64>,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct LeaseOut {
    app: String,
    pid: u32,
    /// RFC 3339 time the lease ends.
    until: String,
}

async fn lease_app(ctx: &ToolCtx, args: LeaseArgs) -> ToolResult {
    ctx.needs_session("lease_app", "a lease belongs to a session and ends with it")?;
    let secs = args.seconds.unwrap_or(300);
    if secs == 0 || secs > MAX_LEASE_SECS {
        return Err(ToolError::Usage(format!(
            "invalid argument `seconds`: 1 to {MAX_LEASE_SECS}"
        )));
    }
    let conn = open_app(ctx, &args.app).await?;
    activates_nothing(ctx);
    let lease = ctx
        .engine
        .lease(&conn.app, &ctx.session.owner, Duration::from_secs(secs))?;
    let until = humantime::format_rfc3339_seconds(lease.until_wall).to_string();
    let text = format!("{} is leased to this session until {until}", conn.app.name);
    Ok(structured(
        text,
        &LeaseOut {
            app: conn.app.name.clone(),
            pid: conn.app.pid,
            until,
        },
    ))
}

pub(super) static LEASE_APP: ToolDef = ToolDef {
    name: "lease_app",
    title: "Lease an app",
    description: "An exclusive, time-limited lease on an app against other sessions' changes.",
    profile: Profile::ACT.idempotent(true).leases(),
    io: typed!(lease_app, LeaseArgs, LeaseOut),
};

#[derive(Serialize, JsonSchema)]
pub(super) struct ReleaseOut {
    app: String,
    released: bool,
}

async fn release_app(ctx: &ToolCtx, args: AppArgs) -> ToolResult {
    ctx.needs_session(
        "release_app",
        "a lease belongs to a session and ends with it",
    )?;
    let app = ctx.engine.resolve_app(&args.app, &ctx.stats).await?;
    activates_nothing(ctx);
    let released = ctx.engine.release(app.pid, &ctx.session.owner);
    let text = if released {
        format!("released {}", app.name)
    } else {
        format!("this session held no lease on {}", app.name)
    };
    Ok(structured(
        text,
        &ReleaseOut {
            app: app.name,
            released,
        },
    ))
}

pub(super) static RELEASE_APP: ToolDef = ToolDef {
    name: "release_app",
    title: "Release a lease",
    description: "Ends this session's lease on an app.",
    profile: Profile::ACT.idempotent(true),
    io: typed!(release_app, AppArgs, ReleaseOut),
};

#[derive(Serialize, JsonSchema)]
pub(super) struct ConnectionOut {
    app: String,
    pid: u32,
    handles: usize,
    /// Whether this session holds a lease on the app, and until when.
    #[serde(skip_serializing_if = "Option::is_none")]
    leased_until: Option<String>,
    unresponsive: bool,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct SessionOut {
    backend: String,
    connections: Vec<ConnectionOut>,
}

async fn session_info(ctx: &ToolCtx, _: NoArgs) -> ToolResult {
    let mut connections = Vec::new();
    let mut text = format!("backend: {}\n", ctx.engine.backend_name());
    for conn in ctx.session.connections.all() {
        let lease = ctx
            .engine
            .lease_of(conn.app.pid)
            .filter(|l| l.owner == ctx.session.owner)
            .map(|l| humantime::format_rfc3339_seconds(l.until_wall).to_string());
        let unresponsive = ctx.engine.unresponsive(conn.app.pid);
        text.push_str(&format!(
            "{} pid={} handles={}{}{}\n",
            conn.app.name,
            conn.app.pid,
            conn.handle_count(),
            lease
                .as_deref()
                .map(|u| format!(" leased until {u}"))
                .unwrap_or_default(),
            if unresponsive { " unresponsive" } else { "" },
        ));
        connections.push(ConnectionOut {
            app: conn.app.name.clone(),
            pid: conn.app.pid,
            handles: conn.handle_count(),
            leased_until: lease,
            unresponsive,
        });
    }
    let out = SessionOut {
        backend: ctx.engine.backend_name().to_owned(),
        connections,
    };
    Ok(structured(text, &out))
}

pub(super) static SESSION_INFO: ToolDef = ToolDef {
    name: "session_info",
    title: "Session state",
    description: "Reports this session's backend, app connections, handles and leases.",
    profile: Profile::READ,
    io: typed!(session_info, NoArgs, SessionOut),
};
