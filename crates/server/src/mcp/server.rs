//! The rmcp `ServerHandler`: one instance per MCP session (rmcp's service factory makes a
//! new one for each `initialize`, and one for each sessionless 2026-07-28 request), holding
//! that session's state. Declares capabilities, lists tools, dispatches calls, implements
//! `logging/setLevel` per session, and serves `subscriptions/listen` (2026-07-28) with the
//! same subscription pump as `resources/subscribe`.

// MCP logging is deprecated only in the 2026-07-28 revision (SEP-2577); the revisions axgate
// serves (2025-11-25 and earlier) define `logging/setLevel` and `notifications/message`.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, SetLevelRequestParams, Tool,
};
use rmcp::model::{
    CallToolResult, CancelTaskParams, ContentBlock, CustomRequest, CustomResult, GetTaskParams,
    GetTaskResult, UpdateTaskParams,
};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResponse, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::admin::Admin;
use super::cache::{Cacheable as _, STATIC};
use super::context::{LeaseBook, Notices, SessionState, ToolCtx};
use super::direct::{Direct, Revive};
use super::gate;
use super::input_required::{self, Call, Confirmations};
use super::listens::Listens;
use super::origin::CallOrigin;
use super::subscriptions::{Notifier, Subscriptions};
use super::tasks::{self, TaskStore};
use super::tools;
use super::{completions, listing, prompts, resources, uri};
use crate::audit::{Audit, AuditEvent, Outcome, redact_args, session_tag};
use crate::metrics::Metrics;
use crate::policy::SharedPolicy;
use crate::policy::principal::Subject;
use axgate_engine::{CallStats, Engine};

/// The protocol revisions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
];

/// Whether `version` is one of [`PROTOCOL_VERSIONS`].
pub fn supports(version: &str) -> bool {
    PROTOCOL_VERSIONS.iter().any(|v| v.as_str() == version)
}

/// What the handlers of every session share.
pub struct Shared {
    pub engine: Arc<Engine>,
    pub metrics: Metrics,
    /// The durable audit trail; `None` when `audit.path` is empty.
    pub audit: Option<Audit>,
    /// The policy in force, swapped whole on reload.
    pub policy: SharedPolicy,
    /// Session administration for the admin tools; `None` where there is none (stdio).
    pub admin: Option<Admin>,
    /// Which session holds which lease owner; `None` where sessions are not evicted (stdio).
    pub leases: Option<Arc<LeaseBook>>,
    /// Running `subscriptions/listen` requests, ended gracefully at shutdown.
    pub listens: Listens,
    /// The sealing key and spent ids of sessionless confirmations (`input_required.rs`).
    pub confirmations: Arc<Confirmations>,
    /// The tasks of every session (the tasks extension, `tasks.rs`).
    pub tasks: Arc<TaskStore>,
    /// Sessions whose read-only calls skip rmcp's per-request tasks (`direct.rs`); `None`
    /// where there is no HTTP session (stdio).
    pub direct: Option<Arc<Direct<AxServer>>>,
}

#[derive(Clone)]
pub struct AxServer {
    pub(super) shared: Arc<Shared>,
    engine: Arc<Engine>,
    pub(super) session: Arc<SessionState>,
}

/// The `_meta` key of a rate-limited result: milliseconds to wait before retrying.
pub const RETRY_AFTER_META: &str = "dev.axgate/retry-after-ms";

/// Which call, on which app and from where, for its audit line.
pub(super) struct CallMeta<'a> {
    pub(super) tool: &'a str,
    pub(super) app: &'a str,
    pub(super) origin: &'a CallOrigin,
}

/// What the end of a call needs besides its context, owned (a task outlives its request).
pub(super) struct Pending {
    pub(super) def: &'static tools::ToolDef,
    pub(super) args: rmcp::model::JsonObject,
    pub(super) app: String,
    /// The audit's view of a write's arguments (target, redacted arguments).
    pub(super) redacted: Option<(Option<String>, serde_json::Map<String, serde_json::Value>)>,
    /// The refusal of an echoed requestState that cannot be honoured.
    pub(super) stale: Option<super::errors::ToolError>,
}

impl AxServer {
    pub fn new(shared: Arc<Shared>) -> Self {
        AxServer {
            session: Arc::new(SessionState::new(shared.engine.clone())),
            engine: shared.engine.clone(),
            shared,
        }
    }

    /// Rebuilds this session's handler from weak references to its parts, while the
    /// session lives (what the direct path's registry keeps, `direct.rs`).
    fn revive(&self) -> Revive<AxServer> {
        let (shared, session) = (Arc::downgrade(&self.shared), Arc::downgrade(&self.session));
        Box::new(move || {
            let shared = shared.upgrade()?;
            Some(AxServer {
                engine: shared.engine.clone(),
                shared,
                session: session.upgrade()?,
            })
        })
    }

    /// An audit event for a call, with who, where and which app filled in.
    pub(super) fn event(meta: &CallMeta<'_>, outcome: Outcome) -> AuditEvent {
        let mut event = AuditEvent::new(meta.tool, outcome);
        if let Some(principal) = &meta.origin.principal {
            event.principal = principal.key().to_owned();
        }
        event.app = (meta.app != "-").then(|| meta.app.to_owned());
        event.session = meta.origin.session.as_deref().map(session_tag);
        event
    }

    /// The rate limit of a request that is not a tool call ([`gate::admit_request`]).
    pub(super) fn admit(
        &self,
        context: &RequestContext<RoleServer>,
        method: &str,
    ) -> Result<(), McpError> {
        gate::admit_request(&self.shared.policy.load(), context, method)
    }

    /// Admits a `tasks/*` request ([`Self::admit`]); the key its caller's tasks are kept under.
    fn task_owner(
        &self,
        context: &RequestContext<RoleServer>,
        method: &str,
    ) -> Result<String, McpError> {
        self.admit(context, method)?;
        Ok(gate::key_of(gate::principal_of(context).as_ref()).to_owned())
    }

    /// Writes an audit line; the caller returns its result only after. The session keeps
    /// its own copy for `axgate://session/audit` (`mcp/own_audit.rs`).
    pub(super) async fn record(&self, event: AuditEvent) -> Result<(), String> {
        let kept = event.clone();
        if let Some(audit) = &self.shared.audit {
            audit.record(event).await.map_err(|e| e.to_string())?;
        }
        self.session.own_audit.push(kept);
        Ok(())
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
            .enable_tasks()
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

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let origin = CallOrigin::of(&context.extensions);
        if let (Some(direct), Some(id)) = (&self.shared.direct, &origin.session) {
            direct.register(id, self.revive(), context.peer);
        }
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    // Lists and pings are cheap, not free: a flood of them is limited like any request.
    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.admit(&context, "ping")
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.admit(&context, "resources/list")?;
        resources::list(&self.engine).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.admit(&context, "resources/templates/list")?;
        Ok(ListResourceTemplatesResult::with_all_items(resources::templates()).cached(STATIC))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.admit(&context, "resources/read")?;
        if request.uri == uri::SESSION_AUDIT_URI {
            let tag = CallOrigin::of(&context.extensions)
                .session
                .as_deref()
                .map(session_tag);
            let out = self
                .session
                .own_audit
                .snapshot(tag, self.shared.audit.is_some());
            return Ok(resources::own_audit(&out).into());
        }
        let handles = CallOrigin::of(&context.extensions).sessionless().is_none();
        resources::read(&self.engine, &self.session, &request.uri, handles)
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
            .subscribe(
                &self.engine,
                &request.uri,
                Notifier::Peer(context.peer.clone()),
            )
            .await
    }

    /// `subscriptions/listen` (2026-07-28): resource updates for `axgate://` URIs that name
    /// the app list or an app the app policy allows by name. axgate sends no
    /// `list_changed` notifications, so those are not accepted.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| match uri::ResourceUri::parse(uri) {
                Ok(uri::ResourceUri::Apps) => true,
                Ok(uri::ResourceUri::App { app, .. }) => self.engine.check_app_name(&app).is_ok(),
                Ok(uri::ResourceUri::SessionAudit) | Err(_) => false,
            })
            .cloned()
            .collect();
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = Some(uris);
        Some(accepted)
    }

    /// Runs one listen: the acknowledged URIs are watched by this listen's own pump, with
    /// updates on the listen's stream, until the client closes the stream (the cancellation
    /// of 2026-07-28 HTTP) or the server shuts down (returning `Ok` then makes rmcp send the
    /// graceful `subscriptions/listen` result).
    /// A URI whose app is not running (or is refused by a bundle-id rule) ends the listen
    /// with an error naming it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        self.admit(context.request_context(), "subscriptions/listen")?;
        let principal = gate::principal_of(context.request_context());
        let key = gate::key_of(principal.as_ref());
        let limit = self.shared.policy.load().config.max_listens_per_principal;
        let running = self
            .shared
            .listens
            .enter(key, limit)
            .map_err(|refused| McpError::invalid_request(refused.to_string(), None))?;
        let uris = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        let watched = Subscriptions::default();
        for uri in &uris {
            watched
                .subscribe(&self.engine, uri, Notifier::Listen(context.sink().clone()))
                .await?;
        }
        let closed = CallOrigin::of(&context.request_context().extensions)
            .sessionless()
            .map(|s| s.closed.clone());
        let client_closed = async {
            match &closed {
                Some(closed) => closed.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = context.cancelled() => {}
            () = client_closed => {}
            () = self.shared.listens.closing() => {}
            () = running.revoked() => {
                return Err(McpError::invalid_request(
                    "this listen's credential was removed from the configuration; listen \
                     again with a valid token",
                    None,
                ));
            }
        }
        Ok(())
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.admit(&context, "prompts/list")?;
        Ok(ListPromptsResult::with_all_items(prompts::list()).cached(STATIC))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.admit(&context, "prompts/get")?;
        prompts::get(&request).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.admit(&context, "completion/complete")?;
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

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let owner = self.task_owner(&context, "tasks/get")?;
        Ok(GetTaskResult::new(
            self.shared.tasks.get(&owner, &request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let owner = self.task_owner(&context, "tasks/update")?;
        self.shared.tasks.update(&owner, &request.task_id)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let owner = self.task_owner(&context, "tasks/cancel")?;
        self.shared.tasks.cancel(&owner, &request.task_id)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        listing::listed(self, &context)
    }

    // `tools/list` over HTTP, with each tool's `execution` (`listing.rs`).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        listing::answer(self, request, context).await
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
        let origin = CallOrigin::of(&context.extensions).into_owned();
        let principal = origin.principal.as_ref();
        if def.profile.leases
            && let (Some(book), Some(id)) = (&self.shared.leases, &origin.session)
        {
            book.record(id, &self.session.owner);
        }
        let meta = CallMeta {
            tool: def.name,
            app: &app,
            origin: &origin,
        };
        let policy = self.shared.policy.load_full();
        let prepaid = gate::prepaid(&context);
        if let Err(refusal) = gate::admit(&policy, principal, def, prepaid) {
            return Ok(self.refuse(&meta, refusal).await);
        }
        // A call run as a task is cancelled by tasks/cancel, not with its request.
        let task = if tasks::wanted(def, &context) {
            let owner = gate::key_of(principal);
            match self.shared.tasks.create(owner, def.name, &policy.config) {
                Ok(task) => Some(task),
                Err(refused) => return Ok(refused.into()),
            }
        } else {
            None
        };
        // A sessionless request is also cancelled when its client closes the stream.
        let sessionless = origin.sessionless();
        let cancel = match (&task, sessionless) {
            (Some((_, _, token)), _) => token.clone(),
            (None, Some(marker)) => marker.either(&context.ct),
            (None, None) => context.ct.clone(),
        };
        // A retry with a requestState that cannot be honoured does not run.
        let call = Call {
            tool: def.name,
            args: &args,
            principal: gate::key_of(principal),
            capabilities: context.meta.client_capabilities(),
            state: request.request_state.as_deref(),
            responses: request.input_responses.as_ref(),
        };
        let (input, stale) = input_required::split(
            sessionless
                .as_ref()
                .map(|_| input_required::prepare(&self.shared.confirmations, &call)),
        );
        let subject = principal.map_or(Subject::from(gate::LOCAL), Subject::of);
        let ctx = ToolCtx {
            engine: self.engine.clone(),
            session: self.session.clone(),
            stats: CallStats::default(),
            peer: context.peer.clone(),
            cancel,
            progress: context.meta.get_progress_token(),
            unconfirmed: policy.unconfirmed_for(subject),
            secrets: policy.secrets_for(subject),
            policy,
            confirmation: Mutex::new(None),
            denied_by: Mutex::new(None),
            admin: self.shared.admin.clone(),
            input,
            notices: context.extensions.get::<Notices>().cloned(),
            origin,
        };
        // Writes are audited; their arguments are redacted before anything else.
        let redacted = (def.profile.effect != tools::Effect::Read)
            .then(|| redact_args(def.profile.audit.element, &args));
        let pending = Pending {
            def,
            args,
            app: app.clone(),
            redacted,
            stale,
        };
        match task {
            Some((created, id, _)) => {
                let server = self.clone();
                let limits = ctx.policy.clone();
                tokio::spawn(async move {
                    let result = match server.run_call(ctx, pending).await {
                        CallToolResponse::Complete(result) => result,
                        _ => CallToolResult::error(vec![ContentBlock::text(format!(
                            "{} asked for input, which a task cannot ask for; call it without \
                             the tasks extension",
                            def.name
                        ))]),
                    };
                    server
                        .shared
                        .tasks
                        .finish(&id, def.name, result, &limits.config);
                });
                Ok(CallToolResponse::Task(created))
            }
            None => Ok(self.run_call(ctx, pending).await),
        }
    }
}
