//! Checks in front of rmcp on `/mcp`, for the protocol rules rmcp does not enforce. [`layer`]
//! reads the headers it needs once ([`Said`]) and hands the request to the function of its
//! method; each check below is one function:
//! - body size limit → 413; invalid JSON → 400 with JSON-RPC −32700; batches → 400
//!   (`post.rs`);
//! - `MCP-Protocol-Version` must be a revision axgate serves → else 400 with the
//!   UnsupportedProtocolVersionError (−32022) for the request's id; inside a session the
//!   negotiated revision applies: it is filled in when the header is absent, and replaces
//!   another served revision (which clients such as the conformance suite send);
//! - a sessionless 2026-07-28 request (per-request `_meta` version, or `server/discover`) is
//!   served without a session: an `MCP-Session-Id` on it is ignored (removed), its origin
//!   says it is sessionless ([`Era::Sessionless`]), and its response is followed by
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
//! Every POST it lets through carries its [`CallOrigin`] in the request's extensions
//! (transport, era, the checked session, request id, principal): what the MCP handler,
//! the gate, tasks, the log and audit lines read instead of the headers.
//!
//! The checks on the body itself are the pure [`inspect`] of `axgate_parse::jsonrpc` (fuzzed:
//! `axgate_parse::fuzzing`).

mod post;
mod refusals;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderValue, Method, StatusCode};

pub use axgate_parse::jsonrpc::{Inspected, IntakeError, error_body, inspect};
pub use refusals::{jsonrpc_error, refusal_response};

use crate::audit::Audit;
use crate::fleet::Fleet;
use crate::http::admission::StepUp;
use crate::http::auth::{Auth, Principal};
use crate::http::direct::DirectPath;
use crate::http::sessionless;
use crate::mcp::origin::{self, CallOrigin, Era, Transport};
use crate::mcp::supports;
use crate::metrics::Metrics;
use crate::session::{AxSessionManager, EventLog, Owner, Resume, SessionRegistry};

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
    fn step_up(&self) -> StepUp<'_> {
        StepUp {
            auth: self.auth.as_ref(),
            audit: self.audit.as_ref(),
        }
    }
}

/// What the intake reads from a request's headers, once: the session it names, the revision
/// it asks for, and who is asking (the auth layer's `Principal`, as a session owner).
struct Said {
    session: Option<String>,
    version: Option<String>,
    owner: Option<Owner>,
}

impl Said {
    /// The headers of `request`; `None` when its `MCP-Protocol-Version` is not ASCII.
    fn read(request: &Request) -> Option<Said> {
        let headers = request.headers();
        let version = match headers.get(VERSION_HEADER).map(|v| v.to_str()) {
            None => None,
            Some(Ok(v)) => Some(v.to_owned()),
            Some(Err(_)) => return None,
        };
        Some(Said {
            session: headers
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            version,
            owner: Owner::of(request.extensions().get::<Principal>()),
        })
    }

    /// The revision asked for when axgate does not serve it.
    fn unsupported(&self) -> Option<&str> {
        self.version.as_deref().filter(|v| !supports(v))
    }
}

/// The intake: dispatches by method, a POST (one message) to `post.rs`, the others to
/// [`bodiless`].
pub async fn layer(State(intake): State<Arc<Intake>>, request: Request, next: Next) -> Response {
    let Some(said) = Said::read(&request) else {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            None,
            -32600,
            "MCP-Protocol-Version is not ASCII".into(),
        );
    };
    if request.method() == Method::POST {
        post::post(&intake, said, request, next).await
    } else {
        bodiless(&intake, said, request, next).await
    }
}

/// GET (the session's stream, or a resumption with `Last-Event-ID`), DELETE and any other
/// method: a revision axgate does not serve (400) and the session named, then a GET's
/// [`resumption`], then rmcp's answer — a DELETE's made [`ended`].
async fn bodiless(intake: &Intake, said: Said, mut request: Request, next: Next) -> Response {
    if let Some(v) = said.unsupported() {
        return refusals::unsupported_version(None, v);
    }
    if let Err(UnknownSession) = session_rules(intake, request.headers_mut(), &said) {
        return refusals::unknown_session(None);
    }
    if request.method() == Method::GET
        && let Some(refused) = resumption(intake, request.headers(), &said)
    {
        return refused;
    }
    let delete = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if delete { ended(response) } else { response }
}

/// A DELETE's answer: rmcp says 202; a session that ended is a completed action (200), which
/// every client SDK accepts (the Python SDK refuses 202).
fn ended(mut response: Response) -> Response {
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}

/// A GET resuming a stream (`Last-Event-ID`): 410 when the replay log no longer holds what
/// follows. Under 2026-07-28 (the session's own revision applied first) it is rmcp's
/// sessionless replay, which checks nobody: only the stream's own caller passes (404).
fn resumption(intake: &Intake, headers: &http::HeaderMap, said: &Said) -> Option<Response> {
    let last = headers.get(LAST_EVENT_HEADER)?.to_str().unwrap_or_default();
    let sessionless = headers
        .get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v >= SESSIONLESS_VERSION);
    let resume = match (&said.session, sessionless) {
        (_, true) => intake.events.resume_by_caller(last, &said.owner),
        (Some(id), false) => intake.events.resume_in_session(last, id),
        (None, false) => Resume::Replayable,
    };
    if resume == Resume::Evicted {
        return Some(refusals::evicted(last));
    }
    (sessionless && resume != Resume::Replayable).then(refusals::not_the_callers_stream)
}

/// A session id that is unknown, ended, or presented by a principal it does not belong to:
/// all three are answered alike, 404 ([`refusals::unknown_session`]).
struct UnknownSession;

/// The rules of the session a request names, if it names one ([`check_session`]); the
/// revision the request is served under.
fn session_rules(
    intake: &Intake,
    headers: &mut http::HeaderMap,
    said: &Said,
) -> Result<Option<String>, UnknownSession> {
    match &said.session {
        Some(id) => check_session(intake, headers, id, said),
        None => Ok(said.version.clone()),
    }
}

/// The checks of a request that names the session `id`: it must exist and belong to its
/// caller, `said.owner` (else it is answered exactly like an unknown id), and the session's
/// negotiated revision governs it. Returns the revision that applies.
fn check_session(
    intake: &Intake,
    headers: &mut http::HeaderMap,
    id: &str,
    said: &Said,
) -> Result<Option<String>, UnknownSession> {
    let owner = &said.owner;
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
        return Err(UnknownSession);
    };
    let header_version = said.version.as_deref();
    // The session's negotiated revision governs every request in it. A header naming
    // another served revision is accepted (the spec's 400 is for invalid or unsupported
    // values, and the official conformance suite sends one) and replaced by the
    // negotiated one, so nothing behind this layer sees two revisions in one session.
    let Some(negotiated) = entry.protocol_version else {
        return Ok(said.version.clone());
    };
    if header_version != Some(negotiated.as_str()) {
        if let Some(v) = header_version {
            tracing::debug!(sent = %v, %negotiated, "MCP-Protocol-Version differs from the session's; the negotiated one applies");
        }
        if let Ok(value) = HeaderValue::from_str(&negotiated) {
            headers.insert(VERSION_HEADER, value);
        }
    }
    Ok(Some(negotiated))
}

/// The origin of a request the intake lets through: its caller as the auth layer found it,
/// the session checked above, its id from the outermost layer.
fn http_origin(parts: &http::request::Parts, era: Era, session: Option<&str>) -> CallOrigin {
    CallOrigin {
        transport: Transport::Http,
        era,
        session: session.map(str::to_owned),
        request_id: origin::request_id(parts),
        principal: parts.extensions.get::<Principal>().cloned(),
    }
}
