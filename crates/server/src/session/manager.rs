//! axgate's session manager: a wrapper around rmcp's `LocalSessionManager` that keeps the
//! MCP session workers but takes over everything about SSE delivery and resumability.
//!
//! rmcp 3.11 with an event store attached resumes any event id without checking its
//! session, ends a replayed stream after the replay, and routes live messages through
//! channels that drop what a disconnected client missed. Here every stream is served from
//! the [`EventLog`]: request streams are bound to their session from their first (priming)
//! event, the standalone GET stream is the session's common stream, and a resume checks the
//! event's session and then continues live.

use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, ServerSseMessage, SessionId, SessionManager,
};

use super::events::{EventLog, EventRef, From, Resume};
use super::registry::{Expiry, Owner, SessionRegistry};
use crate::audit::session_tag;
use crate::metrics::Metrics;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    #[error("session {0} not found")]
    NotFound(String),
    #[error("event id {0:?} does not belong to this session")]
    ForeignEvent(String),
    #[error("the server is at its session limit")]
    Full,
    #[error("the session worker did not open the response stream")]
    NoPriming,
}

/// The answer of [`AxSessionManager::make_room`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// A new session fits.
    Made,
    /// At `sessions.max`, and no session may be evicted.
    Full,
    /// The principal holds `sessions.max_per_principal` sessions, none of which may go.
    OverQuota,
}

/// What keeps a session from being evicted to make room, beyond what the session layer
/// sees itself (open streams, running requests): today an app lease. The server wires it in,
/// so `session/` knows nothing of what a lease is.
pub trait Pins: Send + Sync {
    /// Whether the session holds something eviction would take from it.
    fn pinned(&self, session: &str) -> bool;
    /// The session ended: forget it.
    fn forget(&self, session: &str);
}

pub struct AxSessionManager {
    inner: LocalSessionManager,
    log: Arc<EventLog>,
    registry: Arc<SessionRegistry>,
    metrics: Metrics,
    pins: Option<Arc<dyn Pins>>,
}

impl AxSessionManager {
    /// `sse_retry` is the reconnect hint of the priming event that opens every stream.
    pub fn new(
        log: Arc<EventLog>,
        registry: Arc<SessionRegistry>,
        sse_retry: Duration,
        metrics: Metrics,
    ) -> Self {
        let mut config = SessionConfig::default();
        // Idle expiry is ours (the registry's reaper), so one clock decides.
        config.keep_alive = None;
        config.sse_retry = Some(sse_retry);
        let mut inner = LocalSessionManager::default();
        inner.session_config = config;
        let store: Arc<dyn EventStore> = log.clone();
        AxSessionManager {
            inner: inner.with_event_store(store),
            log,
            registry,
            metrics,
            pins: None,
        }
    }

    /// Consults `pins` before evicting a session to make room.
    pub fn with_pins(mut self, pins: Arc<dyn Pins>) -> Self {
        self.pins = Some(pins);
        self
    }

    /// Makes room for a new session of `asking`. Over its quota
    /// (`sessions.max_per_principal`) only one of its own idle sessions may give way, never
    /// another principal's; at the cap the longest-idle session `asking` may evict (its own,
    /// or another principal's idle past `sessions.evict_others_after_secs`) that has no open
    /// stream, no running request and no lease is ended. The caller answers 503 unless
    /// [`Room::Made`].
    pub async fn make_room(&self, asking: &Option<Owner>) -> Room {
        if !self.registry.within_quota(asking) {
            let own = self
                .registry
                .eviction_candidates(asking)
                .into_iter()
                .filter(|(_, own)| *own);
            if !self.evict_one(own).await {
                return Room::OverQuota;
            }
        }
        if self.registry.has_room() {
            return Room::Made;
        }
        let candidates = self.registry.eviction_candidates(asking);
        if self.evict_one(candidates.into_iter()).await {
            Room::Made
        } else {
            Room::Full
        }
    }

    /// Ends the first of `candidates` (id, whether the asker's own) that nothing holds: no
    /// open stream, running request or lease. False when none could go.
    async fn evict_one(&self, candidates: impl Iterator<Item = (String, bool)>) -> bool {
        for (id, own) in candidates {
            if self.log.busy(&id) || self.pins.as_ref().is_some_and(|p| p.pinned(&id)) {
                continue;
            }
            let reason = if own {
                "capacity_own"
            } else {
                "capacity_other"
            };
            tracing::info!(session = %short(&id), reason, "session evicted to make room for a new one");
            self.metrics
                .sessions
                .evictions
                .with_label_values(&[reason])
                .inc();
            let _ = self.close_session(&SessionId::from(id)).await;
            return true;
        }
        false
    }

    /// Ends the session `id` (its streams end, its id is then unknown).
    pub async fn close(&self, id: &str) {
        let _ = self.close_session(&SessionId::from(id.to_owned())).await;
    }

    pub fn registry(&self) -> &Arc<SessionRegistry> {
        &self.registry
    }

    pub fn event_log(&self) -> &Arc<EventLog> {
        &self.log
    }

    /// Ends sessions idle past the timeout; returns how many.
    pub async fn expire_idle(&self) -> usize {
        let mut ended = 0;
        for (id, why) in self.registry.idle() {
            // The shorter timeout is for sessions nobody listens on: not one still working.
            if why == Expiry::IdleWithoutStream && self.log.busy(&id) {
                continue;
            }
            tracing::info!(session = %short(&id), reason = why.label(), "session expired after idling");
            self.metrics
                .sessions
                .evictions
                .with_label_values(&[why.label()])
                .inc();
            let _ = self.close_session(&SessionId::from(id)).await;
            ended += 1;
        }
        self.log.sweep();
        ended
    }

    /// Ends every session (shutdown).
    pub async fn close_all(&self) {
        for id in self.registry.ids() {
            let _ = self.close_session(&SessionId::from(id)).await;
        }
    }
}

/// The first characters of a session id: enough to correlate logs, useless to a hijacker.
pub fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// A request id as text (numbers and strings alike), for the request → stream map.
fn request_id_text(id: &rmcp::model::RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// The request id a `notifications/cancelled` names.
fn cancelled_request(message: &ClientJsonRpcMessage) -> Option<String> {
    let value = serde_json::to_value(message).ok()?;
    if value.get("method")?.as_str()? != "notifications/cancelled" {
        return None;
    }
    let id: rmcp::model::RequestId =
        serde_json::from_value(value.pointer("/params/requestId")?.clone()).ok()?;
    Some(request_id_text(&id))
}

fn negotiated_version(response: &ServerJsonRpcMessage) -> Option<String> {
    let value = serde_json::to_value(response).ok()?;
    value
        .pointer("/result/protocolVersion")?
        .as_str()
        .map(str::to_owned)
}

impl SessionManager for AxSessionManager {
    type Error = SessionError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        if !self.registry.has_room() {
            return Err(SessionError::Full);
        }
        let (id, transport) = self.inner.create_session().await?;
        self.registry.insert(&id);
        self.log.open_session(&id);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let response = self.inner.initialize_session(id, message).await?;
        if let Some(version) = negotiated_version(&response) {
            self.registry.set_protocol_version(id, &version);
        }
        Ok(response)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        if !self.registry.contains(id) {
            return Ok(false);
        }
        if self.inner.has_session(id).await? {
            return Ok(true);
        }
        // The worker ended on its own (the handler quit): forget the session everywhere.
        self.registry.remove(id);
        self.log.drop_session(id);
        if let Some(pins) = &self.pins {
            pins.forget(id);
        }
        Ok(false)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let known = self.registry.remove(id);
        self.log.drop_session(id);
        if let Some(pins) = &self.pins {
            pins.forget(id);
        }
        self.inner.close_session(id).await?;
        if known {
            tracing::info!(session = %short(id), "session closed");
        }
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.registry.touch(id);
        let request_id = match &message {
            ClientJsonRpcMessage::Request(r) => Some(request_id_text(&r.id)),
            _ => None,
        };
        let mut inner = Box::pin(self.inner.create_stream(id, message).await?);
        // The worker stores a priming event before it handles the request; its id names the
        // stream, which is bound to this session before any id reaches the client.
        let priming = tokio::time::timeout(Duration::from_secs(5), inner.next()).await;
        let stream = match priming {
            Ok(Some(event)) => event
                .event_id
                .as_deref()
                .and_then(|eid| self.log.bind(eid, id)),
            _ => None,
        };
        // Delivery is from the log; rmcp's channel is closed so nothing is sent twice.
        drop(inner);
        let stream = stream.ok_or(SessionError::NoPriming)?;
        if let Some(request_id) = request_id {
            self.log.register_request(id, &request_id, stream);
        }
        Ok(self.log.tail(stream, From::Start))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.registry.touch(id);
        if let Some(cancelled) = cancelled_request(&message) {
            self.log.finish_request(id, &cancelled);
        }
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        if !self.registry.touch(id) {
            return Err(SessionError::NotFound(id.to_string()));
        }
        self.registry.opened_stream(id);
        let stream = self
            .log
            .common_stream(id)
            .ok_or_else(|| SessionError::NotFound(id.to_string()))?;
        Ok(self.log.tail(stream, From::Undelivered))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.registry.touch(id);
        // The intake layer has answered 410 to a resume of evicted events; one evicted since
        // ends at once (the tail will not skip it), and the next attempt gets that answer.
        let owned = EventRef::parse(&last_event_id)
            .filter(|_| self.log.resume_in_session(&last_event_id, id) != Resume::Unknown);
        let Some(event) = owned else {
            tracing::warn!(session = %short(id), "resume with an event id of no stream of this session");
            return Err(SessionError::ForeignEvent(last_event_id));
        };
        let replayed = self.log.count_after(event.stream, event.seq);
        self.metrics
            .sessions
            .events_replayed
            .inc_by(replayed as u64);
        Ok(self.log.tail(event.stream, From::After(event.seq)))
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        Some(self.log.clone())
    }
}

/// One live session as an operator sees it (`list_sessions`): never its id, only the tag.
#[derive(Clone, Debug)]
pub struct SessionInfo {
    /// The first 12 hex digits of the SHA-256 of the session id (as in the audit trail).
    pub tag: String,
    /// The principal that initialized it; absent without authentication.
    pub principal: Option<String>,
    pub protocol_version: Option<String>,
    /// Time since it was initialized.
    pub age: std::time::Duration,
    /// Time since its last request.
    pub idle: std::time::Duration,
}

/// Session administration, for the admin tools (`wiring` hands it to the MCP layer).
impl AxSessionManager {
    /// Every live session, oldest first.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        let mut entries = self.registry.entries();
        entries.sort_by_key(|(_, entry)| entry.created);
        entries
            .into_iter()
            .map(|(id, entry)| SessionInfo {
                tag: session_tag(&id),
                principal: entry.owner.map(|o| o.key),
                protocol_version: entry.protocol_version,
                age: entry.created.elapsed(),
                idle: entry.last_seen.elapsed(),
            })
            .collect()
    }

    /// Closes the SSE response of a running request without ending the request: the client
    /// resumes with `Last-Event-ID` and gets the rest from the event log. `false` when the
    /// request has no stream (yet).
    pub fn close_request_stream(&self, session: &str, request_id: &rmcp::model::RequestId) -> bool {
        self.log
            .close_consumer(session, &request_id_text(request_id))
    }

    /// Ends the session with this tag; `false` when none has it.
    pub async fn end(&self, tag: &str) -> bool {
        let found = self
            .registry
            .ids()
            .into_iter()
            .find(|id| session_tag(id) == tag);
        match found {
            Some(id) => {
                let _ = self.close_session(&SessionId::from(id)).await;
                true
            }
            None => false,
        }
    }
}
