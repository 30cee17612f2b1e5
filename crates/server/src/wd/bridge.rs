//! How a WebDriver command reaches the engine the way an MCP tool call does: an act runs
//! the MCP tool itself (`click`, `set_value`, `type_text`, `launch_app`, `screenshot`) in
//! the WebDriver session's own `AxServer`, through rmcp's `call_tool` with the HTTP
//! request's parts and the call's origin (`mcp::origin`, set here) — so the gate (scope,
//! read-only mode, rate limits), the destructive-act decision (`mcp::confirm`, on the
//! element the act touches), the verified act, metrics and the audit line are the tool's
//! own. A read of the tree (find, page source, element attributes) goes to the engine
//! directly after the same gate as the tool it stands for (`AxServer::admit_outside`). Both
//! kinds of failure become W3C errors here.

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::ServerHandler;
use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject, NumberOrString, RequestId};
use rmcp::service::RequestContext;
use serde_json::Value;

use crate::identity::Principal;
use crate::mcp::AxServer;
use crate::mcp::gate::{Refusal, needed_scope};
use crate::mcp::origin::{self, CallOrigin};
use crate::mcp::server::RETRY_AFTER_META;
use crate::mcp::tools::find_def;
use axgate_engine::AxError;
use axgate_webdriver::{ErrorCode, WdError};

/// The request ids of the tool calls this facade makes (for rmcp's context; never on a wire).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// What a command carries from its HTTP request: the parts, with its [`CallOrigin`] — the
/// WebDriver session, the `Principal` the auth layer put there and the request's id — so
/// the tool's gate, log and audit lines name the caller and the session (by its tag), as
/// they do for MCP sessions. Whatever headers the client sent are never read again.
fn call_parts(parts: &http::request::Parts, session: &str) -> http::request::Parts {
    let mut parts = parts.clone();
    let origin = CallOrigin::webdriver(
        Some(session),
        parts.extensions.get::<Principal>().cloned(),
        origin::request_id(&parts),
    );
    parts.extensions.insert(origin);
    parts
}

/// Where a tool call runs: a WebDriver session's handler, its peer and the session's id.
pub(super) struct Callee<'a> {
    pub(super) server: &'a AxServer,
    pub(super) peer: &'a rmcp::service::Peer<rmcp::RoleServer>,
    pub(super) id: &'a str,
}

/// Runs MCP tool `tool` with `args` in `session`'s handler; the structured result (or the
/// whole result when there is none) on success.
pub(super) async fn call_tool(
    session: Callee<'_>,
    parts: &http::request::Parts,
    tool: &'static str,
    args: Value,
) -> Result<Value, WdError> {
    let principal = parts.extensions.get::<Principal>();
    let lacks_scope = find_def(tool)
        .map(needed_scope)
        .is_some_and(|needed| principal.is_some_and(|p| !p.allows(needed)));
    let args: JsonObject = match args {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let id = RequestId::from(NumberOrString::Number(
        NEXT_ID.fetch_add(1, Ordering::Relaxed) as i64,
    ));
    let mut context = RequestContext::new(id, session.peer.clone());
    context.extensions.insert(call_parts(parts, session.id));
    let params = CallToolRequestParams::new(tool).with_arguments(args);
    let response = session
        .server
        .call_tool(params, context)
        .await
        .map_err(|e| WdError::new(ErrorCode::UnknownError, e.message.to_string()))?;
    let result = match response {
        CallToolResponse::Complete(result) => result,
        _ => {
            return Err(WdError::new(
                ErrorCode::UnknownError,
                format!("{tool} answered with something other than a result"),
            ));
        }
    };
    if result.is_error != Some(true) {
        let whole = serde_json::to_value(&result).unwrap_or(Value::Null);
        return Ok(result.structured_content.unwrap_or(whole));
    }
    let text = serde_json::to_value(&result.content)
        .ok()
        .and_then(|v| v.get(0)?.get("text")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{tool} failed"));
    let limited = result
        .meta
        .as_ref()
        .is_some_and(|m| m.0.contains_key(RETRY_AFTER_META));
    let code = if lacks_scope {
        ErrorCode::InsufficientScope
    } else if limited {
        ErrorCode::RateLimited
    } else {
        code_of_text(&text)
    };
    Err(WdError::new(code, text))
}

/// The W3C code of a tool's error text: the engine's failure classes keep their words
/// (`mcp/errors` writes them from `AxError`).
fn code_of_text(text: &str) -> ErrorCode {
    if text.starts_with("stale element") || text.contains("unknown handle") {
        ErrorCode::StaleElementReference
    } else if text.contains("is disabled") || text.contains("offers no way to") {
        ErrorCode::ElementNotInteractable
    } else if text.contains("timed out") {
        ErrorCode::Timeout
    } else if text.contains("the unsupported") || text.contains("lacks the `") {
        ErrorCode::UnsupportedOperation
    } else {
        ErrorCode::UnknownError
    }
}

/// The W3C error of a read the gate refused.
pub(super) fn refused(refusal: Refusal, what: &str) -> WdError {
    match &refusal {
        Refusal::Scope { .. } => WdError::new(ErrorCode::InsufficientScope, refusal.message(what)),
        Refusal::Limited(_) => WdError::new(ErrorCode::RateLimited, refusal.message(what)),
        Refusal::ReadOnly => WdError::new(ErrorCode::UnsupportedOperation, refusal.message(what)),
    }
}

/// The W3C error of an engine failure on a read. `element` is true when the call named a
/// WebDriver element: then an element that is gone is a stale reference.
pub(super) fn engine_error(error: AxError, element: bool) -> WdError {
    let message = error.to_string();
    let code = match &error {
        AxError::Stale { .. } => ErrorCode::StaleElementReference,
        AxError::NotFound { .. } if element => ErrorCode::StaleElementReference,
        AxError::UnknownHandle { .. } => ErrorCode::NoSuchElement,
        AxError::AppNotFound { .. } | AxError::AppDenied { .. } => ErrorCode::NoSuchWindow,
        AxError::Timeout { .. } => ErrorCode::Timeout,
        AxError::Disabled { .. } => ErrorCode::ElementNotInteractable,
        _ => ErrorCode::UnknownError,
    };
    WdError::new(code, message)
}
