//! The checks a tool call passes before it runs, and what `tools/list` shows:
//! 1. scope: the caller's principal must hold the tool's scope (`axgate:read` for reading
//!    tools, `axgate:act` for tools that change UI or app state, `axgate:admin` for session
//!    administration). Over HTTP the intake layer already answers a missing scope with 403
//!    and a step-up challenge; this check is the same rule for every transport.
//! 2. read-only mode: write tools are hidden and refused;
//! 3. rate limits: per principal, on calls and separately on writes. Over HTTP the call
//!    was taken when the request arrived ([`Prepaid`], `http::arrival`): here only a
//!    writing tool's write is taken.
//!
//! Without authentication (loopback only) there is no principal: every scope is held, and
//! the rate limits apply to one shared key, [`LOCAL`].

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use super::origin::CallOrigin;
use super::tools::{Effect, ToolDef};
use crate::identity::{Principal, Scope};
use crate::policy::limits::{Limit, Limited};
use crate::policy::principal::Subject;
use crate::policy::{Policy, Prepaid};

/// The rate-limit key and audit name of calls without authentication.
pub use crate::policy::principal::LOCAL;

/// The key a principal's state (tasks, rate limits, leases) is kept under: [`LOCAL`] when
/// authentication is off.
pub fn key_of(principal: Option<&Principal>) -> &str {
    principal.map_or(LOCAL, Principal::key)
}

/// Who made this MCP request: the principal of its [`CallOrigin`].
pub fn principal_of(context: &RequestContext<RoleServer>) -> Option<Principal> {
    CallOrigin::of(&context.extensions).principal.clone()
}

/// Whether this request's call was taken from its caller's allowance when it arrived.
pub fn prepaid(context: &RequestContext<RoleServer>) -> bool {
    context
        .extensions
        .get::<http::request::Parts>()
        .is_some_and(|parts| parts.extensions.get::<Prepaid>().is_some())
}

/// The scope a tool needs.
pub fn needed_scope(def: &ToolDef) -> Scope {
    match def.profile.effect {
        Effect::Read => Scope::Read,
        Effect::Act => Scope::Act,
        Effect::Admin | Effect::AdminRead => Scope::Admin,
    }
}

/// Why a call was refused before it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Scope { needed: Scope },
    ReadOnly,
    Limited(Limited),
}

impl Refusal {
    /// The rule that refused, for the audit line (never quotes arguments).
    pub fn rule(&self) -> String {
        match self {
            Refusal::Scope { needed } => format!("insufficient_scope: needs {needed}"),
            Refusal::ReadOnly => "policy.read_only".into(),
            Refusal::Limited(limited) => format!("limits.{}_per_second", limited.limit.as_str()),
        }
    }

    /// The bounded outcome label for metrics and logs.
    pub fn outcome(&self) -> &'static str {
        match self {
            Refusal::Limited(_) => "rate_limited",
            _ => "denied",
        }
    }

    /// What the caller is told.
    pub fn message(&self, tool: &str) -> String {
        match self {
            Refusal::Scope { needed } => format!(
                "{tool} needs the {needed} scope, which this token does not grant; ask for a \
                 token with {needed}"
            ),
            Refusal::ReadOnly => format!(
                "{tool} changes UI or app state and this server is in read-only mode \
                 (policy.read_only); only reading tools are available"
            ),
            Refusal::Limited(limited) => format!("{tool} refused: {limited}"),
        }
    }
}

/// Whether `tools/list` shows `def` to this caller: scope and read-only mode.
pub fn visible(policy: &Policy, principal: Option<&Principal>, def: &ToolDef) -> bool {
    permitted(policy, principal, def).is_ok()
}

fn permitted(policy: &Policy, principal: Option<&Principal>, def: &ToolDef) -> Result<(), Refusal> {
    let needed = needed_scope(def);
    if principal.is_some_and(|p| !p.allows(needed)) {
        return Err(Refusal::Scope { needed });
    }
    if policy.read_only && def.profile.effect == Effect::Act {
        return Err(Refusal::ReadOnly);
    }
    Ok(())
}

/// Every check, in order; takes from the caller's rate allowance when it passes the others
/// (only a write when the call was `prepaid`).
pub fn admit(
    policy: &Policy,
    principal: Option<&Principal>,
    def: &ToolDef,
    prepaid: bool,
) -> Result<(), Refusal> {
    permitted(policy, principal, def)?;
    let who = principal.map_or(Subject::from(LOCAL), Subject::of);
    let write = !def.profile.effect.reads_only();
    let taken = match (prepaid, write) {
        (true, false) => Ok(()),
        (true, true) => policy.limits.take(who, Limit::Writes),
        (false, write) => policy.limits.check(who, write),
    };
    taken.map_err(Refusal::Limited)
}

/// The rate limit on requests other than tool calls that make axgate work —
/// `resources/read`, `prompts/get`, `completion/complete`, `subscriptions/listen`: each
/// takes one call from the caller's allowance (`limits.calls_per_second`), refused as a
/// JSON-RPC error naming the limit, with the wait in `data.retry_after_ms`. Nothing more
/// is taken when the call was `prepaid`.
pub fn admit_request(
    policy: &Policy,
    context: &RequestContext<RoleServer>,
    method: &str,
) -> Result<(), rmcp::ErrorData> {
    if prepaid(context) {
        return Ok(());
    }
    let principal = principal_of(context);
    let who = principal.as_ref().map_or(Subject::from(LOCAL), Subject::of);
    policy.limits.check(who, false).map_err(|limited| {
        rmcp::ErrorData::new(
            rmcp::model::ErrorCode(-32000),
            format!("{method} refused: {limited}"),
            Some(serde_json::json!({
                "retry_after_ms": limited.retry_after.as_millis().max(1) as u64
            })),
        )
    })
}
