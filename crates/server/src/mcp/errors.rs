//! The one place where failures become MCP results: a tool that ran and failed returns
//! `isError: true` with text an agent can act on; protocol misuse stays a JSON-RPC error.

use rmcp::model::{CallToolResult, ContentBlock};

use axgate_engine::AxError;

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The engine refused or failed.
    #[error(transparent)]
    Ax(#[from] AxError),
    /// The arguments were wrong; the text names the field and the fix.
    #[error("{0}")]
    Usage(String),
    /// Policy refused the call (a destructive press not confirmed); the text says which rule.
    #[error("{0}")]
    Refused(String),
    /// A wait ended at its timeout with its condition unmet: the answer a test asked for
    /// ("not yet"), not a failure of axgate or the app, so counted apart from tool errors.
    #[error("{0}")]
    WaitTimeout(String),
    /// A sessionless call stopped before a destructive act to ask the user through an
    /// input-required result (`input_required.rs`), which replaces this error's result.
    #[error("not done: the user must confirm this destructive action first")]
    InputRequired,
}

impl ToolError {
    /// A bounded outcome label for logs and metrics: `timeout` (the app did not answer in
    /// time), `denied`, `wait_timeout` (a wait's condition never held), else `tool_error`.
    pub fn outcome(&self) -> &'static str {
        match self {
            ToolError::Ax(e) if e.is_timeout() => "timeout",
            ToolError::Ax(AxError::AppDenied { .. }) | ToolError::Refused(_) => "denied",
            ToolError::WaitTimeout(_) => "wait_timeout",
            ToolError::InputRequired => "input_required",
            _ => "tool_error",
        }
    }

    /// A bounded name of the failure class.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::Ax(e) => e.kind(),
            ToolError::Usage(_) => "invalid_arguments",
            ToolError::Refused(_) => "refused",
            ToolError::WaitTimeout(_) => "wait_timeout",
            ToolError::InputRequired => "input_required",
        }
    }
}

/// The `_meta` key of a refused-as-busy result: whole seconds to wait before retrying (the
/// tool-call counterpart of HTTP's `Retry-After`, which a result inside a stream cannot carry).
pub const RETRY_AFTER_META: &str = "axgate/retryAfterSecs";

/// The `isError` result for a failure. Text only: clients validate `structuredContent`
/// against the tool's `outputSchema`, which describes success. A call refused because its
/// app is busy also carries [`RETRY_AFTER_META`] in `_meta`.
pub fn tool_error(error: ToolError) -> CallToolResult {
    let retry_after = match &error {
        ToolError::Ax(AxError::Busy { retry_after, .. }) => Some(retry_after.as_secs().max(1)),
        _ => None,
    };
    let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
    if let Some(secs) = retry_after {
        let mut meta = rmcp::model::JsonObject::new();
        meta.insert(RETRY_AFTER_META.into(), secs.into());
        result.meta = Some(rmcp::model::MetaObject(meta));
    }
    result
}

/// The rule named in a denied call's message, bounded for the audit line.
pub fn denial_rule(result: &rmcp::model::CallToolResult) -> String {
    let text = result
        .content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .unwrap_or_default();
    [
        "policy.deny_apps",
        "policy.allow_apps",
        "policy.confirm_words",
        "secrets_into_plain_fields",
        "secrets",
        "the user did not confirm",
        "requestState",
    ]
    .into_iter()
    .find(|rule| text.contains(rule))
    .unwrap_or("policy")
    .to_owned()
}
