//! Whether the intake admits a request, in front of rmcp: the scope check of a `tools/call`
//! ([`tool_scope`]: a tool beyond the token's scope is refused with a step-up challenge,
//! before any session or handler sees the call), what exclusive mode asks of a request's
//! scopes ([`asks`]) and the fleet's refusal as an answer ([`fleet_refusal`]).

use axum::response::{IntoResponse, Response};
use serde_json::Value;

use axgate_parse::identity::Scope as Needed;
use axgate_parse::jsonrpc::GrantedBy;

use crate::audit::{Audit, AuditEvent, Outcome, session_tag};
use crate::fleet::{Fleet, Refusal, Rights};
use crate::http::auth::{Auth, Failure, Principal, Reason};
use crate::mcp::origin::CallOrigin;

/// What refusing a call with a step-up challenge needs: the authorisation that words the
/// challenge (none when auth is off: nothing is refused) and where refusals are recorded.
pub struct StepUp<'a> {
    pub auth: Option<&'a std::sync::Arc<Auth>>,
    pub audit: Option<&'a Audit>,
}

/// What exclusive mode (`crate::fleet`) asks of a request: the caller's rights, whether
/// it is a tool call that acts (it renews the holder's hold), and whether it is an admin
/// tool call by a principal allowed it (it passes while another holds the machine).
pub struct Asks {
    pub rights: Rights,
    pub acts: bool,
    pub admin_tool: bool,
}

pub fn asks(principal: Option<&Principal>, method: &str, params: Option<&Value>) -> Asks {
    let rights = Rights::of(principal);
    let needs = params
        .filter(|_| method == "tools/call")
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .and_then(crate::mcp::tools::find_def)
        .map(crate::mcp::gate::needed_scope);
    Asks {
        rights,
        acts: needs == Some(Needed::Act),
        admin_tool: rights.admin && needs == Some(Needed::Admin),
    }
}

/// A `tools/call` of a known tool beyond the principal's scope: 403 with an
/// `insufficient_scope` challenge naming the scope (so a client can step up) and a JSON-RPC
/// error body for the request's `id` naming the scope and how to get it (so a client that
/// shows the body, not the header, says what to fix), and a denied line in the audit trail
/// naming the caller and session of `origin`. `None` lets the call through.
pub async fn tool_scope(
    step_up: &StepUp<'_>,
    origin: &CallOrigin,
    headers: &http::HeaderMap,
    id: &Option<Value>,
    params: Option<&Value>,
) -> Option<Response> {
    let auth = step_up.auth?;
    let principal = origin.principal.as_ref()?;
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str)?;
    let def = crate::mcp::tools::find_def(name)?;
    let needed = crate::mcp::gate::needed_scope(def);
    if principal.allows(needed) {
        return None;
    }
    tracing::warn!(principal = %principal.key(), tool = name, needed = %needed, "tool call refused: insufficient scope");
    auth.count(Reason::InsufficientScope);
    if let Some(audit) = step_up.audit {
        let mut event = AuditEvent::new(name, Outcome::Denied);
        event.principal = principal.key().to_owned();
        event.session = origin.session.as_deref().map(session_tag);
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
    let (status, headers, _) = failure.answer(&auth.metadata_url(headers));
    let held = axgate_parse::identity::format_scopes(&principal.scopes);
    let body = axgate_parse::jsonrpc::scope_error_body(
        id.clone(),
        name,
        needed.as_str(),
        &held,
        match (principal.kind, principal.rule.as_deref()) {
            (axgate_parse::identity::PrincipalKind::Static, _) => GrantedBy::StaticToken,
            (_, Some(rule)) => GrantedBy::ClaimRule(rule),
            (_, None) => GrantedBy::Issuer,
        },
    );
    Some((status, headers, body).into_response())
}

/// A new session or a sessionless request the fleet rules refuse: 503, `Retry-After`, and a
/// JSON-RPC error saying why and what to do.
pub fn fleet_refusal(fleet: &Fleet, id: Option<Value>, refusal: &Refusal) -> Response {
    if *refusal == Refusal::NeedsAct {
        return crate::http::intake::jsonrpc_error(
            http::StatusCode::FORBIDDEN,
            id,
            -32000,
            refusal.message(),
        );
    }
    let mut response = crate::http::intake::jsonrpc_error(
        http::StatusCode::SERVICE_UNAVAILABLE,
        id,
        -32000,
        refusal.message(),
    );
    let secs = fleet.retry_after().as_secs().to_string();
    if let Ok(value) = http::HeaderValue::from_str(&secs) {
        response
            .headers_mut()
            .insert(http::header::RETRY_AFTER, value);
    }
    response
}
