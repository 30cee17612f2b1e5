//! The one decision point for destructive acts. Every acting tool names the elements its act
//! will activate — the target of a press or click, the element under the pointer, the
//! element a key would press (the focused control for Space, the default button for Return, a
//! menu item for its shortcut), the chosen menu item or option — and calls [`decide`]. When
//! the label of any of them contains one of `policy.confirm_words`, the user is asked through
//! MCP form elicitation if the client declared it (on a sessionless 2026-07-28 request, which
//! cannot carry that request, through an input-required result: `input_required.rs`);
//! otherwise the caller's `unconfirmed` (its token's or issuer's own, else
//! `policy.unconfirmed`) decides. The
//! decision is made on the element, never on the tool's name, and its outcome goes on the
//! call's audit line (`not_destructive` when nothing looked destructive).

use std::time::Duration;

use rmcp::service::ElicitationError;

use super::context::ToolCtx;
use super::errors::ToolError;
use super::input_required::{Confirm, Route};
use crate::policy::confirm::{Confirmation, Unconfirmed};
use axgate_engine::RawNode;
use axgate_engine::handles::describe;

/// How long the user has to answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(120);

/// Records how the call was settled, keeping a stronger earlier outcome: a call that asked
/// and was accepted stays `accepted_by_user` when a later receiver is harmless.
fn settle(ctx: &ToolCtx, settled: Confirmation) {
    let mut slot = ctx
        .confirmation
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if slot.is_none() || settled != Confirmation::NotNeeded {
        *slot = Some(settled);
    }
}

/// The decision point: goes ahead when none of `receivers` — every element the act is about
/// to activate — looks destructive, or when the act is confirmed; otherwise refuses, saying
/// why. `verb` names the act for the user (`press`, `click`, `press the key space on`), `app`
/// the app's name. An act that activates nothing passes an empty list: the decision is still
/// made (and recorded as `not_destructive`).
pub async fn decide(
    ctx: &ToolCtx,
    app: &str,
    verb: &str,
    receivers: &[(RawNode, String)],
) -> Result<(), ToolError> {
    let destructive = receivers.iter().find_map(|(node, place)| {
        let label = label_of(node);
        ctx.policy
            .words
            .find(&label)
            .map(|word| (word, node, place))
    });
    let Some((word, node, place)) = destructive else {
        settle(ctx, Confirmation::NotNeeded);
        return Ok(());
    };
    let what = format!("{verb} {} at {place} in {app}", describe(node));
    ask(ctx, &word, &what).await
}

/// The decision point for an act whose receiver is an app's command rather than an element
/// on screen: quitting an app is its own "Quit <app>" command (the menu item `select_menu`
/// would choose), so it is judged by that label, the same words deciding. `what` names the
/// act for the user.
pub async fn decide_command(ctx: &ToolCtx, label: &str, what: &str) -> Result<(), ToolError> {
    match ctx.policy.words.find(label) {
        Some(word) => ask(ctx, &word, what).await,
        None => {
            settle(ctx, Confirmation::NotNeeded);
            Ok(())
        }
    }
}

/// The decision for an act that activates no element (focusing, scrolling, moving a window,
/// launching, leasing, writing the clipboard): nothing to ask, and the audit line says so.
pub fn activates_nothing(ctx: &ToolCtx) {
    settle(ctx, Confirmation::NotNeeded);
}

/// Asks about one destructive act (`word` is the confirm word its label contains).
async fn ask(ctx: &ToolCtx, word: &str, what: &str) -> Result<(), ToolError> {
    let message =
        format!("An agent wants to {what}, which looks destructive (\"{word}\"). Allow it?");
    // A sessionless (2026-07-28) request cannot carry a server-to-client request over HTTP:
    // the client is asked through an input-required result when it declared form
    // elicitation in the request (`input_required.rs`), else it cannot be asked.
    let first = ctx
        .confirmation
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .is_none();
    // The sessionless question comes back to the caller itself: its answer counts only for
    // a principal whose `unconfirmed` is "ask" (crate::policy::confirm::Unconfirmed).
    let vouched = !ctx.sessionless() || ctx.unconfirmed == Unconfirmed::Ask;
    let route = ctx
        .input
        .as_ref()
        .filter(|_| vouched)
        .map(|i| i.route(what, &message, first));
    let asked = if ctx.sessionless() {
        match route {
            Some(Route::Answered(yes)) => Ok(Some(Confirm { confirm: yes })),
            Some(Route::Ask) => {
                settle(ctx, Confirmation::InputRequired);
                return Err(ToolError::InputRequired);
            }
            Some(Route::Refused(error)) => return Err(error),
            Some(Route::Unasked) | None => Err(ElicitationError::CapabilityNotSupported),
        }
    } else {
        ctx.peer
            .elicit_with_timeout::<Confirm>(message, Some(ANSWER_WITHIN))
            .await
    };
    let settled = match asked {
        Ok(Some(Confirm { confirm: true })) => Confirmation::Accepted,
        Ok(_) => Confirmation::Declined,
        Err(ElicitationError::CapabilityNotSupported) => match ctx.unconfirmed {
            Unconfirmed::Allow => Confirmation::AllowedUnasked,
            Unconfirmed::Refuse | Unconfirmed::Ask => Confirmation::RefusedUnasked,
        },
        Err(error) => {
            tracing::warn!(%error, "confirmation of a destructive press failed; not pressing");
            Confirmation::Declined
        }
    };
    settle(ctx, settled);
    match settled {
        Confirmation::Accepted | Confirmation::AllowedUnasked | Confirmation::NotNeeded => Ok(()),
        Confirmation::Declined | Confirmation::InputRequired => Err(ToolError::Refused(format!(
            "not done: the user did not confirm the destructive action ({word:?}): {what}; do \
             not retry without asking the user"
        ))),
        Confirmation::RefusedUnasked => Err(ToolError::Refused(format!(
            "refused: to {what}: the action looks destructive ({word:?}, policy.confirm_words) and this \
             client cannot ask the user to confirm (it declared no form elicitation, or the \
             request is sessionless, where the caller's own answer counts only with \
             `unconfirmed = \"ask\"`); \
             policy.unconfirmed (or this token's own `unconfirmed`) is not \"allow\". Use a \
             session with elicitation, or ask an operator to set \"ask\" or \"allow\" for \
             this token"
        ))),
    }
}

/// The label a destructive word is looked for in: the element's title and description.
/// Every text that names the element: its accessible name (which may come from a label
/// elsewhere), title and description, each once.
fn label_of(node: &RawNode) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for text in [
        node.label(),
        node.title.as_deref(),
        node.description.as_deref(),
    ]
    .into_iter()
    .flatten()
    {
        if !text.is_empty() && !parts.contains(&text) {
            parts.push(text);
        }
    }
    parts.join(" ")
}
