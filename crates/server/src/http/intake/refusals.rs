//! The intake's answers to what it refuses: a JSON-RPC error body with an HTTP status, each
//! saying what happened and what to do.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode};
use serde_json::Value;

use super::{IntakeError, error_body};
use crate::mcp::PROTOCOL_VERSIONS;

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

/// The 400 answer to a body [`super::inspect`] refused, with its JSON-RPC error body (no
/// message was read, so its id is null).
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
pub(super) fn evicted(last_event_id: &str) -> Response {
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

/// A sessionless replay asked for by someone other than the stream's caller (or of a
/// stream there is no more): 404.
pub(super) fn not_the_callers_stream() -> Response {
    jsonrpc_error(
        StatusCode::NOT_FOUND,
        None,
        -32001,
        "No replayable stream with this Last-Event-ID for this caller: a sessionless \
         stream can be fetched again only by the principal that made the request, \
         for sessions.finished_stream_ttl after its response"
            .into(),
    )
}

/// A session id that is unknown, ended, or another principal's: 404, the same for all three.
pub(super) fn unknown_session(request_id: Option<Value>) -> Response {
    jsonrpc_error(
        StatusCode::NOT_FOUND,
        request_id,
        -32001,
        "Session not found: it ended, expired or never existed. Initialize a new session".into(),
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
pub(super) fn unsupported_version(id: Option<Value>, requested: &str) -> Response {
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

/// 503 with `Retry-After: 5` and a JSON-RPC error (−32000) saying why.
pub(super) fn retry_later(id: Option<Value>, message: String) -> Response {
    let mut response = jsonrpc_error(StatusCode::SERVICE_UNAVAILABLE, id, -32000, message);
    response
        .headers_mut()
        .insert(http::header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}
