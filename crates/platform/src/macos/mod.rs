//! The macOS backend (AXUIElement), compiled only for Apple targets. A thin adapter from the
//! [`Backend`] trait to the Accessibility API; every decision that can be tested without a
//! Mac (role and action tables, value decoding, write plans, budgets, click sequences,
//! capture arguments, the tree walk) lives in the platform-neutral `platform/mac_logic`.
//!
//! Process model: the main thread must run the CFRunLoop (observers and NSWorkspace need
//! it), so `main` hands its work to [`run_with_main_loop`]. AX queries run on the engine's
//! per-pid worker threads; AX objects never leave this module (the engine sees `NodeId`s).
//!
//! Files: `element` (retained AXUIElement), `handles` (NodeId ↔ element per pid), `attrs`
//! (one function per AX call), `snapshot` (the AX source behind the neutral walk), `target`
//! and `actions` (semantic operations), `windows`, `input` + `typing` (synthetic events)
//! with `key_layout` (the current and the ASCII-capable keyboard layouts), behind `guard`
//! (the input guard's facts and activation ladder) with `window_list` (the window server's
//! window list), `hit_test`, `apps` + `launch`, `chromium`
//! (first contact with Chromium/Electron apps), `clipboard`,
//! `observer` + `exits` (change events), `permissions` (readiness facts), `screenshot` with
//! `capture_sck` (ScreenCaptureKit),
//! `runloop`, `errors` (code classes), `process`, `record` (`axgate record`'s reads of a
//! live app; the writer is `replay::writer`). Everything that needs no Apple API
//! (tables, decoding, write plans, budgets, the tree walk, the handle table, the input
//! guard, error and readiness texts, gestures, keystrokes and key layouts, capture
//! arguments) lives in
//! `platform/mac_logic`.

mod actions;
mod apps;
mod attrs;
mod capture_sck;
mod chromium;
mod clipboard;
mod element;
mod errors;
mod exits;
mod guard;
mod handles;
mod hit_test;
mod input;
mod key_layout;
mod launch;
mod observer;
mod permissions;
mod process;
pub(crate) mod record;
mod runloop;
mod screenshot;
mod snapshot;
mod target;
mod typing;
mod window_list;
mod windows;

use std::sync::Arc;

use axgate_engine::backend::{Pointer, WindowRequest};
use axgate_engine::capabilities::{Capabilities, Capability};
use axgate_engine::keys::KeyCombo;
use axgate_engine::{
    AppInfo, AxResult, AxValue, Backend, CallCtx, Capture, EventSink, LaunchRequest, Launchable,
    NodeId, Pid, ReadinessCheck, Rect, Snapshot, SnapshotRequest, WindowInfo,
};

pub use runloop::run_with_main_loop;

use crate::mac_logic::budget::{self, Slicing};
use element::AxElement;
use handles::Handles;
use observer::Observers;
use target::Target;

/// The macOS accessibility backend.
pub struct MacBackend {
    handles: Arc<Handles>,
    observers: Observers,
    /// Bundle ids that also get `AXEnhancedUserInterface` (`backend.enhanced_ui_apps`).
    enhanced_ui_apps: Vec<String>,
}

impl MacBackend {
    /// Sets the process-wide AX messaging timeout and starts with empty handle tables.
    /// Cheap and infallible; readiness reports missing grants.
    pub fn new() -> Self {
        MacBackend::with_options(Slicing::default(), Vec::new())
    }

    /// [`MacBackend::new`] with AX calls timed by `slicing` (the floor of the per-call slice)
    /// and the bundle ids that get `AXEnhancedUserInterface`.
    pub(crate) fn with_options(slicing: Slicing, enhanced_ui_apps: Vec<String>) -> Self {
        attrs::set_slicing(slicing);
        if let Some(system) = AxElement::system_wide() {
            system.set_timeout(budget::GLOBAL_TIMEOUT);
        }
        let handles = Arc::new(Handles::new());
        MacBackend {
            observers: Observers::new(Arc::clone(&handles)),
            handles,
            enhanced_ui_apps,
        }
    }

    /// Prepares an app the first time a call reaches it (Chromium/Electron accessibility on,
    /// and a bounded wait for such a tree to fill), and keeps it observed.
    fn touch(&self, pid: Pid, ctx: &mut CallCtx) {
        if self.handles.first_contact(pid) {
            chromium::prepare(pid, &self.enhanced_ui_apps, ctx);
        }
        self.observers.ensure(pid, ctx);
    }

    /// The element `node` read for acting on (`target`): every semantic operation starts
    /// from it, and a disabled element fails here.
    fn target(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult<Target> {
        Target::read(&self.handles, pid, node, ctx)
    }
}

impl Default for MacBackend {
    fn default() -> Self {
        MacBackend::new()
    }
}

impl Backend for MacBackend {
    fn name(&self) -> &'static str {
        "macos"
    }

    fn readiness(&self) -> Vec<ReadinessCheck> {
        permissions::readiness()
    }

    /// Everything but telling what a key would press (no AX API answers it; the confirmation
    /// of destructive keys falls back to the focused element).
    fn capabilities(&self) -> Capabilities {
        Capabilities::all().without(Capability::KeyReceiver)
    }

    fn set_event_sink(&self, sink: EventSink) {
        self.observers.set_sink(sink);
    }

    fn list_apps(&self, ctx: &mut CallCtx) -> AxResult<Vec<AppInfo>> {
        apps::list_apps(ctx)
    }

    fn probe(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        apps::probe(pid, ctx)
    }

    fn snapshot(&self, pid: Pid, req: &SnapshotRequest, ctx: &mut CallCtx) -> AxResult<Snapshot> {
        self.touch(pid, ctx);
        snapshot::snapshot(&self.handles, pid, req, ctx)
    }

    fn list_windows(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult<Vec<WindowInfo>> {
        self.touch(pid, ctx);
        windows::list_windows(&self.handles, pid, ctx)
    }

    fn perform_action(&self, pid: Pid, node: NodeId, action: &str, ctx: &mut CallCtx) -> AxResult {
        let target = self.target(pid, node, ctx)?;
        actions::perform_action(&target, action, ctx)
    }

    fn set_value(&self, pid: Pid, node: NodeId, value: &AxValue, ctx: &mut CallCtx) -> AxResult {
        let target = self.target(pid, node, ctx)?;
        actions::set_value(&target, value, ctx)
    }

    fn focus(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult {
        let target = self.target(pid, node, ctx)?;
        actions::focus(&target, ctx)
    }

    fn pointer(&self, pid: Pid, act: &Pointer, ctx: &mut CallCtx) -> AxResult {
        input::pointer(pid, act, ctx)
    }

    fn element_at(&self, pid: Pid, at: (f64, f64), ctx: &mut CallCtx) -> AxResult<Option<NodeId>> {
        self.touch(pid, ctx);
        hit_test::element_at(&self.handles, pid, at, ctx)
    }

    fn screenshot(&self, pid: Pid, region: Option<Rect>, ctx: &mut CallCtx) -> AxResult<Capture> {
        screenshot::screenshot(pid, region, ctx)
    }

    fn type_text(&self, pid: Pid, text: &str, ctx: &mut CallCtx) -> AxResult {
        typing::type_text(pid, text, ctx)
    }

    fn press_key(&self, pid: Pid, key: KeyCombo, ctx: &mut CallCtx) -> AxResult {
        typing::press_key(pid, &key, ctx)
    }

    fn select(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult {
        let target = self.target(pid, node, ctx)?;
        actions::select(&target, ctx)
    }

    fn window_action(&self, pid: Pid, req: WindowRequest, ctx: &mut CallCtx) -> AxResult {
        windows::window_action(&self.handles, pid, req.window, req.action, ctx)
    }

    fn resolve_launch(&self, request: &LaunchRequest, _ctx: &mut CallCtx) -> AxResult<Launchable> {
        launch::resolve_launch(&request.spec)
    }

    fn launch_app(&self, request: &LaunchRequest, ctx: &mut CallCtx) -> AxResult<AppInfo> {
        launch::launch_app(request, ctx)
    }

    fn quit_app(&self, pid: Pid, force: bool, ctx: &mut CallCtx) -> AxResult {
        launch::quit_app(pid, force, ctx)
    }

    fn activate_app(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        launch::activate_app(pid, ctx)
    }

    fn read_clipboard(&self, ctx: &mut CallCtx) -> AxResult<String> {
        clipboard::read_clipboard(ctx)
    }

    fn write_clipboard(&self, text: &str, ctx: &mut CallCtx) -> AxResult {
        clipboard::write_clipboard(text, ctx)
    }
}
