//! Assembles the HTTP application and runs it: `app(state)` builds the router (testable
//! without a socket), `run(listener, state, shutdown)` serves an already-bound listener
//! until the shutdown future resolves, then drains gracefully.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::audit::Audit;
use crate::config::Config;
use crate::fleet::{self, Fleet};
use crate::http::arrival::{self, Arrival};
use crate::http::auth::{self, Auth};
use crate::http::conn::{self, ConnLimits, ConnMetrics};
use crate::http::direct::DirectPath;
use crate::http::inflight::{self, InFlight};
use crate::http::observe::{self, Observed};
use crate::http::tls::Tls;
use crate::http::{Guard, Intake, guard, health, intake};
use crate::mcp::AxServer;
use crate::mcp::admin::Admin;
use crate::mcp::context::LeaseBook;
use crate::mcp::direct::Direct;
use crate::mcp::listens::Listens;
use crate::mcp::server::Shared;
use crate::metrics::{Metrics, git_sha};
use crate::policy::{self, Policy, SharedPolicy};
use crate::session::{AxSessionManager, EventLimits, EventLog, SessionLimits, SessionRegistry};
use crate::wd;
use crate::wiring::{LeasePins, ServerAdmin};
use axgate_engine::Engine;

/// Everything the server shares between requests.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub engine: Arc<Engine>,
    pub sessions: Arc<AxSessionManager>,
    /// Which session holds which app-lease owner (sessions holding a lease are not evicted).
    pub leases: Arc<LeaseBook>,
    pub guard: Arc<Guard>,
    /// `None` when `[auth]` configures no credentials (then only loopback may listen).
    pub auth: Option<Arc<Auth>>,
    pub metrics: Metrics,
    /// The durable audit trail; `None` when `audit.path` is empty.
    pub audit: Option<Audit>,
    /// Read-only mode, app rules, rate limits and confirmation words; swapped on reload.
    pub policy: SharedPolicy,
    /// The listener's certificate when `server.tls_cert` is set; reloaded on SIGHUP.
    pub tls: Option<Arc<Tls>>,
    /// Cancelled at shutdown: ends every SSE stream so connections can drain.
    pub shutdown: CancellationToken,
    /// Running sessionless `subscriptions/listen` requests, ended gracefully before the
    /// shutdown token fires.
    pub listens: Listens,
    /// The tasks of every session; a removed credential's tasks end on reload.
    pub tasks: Arc<crate::mcp::tasks::TaskStore>,
    /// The capacity signal for balancers: draining and exclusive mode (`crate::fleet`).
    pub fleet: Arc<Fleet>,
    /// Initialized sessions whose read-only calls skip rmcp's per-request tasks.
    pub direct: Arc<Direct<AxServer>>,
}

impl AppState {
    /// Builds the shared state; `Err` lists every invalid allow-list entry, and refuses a
    /// non-loopback `server.bind` without auth. `metrics` must be the families the engine
    /// was built with (`metrics.engine`).
    pub fn new(
        config: Config,
        engine: Arc<Engine>,
        metrics: Metrics,
    ) -> Result<AppState, Vec<String>> {
        let guard = Guard::new(&config.server.allowed_hosts, &config.server.allowed_origins)?;
        auth::posture::check_exposure(config.server.bind, config.auth.enabled())
            .map_err(|e| vec![e])?;
        let auth = Auth::new(&config.auth, &metrics)
            .map_err(|e| vec![e])?
            .map(Arc::new);
        let tls = match &config.server.tls {
            Some(files) => Some(Arc::new(Tls::load(files).map_err(|e| vec![e])?)),
            None => {
                if !config.server.bind.ip().is_loopback() {
                    tracing::warn!(
                        bind = %config.server.bind,
                        "serving plain HTTP beyond loopback: bearer tokens cross the network in clear; set server.tls_cert and server.tls_key, or terminate TLS in front"
                    );
                }
                None
            }
        };
        let audit = Audit::open(&config.audit, Some(metrics.clone()))
            .map_err(|e| vec![format!("audit.path: {e}")])?;
        let registry = Arc::new(SessionRegistry::new(SessionLimits {
            max_sessions: config.sessions.max_sessions,
            idle_timeout: config.sessions.idle_timeout,
            idle_without_stream: config.sessions.idle_without_stream,
            evict_others_after: config.sessions.evict_others_after,
            max_per_principal: config.sessions.max_per_principal,
        }));
        let log = EventLog::new(
            EventLimits {
                per_stream: config.sessions.max_events_per_stream,
                per_session: config.sessions.max_events_per_session,
                stream_bytes: config.sessions.max_stream_bytes,
                session_bytes: config.sessions.max_session_bytes,
                total_bytes: config.sessions.max_total_event_bytes,
                finished_ttl: config.sessions.finished_stream_ttl,
            },
            Some(metrics.clone()),
        );
        let fleet = Arc::new(Fleet::new(&config.fleet, registry.clone(), metrics.clone()));
        let leases = Arc::new(LeaseBook::default());
        let direct = Arc::new(Direct::default());
        let pins = Arc::new(LeasePins {
            book: leases.clone(),
            engine: engine.clone(),
            fleet: fleet.clone(),
            direct: direct.clone(),
        });
        let sessions = Arc::new(
            AxSessionManager::new(log, registry, config.server.sse_retry, metrics.clone())
                .with_pins(pins),
        );
        let policy = policy::shared(&config.policy);
        engine.set_app_rules(policy.load().apps.clone());
        if config.policy.read_only {
            tracing::info!(
                "read-only mode: tools that change UI or app state are hidden and refused"
            );
        }
        let build = [env!("CARGO_PKG_VERSION"), git_sha(), engine.backend_name()];
        metrics.health.build_info.with_label_values(&build).set(1);
        let tasks = Arc::new(crate::mcp::tasks::TaskStore::new(
            metrics.mcp.task_result_bytes.clone(),
            metrics.mcp.tasks_held.clone(),
        ));
        Ok(AppState {
            metrics,
            config: Arc::new(config),
            engine,
            sessions,
            leases,
            guard: Arc::new(guard),
            auth,
            audit,
            policy,
            tls,
            shutdown: CancellationToken::new(),
            listens: Listens::default(),
            tasks,
            fleet,
            direct,
        })
    }

    /// What the admin tools administer: the sessions and the capacity signal.
    pub fn admin(&self) -> Admin {
        Arc::new(ServerAdmin {
            sessions: self.sessions.clone(),
            fleet: self.fleet.clone(),
        })
    }

    /// Applies a newly read configuration without a restart (SIGHUP): tokens and the JWT
    /// issuer, and the policy. Returns what changed; settings that need a restart are named
    /// in the log and left as they are. On `Err` nothing changed.
    pub fn reload(&self, next: &Config) -> Result<Vec<&'static str>, String> {
        let mut changed = Vec::new();
        match (&self.auth, next.auth.enabled()) {
            (Some(auth), _) => {
                if auth.reload(&next.auth)? {
                    self.revoke_removed(auth);
                    changed.push("auth");
                }
            }
            (None, true) => {
                return Err(
                    "the new configuration turns authentication on; that needs a restart".into(),
                );
            }
            (None, false) => {}
        }
        if self.policy.load().config != next.policy {
            let policy = Policy::new(&next.policy);
            self.engine.set_app_rules(policy.apps.clone());
            self.policy.store(Arc::new(policy));
            changed.push("policy");
        }
        if let Some(tls) = &self.tls {
            if next.server.tls.as_ref() != Some(tls.files()) {
                tracing::warn!(
                    "server.tls_cert or server.tls_key changed; new paths take effect after a restart"
                );
            }
            tls.reload()?;
            changed.push("tls");
        }
        let restart_only = [
            (
                "server",
                !same_except_tls(&self.config.server, &next.server),
            ),
            ("sessions", self.config.sessions != next.sessions),
            ("backend", self.config.backend != next.backend),
            ("audit", self.config.audit != next.audit),
            ("log", self.config.log != next.log),
            ("fleet", self.config.fleet != next.fleet),
        ];
        for (section, differs) in restart_only {
            if differs {
                tracing::warn!(
                    section,
                    "[{section}] changed; it takes effect after a restart"
                );
            }
        }
        Ok(changed)
    }
}

impl AppState {
    /// Ends what principals without a credential under the reloaded `auth` still hold (a
    /// removed token or issuer; a JWT its issuer's changed claim rules no longer admit):
    /// their sessions (with their GET streams), their running `subscriptions/listen`s and
    /// their tasks (running ones cancelled; none readable again if the credential returns).
    fn revoke_removed(&self, auth: &auth::Auth) {
        let gone = |key: &str| !auth.still_accepted(key);
        let tasks = self.tasks.revoke(gone);
        if tasks > 0 {
            tracing::info!(tasks, "credential removed: its tasks end");
        }
        for key in self.listens.principals() {
            if gone(&key) {
                tracing::info!(principal = %key, "credential removed: its listens end");
                self.listens.revoke(&key);
            }
        }
        let sessions = self.sessions.clone();
        let ended: Vec<String> = sessions
            .registry()
            .entries()
            .into_iter()
            .filter(|(_, entry)| entry.owner.as_ref().is_some_and(|o| gone(&o.key)))
            .map(|(id, _)| id)
            .collect();
        if ended.is_empty() {
            return;
        }
        tracing::info!(
            sessions = ended.len(),
            "credential removed: its sessions end"
        );
        let close = async move {
            for id in ended {
                sessions.close(&id).await;
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(close);
            }
            Err(_) => tracing::warn!("no runtime to end revoked sessions on"),
        }
    }
}

fn same_except_tls(a: &crate::config::ServerConfig, b: &crate::config::ServerConfig) -> bool {
    let mut b = b.clone();
    b.tls = a.tls.clone();
    *a == b
}

/// The router with every layer. Layers run outermost first (the last `.layer` call).
pub fn app(state: &AppState) -> Router {
    let shared = shared_of(state);
    app_serving(state, move |_| AxServer::new(shared.clone()))
}

/// What the MCP handlers of every session share (and the WebDriver sessions' handlers).
fn shared_of(state: &AppState) -> Arc<Shared> {
    Arc::new(Shared {
        engine: state.engine.clone(),
        metrics: state.metrics.clone(),
        audit: state.audit.clone(),
        leases: Some(state.leases.clone()),
        policy: state.policy.clone(),
        admin: Some(state.admin()),
        listens: state.listens.clone(),
        confirmations: Default::default(),
        tasks: state.tasks.clone(),
        direct: Some(state.direct.clone()),
    })
}

/// The router with every layer around another MCP handler at `/mcp`: `make` builds one
/// handler per session and is given the session administration (the conformance fixture
/// closes response streams with it). Guard, auth, intake, sessions, event log and metrics
/// are the product's whatever the handler, so a test of the transport tests axgate's.
pub fn app_serving<H: ServerHandler + Send + 'static>(
    state: &AppState,
    make: impl Fn(Admin) -> H + Send + Sync + 'static,
) -> Router {
    let server = &state.config.server;
    let mcp_config = StreamableHttpServerConfig::default()
        .with_sse_keep_alive(Some(server.sse_keep_alive))
        .with_sse_retry(Some(server.sse_retry))
        .with_max_request_body_bytes(server.max_body_bytes)
        .with_cancellation_token(state.shutdown.clone())
        // Host and Origin are checked by our guard on every route, with the configured
        // lists; rmcp's own loopback-only defaults would refuse a configured public name.
        .disable_allowed_hosts()
        .disable_allowed_origins();
    let admin = state.admin();
    let mcp = Router::new().route_service(
        "/mcp",
        StreamableHttpService::new(
            move || Ok(make(admin.clone())),
            state.sessions.clone(),
            mcp_config,
        ),
    );
    let intake = Arc::new(Intake {
        // Another handler (the conformance fixture) answers `tools/list` as rmcp's.
        renames_lists: std::any::TypeId::of::<H>() == std::any::TypeId::of::<AxServer>(),
        sessions: state.sessions.clone(),
        registry: state.sessions.registry().clone(),
        events: state.sessions.event_log().clone(),
        max_body_bytes: server.max_body_bytes,
        body_timeout: server.body_timeout,
        metrics: state.metrics.clone(),
        auth: state.auth.clone(),
        audit: state.audit.clone(),
        fleet: state.fleet.clone(),
        direct: DirectPath {
            calls: state.direct.clone(),
            events: state.sessions.event_log().clone(),
            registry: state.sessions.registry().clone(),
            keep_alive: server.sse_keep_alive,
            retry: server.sse_retry,
            shutdown: state.shutdown.clone(),
            counted: state.metrics.mcp.direct_calls.clone(),
            whole: state.metrics.mcp.direct_whole.clone(),
        },
    });
    let in_flight = Arc::new(InFlight::new(
        server.max_in_flight,
        server.max_in_flight_per_caller,
        state.metrics.clone(),
    ));
    let arrival = Arc::new(Arrival {
        policy: state.policy.clone(),
        metrics: state.metrics.clone(),
    });
    let streams = Arc::new(InFlight::streams(
        server.max_streams,
        server.max_streams_per_caller,
        &state.metrics,
    ));
    let mcp_routes = mcp
        // Protocol checks rmcp lacks; only /mcp speaks MCP.
        .layer(from_fn_with_state(intake, intake::layer))
        // Before intake reads a body: past the bound a POST is refused at once (503).
        .layer(from_fn_with_state(in_flight.clone(), inflight::layer))
        // GET streams: bounded in total and per caller the same way.
        .layer(from_fn_with_state(streams, inflight::layer))
        // First at /mcp: a POST takes its call on arrival (429 before it holds a place).
        .layer(from_fn_with_state(arrival, arrival::layer));
    let wd_routes = wd::routes(
        shared_of(state),
        state.config.webdriver.clone(),
        state.metrics.clone(),
        server.max_body_bytes,
    );
    let mut router = Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(observe::readyz).with_state(observed(state)))
        .merge(mcp_routes)
        // WebDriver (`wd`): POSTs share /mcp's in-flight bounds; rate limits are the tools'.
        .merge(wd_routes.layer(from_fn_with_state(in_flight, inflight::layer)));
    if state.config.server.metrics_bind.is_none() {
        router = router.merge(metrics_routes(state));
    }
    if let Some(auth) = &state.auth {
        router = router
            .merge(auth::metadata::routes(auth.clone()))
            // After the Host/Origin guard (a rebinding page never gets to present a token)
            // and inside the HTTP metrics (refusals are counted); before intake and rmcp, so
            // nothing reads an MCP body or session for an unauthenticated caller.
            .layer(from_fn_with_state(auth.clone(), auth::middleware::layer))
            // Just outside auth: its refusals of WebDriver routes in the W3C shape.
            .layer(axum::middleware::from_fn(wd::w3c_refusals));
    }
    router
        // Counted after the guard has answered, so refused requests are counted too.
        .layer(from_fn_with_state(state.metrics.clone(), observe::layer))
        // Host/Origin before anything reads the request: a rebinding page gets nothing.
        .layer(from_fn_with_state(state.guard.clone(), guard::layer))
        // Outermost: a request id for every request, on its span (from the extensions, as
        // the call's origin takes it) and on the response.
        .layer(TraceLayer::new_for_http().make_span_with(|req: &http::Request<_>| {
            let id = req
                .extensions()
                .get::<tower_http::request_id::RequestId>()
                .and_then(|id| id.header_value().to_str().ok())
                .unwrap_or("-");
            tracing::info_span!("http", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
}

fn observed(state: &AppState) -> Arc<Observed> {
    Arc::new(Observed {
        metrics: state.metrics.clone(),
        engine: state.engine.clone(),
        sessions: state.sessions.clone(),
        fleet: state.fleet.clone(),
    })
}

/// `/metrics`, on the main router or on its own listener (`server.metrics_bind`).
pub fn metrics_routes(state: &AppState) -> Router {
    Router::new().route(
        "/metrics",
        get(observe::metrics).with_state(observed(state)),
    )
}

pub use crate::Shutdown;

/// A server's whole life as one future, boxed for the same reason: awaiting an `async fn`
/// of this crate from another crate compiles its body again there (async bodies are always
/// inlinable across crates), so what other crates call returns this instead.
pub type Serving = Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>;

/// Serves `listener` until `shutdown` resolves, then drains: SSE streams are closed, and
/// in-flight requests get `server.shutdown_grace` to finish. When `server.metrics_bind` is
/// set, `/metrics` is served on that address instead.
#[inline(never)]
pub fn run(listener: TcpListener, state: AppState, shutdown: Shutdown) -> Serving {
    Box::pin(async move {
        let metrics_listener = match state.config.server.metrics_bind {
            Some(addr) => Some(TcpListener::bind(addr).await?),
            None => None,
        };
        // The HAProxy agent-check port answers until the server has drained.
        let agent = match state.config.fleet.agent_listen {
            Some(addr) => Some(fleet::agent::spawn(
                TcpListener::bind(addr).await?,
                state.fleet.clone(),
            )),
            None => None,
        };
        let served = serve(listener, metrics_listener, state, shutdown).await;
        if let Some(agent) = agent {
            agent.abort();
        }
        served
    })
}

/// [`run`] with an already-bound metrics listener (tests bind port 0).
pub async fn serve(
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    state: AppState,
    shutdown: Shutdown,
) -> std::io::Result<()> {
    let router = app(&state);
    serve_router(listener, metrics_listener, state, router, shutdown).await
}

/// [`serve`] with a router of the caller's, such as one from [`app_serving`].
#[inline(never)]
pub fn serve_router(
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    state: AppState,
    router: Router,
    shutdown: Shutdown,
) -> Serving {
    Box::pin(async move {
        if let Some(metrics_listener) = metrics_listener {
            let addr = metrics_listener.local_addr()?;
            let mut routes = metrics_routes(&state);
            match &state.auth {
                Some(auth) => {
                    routes =
                        routes.layer(from_fn_with_state(auth.clone(), auth::middleware::layer));
                }
                None => {
                    tracing::warn!(%addr, "serving /metrics on its own listener without authentication: read-only data, keep it on a trusted network")
                }
            }
            let routes = routes.layer(from_fn_with_state(state.guard.clone(), guard::layer));
            let token = state.shutdown.clone();
            tokio::spawn(async move {
                let served = axum::serve(metrics_listener, routes)
                    .with_graceful_shutdown(async move { token.cancelled().await })
                    .await;
                if let Err(error) = served {
                    tracing::error!(%error, "the metrics listener failed");
                }
            });
        }
        let reaper = spawn_reaper(&state);
        let token = state.shutdown.clone();
        let sessions = state.sessions.clone();
        let grace = state.config.server.shutdown_grace;
        let signalled = CancellationToken::new();
        let signalled_for_serve = signalled.clone();
        let listens = state.listens.clone();
        let events = state.sessions.event_log().clone();
        let fleet = state.fleet.clone();
        let stop = async move {
            shutdown.await;
            tracing::info!("shutting down: closing streams and draining requests");
            // Balancers asking the agent port during the grace send new sessions elsewhere.
            fleet.set_draining(true);
            // Listens first, while rmcp still forwards: each ends with its final result.
            if listens.active() > 0 {
                listens.close();
                events.settle_sessionless(LISTEN_CLOSE).await;
            }
            signalled_for_serve.cancel();
            token.cancel();
        };
        let soft_fd_limit = rlimit::Resource::NOFILE.get_soft().ok();
        let mut limits = ConnLimits::of(&state.config.server, soft_fd_limit);
        if state.auth.is_none() {
            // No authentication to wait for (a loopback-only server): every connection is the
            // one local caller's, bounded by the per-caller shares and the cap instead.
            limits.max_unauthenticated_per_address = usize::MAX;
        }
        if limits.max_connections < state.config.server.max_connections {
            tracing::warn!(
                configured = state.config.server.max_connections,
                applied = limits.max_connections,
                "server.max_connections lowered to fit the open-file limit; raise `ulimit -n` (launchd: SoftResourceLimits NumberOfFiles) for more"
            );
        }
        let conn_metrics = ConnMetrics {
            closed: state.metrics.http.connections_closed.clone(),
            open: state.metrics.http.connections_open.clone(),
            sources: state.metrics.http.connection_sources.clone(),
        };
        // Plain or TLS, every connection goes through the same accept loop and bounds.
        let tls = state.tls.as_ref().map(|tls| tls.rustls());
        let serve = conn::serve(listener, tls, router, limits, conn_metrics, stop);
        let result = tokio::select! {
            r = serve => r,
            _ = async {
                signalled.cancelled().await;
                tokio::time::sleep(grace).await;
            } => {
                tracing::warn!(?grace, "requests still running after the shutdown grace; closing anyway");
                Ok(())
            }
        };
        reaper.abort();
        sessions.close_all().await;
        result
    })
}

/// How long shutdown waits for sessionless listens to send their final result.
const LISTEN_CLOSE: Duration = Duration::from_millis(500);

fn spawn_reaper(state: &AppState) -> tokio::task::JoinHandle<()> {
    let sessions = state.sessions.clone();
    let idle = state
        .config
        .sessions
        .idle_timeout
        .min(state.config.sessions.idle_without_stream);
    let period = (idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    let token = state.shutdown.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        loop {
            tokio::select! {
                _ = tick.tick() => { sessions.expire_idle().await; }
                _ = token.cancelled() => break,
            }
        }
    })
}
