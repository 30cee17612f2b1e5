//! The engine's front door: owns the backend and its worker pool, resolves app names, and
//! offers async operations that always run on the target app's worker with a deadline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use super::backend::{Backend, ChangeEvent, EventSink, ReadinessCheck, Snapshot, SnapshotRequest};
use super::error::AxError;
use super::model::{AppInfo, NodeId, Pid, WindowInfo};
use super::worker::{CallStats, WorkerConfig, WorkerKey, WorkerPool};

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

pub struct Engine {
    backend: Arc<dyn Backend>,
    pool: WorkerPool,
    config: EngineConfig,
    events: broadcast::Sender<ChangeEvent>,
}

impl Engine {
    pub fn new(backend: Arc<dyn Backend>, config: EngineConfig) -> Arc<Engine> {
        let (events, _) = broadcast::channel(1024);
        let sender = events.clone();
        let sink: EventSink = Arc::new(move |event| {
            let _ = sender.send(event);
        });
        backend.set_event_sink(sink);
        Arc::new(Engine {
            pool: WorkerPool::new(backend.clone(), config.worker.clone()),
            backend,
            config,
            events,
        })
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Change events from every app the backend observes.
    pub fn subscribe(&self) -> broadcast::Receiver<ChangeEvent> {
        self.events.subscribe()
    }

    /// Readiness checks, run on the global worker with the call deadline.
    pub async fn readiness(&self) -> Vec<ReadinessCheck> {
        let stats = CallStats::default();
        let result = self
            .pool
            .call(
                WorkerKey::Global,
                "backend",
                self.deadline(),
                &stats,
                |b, _| Ok(b.readiness()),
            )
            .await;
        result.unwrap_or_else(|e| {
            vec![ReadinessCheck {
                name: "backend_answers",
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

    pub async fn list_apps(&self, stats: &CallStats) -> Result<Vec<AppInfo>, AxError> {
        self.pool
            .call(
                WorkerKey::Global,
                "backend",
                self.deadline(),
                stats,
                |b, ctx| b.list_apps(ctx),
            )
            .await
    }

    /// Finds the one running app named by `query`: a pid, a bundle id, or a name
    /// (case-insensitive, exact before prefix).
    pub async fn resolve_app(&self, query: &str, stats: &CallStats) -> Result<AppInfo, AxError> {
        let apps = self.list_apps(stats).await?;
        pick_app(query, apps)
    }

    pub async fn snapshot(
        &self,
        app: &AppInfo,
        request: SnapshotRequest,
        deadline: Instant,
        stats: &CallStats,
    ) -> Result<Snapshot, AxError> {
        let pid = app.pid;
        self.pool
            .call(
                WorkerKey::App(pid),
                &app.name,
                deadline,
                stats,
                move |b, ctx| b.snapshot(pid, &request, ctx),
            )
            .await
    }

    pub async fn list_windows(
        &self,
        app: &AppInfo,
        stats: &CallStats,
    ) -> Result<Vec<WindowInfo>, AxError> {
        let pid = app.pid;
        self.pool
            .call(
                WorkerKey::App(pid),
                &app.name,
                self.deadline(),
                stats,
                move |b, ctx| b.list_windows(pid, ctx),
            )
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
                self.deadline(),
                stats,
                move |b, ctx| b.perform_action(pid, node, &action, ctx),
            )
            .await
    }

    /// Forgets an app that exited: its worker stops once idle.
    pub fn forget_app(&self, pid: Pid) {
        self.pool.forget(pid);
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
