//! The Linux AT-SPI backend: drives apps through the accessibility bus (D-Bus) with the
//! `atspi` crates' types and zbus, reading whole trees with `Cache.GetItems`.
//!
//! The [`Backend`] trait is synchronous and runs on the engine's per-app worker threads;
//! this backend owns a small tokio runtime (`runtime`) and blocks each call on it under the
//! call's deadline, so a hung app only ever holds its own worker. Every D-Bus call counts as
//! one round trip (`dbus`). A [`NodeId`] stands for an (app bus name, object path) pair
//! (`ids`).
//!
//! Files: `bus` (finding the accessibility bus without side effects, readiness, the `auto`
//! probe), `apps` (discovery), `read` + `snapshot` (tree reads), `ops` (actions, values,
//! focus, selection, hit testing), `input` (pointer and keyboard through the registry's
//! DeviceEventController, raising the target window first — there may be no window manager),
//! `events` (the event stream → [`axgate_engine::ChangeEvent`]s), `screenshot` + `windows`
//! (X11 through x11rb, `x11`), `launch` (start and stop apps). Plain logic with unit tests:
//! `roles`, `states`, `action_names`, `assemble`, `keyboard`, `filter`, `command`, `names`
//! (accessible names: own name, `labelled-by`, description).

mod action_names;
mod apps;
mod assemble;
mod bus;
mod command;
mod dbus;
mod events;
mod filter;
mod ids;
mod input;
mod keyboard;
mod launch;
mod names;
mod ops;
mod read;
mod roles;
mod runtime;
mod screenshot;
mod snapshot;
mod states;
mod windows;
mod x11;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use atspi::zbus::Connection;

use axgate_engine::backend::{Pointer, WindowRequest};
use axgate_engine::capabilities::{Capabilities, Capability};
use axgate_engine::keys::KeyCombo;
use axgate_engine::{
    AppInfo, AxError, AxResult, AxValue, Backend, CallCtx, Capture, EventSink, LaunchRequest,
    Launchable, NodeId, Pid, ReadinessCheck, Rect, Snapshot, SnapshotRequest, WindowInfo,
};

use apps::{AppEntry, Apps};
use bus::Bus;
use dbus::{Calls, ROOT_PATH};
use ids::{Ids, ObjRef};
use runtime::Rt;

/// Whether an accessibility bus is reachable (used by `--backend auto`): asks the session
/// bus whether `org.a11y.Bus` has an owner, and never starts anything.
pub fn bus_available() -> bool {
    bus::a11y_bus_present(Duration::from_secs(2))
}

/// State shared by the backend's calls and its event task.
pub(crate) struct Core {
    rt: Rt,
    bus: Bus,
    ids: Ids,
    apps: Apps,
}

impl Core {
    fn conn(&self, ctx: &CallCtx) -> Result<Connection, AxError> {
        self.bus.get(&self.rt, ctx.deadline())
    }

    /// Runs `fut` under the call's deadline and records the round trips `calls` made.
    fn block<T>(
        &self,
        name: &str,
        ctx: &mut CallCtx,
        calls: &Calls<'_>,
        fut: impl Future<Output = Result<T, AxError>>,
    ) -> Result<T, AxError> {
        let out = self.rt.block(name, ctx.deadline(), fut);
        ctx.trips(calls.trips());
        out
    }

    /// The running apps (forgetting those that exited).
    fn list(&self, ctx: &mut CallCtx) -> Result<Vec<AppEntry>, AxError> {
        let conn = self.conn(ctx)?;
        let calls = Calls::new(&conn);
        let (apps, gone) = self.block(
            "the AT-SPI registry",
            ctx,
            &calls,
            self.apps.refresh(&calls),
        )?;
        for bus in gone {
            self.ids.forget_bus(&bus);
        }
        Ok(apps)
    }

    /// The connection and the app with this pid.
    fn app(&self, pid: Pid, ctx: &mut CallCtx) -> Result<(Connection, AppEntry), AxError> {
        let conn = self.conn(ctx)?;
        if let Some(app) = self.apps.by_pid(pid) {
            return Ok((conn, app));
        }
        self.list(ctx)?;
        match self.apps.by_pid(pid) {
            Some(app) => Ok((conn, app)),
            None if apps::exits_soon(pid, ctx) => Err(AxError::AppExited { pid }),
            None => Err(AxError::Backend(format!(
                "pid {pid} has no accessible app on the AT-SPI bus (is it a GTK/Qt app with \
                 accessibility on, and was NO_AT_BRIDGE unset when it started?)"
            ))),
        }
    }

    /// The object behind a node of `app`.
    fn obj(&self, app: &AppEntry, node: NodeId) -> Result<ObjRef, AxError> {
        match self.ids.get(node) {
            Some(obj) if *obj.bus == *app.bus => Ok(obj),
            _ => Err(AxError::Stale {
                handle: format!("node {} of {}", node.0, app.name),
                expected: "an element of this app".to_owned(),
                found: "nothing: the element is unknown or its app restarted".to_owned(),
            }),
        }
    }

    /// The connection, app and object of one element.
    fn node(
        &self,
        pid: Pid,
        node: NodeId,
        ctx: &mut CallCtx,
    ) -> Result<(Connection, AppEntry, ObjRef), AxError> {
        let (conn, app) = self.app(pid, ctx)?;
        let obj = self.obj(&app, node)?;
        Ok((conn, app, obj))
    }
}

/// Everything an element operation needs.
pub(crate) struct Op<'a> {
    calls: &'a Calls<'a>,
    app: &'a AppEntry,
    obj: ObjRef,
}

/// The AT-SPI backend.
pub struct AtspiBackend {
    core: Arc<Core>,
}

impl AtspiBackend {
    /// Starts the backend's runtime. Connecting to the bus waits for the first call, so this
    /// succeeds without a desktop; readiness then says what is missing.
    pub fn new() -> Result<AtspiBackend, String> {
        Ok(AtspiBackend {
            core: Arc::new(Core {
                rt: Rt::new()?,
                bus: Bus::default(),
                ids: Ids::default(),
                apps: Apps::default(),
            }),
        })
    }
}

/// One operation on one element (`AtspiBackend::on_node`).
enum NodeOp<'a> {
    Perform(&'a str),
    SetValue(&'a AxValue),
    Focus,
    Select,
}

impl AtspiBackend {
    /// Resolves `node` of `pid`'s app and runs `what` on it, counting its D-Bus calls.
    fn on_node(
        &self,
        pid: Pid,
        node: NodeId,
        what: NodeOp<'_>,
        ctx: &mut CallCtx,
    ) -> Result<(), AxError> {
        let (conn, app, obj) = self.core.node(pid, node, ctx)?;
        let calls = Calls::new(&conn);
        let op = Op {
            calls: &calls,
            app: &app,
            obj,
        };
        let name = &app.name;
        match what {
            NodeOp::Perform(action) => {
                self.core
                    .block(name, ctx, &calls, op.perform_action(action))
            }
            NodeOp::SetValue(value) => self.core.block(name, ctx, &calls, op.set_value(value)),
            NodeOp::Focus => self.core.block(name, ctx, &calls, op.focus()),
            NodeOp::Select => self.core.block(name, ctx, &calls, op.select()),
        }
    }
}

impl Backend for AtspiBackend {
    fn name(&self) -> &'static str {
        "atspi"
    }

    fn readiness(&self) -> Vec<ReadinessCheck> {
        bus::readiness(&self.core.rt, &self.core.bus)
    }

    /// Everything but the clipboard (no X selection owner is kept) and telling what a key
    /// would press. Window operations exclude minimize, restore, maximize and full screen:
    /// with no window manager there is nothing to ask (they fail naming that).
    fn capabilities(&self) -> Capabilities {
        Capabilities::all()
            .without(Capability::Clipboard)
            .without(Capability::KeyReceiver)
    }

    fn set_event_sink(&self, sink: EventSink) {
        events::start(&self.core, sink);
    }

    fn list_apps(&self, ctx: &mut CallCtx) -> AxResult<Vec<AppInfo>> {
        let front = self.core.apps.frontmost();
        Ok(self.core.list(ctx)?.iter().map(|a| a.info(front)).collect())
    }

    fn probe(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        let (conn, app) = self.core.app(pid, ctx)?;
        let calls = Calls::new(&conn);
        let root = app.root();
        self.core.block(&app.name, ctx, &calls, async {
            calls
                .call::<_, u32>(&root, dbus::ACCESSIBLE, "GetRole", &())
                .await
                .map(drop)
                .map_err(|f| f.into_ax(pid, &app.name))
        })
    }

    fn snapshot(&self, pid: Pid, req: &SnapshotRequest, ctx: &mut CallCtx) -> AxResult<Snapshot> {
        let (conn, app) = self.core.app(pid, ctx)?;
        let root = match req.root {
            None => ObjRef::new(&app.bus, ROOT_PATH),
            Some(id) => self.core.obj(&app, id)?,
        };
        let calls = Calls::new(&conn);
        let fut = snapshot::snapshot(&calls, &self.core.ids, &app, &root, req);
        self.core.block(&app.name, ctx, &calls, fut)
    }

    fn list_windows(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult<Vec<WindowInfo>> {
        windows::list_windows(&self.core, pid, ctx)
    }

    fn perform_action(&self, pid: Pid, node: NodeId, action: &str, ctx: &mut CallCtx) -> AxResult {
        self.on_node(pid, node, NodeOp::Perform(action), ctx)
    }

    fn set_value(&self, pid: Pid, node: NodeId, value: &AxValue, ctx: &mut CallCtx) -> AxResult {
        self.on_node(pid, node, NodeOp::SetValue(value), ctx)
    }

    fn focus(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult {
        self.on_node(pid, node, NodeOp::Focus, ctx)
    }

    fn pointer(&self, pid: Pid, act: &Pointer, ctx: &mut CallCtx) -> AxResult {
        input::pointer(&self.core, pid, act, ctx)
    }

    fn element_at(&self, pid: Pid, at: (f64, f64), ctx: &mut CallCtx) -> AxResult<Option<NodeId>> {
        let (conn, app) = self.core.app(pid, ctx)?;
        let calls = Calls::new(&conn);
        let fut = ops::element_at(&calls, &app, at);
        let found = self.core.block(&app.name, ctx, &calls, fut)?;
        Ok(found.map(|obj| self.core.ids.id_of(&obj)))
    }

    fn screenshot(&self, pid: Pid, region: Option<Rect>, ctx: &mut CallCtx) -> AxResult<Capture> {
        screenshot::screenshot(&self.core, pid, region, ctx)
    }

    fn type_text(&self, pid: Pid, text: &str, ctx: &mut CallCtx) -> AxResult {
        input::type_text(&self.core, pid, text, ctx)
    }

    fn press_key(&self, pid: Pid, key: KeyCombo, ctx: &mut CallCtx) -> AxResult {
        input::press_key(&self.core, pid, &key, ctx)
    }

    fn select(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult {
        self.on_node(pid, node, NodeOp::Select, ctx)
    }

    fn window_action(&self, pid: Pid, req: WindowRequest, ctx: &mut CallCtx) -> AxResult {
        windows::window_action(&self.core, pid, req.window, req.action, ctx)
    }

    fn resolve_launch(&self, request: &LaunchRequest, _ctx: &mut CallCtx) -> AxResult<Launchable> {
        launch::resolve_launch(request)
    }

    fn launch_app(&self, request: &LaunchRequest, ctx: &mut CallCtx) -> AxResult<AppInfo> {
        launch::launch_app(&self.core, request, ctx)
    }

    fn quit_app(&self, pid: Pid, force: bool, ctx: &mut CallCtx) -> AxResult {
        launch::quit_app(&self.core, pid, force, ctx)
    }

    fn activate_app(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        input::raise_app(&self.core, pid, ctx)
    }
}
