//! The demo backend's [`Backend`] implementation: each call checks what the machine allows
//! (permission, a locked screen), then runs on one app's tree through `with_app` or on the
//! process registry. Synthetic input (clicks, keys, typing) brings the target app to the
//! front, as posting events to it does on a desktop.

use std::sync::atomic::Ordering;

use axgate_engine::backend::{Gesture, Launchable, Pointer, WindowRequest};
use axgate_engine::capabilities::Capabilities;
use axgate_engine::keys::KeyCombo;
use axgate_engine::launch_request::LaunchRequest;
use axgate_engine::{
    AppInfo, AxError, AxResult, AxValue, Backend, CallCtx, Capture, EventSink, NodeId, Pid,
    ReadinessCheck, Rect, Snapshot, SnapshotRequest, WindowInfo,
};

use super::{
    DemoBackend, hit, interact, keyboard, lock, pointer, render, selection, snapshot, windows,
};

impl DemoBackend {
    /// Runs one synthetic-input operation (refused while the screen is locked) and brings
    /// the app to the front.
    fn input<T>(
        &self,
        pid: Pid,
        what: &str,
        ctx: &mut CallCtx,
        op: impl FnOnce(&mut super::AppTree) -> Result<(T, Vec<axgate_engine::ChangeEvent>), AxError>,
    ) -> Result<T, AxError> {
        self.simulation().check_unlocked(what)?;
        let out = self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            op(tree)
        })?;
        // The app may have quit (a save dialog's "Don't Save"): only a running app comes front.
        if self.app(pid).is_ok() {
            self.frontmost.store(pid, Ordering::Relaxed);
        }
        Ok(out)
    }
}

impl Backend for DemoBackend {
    fn name(&self) -> &'static str {
        "demo"
    }

    fn readiness(&self) -> Vec<ReadinessCheck> {
        self.simulation().readiness()
    }

    /// Every capability: the demo apps model all of it.
    fn capabilities(&self) -> Capabilities {
        Capabilities::all()
    }

    fn set_event_sink(&self, sink: EventSink) {
        *lock(&self.sink) = Some(sink);
    }

    fn list_apps(&self, ctx: &mut CallCtx) -> AxResult<Vec<AppInfo>> {
        ctx.trips(1);
        let frontmost = self.frontmost.load(Ordering::Relaxed);
        Ok(lock(&self.registry)
            .running
            .iter()
            .map(|a| AppInfo {
                pid: a.pid,
                name: a.spec.name.clone(),
                bundle_id: Some(a.spec.bundle_id.clone()),
                started_at: a.started_at,
                frontmost: a.pid == frontmost,
            })
            .collect())
    }

    fn probe(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        self.with_app(pid, ctx, |_, ctx| {
            ctx.trips(1);
            Ok(((), Vec::new()))
        })
    }

    fn snapshot(&self, pid: Pid, req: &SnapshotRequest, ctx: &mut CallCtx) -> AxResult<Snapshot> {
        self.with_app(pid, ctx, |tree, ctx| {
            Ok((snapshot::snapshot(tree, req, ctx)?, Vec::new()))
        })
    }

    fn list_windows(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult<Vec<WindowInfo>> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok((snapshot::list_windows(tree), Vec::new()))
        })
    }

    fn perform_action(&self, pid: Pid, node: NodeId, action: &str, ctx: &mut CallCtx) -> AxResult {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), interact::perform_action(tree, node, action)?))
        })
    }

    fn set_value(&self, pid: Pid, node: NodeId, value: &AxValue, ctx: &mut CallCtx) -> AxResult {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), interact::set_value(tree, node, value)?))
        })
    }

    fn focus(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), interact::focus(tree, node)?))
        })?;
        self.frontmost.store(pid, Ordering::Relaxed);
        Ok(())
    }

    fn pointer(&self, pid: Pid, act: &Pointer, ctx: &mut CallCtx) -> AxResult {
        let act = *act;
        let run = move |tree: &mut super::AppTree| Ok(((), pointer::gesture(tree, &act)?));
        match act.gesture {
            Gesture::Click { .. } => self.input(pid, "synthetic clicks", ctx, run),
            Gesture::Press { .. } => self.input(pid, "synthetic long presses", ctx, run),
            Gesture::Drag { .. } => self.input(pid, "synthetic drags", ctx, run),
            // Moving the pointer over a window or scrolling it does not bring it to the front.
            Gesture::Hover | Gesture::Scroll { .. } => {
                self.simulation()
                    .check_unlocked("synthetic pointer moves and scrolling")?;
                self.with_app(pid, ctx, |tree, ctx| {
                    ctx.trips(1);
                    run(tree)
                })
            }
        }
    }

    fn element_at(&self, pid: Pid, at: (f64, f64), ctx: &mut CallCtx) -> AxResult<Option<NodeId>> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok((hit::element_at(tree, at), Vec::new()))
        })
    }

    fn screenshot(&self, pid: Pid, region: Option<Rect>, ctx: &mut CallCtx) -> AxResult<Capture> {
        self.simulation().check_unlocked("screenshots")?;
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            // Only this app's window is drawn, cut to the region where one is given.
            let window = render::window_area(tree, region)?;
            let area = region
                .and_then(|r| window.intersection(&r))
                .unwrap_or(window);
            let png = render::render(tree, area, ctx)?;
            Ok((Capture::new(png, Some(area)), Vec::new()))
        })
    }

    fn type_text(&self, pid: Pid, text: &str, ctx: &mut CallCtx) -> AxResult {
        self.input(pid, "synthetic typing", ctx, |tree| {
            Ok(((), keyboard::type_text(tree, text)?))
        })
    }

    fn press_key(&self, pid: Pid, key: KeyCombo, ctx: &mut CallCtx) -> AxResult {
        self.input(pid, "synthetic key presses", ctx, |tree| {
            let mut events = Vec::new();
            keyboard::press_key(tree, &key, &mut events);
            Ok(((), events))
        })
    }

    fn key_receiver(&self, pid: Pid, key: KeyCombo, ctx: &mut CallCtx) -> AxResult<Option<NodeId>> {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok((keyboard::receiver(tree, &key), Vec::new()))
        })
    }

    fn select(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult {
        self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            Ok(((), selection::select(tree, node)?))
        })
    }

    fn window_action(&self, pid: Pid, req: WindowRequest, ctx: &mut CallCtx) -> AxResult {
        let activate = self.with_app(pid, ctx, |tree, ctx| {
            ctx.trips(1);
            let (events, activate) = windows::window_action(tree, req.window, req.action)?;
            Ok((activate, events))
        })?;
        if activate {
            self.frontmost.store(pid, Ordering::Relaxed);
        }
        Ok(())
    }

    fn resolve_launch(&self, request: &LaunchRequest, ctx: &mut CallCtx) -> AxResult<Launchable> {
        ctx.trips(1);
        self.resolve_launch(&request.spec)
    }

    fn launch_app(&self, request: &LaunchRequest, ctx: &mut CallCtx) -> AxResult<AppInfo> {
        ctx.trips(1);
        self.launch(request)
    }

    fn quit_app(&self, pid: Pid, force: bool, ctx: &mut CallCtx) -> AxResult {
        ctx.trips(1);
        self.quit(pid, force)
    }

    fn activate_app(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        ctx.trips(1);
        self.app(pid)?;
        self.frontmost.store(pid, Ordering::Relaxed);
        Ok(())
    }

    fn read_clipboard(&self, ctx: &mut CallCtx) -> AxResult<String> {
        ctx.trips(1);
        Ok(lock(&self.clipboard).clone())
    }

    fn write_clipboard(&self, text: &str, ctx: &mut CallCtx) -> AxResult {
        ctx.trips(1);
        *lock(&self.clipboard) = text.to_owned();
        Ok(())
    }
}
