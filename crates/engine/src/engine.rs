//! The engine's front door: owns the backend and its worker pool, resolves app names, and
//! offers async operations that always run on the target app's worker with a deadline.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use arc_swap::ArcSwap;
use tokio::sync::broadcast;

use super::backend::{
    Backend, ChangeEvent, CheckClass, EventSink, ReadinessCheck, Snapshot, SnapshotRequest,
};
use super::error::AxError;
use super::model::{AppInfo, NodeId, Pid, WindowInfo};
use super::shared::{Got, Shared};
use super::worker::{CallStats, REPLY_GRACE, WorkerConfig, WorkerKey, WorkerPool};
use crate::app_rules::AppRules;
use crate::metrics::EngineMetrics;

/// Engine tuning, from configuration.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Deadline for one backend call.
    pub call_timeout: Duration,
    pub worker: WorkerConfig,
    /// Handles kept per app connection.
    pub handle_cap: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            call_timeout: Duration::from_secs(5),
            worker: WorkerConfig::default(),
            handle_cap: 5_000,
        }
    }
}

/// One backend operation as the engine sends it to a worker thread.
pub trait BackendOp<T>:
    FnOnce(&dyn Backend, &mut super::backend::CallCtx) -> Result<T, AxError> + Send + 'static
{
}

impl<T, F> BackendOp<T> for F where
    F: FnOnce(&dyn Backend, &mut super::backend::CallCtx) -> Result<T, AxError> + Send + 'static
{
}

pub struct Engine {
    backend: Arc<dyn Backend>,
    pool: WorkerPool,
    config: EngineConfig,
    events: broadcast::Sender<ChangeEvent>,
    recent: Arc<Mutex<HashMap<Pid, VecDeque<RecentEvent>>>>,
    /// Synthetic pointer and keyboard input is machine-wide: one input at a time.
    input: tokio::sync::Mutex<()>,
    leases: Mutex<HashMap<Pid, Lease>>,
    metrics: EngineMetrics,
    /// Which apps may be named at all; swapped whole on a policy reload.
    app_rules: ArcSwap<AppRules>,
    /// Why this backend serves (`platform::Selected::reason`), once the binary says so.
    backend_reason: std::sync::OnceLock<String>,
    /// The running apps, one read shared by the calls that want it at once.
    apps: Shared<Vec<AppInfo>>,
    /// Each app's learned effect timing (`act` waits by it).
    rhythms: super::rhythm::Rhythms,
    /// The last picture of each large window acted in, with the events since (`act`).
    kept: super::kept::KeptPictures,
}

/// An exclusive right to change one app, held by one session until a time.
#[derive(Clone, Debug)]
pub struct Lease {
    pub owner: String,
    pub until: Instant,
    pub until_wall: SystemTime,
}

/// A change event with the wall-clock time it arrived.
#[derive(Clone, Debug)]
pub struct RecentEvent {
    pub at: SystemTime,
    pub event: ChangeEvent,
}

/// Events kept per app for `axgate://app/{app}/events`.
const RECENT_PER_APP: usize = 200;

impl Engine {
    pub fn new(
        backend: Arc<dyn Backend>,
        config: EngineConfig,
        metrics: EngineMetrics,
    ) -> Arc<Engine> {
        let (events, _) = broadcast::channel(1024);
        let sender = events.clone();
        let recent: Arc<Mutex<HashMap<Pid, VecDeque<RecentEvent>>>> = Arc::default();
        let keep = recent.clone();
        let sink: EventSink = Arc::new(move |event: ChangeEvent| {
            {
                let mut map = keep.lock().unwrap_or_else(PoisonError::into_inner);
                let list = map.entry(event.pid).or_default();
                if list.len() >= RECENT_PER_APP {
                    list.pop_front();
                }
                list.push_back(RecentEvent {
                    at: SystemTime::now(),
                    event: event.clone(),
                });
            }
            let _ = sender.send(event);
        });
        backend.set_event_sink(sink);
        Arc::new(Engine {
            pool: WorkerPool::new(backend.clone(), config.worker.clone(), metrics.clone()),
            metrics,
            backend,
            config,
            events,
            recent,
            input: tokio::sync::Mutex::new(()),
            leases: Mutex::new(HashMap::new()),
            app_rules: ArcSwap::from_pointee(AppRules::default()),
            apps: Shared::new("backend"),
            backend_reason: std::sync::OnceLock::new(),
            rhythms: Default::default(),
            kept: Default::default(),
        })
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// What the backend can do beyond the required methods (`/readyz`, `axgate check`).
    pub fn capabilities(&self) -> super::Capabilities {
        self.backend.capabilities()
    }

    /// Records why this backend was chosen (the first call wins).
    pub fn note_backend_reason(&self, reason: String) {
        let _ = self.backend_reason.set(reason);
    }

    /// Why this backend serves, where the binary recorded it.
    pub fn backend_reason(&self) -> Option<&str> {
        self.backend_reason.get().map(String::as_str)
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Each app's learned effect timing.
    pub fn rhythms(&self) -> &super::rhythm::Rhythms {
        &self.rhythms
    }

    /// The kept pictures of large windows acted in.
    pub fn kept(&self) -> &super::kept::KeptPictures {
        &self.kept
    }

    /// Change events from every app the backend observes.
    pub fn subscribe(&self) -> broadcast::Receiver<ChangeEvent> {
        self.events.subscribe()
    }

    /// The most recent change events of an app, oldest first.
    pub fn recent_events(&self, pid: Pid) -> Vec<RecentEvent> {
        self.recent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&pid)
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Takes (or extends) an exclusive lease on an app for `owner`.
    pub fn lease(&self, app: &AppInfo, owner: &str, duration: Duration) -> Result<Lease, AxError> {
        let mut leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = leases.get(&app.pid)
            && held.owner != owner
            && held.until > Instant::now()
        {
            return Err(leased(app, held));
        }
        let lease = Lease {
            owner: owner.to_owned(),
            until: Instant::now() + duration,
            until_wall: SystemTime::now() + duration,
        };
        leases.insert(app.pid, lease.clone());
        Ok(lease)
    }

    /// Ends `owner`'s lease on `pid`; false when it held none.
    pub fn release(&self, pid: Pid, owner: &str) -> bool {
        let mut leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        if leases.get(&pid).is_some_and(|l| l.owner == owner) {
            leases.remove(&pid);
            return true;
        }
        false
    }

    /// Ends every lease `owner` holds (its session ended).
    pub fn release_all(&self, owner: &str) {
        let mut leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        leases.retain(|_, l| l.owner != owner);
    }

    /// Whether `owner` holds a live lease on any app.
    pub fn holds_lease(&self, owner: &str) -> bool {
        let leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        leases.values().any(|l| l.owner == owner && l.until > now)
    }

    /// The live lease on `pid`, if any.
    pub fn lease_of(&self, pid: Pid) -> Option<Lease> {
        let leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        leases
            .get(&pid)
            .filter(|l| l.until > Instant::now())
            .cloned()
    }

    /// Fails when another owner holds a live lease on the app.
    pub fn check_write(&self, app: &AppInfo, owner: &str) -> Result<(), AxError> {
        match self.lease_of(app.pid) {
            Some(held) if held.owner != owner => Err(leased(app, &held)),
            _ => Ok(()),
        }
    }

    /// Serialises synthetic input machine-wide; hold the guard while posting input.
    pub async fn input_lock(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.input.lock().await
    }

    /// Runs any backend operation on the app's worker with the call deadline.
    pub async fn run<T: Send + 'static>(
        &self,
        app: &AppInfo,
        stats: &CallStats,
        op: &'static str,
        f: impl BackendOp<T>,
    ) -> Result<T, AxError> {
        self.pool
            .call(
                WorkerKey::App(app.pid),
                &app.name,
                op,
                self.deadline(),
                stats,
                f,
            )
            .await
    }

    /// Runs a backend operation that names no app (clipboard, launching) on the global worker.
    pub async fn run_global<T: Send + 'static>(
        &self,
        deadline: Instant,
        stats: &CallStats,
        op: &'static str,
        f: impl BackendOp<T>,
    ) -> Result<T, AxError> {
        self.pool
            .call(WorkerKey::Global, "backend", op, deadline, stats, f)
            .await
    }

    /// Readiness checks, run on the global worker with the call deadline.
    pub async fn readiness(&self) -> Vec<ReadinessCheck> {
        let stats = CallStats::default();
        let result = self
            .pool
            .call(
                WorkerKey::Global,
                "backend",
                "readiness",
                self.deadline(),
                &stats,
                |b, _| Ok(b.readiness()),
            )
            .await;
        result.unwrap_or_else(|e| {
            vec![ReadinessCheck {
                name: "backend_answers",
                class: CheckClass::Gate,
                ok: false,
                detail: format!("the backend did not answer its readiness checks: {e}"),
            }]
        })
    }

    /// Whether `pid` is marked unresponsive.
    pub fn unresponsive(&self, pid: Pid) -> bool {
        self.pool.unresponsive(pid)
    }

    /// Jobs queued for an app's worker.
    pub fn queue_depth(&self, pid: Pid) -> usize {
        self.pool.queue_depth(WorkerKey::App(pid))
    }

    pub fn deadline(&self) -> Instant {
        Instant::now() + self.config.call_timeout
    }

    /// Replaces the app allow/deny rules (at start and on a policy reload).
    pub fn set_app_rules(&self, rules: AppRules) {
        self.app_rules.store(Arc::new(rules));
    }

    /// The app rules in force.
    pub(super) fn app_rules(&self) -> Arc<AppRules> {
        self.app_rules.load_full()
    }

    /// Whether the app policy lets an app be named `name` (before it is resolved); refused
    /// as an app that does not run would be.
    pub fn check_app_name(&self, name: &str) -> Result<(), AxError> {
        self.app_rules
            .load()
            .check(name, None)
            .map_err(|denial| AxError::AppDenied {
                denial,
                shown: Box::new(AxError::AppNotFound {
                    query: name.to_owned(),
                    available: Vec::new(),
                }),
            })
    }

    /// The running apps the app policy lets be used; denied apps are not shown.
    pub async fn list_apps(&self, stats: &CallStats) -> Result<Vec<AppInfo>, AxError> {
        let rules = self.app_rules.load();
        let apps = self.all_apps(stats).await?;
        Ok(apps
            .iter()
            .filter(|app| rules.check_app(app).is_ok())
            .cloned()
            .collect())
    }

    /// Every running app, denied ones included: read by the Global worker after this call
    /// began, shared with the calls that want it at the same time (`ax::shared`).
    async fn all_apps(&self, stats: &CallStats) -> Result<Arc<Vec<AppInfo>>, AxError> {
        let read = || {
            self.pool.call(
                WorkerKey::Global,
                "backend",
                "list_apps",
                self.deadline(),
                stats,
                |b, ctx| b.list_apps(ctx),
            )
        };
        let until = self.deadline() + REPLY_GRACE;
        let (apps, got) = self.apps.get(until, read).await;
        if got == Got::Shared {
            self.metrics.app_lists_shared.inc();
        }
        apps
    }

    /// Finds the one running app named by `query`: a pid, a bundle id, or a name
    /// (case-insensitive, exact before prefix). An app the policy denies is refused exactly as
    /// an app that does not run (the error keeps the rule for the audit trail); names of
    /// denied apps are not offered as alternatives.
    pub async fn resolve_app(&self, query: &str, stats: &CallStats) -> Result<AppInfo, AxError> {
        let rules = self.app_rules.load();
        let apps = self.all_apps(stats).await?;
        let (usable, denied): (Vec<AppInfo>, Vec<AppInfo>) = apps
            .iter()
            .cloned()
            .partition(|app| rules.check_app(app).is_ok());
        match pick_app(query, usable) {
            Err(AxError::AppNotFound { available, .. }) => match pick_app(query, denied) {
                // Told exactly what it would be told if the app did not run.
                Ok(app) => {
                    let shown = Box::new(AxError::AppNotFound {
                        query: query.to_owned(),
                        available,
                    });
                    Err(match rules.check_app(&app) {
                        Err(denial) => AxError::AppDenied { denial, shown },
                        Ok(()) => *shown,
                    })
                }
                Err(_) => Err(AxError::AppNotFound {
                    query: query.to_owned(),
                    available,
                }),
            },
            found => found,
        }
    }

    pub async fn snapshot(
        &self,
        app: &AppInfo,
        request: SnapshotRequest,
        deadline: Instant,
        stats: &CallStats,
    ) -> Result<Snapshot, AxError> {
        let pid = app.pid;
        let snapshot = self
            .pool
            .call(
                WorkerKey::App(pid),
                &app.name,
                "snapshot",
                deadline,
                stats,
                move |b, ctx| b.snapshot(pid, &request, ctx),
            )
            .await?;
        self.metrics
            .nodes_walked
            .inc_by(snapshot.nodes.len() as u64);
        Ok(snapshot)
    }

    pub async fn list_windows(
        &self,
        app: &AppInfo,
        stats: &CallStats,
    ) -> Result<Vec<WindowInfo>, AxError> {
        let pid = app.pid;
        self.run(app, stats, "list_windows", move |b, ctx| {
            b.list_windows(pid, ctx)
        })
        .await
    }

    pub async fn perform_action(
        &self,
        app: &AppInfo,
        node: NodeId,
        action: &str,
        stats: &CallStats,
    ) -> Result<(), AxError> {
        let pid = app.pid;
        let action = action.to_owned();
        self.pool
            .call(
                WorkerKey::App(pid),
                &app.name,
                "perform_action",
                self.deadline(),
                stats,
                move |b, ctx| b.perform_action(pid, node, &action, ctx),
            )
            .await
    }

    /// Forgets an app that exited: its worker stops once idle.
    pub fn forget_app(&self, pid: Pid) {
        self.pool.forget(pid);
        self.kept.forget(pid);
    }
}

fn leased(app: &AppInfo, held: &Lease) -> AxError {
    AxError::Leased {
        app: app.name.clone(),
        until: humantime::format_rfc3339_seconds(held.until_wall).to_string(),
    }
}

/// Picks the app named by `query` among `apps`; fails closed on none or several.
pub fn pick_app(query: &str, apps: Vec<AppInfo>) -> Result<AppInfo, AxError> {
    let q = query.trim();
    if let Ok(pid) = q.parse::<Pid>()
        && let Some(app) = apps.iter().find(|a| a.pid == pid)
    {
        return Ok(app.clone());
    }
    let lower = q.to_lowercase();
    let tiers: [&dyn Fn(&AppInfo) -> bool; 3] = [
        &|a| {
            a.bundle_id
                .as_deref()
                .is_some_and(|b| b.eq_ignore_ascii_case(q))
        },
        &|a| a.name.to_lowercase() == lower,
        &|a| a.name.to_lowercase().starts_with(&lower),
    ];
    for tier in tiers {
        let found: Vec<&AppInfo> = apps.iter().filter(|a| tier(a)).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok((*one).clone()),
            many => {
                return Err(AxError::AppAmbiguous {
                    query: query.to_owned(),
                    candidates: many
                        .iter()
                        .map(|a| format!("{} (pid {})", a.name, a.pid))
                        .collect(),
                });
            }
        }
    }
    Err(AxError::AppNotFound {
        query: query.to_owned(),
        available: apps
            .iter()
            .map(|a| format!("{} (pid {})", a.name, a.pid))
            .collect(),
    })
}

/// The engine for a backend, tuned by the `[backend]` configuration (the one place that maps
/// those settings onto [`EngineConfig`]).
pub fn engine_for(
    backend: Arc<dyn Backend>,
    config: &crate::settings::BackendConfig,
    metrics: EngineMetrics,
) -> Arc<Engine> {
    let tuning = EngineConfig {
        call_timeout: config.call_timeout,
        worker: WorkerConfig {
            strikes: config.unresponsive_after,
            probe_interval: config.probe_interval,
            max_queued: config.max_queued_calls,
            ..WorkerConfig::default()
        },
        handle_cap: config.handle_cap,
    };
    Engine::new(backend, tuning, metrics)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(pid: Pid, name: &str, bundle: &str) -> AppInfo {
        AppInfo {
            pid,
            name: name.into(),
            bundle_id: Some(bundle.into()),
            started_at: 0,
            frontmost: false,
        }
    }

    #[test]
    fn app_names_resolve_by_pid_bundle_name_and_prefix() {
        let apps = vec![
            app(10, "Form", "dev.demo.form"),
            app(11, "Editor", "dev.demo.editor"),
            app(12, "Editor Pro", "dev.demo.pro"),
        ];
        let check = |q: &str| {
            pick_app(q, apps.clone())
                .map(|a| a.pid)
                .map_err(|e| e.kind())
        };
        assert_eq!(check("10"), Ok(10));
        assert_eq!(check("dev.demo.pro"), Ok(12));
        assert_eq!(check("editor"), Ok(11), "exact name beats prefix");
        assert_eq!(check("fo"), Ok(10));
        assert_eq!(check("Edi"), Err("app_ambiguous"));
        assert_eq!(check("Safari"), Err("app_not_found"));
    }
}
