//! The demo "processes": which apps run, with which pid, and launching, quitting and
//! activating them. Built-in apps run from the start with fixed pids; any known app can be
//! launched again (or for the first time) with a fresh pid that is never reused. A launched
//! app's windows appear only after the launch delay, as a real app's tree fills in after its
//! process starts.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axgate_engine::{
    AppInfo, AxError, AxValue, ChangeEvent, ChangeKind, LaunchRequest, Launchable, Pid,
};

use super::spec::{AppSpec, Behavior};
use super::tree::AppTree;
use super::{DemoBackend, lock, scroll};

/// The first pid handed to a launched app; pids count up from here and are never reused.
pub const FIRST_LAUNCHED_PID: Pid = 41101;

/// One running app.
pub(super) struct DemoApp {
    pub(super) pid: Pid,
    pub(super) spec: Arc<AppSpec>,
    pub(super) started_at: u64,
    first_id: u64,
    /// When a launched app's windows appear; `None` for apps running from the start.
    ready_at: Option<Instant>,
    /// What a launch passed it (arguments, then `NAME=value` per variable), shown as the
    /// application element's value so tests read back what reached the app.
    launched_with: Option<String>,
    clipboard: Arc<Mutex<String>>,
    /// Built on first use, so backends that never touch the huge app do not pay for it.
    tree: OnceLock<Mutex<AppTree>>,
}

impl DemoApp {
    pub(super) fn name(&self) -> &str {
        &self.spec.name
    }

    pub(super) fn hung(&self) -> bool {
        self.spec.behavior == Behavior::Hung
    }

    /// Locks the app's tree, first adding its windows if its launch has just finished; returns
    /// the events that caused.
    pub(super) fn lock(&self) -> (MutexGuard<'_, AppTree>, Vec<ChangeEvent>) {
        let ready = || self.ready_at.is_none_or(|at| Instant::now() >= at);
        let mut tree = lock(self.tree.get_or_init(|| {
            // A launched app starts empty even when already due, so its windows' creation is
            // reported below like any later one.
            let mut tree = self.build(self.ready_at.is_none());
            scroll::settle_all(&mut tree);
            Mutex::new(tree)
        }));
        let mut events = Vec::new();
        if tree.launching && ready() {
            // The files are compiled in and covered by tests, so a bad one is a build bug.
            events = tree
                .populate(&self.spec)
                .unwrap_or_else(|e| panic!("demo app {}: {e}", self.spec.name));
            scroll::settle_all(&mut tree);
        }
        super::effects::run_due(&mut tree, &mut events);
        (tree, events)
    }

    /// Whether the tree exists yet (an app nobody touched has no state to ask about).
    pub(super) fn touched(&self) -> bool {
        self.tree.get().is_some()
    }

    fn build(&self, ready: bool) -> AppTree {
        let mut tree = AppTree::build(
            &self.spec,
            self.pid,
            self.first_id,
            Arc::clone(&self.clipboard),
            ready,
        )
        .unwrap_or_else(|e| panic!("demo app {}: {e}", self.spec.name));
        let root = tree.root();
        if let (Some(shown), Some(app)) = (&self.launched_with, tree.get_mut(root)) {
            app.value = Some(AxValue::Text(shown.clone()));
        }
        tree
    }
}

/// Which apps run, and the counters for the next launch.
pub(super) struct Registry {
    pub(super) running: Vec<Arc<DemoApp>>,
    /// Pids of apps that ran and exited (calls naming them get `AppExited`).
    exited: HashSet<Pid>,
    next_pid: Pid,
    /// Instances started so far: each gets its own node-id range.
    instances: u64,
}

pub(super) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Registry {
    /// The built-in apps, running, with pids from `first_pid` in order.
    pub(super) fn start(
        specs: &[Arc<AppSpec>],
        first_pid: Pid,
        started_at: u64,
        clipboard: &Arc<Mutex<String>>,
    ) -> Registry {
        let mut registry = Registry {
            running: Vec::new(),
            exited: HashSet::new(),
            next_pid: FIRST_LAUNCHED_PID,
            instances: 0,
        };
        for (i, spec) in specs.iter().enumerate() {
            let pid = first_pid + i as Pid;
            let app = registry.instance(spec, pid, started_at, None, None, clipboard);
            registry.running.push(app);
        }
        registry
    }

    fn instance(
        &mut self,
        spec: &Arc<AppSpec>,
        pid: Pid,
        started_at: u64,
        ready_at: Option<Instant>,
        launched_with: Option<String>,
        clipboard: &Arc<Mutex<String>>,
    ) -> Arc<DemoApp> {
        self.instances += 1;
        Arc::new(DemoApp {
            pid,
            spec: Arc::clone(spec),
            started_at,
            first_id: self.instances << 32,
            ready_at,
            launched_with,
            clipboard: Arc::clone(clipboard),
            tree: OnceLock::new(),
        })
    }

    pub(super) fn find(&self, pid: Pid) -> Result<Arc<DemoApp>, AxError> {
        if let Some(app) = self.running.iter().find(|a| a.pid == pid) {
            return Ok(Arc::clone(app));
        }
        if self.exited.contains(&pid) {
            return Err(AxError::AppExited { pid });
        }
        Err(AxError::AppNotFound {
            query: format!("pid {pid}"),
            available: self
                .running
                .iter()
                .map(|a| format!("{} (pid {})", a.name(), a.pid))
                .collect(),
        })
    }

    /// Removes a running app; false if it was not running.
    pub(super) fn exit(&mut self, pid: Pid) -> bool {
        let before = self.running.len();
        self.running.retain(|a| a.pid != pid);
        let gone = self.running.len() < before;
        if gone {
            self.exited.insert(pid);
        }
        gone
    }
}

/// What a demo app shows of its launch: the arguments, then `NAME=value` per variable,
/// separated by spaces.
fn launched_with(request: &LaunchRequest) -> String {
    let env = request.environment.iter().map(|(n, v)| format!("{n}={v}"));
    request
        .arguments
        .iter()
        .cloned()
        .chain(env)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `query` names this app: its name or bundle id (any case), or a path ending in
/// `Name.app`.
fn names(spec: &AppSpec, query: &str) -> bool {
    let q = query.trim().trim_end_matches('/');
    let bundle = format!("{}.app", spec.name);
    let file = q.rsplit('/').next().unwrap_or(q);
    q.eq_ignore_ascii_case(&spec.name)
        || q.eq_ignore_ascii_case(&spec.bundle_id)
        || (q.contains('/') || q.ends_with(".app")) && file.eq_ignore_ascii_case(&bundle)
}

impl DemoBackend {
    /// The catalog entry `query` names.
    fn find_spec(&self, query: &str) -> Result<&Arc<AppSpec>, AxError> {
        self.catalog
            .iter()
            .find(|s| names(s, query))
            .ok_or_else(|| AxError::NotLaunchable {
                query: query.to_owned(),
            })
    }

    /// What launching `query` would start: a demo app is installed at
    /// `/Applications/<name>.app`.
    pub(super) fn resolve_launch(&self, query: &str) -> Result<Launchable, AxError> {
        let spec = self.find_spec(query)?;
        Ok(Launchable {
            name: spec.name.clone(),
            bundle_id: Some(spec.bundle_id.clone()),
            path: Some(format!("/Applications/{}.app", spec.name)),
            aliases: Vec::new(),
        })
    }

    /// Launches (or, if it runs, activates) the app the request names; one that runs is
    /// refused when the request has arguments or environment (they would not reach it).
    pub(super) fn launch(&self, request: &LaunchRequest) -> Result<AppInfo, AxError> {
        let spec = self.find_spec(&request.spec)?;
        let pid = {
            let mut registry = lock(&self.registry);
            let running = registry
                .running
                .iter()
                .find(|a| a.spec.bundle_id == spec.bundle_id)
                .map(|a| a.pid);
            match running {
                Some(_) if request.has_extras() => {
                    return Err(request.already_running(&spec.name));
                }
                Some(pid) => pid,
                None => {
                    let pid = registry.next_pid;
                    registry.next_pid += 1;
                    let ready_at = Some(Instant::now() + self.launch_delay);
                    let shown = request.has_extras().then(|| launched_with(request));
                    let app =
                        registry.instance(spec, pid, now_secs(), ready_at, shown, &self.clipboard);
                    registry.running.push(app);
                    pid
                }
            }
        };
        self.frontmost.store(pid, Ordering::Relaxed);
        self.info(pid)
    }

    /// Quits an app: `force` kills it; otherwise it exits unless a window has unsaved
    /// changes, in which case it shows its save dialog and keeps running. A hung app ignores
    /// a polite quit.
    pub(super) fn quit(&self, pid: Pid, force: bool) -> Result<(), AxError> {
        let app = lock(&self.registry).find(pid)?;
        if !force {
            if app.hung() {
                return Ok(());
            }
            if !app.touched() {
                self.exit(pid);
                return Ok(());
            }
            let (leaves, events) = {
                let (mut tree, mut events) = app.lock();
                let leaves = super::effects::may_quit(&mut tree, &mut events);
                (leaves, events)
            };
            self.emit(events);
            if !leaves {
                return Ok(());
            }
        }
        self.exit(pid);
        Ok(())
    }

    /// Removes an app from the running list and reports `AppExited`.
    pub(super) fn exit(&self, pid: Pid) {
        let next = {
            let mut registry = lock(&self.registry);
            if !registry.exit(pid) {
                return;
            }
            registry.running.first().map_or(0, |a| a.pid)
        };
        let _ = self
            .frontmost
            .compare_exchange(pid, next, Ordering::Relaxed, Ordering::Relaxed);
        self.emit(vec![ChangeEvent {
            pid,
            node: None,
            kind: ChangeKind::AppExited,
        }]);
    }

    /// The app list entry of a running app.
    pub(super) fn info(&self, pid: Pid) -> Result<AppInfo, AxError> {
        let app = lock(&self.registry).find(pid)?;
        Ok(AppInfo {
            pid,
            name: app.spec.name.clone(),
            bundle_id: Some(app.spec.bundle_id.clone()),
            started_at: app.started_at,
            frontmost: self.frontmost.load(Ordering::Relaxed) == pid,
        })
    }
}
