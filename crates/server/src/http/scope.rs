//! The scope check of a `tools/call`, in front of rmcp (the intake layer asks it): a tool
//! beyond the token's scope is refused with a step-up challenge, before any session or
//! handler sees the call.

use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::audit::{Audit, AuditEvent, Outcome, session_tag};
use crate::http::auth::{Auth, Failure, Principal, Reason};

/// What the check needs: the authorisation (none when auth is off: nothing is refused) and
/// where refusals are recorded.
pub struct Scope<'a> {
    pub auth: Option<&'a std::sync::Arc<Auth>>,
    pub audit: Option<&'a Audit>,
}

/// A `tools/call` of a known tool beyond the principal's scope: 403 with an
/// `insufficient_scope` challenge naming the scope (so a client can step up) and a JSON-RPC
/// error body for the request's `id` naming the scope and how to get it (so a client that
/// shows the body, not the header, says what to fix), and a denied line in the audit trail.
/// `None` lets the call through.
pub async fn tool_scope(
    scope: &Scope<'_>,
    parts: &http::request::Parts,
    session: Option<&str>,
    id: &Option<Value>,
    params: Option<&Value>,
) -> Option<Response> {
    let auth = scope.auth?;
    let principal = parts.extensions.get::<Principal>()?;
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str)?;
    let def = crate::mcp::tools::find_def(name)?;
    let needed = crate::mcp::gate::needed_scope(def);
    if principal.allows(needed) {
        return None;
    }
    tracing::warn!(principal = %principal.key(), tool = name, needed = %needed, "tool call refused: insufficient scope");
    auth.count(Reason::InsufficientScope);
    if let Some(audit) = scope.audit {
        let mut event = AuditEvent::new(name, Outcome::Denied);
        event.principal = principal.key().to_owned();
        event.session = session.map(session_tag);
        event.app = params
            .and_then(|p| p.get("arguments"))
            .and_then(|a| a.get("app"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        event.reason = Some(format!("insufficient_scope: needs {needed}"));
        if let Err(error) = audit.record(event).await {
            tracing::error!(%error, "audit line of a refused call not written");
        }
    }
    let mut failure = Failure::insufficient(needed);
    failure.detail = format!("the tool {name} needs the {needed} scope");
    let (status, headers, _) = failure.answer(&auth.metadata_url(&parts.headers));
    let held = axgate_parse::identity::format_scopes(&principal.scopes);
    let body = axgate_parse::jsonrpc::scope_error_body(
        id.clone(),
        name,
        needed.as_str(),
        &held,
        principal.kind == axgate_parse::identity::PrincipalKind::Static,
    );
    Some((status, headers, body).into_response())
}
