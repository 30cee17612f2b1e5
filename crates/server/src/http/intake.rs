//! Checks in front of rmcp on `/mcp`, for the protocol rules rmcp does not enforce:
//! - body size limit → 413; invalid JSON → 400 with JSON-RPC −32700; batches → 400;
//! - `MCP-Protocol-Version` must be a revision axgate serves → else 400 with the
//!   UnsupportedProtocolVersionError (−32022) for the request's id; inside a session the
//!   negotiated revision applies: it is filled in when the header is absent, and replaces
//!   another served revision (which clients such as the conformance suite send);
//! - a sessionless 2026-07-28 request (per-request `_meta` version, or `server/discover`) is
//!   served without a session: an `MCP-Session-Id` on it is ignored (removed), the request is
//!   marked [`Sessionless`] for the handler, and its response is followed by
//!   [`sessionless::watch`] (stream bound to the caller, closing it cancels the request); a
//!   sessionless `GET` with `Last-Event-ID` is let through only for the caller its stream is
//!   bound to, anyone else gets 404;
//! - a `GET` with `Last-Event-ID` whose events after it were evicted from the replay log (or
//!   expired) → 410 with a JSON-RPC error saying so, for the session or caller it belongs to;
//! - an unknown or ended `MCP-Session-Id` → 404 on every method, DELETE included, and a
//!   successful DELETE → 200; a session id presented by a principal other than the one that
//!   initialized it is answered exactly like an unknown one (404), so replays, subscriptions
//!   and handles of a session stay with its owner; a new session is bound to its principal;
//! - `initialize` always makes a session bound to its principal, even with a `_meta`
//!   protocol version (never an ownerless session);
//! - a new session while the server is full → the longest-idle session the caller may evict
//!   (no open stream, running request or lease) is ended to make room
//!   ([`AxSessionManager::make_room`]), else 503 with `Retry-After` and a JSON-RPC error
//!   naming `sessions.max`; a principal holding `sessions.max_per_principal` sessions gets
//!   the same 503 naming that key unless one of its own idle sessions gives way;
//! - a new session (or a sessionless request) while the machine drains, or while another
//!   session holds it in exclusive mode → 503 with `Retry-After` and a message naming why
//!   (and the holder's session tag): the rules are [`crate::fleet`]'s, asked before any room
//!   is made at the cap, so a holder is never evicted for a session that would be refused.
//!
//! The checks on the body itself are the pure [`inspect`] of `axgate_parse::jsonrpc` (fuzzed:
//! `axgate_parse::fuzzing`).

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, StatusCode};
use serde_json::Value;

pub use axgate_parse::jsonrpc::{Inspected, IntakeError, error_body, inspect};

use crate::audit::Audit;
use crate::fleet::Fleet;
use crate::http::arrival;
use crate::http::auth::{Auth, Principal};
use crate::http::direct::DirectPath;
use crate::http::scope::{Scope, asks, fleet_refusal, tool_scope};
use crate::http::sessionless;
use crate::mcp::context::Sessionless;
use crate::mcp::listing;
use crate::mcp::{PROTOCOL_VERSIONS, supports};
use crate::metrics::{Metrics, mcp_method_label};
use crate::session::{AxSessionManager, EventLog, Owner, QuotaHold, Resume, Room, SessionRegistry};

pub const SESSION_HEADER: &str = "mcp-session-id";
pub const VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_HEADER: &str = "last-event-id";
/// The first revision without sessions.
const SESSIONLESS_VERSION: &str = "2026-07-28";

/// What the intake layer needs.
pub struct Intake {
    /// For making room at the session cap (evicting an idle session).
    pub sessions: Arc<AxSessionManager>,
    pub registry: Arc<SessionRegistry>,
    /// The event log, for binding sessionless streams to their callers and checking replays.
    pub events: Arc<EventLog>,
    pub max_body_bytes: usize,
    /// How long the whole body may take to arrive (a trickled body is cut off with 408).
    pub body_timeout: std::time::Duration,
    pub metrics: Metrics,
    /// For the step-up challenge of a tool call beyond the token's scope.
    pub auth: Option<Arc<Auth>>,
    /// Where refused tool calls are recorded.
    pub audit: Option<Audit>,
    /// Draining and exclusive mode: who may start a session.
    pub fleet: Arc<Fleet>,
    /// Read-only tool calls answered without rmcp's per-request tasks.
    pub direct: DirectPath,
    /// Whether the handler is axgate's, which answers `tools/list` renamed (`mcp::listing`).
    pub renames_lists: bool,
}

impl Intake {
    fn scope(&self) -> Scope<'_> {
        Scope {
            auth: self.auth.as_ref(),
            audit: self.audit.as_ref(),
        }
    }
}

/// A JSON-RPC error response with an HTTP status.
pub fn jsonrpc_error(
    status: StatusCode,
    id: Option<Value>,
    code: i64,
    message: String,
) -> Response {
    (
        status,
        [(http::header::CONTENT_TYPE, "application/json")],
        error_body(id, code, message),
    )
        .into_response()
}

/// The 400 answer to a body [`inspect`] refused, with its JSON-RPC error body (no message
/// was read, so its id is null).
pub fn refusal_response(refusal: IntakeError) -> Response {
    jsonrpc_error(
        StatusCode::BAD_REQUEST,
        None,
        refusal.code(),
        refusal.to_string(),
    )
}

/// A resume asking for events the replay log no longer holds: 410, saying what happened and
/// what to do, never a stream with a silent gap.
fn evicted(last_event_id: &str) -> Response {
    jsonrpc_error(
        StatusCode::GONE,
        None,
        -32001,
        format!(
            "The events after Last-Event-ID {last_event_id:?} were evicted from the replay log \
             (it keeps a bounded number of bytes per stream, per session and in total, and \
             finished streams for sessions.finished_stream_ttl_secs), so this stream cannot be \
             resumed. Send the request again for its result; open a new GET stream (without \
             Last-Event-ID) for the session's notifications."
        ),
    )
}

fn versions() -> String {
    PROTOCOL_VERSIONS
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// 400 for an `MCP-Protocol-Version` axgate does not serve: the JSON-RPC
/// `UnsupportedProtocolVersionError` (−32022) for the request's `id`, its `data` echoing the
/// revision asked for and listing the served ones (what `server/discover` lists).
fn unsupported_version(id: Option<Value>, requested: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {
            "code": -32022,
            "message": format!(
                "Unsupported MCP-Protocol-Version {requested:?}; this server supports {}",
                versions()
            ),
            "data": { "requested": requested, "supported": PROTOCOL_VERSIONS },
        },
    });
    (
        StatusCode::BAD_REQUEST,
        [(http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub async fn layer(State(intake): State<Arc<Intake>>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let session = parts
        .headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let header_version = match parts.headers.get(VERSION_HEADER).map(|v| v.to_str()) {
        None => None,
        Some(Ok(v)) => Some(v.to_owned()),
        Some(Err(_)) => {
            return jsonrpc_error(
                StatusCode::BAD_REQUEST,
                None,
                -32600,
                "MCP-Protocol-Version is not ASCII".into(),
            );
        }
    };
    // A revision axgate does not serve: refused, on a POST once its body has told the
    // request's id (the answer carries it).
    let unsupported = header_version.clone().filter(|v| !supports(v));
    if let Some(v) = &unsupported
        && parts.method != Method::POST
    {
        return unsupported_version(None, v);
    }

    let owner = Owner::of(parts.extensions.get::<Principal>());
    if parts.method != Method::POST {
        if let Some(id) = &session
            && let Some(refused) = check_session(
                &intake,
                &mut parts,
                id,
                None,
                &owner,
                header_version.as_deref(),
            )
        {
            return refused;
        }
        // A GET that resumes a stream under 2026-07-28 (after the session's own revision
        // was applied above) is rmcp's sessionless replay, which checks nobody: only the
        // stream's own caller passes.
        let sessionless_version = parts
            .headers
            .get(VERSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v >= SESSIONLESS_VERSION);
        let last = parts
            .headers
            .get(LAST_EVENT_HEADER)
            .map(|v| v.to_str().unwrap_or_default().to_owned());
        if parts.method == Method::GET
            && let Some(last) = &last
        {
            let resume = match (&session, sessionless_version) {
                (_, true) => intake.events.resume_by_caller(last, &owner),
                (Some(id), false) => intake.events.resume_in_session(last, id),
                (None, false) => Resume::Replayable,
            };
            if resume == Resume::Evicted {
                return evicted(last);
            }
        }
        if parts.method == Method::GET
            && sessionless_version
            && let Some(last) = &last
            && intake.events.resume_by_caller(last, &owner) != Resume::Replayable
        {
            return jsonrpc_error(
                StatusCode::NOT_FOUND,
                None,
                -32001,
                "No replayable stream with this Last-Event-ID for this caller: a sessionless \
                 stream can be fetched again only by the principal that made the request, \
                 for sessions.finished_stream_ttl after its response"
                    .into(),
            );
        }
    }
    if parts.method == Method::DELETE {
        // rmcp answers 202; a session that ended is a completed action (200), which every
        // client SDK accepts (the Python SDK refuses 202).
        let mut response = next.run(Request::from_parts(parts, body)).await;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::OK;
        }
        return response;
    }
    if parts.method != Method::POST {
        return next.run(Request::from_parts(parts, body)).await;
    }

    let is_json = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
        });
    let read = tokio::time::timeout(intake.body_timeout, to_bytes(body, intake.max_body_bytes));
    let mut bytes = match read.await {
        Ok(Ok(b)) => b,
        Err(_) => {
            return jsonrpc_error(
                StatusCode::REQUEST_TIMEOUT,
                None,
                -32600,
                format!(
                    "Request body not received within {} ms (server.body_timeout_ms); send it \
                     at once",
                    intake.body_timeout.as_millis()
                ),
            );
        }
        Ok(Err(_)) => {
            return jsonrpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                -32600,
                format!(
                    "Request body larger than {} bytes (server.max_body_bytes)",
                    intake.max_body_bytes
                ),
            );
        }
    };
    let mut message = if is_json {
        match inspect(&bytes) {
            Ok(message) => Some(message),
            Err(refusal) => return refusal_response(refusal),
        }
    } else {
        None
    };
    if let Some(message) = &message {
        arrival::settle(&parts, message);
        count_method(&intake.metrics, &message.method);
        // What rmcp's typed requests drop: a call's `task`, a list's `execution`s.
        let method = if intake.renames_lists {
            message.method.as_str()
        } else {
            ""
        };
        listing::route(&mut parts, method, message.params.as_ref(), &mut bytes);
    }
    if let Some(v) = &unsupported {
        return unsupported_version(message.and_then(|m| m.id), v);
    }
    if let Some(message) = message.take_if(|m| m.sessionless) {
        return serve_sessionless(&intake, parts, bytes, message, owner, next).await;
    }
    if let Some(id) = &session
        && let Some(refused) = check_session(
            &intake,
            &mut parts,
            id,
            message.as_ref().and_then(|m| m.id.clone()),
            &owner,
            header_version.as_deref(),
        )
    {
        return refused;
    }
    let Some(message) = message else {
        // rmcp answers 415 with the rule; pass it through untouched.
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    let (id, method, params) = (message.id, message.method, message.params);
    let asks = asks(&parts, &method, params.as_ref());
    // Fleet hook (crate::fleet): draining and exclusive mode refuse a new session first,
    // and another principal's request while a session holds the machine.
    let admission = if method == "initialize" && session.is_none() {
        match intake.fleet.admit_session(&owner, asks.rights) {
            Ok(admission) => Some(admission),
            Err(refusal) => return fleet_refusal(&intake.fleet, id, &refusal),
        }
    } else {
        if let Err(refusal) = intake.fleet.admit_request(&owner, &method, asks.admin_tool) {
            return fleet_refusal(&intake.fleet, id, &refusal);
        }
        None
    };
    // The principal's place for the session, held until the session is bound to it.
    let _quota_hold = if method == "initialize" && session.is_none() {
        match new_session_room(&intake, &owner, &id).await {
            Ok(hold) => hold,
            Err(refused) => return refused,
        }
    } else {
        None
    };
    if method == "tools/call"
        && let Some(refused) = tool_scope(
            &intake.scope(),
            &parts,
            session.as_deref(),
            &id,
            params.as_ref(),
        )
        .await
    {
        return refused;
    }
    if asks.acts {
        intake.fleet.acted(session.as_deref(), &owner);
    }
    let initializing = method == "initialize" && session.is_none();
    // A request (it has an id) in a session: its id must not be one still running there.
    let claimed = match (&session, &id) {
        (Some(session), Some(id)) => {
            let key = id.to_string();
            if !intake.events.claim_request(session, &key) {
                return jsonrpc_error(
                    StatusCode::BAD_REQUEST,
                    Some(id.clone()),
                    -32600,
                    format!(
                        "Request id {key} is already used by a request still running in this \
                         session; give every request its own id"
                    ),
                );
            }
            Some((session.clone(), key))
        }
        _ => None,
    };
    if let (Some(session), "notifications/cancelled") = (&session, method.as_str()) {
        intake.direct.cancelled(session, params.as_ref());
    }
    let direct = match (&claimed, &id) {
        (Some((session, key)), Some(id)) if method == "tools/call" => {
            let version = parts.headers.get(VERSION_HEADER);
            intake
                .direct
                .prepare(session, &parts, version, (id, key), params.as_ref())
        }
        _ => None,
    };
    let response = match direct {
        Some(call) => intake.direct.run(call, parts).await,
        None => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    };
    if let Some((session, key)) = claimed {
        // A no-op once the request's stream took the place.
        intake.events.release_claim(&session, &key);
    }
    if initializing && response.status() == StatusCode::INTERNAL_SERVER_ERROR {
        // Another initialize took the last slot since room was made: rmcp's session
        // manager refused to create one, which rmcp answers 500.
        return session_cap_refusal(&intake, id);
    }
    if initializing
        && let Some(id) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
    {
        // Bound before the client can learn the id: only this principal may use it.
        intake.registry.set_owner(id, owner);
        // Fleet hook: in exclusive mode this session now holds the machine.
        if let Some(admission) = admission {
            admission.bind(id);
        }
    }
    response
}

/// Room for the session a new `initialize` would make, and the principal's place in its
/// quota (taken atomically, so concurrent `initialize`s cannot all pass), or the 503 refusal
/// (with `Retry-After` and a JSON-RPC error naming the limit): past the principal's quota, or
/// at the cap when no session may be evicted.
async fn new_session_room(
    intake: &Intake,
    owner: &Option<Owner>,
    id: &Option<Value>,
) -> Result<Option<QuotaHold>, Response> {
    let over_quota = || {
        retry_later(
            id.clone(),
            format!(
                "This principal already holds its limit of {} sessions \
                 (sessions.max_per_principal), none of them idle enough to end; end one with \
                 DELETE or retry later",
                intake.registry.limits().max_per_principal
            ),
        )
    };
    match intake.sessions.make_room(owner).await {
        Room::Made => intake.registry.reserve(owner).ok_or_else(over_quota),
        Room::Full => Err(session_cap_refusal(intake, id.clone())),
        Room::OverQuota => Err(over_quota()),
    }
}

/// The 503 of a full server: every slot is held and none may be evicted.
fn session_cap_refusal(intake: &Intake, id: Option<Value>) -> Response {
    retry_later(
        id,
        format!(
            "Server is at its limit of {} sessions (sessions.max); retry later or end an unused \
             session with DELETE",
            intake.registry.limits().max_sessions
        ),
    )
}

/// 503 with `Retry-After: 5` and a JSON-RPC error (−32000) saying why.
fn retry_later(id: Option<Value>, message: String) -> Response {
    let mut response = jsonrpc_error(StatusCode::SERVICE_UNAVAILABLE, id, -32000, message);
    response
        .headers_mut()
        .insert(http::header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// The checks of a request that names the session `id`: it must exist and belong to `owner`
/// (else 404, exactly like an unknown id, answering `request_id`, the JSON-RPC id of a
/// POSTed request), and the session's negotiated revision governs it. Returns the refusal,
/// if any.
fn check_session(
    intake: &Intake,
    parts: &mut http::request::Parts,
    id: &str,
    request_id: Option<Value>,
    owner: &Option<Owner>,
    header_version: Option<&str>,
) -> Option<Response> {
    let entry = intake.registry.get(id).filter(|entry| {
        let same = entry.owner == *owner;
        if !same {
            tracing::warn!(
                session = %crate::audit::session_tag(id),
                principal = owner.as_ref().map_or("-", |o| o.key.as_str()),
                "a session id was presented by a principal it does not belong to; answered as unknown"
            );
        }
        same
    });
    let Some(entry) = entry else {
        return Some(jsonrpc_error(
            StatusCode::NOT_FOUND,
            request_id,
            -32001,
            "Session not found: it ended, expired or never existed. Initialize a new session"
                .into(),
        ));
    };
    // The session's negotiated revision governs every request in it. A header naming
    // another served revision is accepted (the spec's 400 is for invalid or unsupported
    // values, and the official conformance suite sends one) and replaced by the
    // negotiated one, so nothing behind this layer sees two revisions in one session.
    if let Some(negotiated) = entry.protocol_version
        && header_version != Some(negotiated.as_str())
    {
        if let Some(v) = header_version {
            tracing::debug!(sent = %v, %negotiated, "MCP-Protocol-Version differs from the session's; the negotiated one applies");
        }
        if let Ok(value) = HeaderValue::from_str(&negotiated) {
            parts.headers.insert(VERSION_HEADER, value);
        }
    }
    None
}

/// A sessionless (2026-07-28) request: no session is looked up or made (an `MCP-Session-Id`
/// on it is ignored, as that revision asks), the scope of a tool call is checked as for any
/// call, and the response is followed so that the stream is bound to its caller and its
/// closing cancels the request.
async fn serve_sessionless(
    intake: &Intake,
    mut parts: http::request::Parts,
    bytes: bytes::Bytes,
    message: Inspected,
    owner: Option<Owner>,
    next: Next,
) -> Response {
    parts.headers.remove(SESSION_HEADER);
    // Fleet hook: draining, or another principal holding the machine, refuses it (but an
    // admin's admin tool call).
    let asks = asks(&parts, &message.method, message.params.as_ref());
    if let Err(refusal) = intake
        .fleet
        .admit_sessionless(&owner, &message.method, asks.admin_tool)
    {
        return fleet_refusal(&intake.fleet, message.id.clone(), &refusal);
    }
    if message.method == "tools/call"
        && let Some(refused) = tool_scope(
            &intake.scope(),
            &parts,
            None,
            &message.id,
            message.params.as_ref(),
        )
        .await
    {
        return refused;
    }
    if asks.acts {
        intake.fleet.acted(None, &owner);
    }
    let marker = Sessionless {
        closed: tokio_util::sync::CancellationToken::new(),
    };
    parts.extensions.insert(marker.clone());
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    sessionless::watch(response, intake.events.clone(), owner, marker.closed)
}

fn count_method(metrics: &Metrics, method: &str) {
    if !method.is_empty() {
        metrics
            .mcp
            .requests
            .with_label_values(&[mcp_method_label(method)])
            .inc();
    }
}
