//! WebDriver sessions: each holds its own MCP handler (`AxServer`, with its own app
//! connections, handle table and leases, so two sessions on two apps never share state),
//! the app it drives, its implicit wait and its idle clock. The store is bounded
//! (`webdriver.max_sessions`), a session belongs to the principal that created it (anyone
//! else is told the id is unknown), and a reaper ends sessions idle past their timeout.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::service::{Peer, RunningService};
use serde_json::Value;

use super::script::{self, Script};
use crate::config::WebDriverConfig;
use crate::mcp::AxServer;
use crate::mcp::server::Shared;
use crate::metrics::Metrics;
use axgate_engine::{AppInfo, Engine};
use axgate_webdriver::{ErrorCode, WdError};

/// A click that has landed in W3C actions but may yet become a double click.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PendingClick {
    pub(super) point: (f64, f64),
    pub(super) button: u8,
    pub(super) count: u32,
}

/// What W3C actions hold between commands until Release Actions: the modifiers down, the
/// pointer's place, a button down and where it went down, how long it has been held (the
/// pauses since), a click not yet sent, and whether the pointer moved without pressing (a
/// hover, sent unless a press follows).
#[derive(Debug, Default)]
pub(super) struct Input {
    pub(super) modifiers: Vec<&'static str>,
    pub(super) pointer: (f64, f64),
    pub(super) down: Option<(u8, (f64, f64))>,
    pub(super) held_for: std::time::Duration,
    pub(super) pending: Option<PendingClick>,
    pub(super) hovering: bool,
}

/// How a session ends: idle past its timeout (the session's own, else the configured one),
/// and what runs then.
pub(super) struct Ending {
    pub(super) idle_timeout: Option<Duration>,
    pub(super) postrun: Option<Script>,
}

/// One WebDriver session.
pub(super) struct WdSession {
    pub(super) id: String,
    /// The principal key that created it (`local` without authentication).
    pub(super) owner: String,
    /// Its own MCP handler: tool calls run here.
    pub(super) server: AxServer,
    /// The handler's peer, for the calls' context (nothing is sent to it: no client
    /// declared elicitation, so a destructive act is decided by `policy.unconfirmed`).
    pub(super) peer: Peer<RoleServer>,
    /// Held for its drop guard: ends the handler's service loop with the session.
    _service: RunningService<RoleServer, AxServer>,
    /// The app, and how tool calls name it (its pid, so a second instance is never taken).
    pub(super) app: AppInfo,
    pub(super) app_ref: String,
    engine: Arc<Engine>,
    /// The capabilities answered at creation.
    pub(super) capabilities: Value,
    implicit_wait: Mutex<Duration>,
    idle_timeout: Duration,
    allow_scripts: bool,
    /// Mac2's `appium:postrun`, run when the session ends.
    postrun: Option<Script>,
    /// The server's shared state (the audit trail and policy a script run meets).
    pub(super) shared: Arc<Shared>,
    /// The W3C actions' input state; a lock held for one command's actions.
    pub(super) input: tokio::sync::Mutex<Input>,
    last_used: Mutex<Instant>,
}

impl WdSession {
    /// Where this session's tool calls run.
    pub(super) fn callee(&self) -> super::bridge::Callee<'_> {
        super::bridge::Callee {
            server: &self.server,
            peer: &self.peer,
            id: &self.id,
        }
    }

    /// Whether an operator allows scripts (`webdriver.allow_scripts`).
    pub(super) fn scripts_allowed(&self) -> bool {
        self.allow_scripts
    }

    pub(super) fn engine(&self) -> Arc<Engine> {
        self.engine.clone()
    }

    pub(super) fn implicit_wait(&self) -> Duration {
        *self
            .implicit_wait
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn set_implicit_wait(&self, wait: Duration) {
        *self
            .implicit_wait
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = wait;
    }

    fn touch(&self) {
        *self
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    fn idle_past(&self, now: Instant) -> bool {
        let last = *self
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        now.duration_since(last) > self.idle_timeout
    }
}

/// A new session's handler before it has an app.
pub(super) struct Handler {
    pub(super) server: AxServer,
    pub(super) peer: Peer<RoleServer>,
    service: RunningService<RoleServer, AxServer>,
}

impl Handler {
    /// Where the new session's tool calls run (`id`: the id it will have).
    pub(super) fn callee<'a>(&'a self, id: &'a str) -> super::bridge::Callee<'a> {
        super::bridge::Callee {
            server: &self.server,
            peer: &self.peer,
            id,
        }
    }
}

/// The live sessions.
pub(super) struct Sessions {
    pub(super) shared: Arc<Shared>,
    pub(super) config: WebDriverConfig,
    metrics: Metrics,
    live: Mutex<HashMap<String, Arc<WdSession>>>,
}

impl Sessions {
    pub(super) fn new(shared: Arc<Shared>, config: WebDriverConfig, metrics: Metrics) -> Arc<Self> {
        let sessions = Arc::new(Sessions {
            shared,
            config,
            metrics,
            live: Mutex::default(),
        });
        // The reaper holds the store weakly: it ends with the router.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(reap(Arc::downgrade(&sessions)));
        }
        sessions
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<WdSession>>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A handler of its own for a session about to be created, served without a transport
    /// (`serve_directly` over a sink that drops and a stream that never yields): the
    /// session's calls reach it through `call_tool`, never through messages.
    pub(super) fn handler(&self) -> Handler {
        let server = AxServer::new(self.shared.clone());
        let transport = (
            futures::sink::drain::<rmcp::service::TxJsonRpcMessage<RoleServer>>(),
            futures::stream::pending::<rmcp::service::RxJsonRpcMessage<RoleServer>>(),
        );
        let service = rmcp::service::serve_directly(server.clone(), transport, None);
        let peer = service.peer().clone();
        Handler {
            server,
            peer,
            service,
        }
    }

    /// Whether another session may start (`webdriver.max_sessions`).
    pub(super) fn room(&self) -> Result<(), WdError> {
        self.reap_now();
        if self.lock().len() >= self.config.max_sessions {
            return Err(WdError::new(
                ErrorCode::SessionNotCreated,
                format!(
                    "{} WebDriver sessions are running, the most webdriver.max_sessions allows; \
                     end one (DELETE /session/<id>) or wait for an idle one to expire",
                    self.config.max_sessions
                ),
            ));
        }
        Ok(())
    }

    /// Stores a new session and returns it.
    pub(super) fn insert(
        &self,
        id: String,
        handler: Handler,
        owner: String,
        app: AppInfo,
        capabilities: Value,
        ending: Ending,
    ) -> Arc<WdSession> {
        let session = Arc::new(WdSession {
            app_ref: app.pid.to_string(),
            id: id.clone(),
            owner,
            server: handler.server,
            peer: handler.peer,
            _service: handler.service,
            app,
            engine: self.shared.engine.clone(),
            capabilities,
            implicit_wait: Mutex::new(Duration::ZERO),
            idle_timeout: ending.idle_timeout.unwrap_or(self.config.idle_timeout),
            allow_scripts: self.config.allow_scripts,
            postrun: ending.postrun,
            shared: self.shared.clone(),
            input: tokio::sync::Mutex::default(),
            last_used: Mutex::new(Instant::now()),
        });
        let mut live = self.lock();
        live.insert(id, session.clone());
        self.metrics.webdriver.sessions.set(live.len() as i64);
        session
    }

    /// The session `id` of `owner`, its idle clock restarted; another principal's session is
    /// unknown to this caller.
    pub(super) fn get(&self, id: &str, owner: &str) -> Result<Arc<WdSession>, WdError> {
        self.reap_now();
        let found = self.lock().get(id).filter(|s| s.owner == owner).cloned();
        let session = found.ok_or_else(|| {
            WdError::new(
                ErrorCode::InvalidSessionId,
                "no such WebDriver session: it ended (DELETE, or idle past \
                 webdriver.idle_timeout_secs) or was never created; start one with POST /session",
            )
        })?;
        session.touch();
        Ok(session)
    }

    /// Ends session `id` of `owner`.
    pub(super) fn remove(&self, id: &str, owner: &str) -> Result<(), WdError> {
        self.get(id, owner)?;
        let ended = {
            let mut live = self.lock();
            let ended = live.remove(id);
            self.metrics.webdriver.sessions.set(live.len() as i64);
            ended
        };
        self.after(ended);
        Ok(())
    }

    /// Ends every session idle past its timeout.
    fn reap_now(&self) {
        let now = Instant::now();
        let ended: Vec<Arc<WdSession>> = {
            let mut live = self.lock();
            let idle: Vec<String> = live
                .iter()
                .filter(|(_, s)| s.idle_past(now))
                .map(|(id, _)| id.clone())
                .collect();
            let ended = idle.iter().filter_map(|id| live.remove(id)).collect();
            self.metrics.webdriver.sessions.set(live.len() as i64);
            ended
        };
        if !ended.is_empty() {
            tracing::info!(ended = ended.len(), "idle WebDriver sessions ended");
        }
        for session in ended {
            self.after(Some(session));
        }
    }

    /// Runs an ended session's `appium:postrun`, if it has one (its failure is audited; no
    /// one is left to answer).
    fn after(&self, ended: Option<Arc<WdSession>>) {
        let Some(session) = ended.filter(|s| s.postrun.is_some()) else {
            return;
        };
        tokio::spawn(async move {
            if let Some(postrun) = &session.postrun {
                let (owner, id) = (&session.owner, &session.id);
                let ran = script::run_audited(&session.shared, owner, id, "postrun", postrun).await;
                if let Err(error) = ran {
                    tracing::warn!(code = error.code.as_str(), "appium:postrun failed");
                }
            }
        });
    }
}

/// Ends idle sessions every second while the store lives.
async fn reap(store: Weak<Sessions>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        match store.upgrade() {
            Some(store) => store.reap_now(),
            None => return,
        }
    }
}
