//! AX worker threads. Every backend call runs on a dedicated OS thread for its target app
//! (one per pid), reached through a channel and answered on a oneshot, with a deadline.
//! A hung app therefore blocks only its own callers; an app whose calls keep timing out is
//! marked unresponsive and fails fast until a background probe answers in time.
//!
//! Tokio worker threads never call a backend: they only wait on the oneshot.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::backend::{Backend, CallCtx};
use super::error::AxError;
use super::model::Pid;
use crate::metrics::EngineMetrics;

/// Tuning for the worker pool.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Consecutive timeouts after which an app is marked unresponsive.
    pub strikes: u32,
    /// How often an unresponsive app is probed.
    pub probe_interval: Duration,
    /// The deadline given to a probe.
    pub probe_timeout: Duration,
    /// Calls one app's worker holds, running and waiting; a call beyond it is refused at once
    /// as [`AxError::Busy`] (back-pressure: a flood of callers, or a hung app with callers
    /// piling up, costs a bounded queue, never unbounded memory).
    pub max_queued: usize,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            strikes: 2,
            probe_interval: Duration::from_secs(2),
            probe_timeout: Duration::from_millis(500),
            max_queued: 64,
        }
    }
}

/// Counters a request accumulates as its backend calls complete.
#[derive(Debug, Default)]
pub struct CallStats {
    round_trips: AtomicU64,
    calls: AtomicU64,
}

impl CallStats {
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }

    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    fn add(&self, trips: u64) {
        self.round_trips.fetch_add(trips, Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
    }
}

type Job = Box<dyn FnOnce(&dyn Backend) + Send>;

/// How long past the deadline a caller waits for the backend's own (deadline-bounded) reply.
pub(super) const REPLY_GRACE: Duration = Duration::from_millis(150);

/// What a caller refused because its app's queue is full is told to wait before retrying.
pub const BUSY_RETRY_AFTER: Duration = Duration::from_secs(1);

/// The key of a worker: an app's pid, or the shared worker for calls that name no app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkerKey {
    Global,
    App(Pid),
}

#[derive(Debug, Default)]
struct Health {
    strikes: u32,
    unresponsive: bool,
    probe_in_flight: bool,
    last_probe: Option<Instant>,
}

struct Worker {
    tx: mpsc::Sender<Job>,
    queued: Arc<AtomicUsize>,
    health: Mutex<Health>,
}

/// The pool of per-app worker threads.
pub struct WorkerPool {
    backend: Arc<dyn Backend>,
    config: WorkerConfig,
    workers: Mutex<HashMap<WorkerKey, Arc<Worker>>>,
    metrics: EngineMetrics,
}

impl WorkerPool {
    pub fn new(backend: Arc<dyn Backend>, config: WorkerConfig, metrics: EngineMetrics) -> Self {
        WorkerPool {
            backend,
            config,
            workers: Mutex::new(HashMap::new()),
            metrics,
        }
    }

    /// Runs `f` on the worker for `key` and waits for it until `deadline`.
    ///
    /// `label` names the app in error messages; `op` names the operation in metrics.
    #[allow(clippy::too_many_arguments)]
    pub async fn call<T, F>(
        &self,
        key: WorkerKey,
        label: &str,
        op: &'static str,
        deadline: Instant,
        stats: &CallStats,
        f: F,
    ) -> Result<T, AxError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Backend, &mut CallCtx) -> Result<T, AxError> + Send + 'static,
    {
        let worker = self.worker(key);
        if let WorkerKey::App(pid) = key
            && self.is_unresponsive(&worker, pid)
        {
            return Err(AxError::Unresponsive {
                app: label.to_owned(),
                pid,
            });
        }
        let started = Instant::now();
        let Some(rx) = submit(&worker, deadline, &self.metrics, self.config.max_queued, f) else {
            self.metrics.worker_busy.inc();
            return Err(AxError::Busy {
                app: label.to_owned(),
                queued: self.config.max_queued,
                retry_after: BUSY_RETRY_AFTER,
            });
        };
        let _timer = self
            .metrics
            .backend_call_duration
            .with_label_values(&[op])
            .start_timer();
        // The backend stops at the deadline itself (and reports what it got); the caller
        // gives it a little grace to hand that back before declaring a timeout.
        let outcome = tokio::time::timeout_at((deadline + REPLY_GRACE).into(), rx).await;
        match outcome {
            Ok(Ok((result, trips))) => {
                stats.add(trips);
                if !matches!(result, Err(ref e) if e.is_timeout()) {
                    lock(&worker.health).strikes = 0;
                } else {
                    self.strike(&worker);
                }
                result
            }
            // The worker dropped the job: the pool is shutting down.
            Ok(Err(_)) => Err(AxError::Backend("the AX worker stopped".into())),
            Err(_) => {
                stats.add(0);
                self.strike(&worker);
                Err(AxError::Timeout {
                    app: label.to_owned(),
                    after: started.elapsed(),
                })
            }
        }
    }

    /// Jobs waiting or running on the worker for `key` (a gauge for metrics).
    pub fn queue_depth(&self, key: WorkerKey) -> usize {
        lock(&self.workers)
            .get(&key)
            .map_or(0, |w| w.queued.load(Ordering::Relaxed))
    }

    /// Whether `pid` is currently marked unresponsive.
    pub fn unresponsive(&self, pid: Pid) -> bool {
        lock(&self.workers)
            .get(&WorkerKey::App(pid))
            .is_some_and(|w| lock(&w.health).unresponsive)
    }

    /// Stops the worker of an app that exited. A thread stuck in a call ends when it returns.
    pub fn forget(&self, pid: Pid) {
        lock(&self.workers).remove(&WorkerKey::App(pid));
    }

    fn worker(&self, key: WorkerKey) -> Arc<Worker> {
        let mut workers = lock(&self.workers);
        workers
            .entry(key)
            .or_insert_with(|| spawn_worker(key, self.backend.clone()))
            .clone()
    }

    fn strike(&self, worker: &Worker) {
        let mut health = lock(&worker.health);
        health.strikes += 1;
        if health.strikes >= self.config.strikes && !health.unresponsive {
            health.unresponsive = true;
            tracing::warn!(strikes = health.strikes, "app marked unresponsive");
        }
    }

    /// Checks the mark and, when due, sends a probe in the background.
    fn is_unresponsive(&self, worker: &Arc<Worker>, pid: Pid) -> bool {
        let mut health = lock(&worker.health);
        if !health.unresponsive {
            return false;
        }
        let due = health
            .last_probe
            .is_none_or(|at| at.elapsed() >= self.config.probe_interval);
        if due && !health.probe_in_flight {
            health.probe_in_flight = true;
            health.last_probe = Some(Instant::now());
            drop(health);
            let deadline = Instant::now() + self.config.probe_timeout;
            // A probe is one more job beyond the bound, at most one at a time.
            let rx = submit(
                worker,
                deadline,
                &self.metrics,
                usize::MAX,
                move |backend, ctx| backend.probe(pid, ctx),
            );
            let worker = worker.clone();
            tokio::spawn(async move {
                let answered = match rx {
                    Some(rx) => matches!(
                        tokio::time::timeout_at(deadline.into(), rx).await,
                        Ok(Ok((Ok(()), _)))
                    ),
                    None => false,
                };
                let mut health = lock(&worker.health);
                health.probe_in_flight = false;
                if answered {
                    health.unresponsive = false;
                    health.strikes = 0;
                    tracing::info!(pid, "app answers again; unresponsive mark cleared");
                }
            });
        }
        true
    }
}

type Reply<T> = oneshot::Receiver<(Result<T, AxError>, u64)>;

/// Queues `f` on `worker` unless `max_queued` calls are already there (`None`: refused).
fn submit<T, F>(
    worker: &Worker,
    deadline: Instant,
    metrics: &EngineMetrics,
    max_queued: usize,
    f: F,
) -> Option<Reply<T>>
where
    T: Send + 'static,
    F: FnOnce(&dyn Backend, &mut CallCtx) -> Result<T, AxError> + Send + 'static,
{
    let queued = worker.queued.clone();
    // Reserve a place first, so concurrent callers cannot all pass a check made before any
    // of them queued.
    if queued.fetch_add(1, Ordering::Relaxed) >= max_queued {
        queued.fetch_sub(1, Ordering::Relaxed);
        return None;
    }
    let (tx, rx) = oneshot::channel();
    let depth = metrics.worker_queue_depth.clone();
    let wait = metrics.worker_queue_wait.clone();
    depth.inc();
    let submitted = Instant::now();
    let job: Job = Box::new(move |backend| {
        wait.observe(submitted.elapsed().as_secs_f64());
        let mut ctx = CallCtx::new(deadline);
        // A job whose caller already gave up is not worth running. One whose deadline passed
        // while queued still runs: the backend sees the expired deadline and returns what it
        // can at once (a truncated walk), which the caller is still waiting for.
        let result = if tx.is_closed() {
            Err(AxError::Cancelled)
        } else {
            f(backend, &mut ctx)
        };
        queued.fetch_sub(1, Ordering::Relaxed);
        depth.dec();
        let _ = tx.send((result, ctx.round_trips()));
    });
    if worker.tx.send(job).is_err() {
        // The thread is gone; the receiver sees a closed channel.
        worker.queued.fetch_sub(1, Ordering::Relaxed);
        metrics.worker_queue_depth.dec();
    }
    Some(rx)
}

fn spawn_worker(key: WorkerKey, backend: Arc<dyn Backend>) -> Arc<Worker> {
    let (tx, rx) = mpsc::channel::<Job>();
    let name = match key {
        WorkerKey::Global => "ax-global".to_owned(),
        WorkerKey::App(pid) => format!("ax-{pid}"),
    };
    let spawned = std::thread::Builder::new().name(name).spawn(move || {
        while let Ok(job) = rx.recv() {
            job(backend.as_ref());
        }
    });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start an AX worker thread");
    }
    Arc::new(Worker {
        tx,
        queued: Arc::new(AtomicUsize::new(0)),
        health: Mutex::new(Health::default()),
    })
}

/// Locks a mutex, recovering from poisoning (a panicked job must not wedge the pool).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
