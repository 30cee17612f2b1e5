//! What the admin tools (`list_sessions`, `end_session`, `set_draining`, scope
//! `axgate:admin`) may see and do to the server's sessions and its capacity signal — and the conformance fixture's `test_reconnection`, which closes
//! its own response stream: a narrow interface that `wiring` implements over the session
//! manager and the fleet, so the MCP layer depends on neither (nor they on it).

use std::sync::Arc;

use async_trait::async_trait;

/// One live session as an operator sees it. The session id itself is never shown: `tag` is
/// a hash prefix that names the session without letting anyone present it.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SessionSummary {
    /// The first 12 hex digits of the SHA-256 of the session id (as in the audit trail).
    pub tag: String,
    /// The principal that initialized it; absent without authentication.
    pub principal: Option<String>,
    pub protocol_version: Option<String>,
    /// Seconds since it was initialized.
    pub age_secs: u64,
    /// Seconds since its last request.
    pub idle_secs: u64,
}

/// The machine's capacity as a balancer sees it (`crate::fleet`), for `set_draining`.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct CapacitySummary {
    /// ready (takes new sessions), busy (exclusively held or at its session limit) or
    /// drain.
    pub state: String,
    pub draining: bool,
    /// Exclusive mode (fleet.exclusive).
    pub exclusive: bool,
    /// The tag of the session holding the machine in exclusive mode.
    pub holder: Option<String>,
    /// Live sessions.
    pub sessions: usize,
}

/// Session administration.
#[async_trait]
pub trait SessionAdmin: Send + Sync {
    /// Every live session, oldest first.
    fn sessions(&self) -> Vec<SessionSummary>;
    /// Ends the session with this tag; `false` when none has it.
    async fn end(&self, tag: &str) -> bool;
    /// Closes the SSE response of a running request without ending the request: the client
    /// resumes with `Last-Event-ID` and gets the rest from the event log (SEP-1699 polling).
    /// `false` when the request has no stream (yet).
    fn close_request_stream(&self, session: &str, request_id: &rmcp::model::RequestId) -> bool;
    /// Starts (`true`) or ends draining and reports the capacity; `None` where the server
    /// gives balancers no capacity signal.
    fn set_draining(&self, _on: bool) -> Option<CapacitySummary> {
        None
    }
}

/// The handle the MCP layer holds.
pub type Admin = Arc<dyn SessionAdmin>;
