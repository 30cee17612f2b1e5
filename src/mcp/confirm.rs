//! Asking the user before a destructive press: when the label of the element about to be
//! pressed (clicked, or chosen from a menu) contains one of `policy.confirm_words`, the
//! user is asked through MCP form elicitation if the client declared it; otherwise
//! `policy.unconfirmed` decides. The outcome goes on the call's audit line.

use std::time::Duration;

use rmcp::service::ElicitationError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::context::ToolCtx;
use super::errors::ToolError;
use crate::policy::confirm::{Confirmation, Unconfirmed};

/// How long the user has to answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(120);

/// The form the user answers.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Tick to go ahead with the action.
    confirm: bool,
}

rmcp::elicit_safe!(Confirm);

/// Goes ahead when `label` is not destructive or the press is confirmed; otherwise refuses,
/// saying why. `what` names the action for the user (`press button "Delete" in Editor`).
pub async fn confirm_press(ctx: &ToolCtx, label: &str, what: &str) -> Result<(), ToolError> {
    let Some(word) = ctx.policy.words.find(label) else {
        return Ok(());
    };
    let message =
        format!("An agent wants to {what}, which looks destructive (\"{word}\"). Allow it?");
    // A sessionless (2026-07-28) request cannot carry a server-to-client request over HTTP:
    // the client cannot be asked, whatever capabilities it declared.
    let asked = if ctx.sessionless {
        Err(ElicitationError::CapabilityNotSupported)
    } else {
        ctx.peer
            .elicit_with_timeout::<Confirm>(message, Some(ANSWER_WITHIN))
            .await
    };
    let settled = match asked {
        Ok(Some(Confirm { confirm: true })) => Confirmation::Accepted,
        Ok(_) => Confirmation::Declined,
        Err(ElicitationError::CapabilityNotSupported) => match ctx.policy.unconfirmed {
            Unconfirmed::Allow => Confirmation::AllowedUnasked,
            Unconfirmed::Refuse => Confirmation::RefusedUnasked,
        },
        Err(error) => {
            tracing::warn!(%error, "confirmation of a destructive press failed; not pressing");
            Confirmation::Declined
        }
    };
    *ctx.confirmation
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(settled);
    match settled {
        Confirmation::Accepted | Confirmation::AllowedUnasked => Ok(()),
        Confirmation::Declined => Err(ToolError::Refused(format!(
            "not done: the user did not confirm the destructive action ({word:?}); do not retry \
             without asking the user"
        ))),
        Confirmation::RefusedUnasked => Err(ToolError::Refused(format!(
            "refused: the action looks destructive ({word:?}, policy.confirm_words) and this \
             client cannot ask the user to confirm (it declared no form elicitation, or the \
             request is sessionless); \
             policy.unconfirmed is \"refuse\". Use a client with elicitation, or ask an \
             operator to change the policy"
        ))),
    }
}

/// The label a destructive word is looked for in: the element's title and description.
pub fn label_of(title: Option<&str>, description: Option<&str>) -> String {
    [title, description]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
}
