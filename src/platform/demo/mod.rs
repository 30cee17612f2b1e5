//! The demo backend: in-memory apps described by embedded data files (`apps/*.json`) that
//! react to actions like real ones and emit change events. It serves anywhere and is the
//! engine's fast test backend.
//!
//! Each app's tree sits behind its own mutex, so calls for different apps never block each
//! other; change events are delivered after that lock is released. The `Hung` app answers
//! nothing: every per-app call blocks past its deadline and then times out. Round trips are
//! counted as one per call, and one per node a snapshot copies (a real backend's batched
//! fetch per element). The data format is described in `spec.rs`; what effects do, in
//! `effects.rs`.

mod effects;
mod font;
mod interact;
mod render;
mod roles;
mod simulate;
mod snapshot;
mod spec;
mod tree;

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::ax::backend::MouseButton;
use crate::ax::{
    AppInfo, AxError, AxValue, Backend, CallCtx, ChangeEvent, EventSink, NodeId, Pid, RawNode,
    ReadinessCheck, Rect, Snapshot, SnapshotRequest, WindowInfo,
};

pub use simulate::Simulation;
use spec::{AppSpec, Behavior};
use tree::AppTree;

/// The pid of the first built-in app; the others follow in order.
pub const FIRST_PID: Pid = 41001;

/// Knobs for tests.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// How long a call on the hung app blocks past its deadline before it errors.
    pub hang_extra: Duration,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            hang_extra: Duration::from_secs(2),
        }
    }
}

struct DemoApp {
    pid: Pid,
    name: String,
    bundle_id: String,
    behavior: Behavior,
    spec: AppSpec,
    first_id: u64,
    /// Built on first use ("launched" lazily), so backends that never touch the huge app
    /// do not pay for it.
    tree: OnceLock<Mutex<AppTree>>,
}

impl DemoApp {
    fn tree(&self) -> MutexGuard<'_, AppTree> {
        lock(self.tree.get_or_init(|| {
            // The files are compiled in and covered by tests, so a bad one is a build bug.
            let tree = AppTree::build(&self.spec, self.pid, self.first_id)
                .unwrap_or_else(|e| panic!("demo app {}: {e}", self.name));
            Mutex::new(tree)
        }))
    }
}

/// The demo backend. See the module docs.
pub struct DemoBackend {
    apps: Vec<DemoApp>,
    options: DemoOptions,
    started_at: u64,
    sink: Mutex<Option<EventSink>>,
    simulation: Mutex<Simulation>,
    frontmost: AtomicU32,
}

impl Default for DemoBackend {
    fn default() -> Self {
        DemoBackend::new()
    }
}

impl DemoBackend {
    /// The built-in apps (Form, Editor, Huge, Hung, Settings) with default options.
    pub fn new() -> Self {
        DemoBackend::with_options(DemoOptions::default())
    }

    /// The built-in apps with these options (tests shorten `hang_extra`).
    pub fn with_options(options: DemoOptions) -> Self {
        let started_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let apps = spec::BUILT_IN
            .iter()
            .enumerate()
            .map(|(i, (file, text))| {
                // The files are compiled in and covered by tests, so a bad one is a build bug.
                let spec = spec::parse_app(file, text).unwrap_or_else(|e| panic!("{e}"));
                DemoApp {
                    pid: FIRST_PID + i as Pid,
                    name: spec.name.clone(),
                    bundle_id: spec.bundle_id.clone(),
                    behavior: spec.behavior,
                    spec,
                    first_id: (i as u64 + 1) << 32,
                    tree: OnceLock::new(),
                }
            })
            .collect();
        DemoBackend {
            apps,
            options,
            started_at,
            sink: Mutex::new(None),
            simulation: Mutex::new(Simulation::None),
            frontmost: AtomicU32::new(FIRST_PID),
        }
    }

    /// Starts (or, with [`Simulation::None`], stops) pretending a machine-level failure.
    pub fn simulate(&self, simulation: Simulation) {
        *lock(&self.simulation) = simulation;
    }

    /// The pid of the app with this name.
    pub fn pid_of(&self, app_name: &str) -> Option<Pid> {
        self.apps.iter().find(|a| a.name == app_name).map(|a| a.pid)
    }

    /// The app-side state of the first element with this identifier, read directly (no
    /// deadline, no hang), for tests. Unlike snapshots it includes secure values.
    pub fn node_by_identifier(&self, app_name: &str, identifier: &str) -> Option<RawNode> {
        let app = self.apps.iter().find(|a| a.name == app_name)?;
        let tree = app.tree();
        let node = tree.get(tree.find_identifier(identifier)?)?;
        let mut raw = node.to_raw();
        raw.value = node.value.clone();
        Some(raw)
    }

    /// How many elements an app has right now, for tests.
    pub fn node_count(&self, app_name: &str) -> Option<usize> {
        let app = self.apps.iter().find(|a| a.name == app_name)?;
        Some(app.tree().len())
    }

    fn app(&self, pid: Pid) -> Result<&DemoApp, AxError> {
        self.apps
            .iter()
            .find(|a| a.pid == pid)
            .ok_or_else(|| AxError::AppNotFound {
                query: format!("pid {pid}"),
                available: self
                    .apps
                    .iter()
                    .map(|a| format!("{} (pid {})", a.name, a.pid))
                    .collect(),
            })
    }

    /// Runs `op` on one app's locked tree: the single path every per-app call takes. It
    /// applies simulated failures and the hung app's hang, and delivers the events `op`
    /// returns after the lock is released.
    fn with_app<T>(
        &self,
        pid: Pid,
        ctx: &mut CallCtx,
        op: impl FnOnce(&mut AppTree, &mut CallCtx) -> Result<(T, Vec<ChangeEvent>), AxError>,
    ) -> Result<T, AxError> {
        let app = self.app(pid)?;
        self.simulation().check_permission()?;
        if app.behavior == Behavior::Hung {
            let budget = ctx.remaining();
            std::thread::sleep(budget + self.options.hang_extra);
            return Err(AxError::Timeout {
                app: app.name.clone(),
                after: budget,
            });
        }
        let (out, events) = {
            let mut tree = app.tree();
            op(&mut tree, ctx)?
        };
        self.emit(events);
        Ok(out)
    }

    fn emit(&self, events: Vec<ChangeEvent>) {
        if events.is_empty() {
            return;
        }
        let sink = lock(&self.sink).clone();
        if let Some(sink) = sink {
            for event in events {
                sink(event);
            }
        }
    }

    fn simulation(&self) -> Simulation {
        *lock(&self.simulation)
    }
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it (app state stays
/// usable: every mutation leaves the tree consistent between statements).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Backend for DemoBackend {
    fn name(&self) -> &'static str {
        "demo"
    }

    fn readiness(&self) -> Vec<ReadinessCheck> {
        self.simulation().readiness()
    }

    fn set_event_sink(&self, sink: EventSink) {
        *lock(&self.sink) = Some(sink);
    }

    fn list_apps(&self, ctx: &mut CallCtx) -> Result<Vec<AppInfo>, AxError> {
        ctx.trips(1);
        let frontmost = self.frontmost.load(Ordering::Relaxed);
        Ok(self
            .apps
            .iter()
            .map(|a| AppInfo {
                pid: a.pid,
                name: a.name.clone(),
                bundle_id: Some(a.bundle_id.clone()),
                started_at: self.started_at,
                frontmost: a.pid == frontmost,
            })
            .collect())
    }

    fn probe(&self, pid: Pid, ctx: &mut CallCtx) -> Result<(), AxError> {
        self.with_app(pid, ctx, |_, ctx| {
            ctx.trips(1);
            Ok(((), Vec::new()))
        })
    }

    fn snapshot(
        &self,
        pid: Pid,
        request: &SnapshotRequest,
        ctx: &mut CallCtx,
    ) -> Result<Snapshot, AxError> {
        self.with_app(pid, ctx, |tree, ctx| {
            Ok((snapshot::snapshot(tree, request, ctx)?, Vec::new()))
        })
    }

    fn list_windows(&self, pid: Pid, ctx: &mut CallCtx) -> Result<Vec<WindowInfo>, AxError> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok((snapshot::list_windows(tree), Vec::new()))
        })
    }

    fn perform_action(
        &self,
        pid: Pid,
        node: NodeId,
        action: &str,
        ctx: &mut CallCtx,
    ) -> Result<(), AxError> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), interact::perform_action(tree, node, action)?))
        })
    }

    fn set_value(
        &self,
        pid: Pid,
        node: NodeId,
        value: &AxValue,
        ctx: &mut CallCtx,
    ) -> Result<(), AxError> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), interact::set_value(tree, node, value)?))
        })
    }

    fn focus(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> Result<(), AxError> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), interact::focus(tree, node)?))
        })?;
        self.frontmost.store(pid, Ordering::Relaxed);
        Ok(())
    }

    fn click_at(
        &self,
        pid: Pid,
        point: (f64, f64),
        button: MouseButton,
        count: u32,
        ctx: &mut CallCtx,
    ) -> Result<(), AxError> {
        self.simulation().check_unlocked("synthetic clicks")?;
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), interact::click_at(tree, point, button, count)))
        })?;
        self.frontmost.store(pid, Ordering::Relaxed);
        Ok(())
    }

    fn element_at(
        &self,
        pid: Pid,
        point: (f64, f64),
        ctx: &mut CallCtx,
    ) -> Result<Option<NodeId>, AxError> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok((interact::element_at(tree, point), Vec::new()))
        })
    }

    fn screenshot(
        &self,
        pid: Pid,
        region: Option<Rect>,
        ctx: &mut CallCtx,
    ) -> Result<Vec<u8>, AxError> {
        self.simulation().check_unlocked("screenshots")?;
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            let area = match region {
                Some(r) => r,
                None => render::window_area(tree)?,
            };
            Ok((render::render(tree, area, ctx)?, Vec::new()))
        })
    }
}
