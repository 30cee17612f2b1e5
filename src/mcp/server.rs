//! The rmcp `ServerHandler`: one instance per MCP session (rmcp's service factory makes a
//! new one for each `initialize`), holding that session's state. Declares capabilities,
//! lists tools, dispatches calls, and implements `logging/setLevel` per session.

// MCP logging is deprecated only in the 2026-07-28 revision (SEP-2577); the revisions axgate
// serves (2025-11-25 and earlier) define `logging/setLevel` and `notifications/message`.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult,
    LoggingLevel, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    SetLevelRequestParams, Tool,
};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResponse, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;

use super::context::{SessionState, ToolCtx};
use super::tools;
use super::{completions, prompts, resources};
use crate::audit::{Audit, AuditEvent, Outcome, redact_args, session_tag};
use crate::ax::{CallStats, Engine};
use crate::metrics::Metrics;

/// The protocol revisions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
];

/// Whether `version` is one of [`PROTOCOL_VERSIONS`].
pub fn supports(version: &str) -> bool {
    PROTOCOL_VERSIONS.iter().any(|v| v.as_str() == version)
}

#[derive(Clone)]
pub struct AxServer {
    engine: Arc<Engine>,
    session: Arc<SessionState>,
    metrics: Metrics,
    audit: Option<Audit>,
}

impl AxServer {
    pub fn new(engine: Arc<Engine>, metrics: Metrics, audit: Option<Audit>) -> Self {
        AxServer {
            session: Arc::new(SessionState::new(engine.clone())),
            engine,
            metrics,
            audit,
        }
    }

    /// Writes the audit line of a mutating call; the caller returns its result only after.
    #[allow(clippy::too_many_arguments)]
    async fn audit(
        &self,
        tool: &str,
        app: &str,
        session: Option<&str>,
        redacted: (Option<String>, serde_json::Map<String, serde_json::Value>),
        outcome: &str,
        elapsed: std::time::Duration,
        result: &rmcp::model::CallToolResult,
    ) -> Result<(), String> {
        let Some(audit) = &self.audit else {
            return Ok(());
        };
        let outcome = match outcome {
            "ok" => Outcome::Ok,
            "timeout" => Outcome::Timeout,
            "denied" => Outcome::Denied,
            _ => Outcome::ToolError,
        };
        let mut event = AuditEvent::new(tool, outcome);
        event.app = (app != "-").then(|| app.to_owned());
        event.session = session.map(session_tag);
        event.target = redacted.0;
        event.redacted = redacted.1;
        event.duration = elapsed;
        event.rung = result
            .structured_content
            .as_ref()
            .and_then(|v| v.get("rung"))
            .and_then(|v| v.as_str())
            .map(str::to_owned);
        audit.record(event).await.map_err(|e| e.to_string())
    }
}

const INSTRUCTIONS: &str = "axgate drives this machine's applications through the accessibility \
API. Start with list_apps, read an app with get_tree or find, then act with perform_action using \
the `path` or `handle` of an element from those results. Errors say what to do next.";

impl ServerHandler for AxServer {
    fn get_info(&self) -> InitializeResult {
        #[allow(deprecated)]
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_completions()
            .build();
        // Resources and prompts: no `notifications/*/list_changed` is sent.
        if let Some(r) = capabilities.resources.as_mut() {
            r.list_changed = Some(false);
        }
        if let Some(p) = capabilities.prompts.as_mut() {
            p.list_changed = Some(false);
        }
        let mut server_info = Implementation::new("axgate", env!("CARGO_PKG_VERSION"));
        server_info.title = Some("axgate".into());
        server_info.description = Some(env!("CARGO_PKG_DESCRIPTION").into());
        server_info.website_url = Some("https://axgate.dev".into());
        let mut info = InitializeResult::new(capabilities);
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info.server_info = server_info;
        info.instructions = Some(INSTRUCTIONS.into());
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        resources::list(&self.engine).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        resources::read(&self.engine, &self.session, &request.uri)
            .await
            .map(Into::into)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.session
            .subscriptions
            .subscribe(&self.engine, &request.uri, context.peer.clone())
            .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.session.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        prompts::get(&request).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        completions::complete(&self.engine, &request).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.session.set_log_level(request.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools: Vec<Tool> = tools::all().into_iter().map(|t| t.to_wire()).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::find_def(name).map(|t| t.to_wire())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(def) = tools::find_def(&request.name) else {
            let names: Vec<&str> = tools::all().iter().map(|t| t.name).collect();
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool {:?}; tools are {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        let app = args
            .get("app")
            .and_then(|v| v.as_str())
            .unwrap_or("-")
            .to_owned();
        let ctx = ToolCtx {
            engine: self.engine.clone(),
            session: self.session.clone(),
            stats: CallStats::default(),
            peer: context.peer.clone(),
            cancel: context.ct.clone(),
            progress: context.meta.get_progress_token(),
        };
        let request_id = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.headers.get("x-request-id"))
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-")
            .to_owned();
        let session = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        // Mutating calls are audited; their arguments are redacted before anything else.
        let redacted = (def.effect == tools::Effect::Act).then(|| redact_args(def.name, &args));
        let started = Instant::now();
        let (mut result, outcome) = tools::call(&ctx, def.name, args).await;
        let elapsed = started.elapsed();
        self.metrics
            .tool_calls
            .with_label_values(&[def.name, outcome])
            .inc();
        self.metrics
            .tool_duration
            .with_label_values(&[def.name])
            .observe(elapsed.as_secs_f64());
        self.metrics
            .backend_round_trips
            .with_label_values(&[def.name])
            .observe(ctx.stats.round_trips() as f64);
        // Tool, app, outcome and timing only: never UI text, values or typed text.
        tracing::info!(
            request_id = %request_id,
            tool = def.name,
            app = %app,
            outcome,
            duration_ms = elapsed.as_millis() as u64,
            round_trips = ctx.stats.round_trips(),
            "tool call"
        );
        #[allow(deprecated)]
        let level = if outcome == "ok" {
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
        if let Some(redacted) = redacted {
            let written = self
                .audit(
                    def.name,
                    &app,
                    session.as_deref(),
                    redacted,
                    outcome,
                    elapsed,
                    &result,
                )
                .await;
            if let Err(error) = written {
                tracing::error!(tool = def.name, %error, "audit line not written");
                result = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                    format!(
                        "{} ran, but its audit line could not be written ({error}); stop and check the audit trail before acting again",
                        def.name
                    ),
                )]);
            }
        }
        Ok(result.into())
    }
}
