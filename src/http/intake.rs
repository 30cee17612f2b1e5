//! Checks in front of rmcp on `/mcp`, for the protocol rules rmcp does not enforce:
//! - body size limit → 413; invalid JSON → 400 with JSON-RPC −32700; batches → 400;
//! - `MCP-Protocol-Version` must be a revision axgate serves → else 400; inside a session the
//!   negotiated revision applies: it is filled in when the header is absent, and replaces
//!   another served revision (which clients such as the conformance suite send);
//! - the sessionless 2026-07-28 signals (per-request `_meta` version, `server/discover`) are
//!   refused with 400 until that revision is served deliberately;
//! - an unknown or ended `MCP-Session-Id` → 404 on every method, DELETE included, and a
//!   successful DELETE → 200;
//! - a new session while the server is full → 503 with `Retry-After`.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, StatusCode};
use serde_json::{Value, json};

use crate::mcp::{PROTOCOL_VERSIONS, supports};
use crate::metrics::{Metrics, mcp_method_label};
use crate::session::SessionRegistry;

pub const SESSION_HEADER: &str = "mcp-session-id";
pub const VERSION_HEADER: &str = "mcp-protocol-version";
const META_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// What the intake layer needs.
pub struct Intake {
    pub registry: Arc<SessionRegistry>,
    pub max_body_bytes: usize,
    pub metrics: Metrics,
}

/// A JSON-RPC error response with an HTTP status.
pub fn jsonrpc_error(
    status: StatusCode,
    id: Option<Value>,
    code: i64,
    message: String,
) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code, "message": message },
    });
    (
        status,
        [(http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn versions() -> String {
    PROTOCOL_VERSIONS
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
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
    if let Some(v) = &header_version
        && !supports(v)
    {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            None,
            -32600,
            format!(
                "Unsupported MCP-Protocol-Version {v:?}; this server supports {}",
                versions()
            ),
        );
    }

    // Session checks apply to every method.
    if let Some(id) = &session {
        let Some(entry) = intake.registry.get(id) else {
            return jsonrpc_error(
                StatusCode::NOT_FOUND,
                None,
                -32001,
                "Session not found: it ended, expired or never existed. Initialize a new session"
                    .into(),
            );
        };
        // The session's negotiated revision governs every request in it. A header naming
        // another served revision is accepted (the spec's 400 is for invalid or unsupported
        // values, and the official conformance suite sends one) and replaced by the
        // negotiated one, so nothing behind this layer sees two revisions in one session.
        if let Some(negotiated) = entry.protocol_version
            && header_version.as_deref() != Some(negotiated.as_str())
        {
            if let Some(v) = &header_version {
                tracing::debug!(sent = %v, %negotiated, "MCP-Protocol-Version differs from the session's; the negotiated one applies");
            }
            if let Ok(value) = HeaderValue::from_str(&negotiated) {
                parts.headers.insert(VERSION_HEADER, value);
            }
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
    let bytes = match to_bytes(body, intake.max_body_bytes).await {
        Ok(b) => b,
        Err(_) => {
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
    if !is_json {
        // rmcp answers 415 with the rule; pass it through untouched.
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    }
    let message: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return jsonrpc_error(
                StatusCode::BAD_REQUEST,
                None,
                -32700,
                format!("Parse error: {e}"),
            );
        }
    };
    let Some(object) = message.as_object() else {
        let what = if message.is_array() {
            "JSON-RPC batches are not supported; send one message per request"
        } else {
            "the body must be one JSON-RPC message object"
        };
        return jsonrpc_error(StatusCode::BAD_REQUEST, None, -32600, what.into());
    };
    let id = object.get("id").cloned();
    let method = object.get("method").and_then(Value::as_str).unwrap_or("");
    if !method.is_empty() {
        intake
            .metrics
            .mcp_requests
            .with_label_values(&[mcp_method_label(method)])
            .inc();
    }
    let meta_version = object
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION_KEY));
    if method == "server/discover" || meta_version.is_some() {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            id,
            -32600,
            format!(
                "The sessionless 2026-07-28 revision is not served; initialize a session with one of {}",
                versions()
            ),
        );
    }
    if method == "initialize" && session.is_none() && !intake.registry.has_room() {
        let mut response = jsonrpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            id,
            -32000,
            format!(
                "Server is at its limit of {} sessions (sessions.max); retry later or end an unused session with DELETE",
                intake.registry.limits().max_sessions
            ),
        );
        response
            .headers_mut()
            .insert(http::header::RETRY_AFTER, HeaderValue::from_static("5"));
        return response;
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
