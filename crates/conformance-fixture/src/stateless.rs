//! The fixture's part of the sessionless revision (2026-07-28, SEP-2575) beyond plain tools:
//! the diagnostic tools the suite's `server-stateless` scenario probes, `subscriptions/listen`
//! with list-changed notifications, and a tool with an `x-mcp-header` parameter for the
//! SEP-2243 custom-header scenario.
//!
//! - `test_missing_capability` needs the client's sampling capability: a request that did not
//!   declare it gets −32021 with `requiredCapabilities: {"sampling": {}}` (HTTP 400, rmcp).
//! - `test_streaming_elicitation` asks for a confirmation the 2026 way, with an
//!   `InputRequiredResult` on its own response stream, never a server-to-client request.
//! - `test_logging_tool` logs three messages only when the request set
//!   `_meta["io.modelcontextprotocol/logLevel"]`, filtered by that level.
//! - `test_trigger_tool_change` / `test_trigger_prompt_change` announce a changed tool or
//!   prompt list to every open listen that asked for it ([`Changes`]), and to the caller's
//!   session when it has one.
//! - `test_header_param` takes `region` mirrored in the `Mcp-Param-Region` header; rmcp checks
//!   the header against the body before the call reaches the fixture.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    InputRequiredResult, JsonObject, LoggingLevel, SubscriptionFilter, Tool,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::FixtureServer;
use crate::content;

/// The diagnostic tools, as `tools/list` shows them.
const TOOLS: &[(&str, &str)] = &[
    (
        "test_missing_capability",
        "Needs the client's sampling capability; without it the call fails with -32021.",
    ),
    (
        "test_streaming_elicitation",
        "Asks for a confirmation with an InputRequiredResult on its response stream.",
    ),
    (
        "test_logging_tool",
        "Logs three messages, only when the request sets a log level in _meta.",
    ),
    (
        "test_trigger_tool_change",
        "Announces a changed tool list to the listens that asked for it.",
    ),
    (
        "test_trigger_prompt_change",
        "Announces a changed prompt list to the listens that asked for it.",
    ),
];

const HEADER_TOOL: &str = "test_header_param";

/// A change to announce on the listens.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Change {
    Tools,
    Prompts,
}

/// The changes announced to every open `subscriptions/listen` of the server, whichever
/// request (and fixture instance) triggered them.
#[derive(Clone)]
pub(crate) struct Changes(Arc<broadcast::Sender<Change>>);

impl Changes {
    pub(crate) fn new() -> Changes {
        Changes(Arc::new(broadcast::channel(64).0))
    }

    fn announce(&self, change: Change) {
        // No listen open is not an error.
        let _ = self.0.send(change);
    }
}

fn object(schema: Value) -> Arc<JsonObject> {
    Arc::new(serde_json::from_value(schema).unwrap_or_default())
}

/// The diagnostic tools and the header tool.
pub(crate) fn tools() -> Vec<Tool> {
    let mut tools: Vec<Tool> = TOOLS
        .iter()
        .map(|(name, about)| {
            Tool::new(
                *name,
                *about,
                object(json!({ "type": "object", "properties": {} })),
            )
        })
        .collect();
    tools.push(Tool::new(
        HEADER_TOOL,
        "Echoes its region argument, which the client also sends as the Mcp-Param-Region header \
         (SEP-2243).",
        object(json!({
            "type": "object",
            "properties": {
                "region": {
                    "type": "string",
                    "description": "A region name; sent in the Mcp-Param-Region header too",
                    "x-mcp-header": "Region",
                },
            },
            "required": ["region"],
        })),
    ));
    tools
}

pub(crate) fn is_tool(name: &str) -> bool {
    name == HEADER_TOOL || TOOLS.iter().any(|(n, _)| *n == name)
}

fn text(t: impl Into<String>) -> Result<CallToolResponse, McpError> {
    Ok(CallToolResult::success(vec![ContentBlock::text(t.into())]).into())
}

/// `tools/call` of a diagnostic tool or the header tool.
pub(crate) async fn call(
    server: &FixtureServer,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let name = request.name.as_ref();
    let declared: ClientCapabilities = context.client_capabilities().unwrap_or_default();
    match name {
        "test_missing_capability" => {
            if declared.sampling.is_none() {
                return Err(McpError::missing_required_client_capability(
                    ClientCapabilities::builder().enable_sampling().build(),
                ));
            }
            text("The client declared sampling.")
        }
        "test_streaming_elicitation" => {
            if declared.elicitation.is_none() {
                return Err(McpError::missing_required_client_capability(
                    ClientCapabilities::builder().enable_elicitation().build(),
                ));
            }
            let ask = serde_json::from_value(json!({
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "Continue?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": { "ok": { "type": "boolean" } },
                        "required": ["ok"],
                    },
                },
            }))
            .map_err(|e| McpError::internal_error(format!("elicitation request: {e}"), None))?;
            if request.input_responses.is_some() {
                return text("Confirmed.");
            }
            Ok(
                InputRequiredResult::from_input_requests([("confirm".to_owned(), ask)].into())
                    .into(),
            )
        }
        "test_logging_tool" => {
            // Only a request that asked for log records gets them (SEP-2575).
            if let Some(level) = context.meta.log_level() {
                for step in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ] {
                    server
                        .log_at(&context.peer, level, LoggingLevel::Info, json!(step))
                        .await;
                }
            }
            text("Logged, if the request asked for it.")
        }
        "test_trigger_tool_change" => {
            server.changes.announce(Change::Tools);
            if context.peer.peer_info().is_some() {
                let _ = context.peer.notify_tool_list_changed().await;
            }
            text("Announced a changed tool list.")
        }
        "test_trigger_prompt_change" => {
            server.changes.announce(Change::Prompts);
            if context.peer.peer_info().is_some() {
                let _ = context.peer.notify_prompt_list_changed().await;
            }
            text("Announced a changed prompt list.")
        }
        HEADER_TOOL => {
            let region = request
                .arguments
                .as_ref()
                .and_then(|args| args.get("region"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    McpError::invalid_params("argument `region` (a string) is required", None)
                })?;
            text(format!("Region: {region}"))
        }
        other => Err(McpError::invalid_params(
            format!("{other:?} is not a diagnostic tool"),
            None,
        )),
    }
}

/// What the fixture honours of a listen's filter: list changes of tools and prompts, and
/// updates of its resources that exist.
pub(crate) fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut accepted = SubscriptionFilter::new();
    accepted.tools_list_changed = requested.tools_list_changed;
    accepted.prompts_list_changed = requested.prompts_list_changed;
    accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        uris.iter()
            .filter(|uri| content::exists(uri))
            .cloned()
            .collect()
    });
    accepted
}

/// Runs one listen: forwards the announced changes it accepted until it is closed.
pub(crate) async fn listen(changes: &Changes, subscription: SubscriptionContext) {
    let mut announced = changes.0.subscribe();
    loop {
        let change = tokio::select! {
            () = subscription.cancelled() => return,
            change = announced.recv() => change,
        };
        let sink = subscription.sink();
        // A change this listen did not ask for is refused by the sink: not sent.
        let sent = match change {
            Ok(Change::Tools) => sink.notify_tool_list_changed().await,
            Ok(Change::Prompts) => sink.notify_prompt_list_changed().await,
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if let Err(error) = sent {
            tracing::debug!(%error, "a change not sent on a listen");
        }
    }
}
