//! Per-session MCP state (app connections, the client's log level) and the context one
//! tool call runs with.

// MCP logging is deprecated only in the 2026-07-28 revision (SEP-2577); the revisions axgate
// serves (2025-11-25 and earlier) define `logging/setLevel` and `notifications/message`.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    LoggingMessageNotification, LoggingMessageNotificationParam, ServerNotification,
};
use rmcp::service::Peer;
use rmcp::{RoleServer, model::LoggingLevel};
use serde_json::Value;

use super::admin::Admin;
use super::own_audit::OwnAudit;
use super::subscriptions::Subscriptions;
use crate::policy::Policy;
use crate::policy::confirm::Confirmation;
use axgate_engine::{AppConnection, CallStats, Connections, ElementPath, Engine, RawNode};

/// Severity as an ordered number (MCP levels are syslog's).
#[allow(deprecated)]
pub fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// What one MCP session holds. Dropped when the session ends, closing its app connections.
pub struct SessionState {
    pub connections: Connections,
    /// This session's identity for app leases (random, never the MCP session id).
    pub owner: String,
    /// Held only for its `Drop`: the session's leases end with it.
    _leases: LeaseRelease,
    /// Minimum severity this session receives as `notifications/message`; `None` until the
    /// client sends `logging/setLevel`: a client that never asked for log messages gets none
    /// (one arriving while the Python SDK closes its session makes it trace back).
    log_level: Mutex<Option<u8>>,
    /// Resource subscriptions; dropping them stops the session's notification pump.
    pub subscriptions: Subscriptions,
    /// This session's audit lines, for `axgate://session/audit`.
    pub own_audit: OwnAudit,
    /// Secret values typed into plain fields, masked in this session's results.
    pub masks: crate::secrets::mask::Masks,
}

impl SessionState {
    pub fn new(engine: Arc<Engine>) -> Self {
        let owner = uuid::Uuid::new_v4().to_string();
        SessionState {
            connections: Connections::default(),
            _leases: LeaseRelease {
                engine,
                owner: owner.clone(),
            },
            owner,
            log_level: Mutex::new(None),
            subscriptions: Subscriptions::default(),
            own_audit: OwnAudit::default(),
            masks: Default::default(),
        }
    }
}

/// Which MCP session is which lease owner (lease owners are random, never session ids), so
/// that the session layer can ask whether a session holds an app lease before evicting it
/// (the server wires this in as `session::Pins`). Written when a session calls `lease_app`.
#[derive(Default)]
pub struct LeaseBook {
    owners: Mutex<HashMap<String, String>>,
}

impl LeaseBook {
    pub fn record(&self, session: &str, owner: &str) {
        self.owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(session.to_owned())
            .or_insert_with(|| owner.to_owned());
    }

    /// Whether the session holds a live lease on any app.
    pub fn holds_lease(&self, engine: &Engine, session: &str) -> bool {
        let owner = self
            .owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(session)
            .cloned();
        owner.is_some_and(|owner| engine.holds_lease(&owner))
    }

    pub fn forget(&self, session: &str) {
        self.owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session);
    }
}

/// Ends the session's app leases when the session ends (its state is dropped).
pub struct LeaseRelease {
    engine: Arc<Engine>,
    owner: String,
}

impl Drop for LeaseRelease {
    fn drop(&mut self) {
        self.engine.release_all(&self.owner);
    }
}

impl SessionState {
    #[allow(deprecated)]
    pub fn set_log_level(&self, level: LoggingLevel) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(severity(level));
    }

    #[allow(deprecated)]
    pub fn wants(&self, level: LoggingLevel) -> bool {
        self.log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|least| severity(level) >= least)
    }
}

/// Everything a tool call needs.
pub struct ToolCtx {
    pub engine: Arc<Engine>,
    pub session: Arc<SessionState>,
    pub stats: CallStats,
    pub peer: Peer<RoleServer>,
    /// Cancelled by `notifications/cancelled` for this request.
    pub cancel: tokio_util::sync::CancellationToken,
    /// The request's progress token, when the client sent one.
    pub progress: Option<rmcp::model::ProgressToken>,
    /// The policy in force when the call started (one consistent policy per call).
    pub policy: Arc<Policy>,
    /// What a destructive act does when the client cannot be asked: the caller's own
    /// override (`crate::policy::principal`), else `policy.unconfirmed`.
    pub unconfirmed: crate::policy::confirm::Unconfirmed,
    /// Which secrets the caller may use (`crate::secrets`), from `policy`.
    pub secrets: crate::secrets::Access,
    /// How a destructive press was confirmed, for the call's audit line.
    pub confirmation: Mutex<Option<Confirmation>>,
    /// The app rule that refused the call, for its audit line (the caller is told only that
    /// no app matches).
    pub denied_by: Mutex<Option<String>>,
    /// Session administration, for the admin tools; `None` where there is none (stdio).
    pub admin: Option<Admin>,
    /// Where the call came from (transport, era, session, request id, principal), as its
    /// entry decided.
    pub origin: super::origin::CallOrigin,
    /// How a sessionless call asks the user, or carries the answer: an input-required
    /// result (`input_required.rs`); `None` in a session or when the client cannot answer.
    pub input: Option<super::input_required::CallInput>,
    /// Where a call on the direct path sends its notifications (`direct.rs`); `None`: the
    /// peer, through rmcp's loop.
    pub notices: Option<Notices>,
}

/// How a call on the direct path sends a notification: stored straight on the session's
/// stream in the event log, where rmcp's worker would store it, without the round trip
/// through rmcp's loop and worker (which the call would otherwise wait for).
#[derive(Clone)]
pub struct Notices(pub Arc<dyn Fn(ServerNotification) + Send + Sync>);

impl ToolCtx {
    /// Whether the call is a sessionless (2026-07-28) request: its session state lives for
    /// this one request.
    pub fn sessionless(&self) -> bool {
        self.origin.sessionless().is_some()
    }

    /// The handle naming `node` in this call's result: minted in a session; `None` for a
    /// sessionless request, whose results name elements by path (a handle would not outlive
    /// the request, so the client could not use it).
    pub fn handle(
        &self,
        conn: &AppConnection,
        node: &RawNode,
        path: &ElementPath,
    ) -> Option<String> {
        (!self.sessionless()).then(|| conn.mint(node, path))
    }

    /// Refuses a tool that needs state kept between requests when the request is sessionless.
    pub fn needs_session(&self, tool: &str, why: &str) -> Result<(), super::errors::ToolError> {
        if !self.sessionless() {
            return Ok(());
        }
        Err(super::errors::ToolError::Usage(format!(
            "{tool} needs a session: {why}, and a sessionless (2026-07-28) request keeps \
             nothing after its response. Initialize a 2025-11-25 session (MCP-Session-Id) to \
             use {tool}"
        )))
    }
}

impl ToolCtx {
    /// Sends `notifications/progress` for this request when it carries a progress token.
    /// rmcp routes it onto the request's own stream, before the result.
    pub async fn report_progress(&self, progress: f64, total: Option<f64>, message: &str) {
        let Some(token) = self.progress.clone() else {
            return;
        };
        let mut param = rmcp::model::ProgressNotificationParam::new(token, progress);
        param.total = total;
        param.message = Some(message.to_owned());
        let _ = self.peer.notify_progress(param).await;
    }

    /// Sends a `notifications/message` to this session if its level lets it through.
    /// Never include UI text, values or typed text in `data`.
    #[allow(deprecated)]
    pub async fn log(&self, level: LoggingLevel, data: Value) {
        if !self.session.wants(level) {
            return;
        }
        let mut param = LoggingMessageNotificationParam::new(level, data);
        param.logger = Some("axgate".into());
        match &self.notices {
            Some(notices) => (notices.0)(ServerNotification::LoggingMessageNotification(
                LoggingMessageNotification::new(param),
            )),
            None => {
                let _ = self.peer.notify_logging_message(param).await;
            }
        }
    }
}
