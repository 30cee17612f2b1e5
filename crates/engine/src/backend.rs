//! The one trait every platform implements. It is synchronous and batch-shaped: it is only
//! ever called on AX worker threads (see `worker.rs`), its read primitive is a bounded
//! subtree snapshot rather than per-attribute getters, and every call carries a deadline and
//! counts its round trips to the target app in a [`CallCtx`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::capabilities::{Capabilities, Capability, unsupported};
use super::capture::Capture;
use super::error::AxResult;
use super::keys::{KeyCombo, Modifiers};
use super::launch_request::LaunchRequest;
use super::model::{AppInfo, AxValue, NodeId, Pid, RawNode, Rect, WindowInfo};

/// Per-call context handed to every backend method: the deadline, and a counter of round
/// trips to the target app (IPC messages on macOS, D-Bus calls on AT-SPI, node copies on demo).
#[derive(Debug)]
pub struct CallCtx {
    deadline: Instant,
    round_trips: u64,
}

impl CallCtx {
    pub fn new(deadline: Instant) -> Self {
        CallCtx {
            deadline,
            round_trips: 0,
        }
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Time left before the deadline (zero once it has passed).
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    pub fn expired(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// Records `n` round trips to the target app.
    pub fn trips(&mut self, n: u64) {
        self.round_trips += n;
    }

    pub fn round_trips(&self) -> u64 {
        self.round_trips
    }
}

/// What a snapshot should read: where to start and how much work it may do.
#[derive(Clone, Debug)]
pub struct SnapshotRequest {
    /// The element to start from; `None` means the application element.
    pub root: Option<NodeId>,
    /// How many levels below the root to descend (0 = the root only).
    pub max_depth: u32,
    /// Stop after this many nodes (the root counts).
    pub max_nodes: usize,
    /// Leave out the root's first this-many children (and their subtrees): where a paged
    /// read continues (`get_tree`'s frontier cursor). The root itself is still returned, and
    /// its `child_count` still counts every child.
    pub skip_children: usize,
}

impl SnapshotRequest {
    /// An element and at most `max_depth` levels and `max_nodes` nodes below it (0 and 1:
    /// the element alone, as re-reading one element does).
    pub fn below(node: NodeId, max_depth: u32, max_nodes: usize) -> SnapshotRequest {
        SnapshotRequest {
            root: Some(node),
            max_depth,
            max_nodes,
            skip_children: 0,
        }
    }
}

/// A bounded subtree in pre-order (every parent before its children, siblings in order).
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub nodes: Vec<RawNode>,
    /// True when the node budget or the deadline cut the walk short.
    pub truncated: bool,
    /// What the walk could not read and went on without (one slow element does not end a
    /// walk); empty on backends that never skip.
    pub skipped: Vec<Skipped>,
}

/// A part of the tree a snapshot left out because the app did not answer for it, while the
/// walk went on. The parent keeps its true `child_count`, so a left-out child shows as a gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The node (index into [`Snapshot::nodes`]) the missing part belongs to.
    pub node: usize,
    pub part: SkippedPart,
    /// Why: true when the app did not answer in time, false when it answered with an error.
    pub timed_out: bool,
}

/// Which part of a node a snapshot left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkippedPart {
    /// The child at this position of its children (counted from the first, as
    /// `SnapshotRequest::skip_children` counts), with that child's subtree.
    Child(usize),
    /// Its children, all of them (its `child_count` is then what could be counted, or 0).
    Children,
    /// Its value (`value` is then `None`).
    Value,
}

/// What a launch would start, found without starting it: every name the app policy must
/// see (`launch_app "/Applications/Notes.app"` starts the app named Notes, bundle id and all).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launchable {
    /// The app's name as it will run (`Notes`, `gedit`).
    pub name: String,
    pub bundle_id: Option<String>,
    /// Where it is installed: the `.app` bundle or the executable, links resolved.
    pub path: Option<String>,
    /// Other names it goes by (a program's name before links were resolved, say).
    pub aliases: Vec<String>,
}

impl Launchable {
    /// Every name of the app a rule may match: name, bundle id, aliases, the path and its
    /// file name without `.app`.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = vec![self.name.as_str()];
        names.extend(self.bundle_id.as_deref());
        names.extend(self.aliases.iter().map(String::as_str));
        if let Some(path) = self.path.as_deref() {
            names.push(path);
            let file = path
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(path);
            names.push(file.strip_suffix(".app").unwrap_or(file));
        }
        names
    }
}

/// A mouse button of synthetic pointer input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseButton {
    Left,
    Right,
}

/// The longest a [`Gesture::Press`] holds the button: the press must end well inside the
/// call's deadline (`EngineConfig::call_timeout`, 5 s by default).
pub const MAX_HOLD: Duration = Duration::from_secs(3);

/// What the pointer does at [`Pointer::at`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gesture {
    /// `count` clicks (1–3) of `button`.
    Click { button: MouseButton, count: u32 },
    /// Moves there and stays, pressing nothing (tooltips, hover states).
    Hover,
    /// A long press: the button down, held for `hold` (at most [`MAX_HOLD`]), released there.
    Press { button: MouseButton, hold: Duration },
    /// Scrolls by (dx, dy) lines; positive dy scrolls down.
    Scroll { delta: (f64, f64) },
    /// Drags with the left button to `to` (global points).
    Drag { to: (f64, f64) },
}

impl Gesture {
    /// The capability a backend needs for it (a click is acting on elements).
    pub fn capability(&self) -> Capability {
        match self {
            Gesture::Click { .. } => Capability::Act,
            Gesture::Hover => Capability::Hover,
            Gesture::Press { .. } => Capability::Press,
            Gesture::Scroll { .. } => Capability::Scroll,
            Gesture::Drag { .. } => Capability::Drag,
        }
    }

    /// A stable name (the backend call metric's `op`: click, hover, long_press, scroll, drag).
    pub fn as_str(&self) -> &'static str {
        match self {
            Gesture::Click { .. } => "click",
            Gesture::Hover => "hover",
            Gesture::Press { .. } => "long_press",
            Gesture::Scroll { .. } => "scroll",
            Gesture::Drag { .. } => "drag",
        }
    }
}

/// One synthetic pointer gesture: where it starts (global points), the modifier keys held
/// down through all of it (pressed before its first event, released after its last, even
/// when it fails half-way), and what it does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pointer {
    pub at: (f64, f64),
    pub held: Modifiers,
    pub gesture: Gesture,
}

impl Pointer {
    /// A gesture with no key held.
    pub fn new(at: (f64, f64), gesture: Gesture) -> Pointer {
        Pointer {
            at,
            held: Modifiers::default(),
            gesture,
        }
    }

    /// The same gesture with `held` down.
    #[must_use]
    pub fn holding(self, held: Modifiers) -> Pointer {
        Pointer { held, ..self }
    }
}

/// What a window operation does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WindowAction {
    Focus,
    Minimize,
    Restore,
    Close,
    Move {
        x: f64,
        y: f64,
    },
    Resize {
        w: f64,
        h: f64,
    },
    /// Zoom (macOS's green button, option-less): the window takes the screen's visible area;
    /// like macOS's zoom it toggles, so a second call gives the window its size back.
    Maximize,
    /// Full screen: the window takes the whole screen. A second call changes nothing;
    /// `Restore` leaves full screen.
    FullScreen,
}

/// What a window operation should do: to which window (an app's window element), and what.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowRequest {
    pub window: NodeId,
    pub action: WindowAction,
}

/// One readiness check of a backend (`/readyz`, `axgate check`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadinessCheck {
    /// A stable, bounded name: `ax_trusted`, `gui_session`, `screen_unlocked`, `atspi_bus`, …
    pub name: &'static str,
    pub class: CheckClass,
    pub ok: bool,
    /// What is wrong and how to fix it, when `ok` is false.
    pub detail: String,
}

/// Whether a failing readiness check takes the machine out of service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckClass {
    /// Nothing can be driven while it fails (no GUI session, no accessibility grant, a locked
    /// screen): `/readyz` answers 503 and balancers send no one.
    Gate,
    /// Some calls may fail while it fails (Secure Input held elsewhere, no screen recording
    /// grant, a sleeping display), most still work: `/readyz` stays 200 and names it.
    Advisory,
}

impl CheckClass {
    /// The name in `/readyz` and `axgate check`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckClass::Gate => "gate",
            CheckClass::Advisory => "advisory",
        }
    }
}

impl ReadinessCheck {
    /// Whether this check keeps the machine out of service: a gate that fails.
    pub fn blocks(&self) -> bool {
        self.class == CheckClass::Gate && !self.ok
    }
}

/// A change observed in an app. Events are hints: the engine debounces and re-queries.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeEvent {
    pub pid: Pid,
    pub node: Option<NodeId>,
    pub kind: ChangeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    ValueChanged,
    TitleChanged,
    StateChanged,
    FocusChanged,
    ChildrenChanged,
    WindowCreated,
    WindowClosed,
    BoundsChanged,
    MenuOpened,
    MenuClosed,
    AppExited,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::ValueChanged => "value_changed",
            ChangeKind::TitleChanged => "title_changed",
            ChangeKind::StateChanged => "state_changed",
            ChangeKind::FocusChanged => "focus_changed",
            ChangeKind::ChildrenChanged => "children_changed",
            ChangeKind::WindowCreated => "window_created",
            ChangeKind::WindowClosed => "window_closed",
            ChangeKind::BoundsChanged => "bounds_changed",
            ChangeKind::MenuOpened => "menu_opened",
            ChangeKind::MenuClosed => "menu_closed",
            ChangeKind::AppExited => "app_exited",
        }
    }
}

/// Where a backend delivers change events. Cheap to clone; never blocks the caller.
pub type EventSink = Arc<dyn Fn(ChangeEvent) + Send + Sync>;

/// A platform accessibility backend. Implementations must be safe to call from several
/// worker threads at once (one per target pid); a slow or hung app may block the calling
/// thread, which is why callers reach backends only through the engine's workers.
pub trait Backend: Send + Sync + 'static {
    /// `demo`, `atspi` or `macos`.
    fn name(&self) -> &'static str;

    /// Whether the backend can serve right now, check by check. Must not block for long.
    fn readiness(&self) -> Vec<ReadinessCheck>;

    /// What this backend can do beyond the required methods. The default is conservative:
    /// nothing. A backend lists every capability whose method it implements; a method whose
    /// capability is off must fail with [`unsupported`] naming it (the defaults below do),
    /// which the backend contract suite (`tests/contract/`) checks on every backend.
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
    }

    /// Starts delivering change events for every app the backend observes into `sink`.
    fn set_event_sink(&self, sink: EventSink);

    /// Running apps that have an accessibility tree.
    fn list_apps(&self, ctx: &mut CallCtx) -> AxResult<Vec<AppInfo>>;

    /// A cheap call that proves the app answers (used to clear the unresponsive mark).
    fn probe(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult;

    /// A bounded subtree with every attribute the engine uses, fetched in batches.
    fn snapshot(&self, pid: Pid, req: &SnapshotRequest, ctx: &mut CallCtx) -> AxResult<Snapshot>;

    /// The app's windows.
    fn list_windows(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult<Vec<WindowInfo>>;

    /// Performs a semantic action (`press`, `increment`, `show_menu`, …) on an element.
    fn perform_action(&self, pid: Pid, node: NodeId, action: &str, ctx: &mut CallCtx) -> AxResult;

    /// Writes an element's value (already coerced to the element's type by the engine).
    fn set_value(&self, pid: Pid, node: NodeId, value: &AxValue, ctx: &mut CallCtx) -> AxResult;

    /// Moves keyboard focus to an element.
    fn focus(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult;

    /// Posts one synthetic pointer gesture (a click, hover, long press, scroll or drag) with
    /// its modifier keys held. A gesture whose capability ([`Gesture::capability`]) the
    /// backend lacks fails with [`unsupported`] naming it. Callers
    /// serialise synthetic input through the engine's input queue.
    fn pointer(&self, pid: Pid, act: &Pointer, ctx: &mut CallCtx) -> AxResult;

    /// The element at global coordinates `at`, if any.
    fn element_at(&self, pid: Pid, at: (f64, f64), ctx: &mut CallCtx) -> AxResult<Option<NodeId>>;

    /// A PNG of the app's window, with the area it shows and its scale (pixels per point).
    /// With `region`: the app's window that overlaps the region most, by itself — never the
    /// screen as it is, which would show other apps' windows; the engine cuts it to the region
    /// (`engine/region`). A backend may return less than the window (the window's part in the
    /// region), never more.
    fn screenshot(&self, pid: Pid, region: Option<Rect>, ctx: &mut CallCtx) -> AxResult<Capture>;

    /// The element a key combination would press in the app right now — the focused control
    /// for Space, the window's default button for Return, a menu item for its shortcut —
    /// without pressing anything; `Ok(None)` when the key would press nothing. The confirmation
    /// of destructive acts decides on it. The default cannot tell (`Unsupported`): the caller
    /// then assumes that Space and Return press the focused element.
    fn key_receiver(&self, pid: Pid, key: KeyCombo, ctx: &mut CallCtx) -> AxResult<Option<NodeId>> {
        let _ = (pid, key, ctx);
        Err(unsupported(self.name(), Capability::KeyReceiver))
    }

    /// Types text into the app's focused element as synthetic key events (one grapheme per
    /// key press). Callers serialise synthetic input through the engine's input queue.
    fn type_text(&self, pid: Pid, text: &str, ctx: &mut CallCtx) -> AxResult {
        let _ = (pid, text, ctx);
        Err(unsupported(self.name(), Capability::Typing))
    }

    /// Presses a key combination in the app.
    fn press_key(&self, pid: Pid, key: KeyCombo, ctx: &mut CallCtx) -> AxResult {
        let _ = (pid, key, ctx);
        Err(unsupported(self.name(), Capability::Keys))
    }

    /// Selects an item (list row, tab, radio button, menu item) semantically.
    fn select(&self, pid: Pid, node: NodeId, ctx: &mut CallCtx) -> AxResult {
        let _ = (pid, node, ctx);
        Err(unsupported(self.name(), Capability::Select))
    }

    /// Operates on a window.
    fn window_action(&self, pid: Pid, req: WindowRequest, ctx: &mut CallCtx) -> AxResult {
        let _ = (pid, req, ctx);
        Err(unsupported(self.name(), Capability::Windows))
    }

    /// What `launch_app(request)` would start, without starting anything, so that the app
    /// policy can be applied to all of its names first (a backend whose arguments can name a
    /// program, AT-SPI's, lists them as aliases). An error when nothing matches. The default
    /// cannot tell, and the engine then refuses to launch.
    fn resolve_launch(&self, request: &LaunchRequest, ctx: &mut CallCtx) -> AxResult<Launchable> {
        let _ = (request, ctx);
        Err(unsupported(self.name(), Capability::Launch))
    }

    /// Launches an app named by name, bundle id or path, with the request's arguments and
    /// environment (already checked by the engine: `launch_request::check`); returns once it
    /// has a pid. A running app is activated; with arguments or environment it is refused
    /// instead (`LaunchRequest::already_running`), as they would not reach it.
    fn launch_app(&self, request: &LaunchRequest, ctx: &mut CallCtx) -> AxResult<AppInfo> {
        let _ = (request, ctx);
        Err(unsupported(self.name(), Capability::Launch))
    }

    /// Asks an app to quit (or kills it with `force`). The engine verifies the exit.
    fn quit_app(&self, pid: Pid, force: bool, ctx: &mut CallCtx) -> AxResult {
        let _ = (pid, force, ctx);
        Err(unsupported(self.name(), Capability::Quit))
    }

    /// Brings an app to the front.
    fn activate_app(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        let _ = (pid, ctx);
        Err(unsupported(self.name(), Capability::Activate))
    }

    /// The clipboard's text.
    fn read_clipboard(&self, ctx: &mut CallCtx) -> AxResult<String> {
        let _ = ctx;
        Err(unsupported(self.name(), Capability::Clipboard))
    }

    /// Replaces the clipboard's text.
    fn write_clipboard(&self, text: &str, ctx: &mut CallCtx) -> AxResult {
        let _ = (text, ctx);
        Err(unsupported(self.name(), Capability::Clipboard))
    }
}
