//! The intake of a POST, one message: its body read and classified, then by kind — a
//! sessionless (2026-07-28) request, an `initialize` that makes a session, or any other
//! message (request, notification, response) in the session it names — each admitted by
//! the fleet's rules and the scope check, with its [`CallOrigin`] put in the request's
//! extensions before rmcp (or the direct path) sees it.

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;
use serde_json::Value;

use super::refusals::{retry_later, unknown_session, unsupported_version};
use super::{
    Inspected, Intake, IntakeError, SESSION_HEADER, Said, UnknownSession, VERSION_HEADER,
    http_origin, inspect, jsonrpc_error, refusal_response, session_rules, sessionless,
};
use crate::http::admission::{Asks, asks, fleet_refusal, tool_scope};
use crate::http::arrival;
use crate::mcp::listing;
use crate::mcp::origin::{CallOrigin, Era, Sessionless};
use crate::metrics::{Metrics, mcp_method_label};
use crate::session::{Owner, QuotaHold, Room};

/// A POST: its body, the revision it asks for, then the function of its kind.
pub(super) async fn post(intake: &Intake, said: Said, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let mut bytes = match read_body(intake, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let message = match classify(intake, &mut parts, &mut bytes) {
        Ok(message) => message,
        Err(refusal) => return refusal_response(refusal),
    };
    // A revision axgate does not serve: refused once the body has told the request's id
    // (the answer carries it).
    if let Some(v) = said.unsupported() {
        return unsupported_version(message.and_then(|m| m.id), v);
    }
    let Some(message) = message else {
        // Not JSON: rmcp answers 415 with the rule; pass it through untouched.
        if let Err(UnknownSession) = session_rules(intake, &mut parts.headers, &said) {
            return unknown_session(None);
        }
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    if message.sessionless {
        return serve_sessionless(intake, parts, bytes, message, said.owner, next).await;
    }
    let Ok(version) = session_rules(intake, &mut parts.headers, &said) else {
        // The 404 answers the request's id.
        return unknown_session(message.id);
    };
    let origin = http_origin(&parts, Era::Session { version }, said.session.as_deref());
    let called = Called {
        parts,
        bytes,
        message,
        origin,
    };
    if called.message.method == "initialize" && said.session.is_none() {
        initialize(intake, called, said.owner, next).await
    } else {
        in_session(intake, called, &said.owner, next).await
    }
}

/// A message the intake has read, and where it comes from.
struct Called {
    parts: http::request::Parts,
    bytes: Bytes,
    message: Inspected,
    origin: CallOrigin,
}

impl Called {
    /// Hands the message on (to rmcp), with its origin in the request's extensions.
    async fn run(self, next: Next) -> Response {
        let bytes = self.bytes.clone();
        next.run(Request::from_parts(self.into_parts(), Body::from(bytes)))
            .await
    }

    /// The request's parts, with its origin in their extensions (the direct path hands them
    /// to rmcp's dispatch as rmcp would).
    fn into_parts(self) -> http::request::Parts {
        let Called {
            mut parts, origin, ..
        } = self;
        parts.extensions.insert(origin);
        parts
    }

    /// What exclusive mode asks of this message.
    fn asks(&self) -> Asks {
        asks(
            self.origin.principal.as_ref(),
            &self.message.method,
            self.message.params.as_ref(),
        )
    }
}

/// The whole body, within `server.body_timeout_ms` (else 408) and `server.max_body_bytes`
/// (else 413).
async fn read_body(intake: &Intake, body: Body) -> Result<Bytes, Response> {
    let read = tokio::time::timeout(intake.body_timeout, to_bytes(body, intake.max_body_bytes));
    match read.await {
        Ok(Ok(bytes)) => Ok(bytes),
        Err(_) => Err(jsonrpc_error(
            StatusCode::REQUEST_TIMEOUT,
            None,
            -32600,
            format!(
                "Request body not received within {} ms (server.body_timeout_ms); send it at \
                 once",
                intake.body_timeout.as_millis()
            ),
        )),
        Ok(Err(_)) => Err(jsonrpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            -32600,
            format!(
                "Request body larger than {} bytes (server.max_body_bytes)",
                intake.max_body_bytes
            ),
        )),
    }
}

/// The body as one JSON-RPC message, counted, its call given back to the caller's allowance
/// when it is no request (`http::arrival`), and what rmcp's typed requests drop kept for it
/// (a call's `task`, a list's `execution`s: `mcp::listing`). `None`: the body is not
/// `application/json` (rmcp refuses it with its own rule). A body [`inspect`] refuses is
/// answered 400 by the caller.
fn classify(
    intake: &Intake,
    parts: &mut http::request::Parts,
    bytes: &mut Bytes,
) -> Result<Option<Inspected>, IntakeError> {
    let is_json = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
        });
    if !is_json {
        return Ok(None);
    }
    let message = inspect(bytes)?;
    arrival::settle(parts, &message);
    count_method(&intake.metrics, &message.method);
    let method = if intake.renames_lists {
        message.method.as_str()
    } else {
        ""
    };
    listing::route(parts, method, message.params.as_ref(), bytes);
    Ok(Some(message))
}

/// An `initialize` without a session: the fleet's rules for a new session (draining and
/// exclusive mode refuse it first), the principal's place (room made at the cap), and the
/// session the response names bound to its principal before the client can learn its id.
async fn initialize(intake: &Intake, called: Called, owner: Option<Owner>, next: Next) -> Response {
    let id = called.message.id.clone();
    let admission = match intake.fleet.admit_session(&owner, called.asks().rights) {
        Ok(admission) => admission,
        Err(refusal) => return fleet_refusal(&intake.fleet, id, &refusal),
    };
    // The principal's place for the session, held until the session is bound to it.
    let _quota_hold = match new_session_room(intake, &owner, &id).await {
        Ok(hold) => hold,
        Err(refused) => return refused,
    };
    let response = called.run(next).await;
    if response.status() == StatusCode::INTERNAL_SERVER_ERROR {
        // Another initialize took the last slot since room was made: rmcp's session
        // manager refused to create one, which rmcp answers 500.
        return session_cap_refusal(intake, id);
    }
    if let Some(session) = response
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        // Bound before the client can learn the id: only this principal may use it.
        intake.registry.set_owner(session, owner);
        // Fleet hook: in exclusive mode this session now holds the machine.
        admission.bind(session);
    }
    response
}

/// Any other message (a request, a notification or a response) in the session it names:
/// the fleet's rules (another principal's request while a session holds the machine), the
/// scope of a tool call, then [`run_claimed`].
async fn in_session(
    intake: &Intake,
    called: Called,
    owner: &Option<Owner>,
    next: Next,
) -> Response {
    let asks = called.asks();
    let method = &called.message.method;
    if let Err(refusal) = intake.fleet.admit_request(owner, method, asks.admin_tool) {
        return fleet_refusal(&intake.fleet, called.message.id, &refusal);
    }
    if let Some(refused) = admit_call(intake, &called, &asks, owner).await {
        return refused;
    }
    run_claimed(intake, called, next).await
}

/// The scope of a `tools/call` (refused with a step-up challenge, `http::admission`); a call
/// that acts then renews its session's hold on the machine (exclusive mode).
async fn admit_call(
    intake: &Intake,
    called: &Called,
    asks: &Asks,
    owner: &Option<Owner>,
) -> Option<Response> {
    let message = &called.message;
    if message.method == "tools/call"
        && let Some(refused) = tool_scope(
            &intake.step_up(),
            &called.origin,
            &called.parts.headers,
            &message.id,
            message.params.as_ref(),
        )
        .await
    {
        return Some(refused);
    }
    if asks.acts {
        intake.fleet.acted(called.origin.session.as_deref(), owner);
    }
    None
}

/// Runs a message in its session: a request's id claimed there (it must not be one still
/// running), a `notifications/cancelled` told to the direct path first, a read-only
/// `tools/call` answered on the direct path (`http::direct`), anything else by rmcp.
async fn run_claimed(intake: &Intake, called: Called, next: Next) -> Response {
    let Some(session) = called.origin.session.clone() else {
        return called.run(next).await;
    };
    let message = &called.message;
    let key = message.id.as_ref().map(Value::to_string);
    if let Some(key) = &key
        && !intake.events.claim_request(&session, key)
    {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            message.id.clone(),
            -32600,
            format!(
                "Request id {key} is already used by a request still running in this \
                 session; give every request its own id"
            ),
        );
    }
    if message.method == "notifications/cancelled" {
        intake.direct.cancelled(&session, message.params.as_ref());
    }
    let direct = match (&message.id, &key) {
        (Some(id), Some(key)) if message.method == "tools/call" => {
            let version = called.parts.headers.get(VERSION_HEADER);
            intake.direct.prepare(
                &session,
                &called.parts,
                version,
                (id, key),
                message.params.as_ref(),
            )
        }
        _ => None,
    };
    let response = match direct {
        Some(call) => intake.direct.run(call, called.into_parts()).await,
        None => called.run(next).await,
    };
    if let Some(key) = key {
        // A no-op once the request's stream took the place.
        intake.events.release_claim(&session, &key);
    }
    response
}

/// A sessionless (2026-07-28) request: no session is looked up or made (an `MCP-Session-Id`
/// on it is ignored, as that revision asks), the fleet's rules for a sessionless request
/// and the scope of a tool call are checked as for any call, and the response is followed
/// so that the stream is bound to its caller and its closing cancels the request.
async fn serve_sessionless(
    intake: &Intake,
    mut parts: http::request::Parts,
    bytes: Bytes,
    message: Inspected,
    owner: Option<Owner>,
    next: Next,
) -> Response {
    parts.headers.remove(SESSION_HEADER);
    let marker = Sessionless {
        closed: tokio_util::sync::CancellationToken::new(),
    };
    let origin = http_origin(&parts, Era::Sessionless(marker.clone()), None);
    let called = Called {
        parts,
        bytes,
        message,
        origin,
    };
    // Fleet hook: draining, or another principal holding the machine, refuses it (but an
    // admin's admin tool call).
    let asks = called.asks();
    let method = &called.message.method;
    if let Err(refusal) = intake
        .fleet
        .admit_sessionless(&owner, method, asks.admin_tool)
    {
        return fleet_refusal(&intake.fleet, called.message.id, &refusal);
    }
    if let Some(refused) = admit_call(intake, &called, &asks, &owner).await {
        return refused;
    }
    let response = called.run(next).await;
    sessionless::watch(response, intake.events.clone(), owner, marker.closed)
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

fn count_method(metrics: &Metrics, method: &str) {
    if !method.is_empty() {
        metrics
            .mcp
            .requests
            .with_label_values(&[mcp_method_label(method)])
            .inc();
    }
}
