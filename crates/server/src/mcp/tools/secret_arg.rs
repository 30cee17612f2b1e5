//! The `secret: NAME` argument of `type_text` and `set_value`: the caller names a secret, the
//! policy decides whether it may use it and whether the element that will really receive it
//! may (a secure text field, or any field when the policy allows), the store resolves the
//! value, and the result is masked before it leaves (`crate::secrets`).

use rmcp::model::CallToolResult;

use super::target::Located;
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::secrets::{Secret, mask, store};

/// What a caller gave to type or set: its own text, or the name of a secret.
pub(super) enum Given<T> {
    Plain(T),
    Secret(String),
}

/// `plain` or `secret`, exactly one; the error names the fields of `tool`.
pub(super) fn one_of<T>(
    tool: &str,
    field: &str,
    plain: Option<T>,
    secret: Option<String>,
) -> Result<Given<T>, ToolError> {
    match (plain, secret) {
        (Some(plain), None) => Ok(Given::Plain(plain)),
        (None, Some(name)) => Ok(Given::Secret(name)),
        (Some(_), Some(_)) => Err(ToolError::Usage(format!(
            "{tool}: give either `{field}` or `secret`, not both: `secret` names a value the \
             server holds, typed instead of `{field}`"
        ))),
        (None, None) => Err(ToolError::Usage(format!(
            "{tool}: missing `{field}`: give the {field} to use, or `secret` with the name of \
             a secret the server holds"
        ))),
    }
}

/// The value of the secret `name`, when this caller may use it.
pub(super) fn resolve(ctx: &ToolCtx, name: &str) -> Result<Secret, ToolError> {
    crate::secrets::check_name(name)
        .map_err(|why| ToolError::Usage(format!("invalid argument `secret`: {why}")))?;
    ctx.secrets.check(name).map_err(ToolError::Refused)?;
    store::resolve(&ctx.policy.config.secret_source, name, &|var| {
        std::env::var(var).ok()
    })
    .map_err(ToolError::Usage)
}

/// Refuses `located` as the receiver of a secret unless it is a secure text field or the
/// caller's policy allows plain fields.
pub(super) fn check_receiver(ctx: &ToolCtx, located: &Located) -> Result<(), ToolError> {
    let secure = located.element.node.states.secure;
    ctx.secrets
        .check_field(secure, &located.label())
        .map_err(ToolError::Refused)
}

/// `result` with the secret's value masked in every string; the session masks it in its
/// later results too (`crate::secrets::mask::Masks`).
pub(super) fn masked(ctx: &ToolCtx, secret: &Secret, result: CallToolResult) -> CallToolResult {
    // What this leaves out to stay in bound is counted by the call's end (`outcome.rs`).
    ctx.session.masks.add(secret.expose());
    mask_result(result, &[secret.expose()])
}

/// `result` with each of `values` replaced in every string of its text and structure.
fn mask_result(result: CallToolResult, values: &[&str]) -> CallToolResult {
    let Ok(mut json) = serde_json::to_value(&result) else {
        return result;
    };
    mask::mask(&mut json, values);
    serde_json::from_value(json).unwrap_or(result)
}
