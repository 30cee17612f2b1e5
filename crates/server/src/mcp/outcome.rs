//! The end of a tool call, apart from its dispatch in `server.rs`: it runs the tool, then
//! counts it (metrics), logs it (tracing and `notifications/message`) and writes its audit
//! line — the same whether the call answers its request or runs as a task (`tasks.rs`); and
//! the answer to a call refused before it ran.

#![allow(deprecated)]

use std::sync::PoisonError;
use std::time::Instant;

use rmcp::model::{CallToolResponse, LoggingLevel};
use serde_json::json;

use super::context::ToolCtx;
use super::errors::denial_rule;
use super::gate::{self, Refusal};
use super::input_required::{self, CallInput};
use super::origin::CallOrigin;
use super::server::{AxServer, CallMeta, Pending, RETRY_AFTER_META};
use super::tools;
use crate::audit::Outcome;

impl AxServer {
    /// Runs the call of `pending.def` and accounts for it; the response to give.
    pub(super) async fn run_call(&self, ctx: ToolCtx, pending: Pending) -> CallToolResponse {
        let Pending {
            def,
            args,
            app,
            redacted,
            stale,
        } = pending;
        let started = Instant::now();
        let (mut result, outcome) = match stale {
            Some(error) => input_required::refused(error),
            None => tools::call(&ctx, def, args).await,
        };
        let elapsed = started.elapsed();
        let metrics = &self.shared.metrics;
        // A secret typed into a plain field earlier in this session stays masked in what
        // the session reads later (bounded: `crate::secrets::mask`).
        if !ctx.session.masks.is_empty() {
            result = mask_session(result, &ctx.session.masks);
        }
        metrics
            .mcp
            .secret_masks_forgotten
            .inc_by(ctx.session.masks.take_forgotten());
        metrics
            .mcp
            .tool_calls
            .with_label_values(&[def.name, outcome])
            .inc();
        metrics
            .mcp
            .tool_duration
            .with_label_values(&[def.name])
            .observe(elapsed.as_secs_f64());
        metrics
            .mcp
            .backend_round_trips
            .with_label_values(&[def.name])
            .observe(ctx.stats.round_trips() as f64);
        // Tool, app, outcome and timing only: never UI text, values or typed text. A read
        // that went well is routine (thousands a second under load; a line each was 5 % of
        // the server's CPU): debug. Acts, and every call that did not end well, at info.
        macro_rules! call_line {
            ($level:ident) => {
                tracing::$level!(
                    request_id = %ctx.origin.request_id(),
                    tool = def.name,
                    app = %app,
                    outcome,
                    duration_ms = elapsed.as_millis() as u64,
                    round_trips = ctx.stats.round_trips(),
                    "tool call"
                )
            };
        }
        if outcome == "ok" && def.profile.effect == tools::Effect::Read {
            call_line!(debug);
        } else {
            call_line!(info);
        }
        #[allow(deprecated)]
        // A test's "no" (a failed assert, a wait that timed out) is not a fault of the server.
        let level = if matches!(outcome, "ok" | "assert_failed" | "wait_timeout") {
            LoggingLevel::Info
        } else {
            LoggingLevel::Warning
        };
        ctx.log(
            level,
            json!({
                "event": "tool_call",
                "tool": def.name,
                "outcome": outcome,
                "duration_ms": elapsed.as_millis() as u64,
                "round_trips": ctx.stats.round_trips(),
            }),
        )
        .await;
        // A refusal by the app policy is audited like any denied call.
        let denied = outcome == "denied";
        if let Some((target, redacted)) = redacted.or_else(|| denied.then(Default::default)) {
            let meta = CallMeta {
                tool: def.name,
                app: &app,
                origin: &ctx.origin,
            };
            let mut event = Self::event(
                &meta,
                match outcome {
                    "ok" => Outcome::Ok,
                    "timeout" => Outcome::Timeout,
                    "denied" => Outcome::Denied,
                    "input_required" => Outcome::InputRequired,
                    _ => Outcome::ToolError,
                },
            );
            event.target = target;
            event.redacted = redacted;
            event.duration = elapsed;
            event.rung = result
                .structured_content
                .as_ref()
                .and_then(|v| v.get("rung"))
                .and_then(|v| v.as_str())
                .map(str::to_owned);
            // Every act says how the destructive-act decision went; `not_checked` when the
            // call ended before it reached the decision point.
            event.confirmation = ctx
                .confirmation
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .map(|c| c.as_str().to_owned())
                .or_else(|| {
                    (def.profile.effect == tools::Effect::Act).then(|| "not_checked".to_owned())
                });
            if denied {
                let rule = ctx
                    .denied_by
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                event.reason = Some(rule.unwrap_or_else(|| denial_rule(&result)));
            }
            if let Err(error) = self.record(event).await {
                tracing::error!(tool = def.name, %error, "audit line not written");
                result = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                    format!(
                        "{} ran, but its audit line could not be written ({error}); stop and check the audit trail before acting again",
                        def.name
                    ),
                )]);
                return result.into();
            }
        }
        // A call that stopped to ask answers with the question (after its audit line).
        let asked = ctx.input.as_ref().and_then(CallInput::result);
        asked
            .filter(|_| outcome == "input_required")
            .map_or(result.into(), Into::into)
    }

    /// Answers a call refused before it ran: counted, logged, audited.
    pub(super) async fn refuse(&self, meta: &CallMeta<'_>, refusal: Refusal) -> CallToolResponse {
        let outcome = refusal.outcome();
        self.shared
            .metrics
            .mcp
            .tool_calls
            .with_label_values(&[meta.tool, outcome])
            .inc();
        if let Refusal::Limited(limited) = &refusal {
            self.shared
                .metrics
                .http
                .rate_limited
                .with_label_values(&[limited.limit.as_str()])
                .inc();
        }
        tracing::warn!(
            tool = meta.tool,
            principal = gate::key_of(meta.origin.principal.as_ref()),
            rule = %refusal.rule(),
            "tool call refused"
        );
        let mut event = Self::event(meta, Outcome::Denied);
        event.reason = Some(refusal.rule());
        if let Err(error) = self.record(event).await {
            tracing::error!(tool = meta.tool, %error, "audit line of a refused call not written");
        }
        let mut result = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            refusal.message(meta.tool),
        )]);
        if let Refusal::Limited(limited) = &refusal {
            // The retry hint in machine-readable form too.
            let mut meta = serde_json::Map::new();
            meta.insert(
                RETRY_AFTER_META.into(),
                json!(limited.retry_after.as_millis().max(1) as u64),
            );
            result.meta = Some(rmcp::model::MetaObject(meta));
        }
        result.into()
    }
}

impl AxServer {
    /// This session's state (its app connections and handle tables), for a front that
    /// reads the tree without a `tools/call` (the WebDriver facade, `crate::wd`).
    pub fn state(&self) -> &std::sync::Arc<super::context::SessionState> {
        &self.session
    }

    /// The checks of a read done outside `tools/call` (the WebDriver facade's finds and page
    /// source), as if `tool` were called: scope, read-only mode, the caller's rate limit. A
    /// refusal is counted, logged and audited as a refused call (from the WebDriver session
    /// `session`), and returned.
    pub async fn admit_outside(
        &self,
        tool: &'static str,
        app: &str,
        principal: Option<&crate::identity::Principal>,
        session: Option<&str>,
    ) -> Result<(), Refusal> {
        let Some(def) = tools::find_def(tool) else {
            return Ok(());
        };
        let policy = self.shared.policy.load_full();
        let refusal = match gate::admit(&policy, principal, def, false) {
            Ok(()) => return Ok(()),
            Err(refusal) => refusal,
        };
        let origin = CallOrigin::webdriver(session, principal.cloned(), None);
        let meta = CallMeta {
            tool: def.name,
            app,
            origin: &origin,
        };
        let _answer = self.refuse(&meta, refusal.clone()).await;
        Err(refusal)
    }
}

/// `result` with the session's masked secret values replaced in every string.
fn mask_session(
    result: rmcp::model::CallToolResult,
    masks: &crate::secrets::mask::Masks,
) -> rmcp::model::CallToolResult {
    let Ok(mut json) = serde_json::to_value(&result) else {
        return result;
    };
    masks.apply(&mut json);
    serde_json::from_value(json).unwrap_or(result)
}
