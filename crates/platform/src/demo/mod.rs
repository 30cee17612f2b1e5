//! The demo backend: in-memory apps described by embedded data files (`apps/*.json`) that
//! react to actions and input like real ones and emit change events. It serves anywhere and
//! is the engine's fast test backend.
//!
//! Apps: Form, Editor, Huge, Hung, Settings and List run from the start with pids 41001..
//! in that order; Notes, Contract (the backend contract suite's app, `tests/contract/`) and
//! Counter (a Submit whose effect comes 800 ms late, after an act's wait), TextEdit (shaped
//! like macOS TextEdit for WebDriver suites written for Appium's Mac2 driver: bundle id
//! `com.apple.TextEdit`, format bar, ruler, context menu, File ▸ Duplicate), and
//! any of the others once quit, can be launched by name, bundle id or `/Applications/Name.app`,
//! getting a fresh pid from [`FIRST_LAUNCHED_PID`] up. A
//! launched app shows no windows until [`DEFAULT_LAUNCH_DELAY`] has passed. Quitting asks
//! about unsaved changes (Editor shows a save dialog and keeps running) unless forced.
//!
//! Input is modelled, not just actions: typing and keys go to the focused element (text
//! editing, Tab focus order, Return/Escape on default and cancel buttons, menu shortcuts —
//! `keyboard.rs`), scrolling shifts a scroll area's content and hides what leaves the
//! viewport and dragging moves sliders and scroll bars (`scroll.rs`), `select` picks rows,
//! tabs, radios and menu items (`selection.rs`), windows focus, minimize, close, move and
//! resize (`windows.rs`). One machine-wide text clipboard is shared by all apps.
//!
//! Each app's tree sits behind its own mutex, so calls for different apps never block each
//! other; change events are delivered after that lock is released. The `Hung` app answers
//! nothing: every per-app call blocks past its deadline and then times out. Round trips are
//! counted as one per call, and one per node a snapshot copies (a real backend's batched
//! fetch per element). The data format is described in `spec.rs`; what effects do, in
//! `effects.rs`. Typed text, clipboard contents and values are never logged.

mod build;
mod calls;
mod effects;
mod font;
mod hit;
mod interact;
mod keyboard;
mod menus;
mod pointer;
mod process;
mod render;
mod roles;
mod scroll;
mod selection;
mod simulate;
mod snapshot;
mod spec;
mod state;
mod text;
mod tree;
mod windows;

#[cfg(test)]
mod tests;

use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axgate_engine::{AxError, CallCtx, ChangeEvent, EventSink, Pid, RawNode};

pub use process::FIRST_LAUNCHED_PID;
use process::{DemoApp, Registry};
pub use simulate::Simulation;
use spec::AppSpec;
use tree::AppTree;

/// The pid of the first built-in app; the others follow in order.
pub const FIRST_PID: Pid = 41001;

/// How long a launched app runs before its windows appear.
pub const DEFAULT_LAUNCH_DELAY: Duration = Duration::from_millis(150);

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

/// The demo backend. See the module docs.
pub struct DemoBackend {
    /// Every app that can run: the built-ins first, then the launch-only ones.
    catalog: Vec<Arc<AppSpec>>,
    registry: Mutex<Registry>,
    options: DemoOptions,
    launch_delay: Duration,
    clipboard: Arc<Mutex<String>>,
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
    /// The built-in apps with default options.
    pub fn new() -> Self {
        DemoBackend::with_options(DemoOptions::default())
    }

    /// The built-in apps with these options (tests shorten `hang_extra`).
    pub fn with_options(options: DemoOptions) -> Self {
        let parse = |files: &[(&str, &str)]| -> Vec<Arc<AppSpec>> {
            files
                .iter()
                // The files are compiled in and covered by tests, so a bad one is a build bug.
                .map(|(file, text)| {
                    Arc::new(spec::parse_app(file, text).unwrap_or_else(|e| panic!("{e}")))
                })
                .collect()
        };
        let built_in = parse(spec::BUILT_IN);
        let clipboard = Arc::new(Mutex::new(String::new()));
        let registry = Registry::start(&built_in, FIRST_PID, process::now_secs(), &clipboard);
        let mut catalog = built_in;
        catalog.extend(parse(spec::LAUNCHABLE));
        DemoBackend {
            catalog,
            registry: Mutex::new(registry),
            options,
            launch_delay: DEFAULT_LAUNCH_DELAY,
            clipboard,
            sink: Mutex::new(None),
            simulation: Mutex::new(Simulation::None),
            frontmost: AtomicU32::new(FIRST_PID),
        }
    }

    /// Sets how long launched apps take before their windows appear (tests use zero or a
    /// longer delay).
    pub fn with_launch_delay(mut self, delay: Duration) -> Self {
        self.launch_delay = delay;
        self
    }

    /// Starts (or, with [`Simulation::None`], stops) pretending a machine-level failure.
    pub fn simulate(&self, simulation: Simulation) {
        *lock(&self.simulation) = simulation;
    }

    /// The pid of the running app with this name.
    pub fn pid_of(&self, app_name: &str) -> Option<Pid> {
        self.running(app_name).map(|a| a.pid)
    }

    /// The names of every app `launch_app` knows, running or not.
    pub fn launchable(&self) -> Vec<String> {
        self.catalog.iter().map(|s| s.name.clone()).collect()
    }

    /// The app-side state of the first element with this identifier, read directly (no
    /// deadline, no hang), for tests. Unlike snapshots it includes secure values.
    pub fn node_by_identifier(&self, app_name: &str, identifier: &str) -> Option<RawNode> {
        self.inspect(app_name, |tree| {
            let node = tree.get(tree.find_identifier(identifier)?)?;
            let mut raw = tree.raw(node);
            raw.value = node.value.clone();
            Some(raw)
        })?
    }

    /// How many elements an app has right now, for tests.
    pub fn node_count(&self, app_name: &str) -> Option<usize> {
        self.inspect(app_name, |tree| tree.len())
    }

    fn running(&self, app_name: &str) -> Option<Arc<DemoApp>> {
        let registry = lock(&self.registry);
        registry
            .running
            .iter()
            .find(|a| a.name() == app_name)
            .cloned()
    }

    fn inspect<T>(&self, app_name: &str, read: impl FnOnce(&AppTree) -> T) -> Option<T> {
        let app = self.running(app_name)?;
        let (out, events) = {
            let (tree, events) = app.lock();
            (read(&tree), events)
        };
        self.emit(events);
        Some(out)
    }

    fn app(&self, pid: Pid) -> Result<Arc<DemoApp>, AxError> {
        lock(&self.registry).find(pid)
    }

    /// Runs `op` on one app's locked tree: the single path every per-app call takes. It
    /// applies simulated failures and the hung app's hang, delivers the events `op` returns
    /// after the lock is released, and lets the app exit if `op` made it decide to.
    fn with_app<T>(
        &self,
        pid: Pid,
        ctx: &mut CallCtx,
        op: impl FnOnce(&mut AppTree, &mut CallCtx) -> Result<(T, Vec<ChangeEvent>), AxError>,
    ) -> Result<T, AxError> {
        let app = self.app(pid)?;
        self.simulation().check_permission()?;
        if app.hung() {
            let budget = ctx.remaining();
            std::thread::sleep(budget + self.options.hang_extra);
            return Err(AxError::Timeout {
                app: app.name().to_owned(),
                after: budget,
            });
        }
        let (result, mut events, exits) = {
            let (mut tree, events) = app.lock();
            let result = op(&mut tree, ctx);
            let exits = std::mem::take(&mut tree.exit_requested);
            (result, events, exits)
        };
        let out = match result {
            Ok((out, more)) => {
                events.extend(more);
                Ok(out)
            }
            Err(e) => Err(e),
        };
        self.emit(events);
        if exits {
            self.exit(pid);
        }
        out
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
