//! May a synthetic pointer or key event be posted? Synthetic events go to whatever the window
//! server has in front and under the pointer, not to the app a call names. So who owns a
//! point is decided from the window server's window list (`CGWindowListCopyWindowInfo`,
//! front to back): the owner pid of the topmost on-screen window containing the point, at
//! layer 0 and above, with the system layers (menus, the Dock, the menu bar, status items,
//! the screen saver, the cursor) handled deliberately. Never from the target app's own hit
//! test: UI that another process serves on the app's behalf (the Open and Save panels of a
//! sandboxed app, web content) would look foreign, and a window of another app over the
//! target would look like the target's. The processes that serve an app are one table,
//! [`SERVING`], each row with why.
//!
//! Activation: none when the app is already frontmost with its window on top (activating
//! then closes open menus and popovers); otherwise the [`LADDER`] of fallbacks, each given
//! until its deadline (1.5 s in all: a Space switch or a full-screen app takes that long).
//! Secure Input is no business of the guard: typing goes ahead and reads back
//! (`typed_text`). This file decides from what the adapter observed; the adapter only
//! gathers the facts. Plain Rust, no Apple types: tested with window lists written as data.

use std::time::Duration;

use axgate_engine::Pid;

/// An app as error messages name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AppRef {
    pub(crate) pid: Pid,
    /// `Name (pid N)`.
    pub(crate) label: String,
}

/// Window levels (`CGWindowLevel.h`, `kCG…WindowLevel`): the `kCGWindowLayer` of a window.
pub(crate) mod level {
    pub(crate) const NORMAL: i32 = 0;
    pub(crate) const DOCK: i32 = 20;
    pub(crate) const MAIN_MENU: i32 = 24;
    pub(crate) const STATUS: i32 = 25;
    pub(crate) const POP_UP_MENU: i32 = 101;
    pub(crate) const DRAGGING: i32 = 500;
    pub(crate) const SCREEN_SAVER: i32 = 1000;
    /// `kCGCursorWindowLevel` (`kCGMaximumWindowLevel - 1`).
    pub(crate) const CURSOR: i32 = i32::MAX - 17;
}

/// One window of the window server's list (`kCGWindowListOptionAll`, front to back).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WindowInfo {
    /// `kCGWindowOwnerPID`.
    pub(crate) pid: Pid,
    /// `kCGWindowOwnerName`.
    pub(crate) owner: String,
    /// The owner's bundle id (`NSRunningApplication`), when it has one.
    pub(crate) bundle: Option<String>,
    /// The process the system holds responsible for the owner (an XPC service's client
    /// app), when the adapter could ask.
    pub(crate) responsible: Option<Pid>,
    /// `kCGWindowName`: only with the Screen Recording grant (macOS 10.15+), else `None`.
    pub(crate) title: Option<String>,
    /// `kCGWindowLayer`.
    pub(crate) layer: i32,
    /// `kCGWindowBounds`: x, y, width, height in global points (top-left origin).
    pub(crate) bounds: (f64, f64, f64, f64),
    /// `kCGWindowAlpha`.
    pub(crate) alpha: f64,
    /// `kCGWindowIsOnscreen`: false on another Space, minimised, hidden.
    pub(crate) on_screen: bool,
}

impl WindowInfo {
    fn contains(&self, (x, y): (f64, f64)) -> bool {
        let (wx, wy, w, h) = self.bounds;
        x >= wx && y >= wy && x < wx + w && y < wy + h
    }

    /// Whether a pointer event at a point it covers goes to it. Windows below layer 0 (the
    /// desktop picture, desktop icons) lie under every app; the cursor and drag images
    /// follow the pointer and never take the click; a fully transparent window is
    /// click-through in practice (overlay utilities draw with alpha 0).
    fn takes_pointer(&self) -> bool {
        self.on_screen
            && self.layer >= level::NORMAL
            && self.layer != level::DRAGGING
            && self.layer < level::CURSOR
            && self.alpha > 0.0
    }

    /// `'Owner' (pid N)`, with the window's title when the list gives it.
    fn describe(&self) -> String {
        match self.title.as_deref().filter(|t| !t.is_empty()) {
            Some(title) => format!("'{}' (pid {}, window '{title}')", self.owner, self.pid),
            None => format!("'{}' (pid {})", self.owner, self.pid),
        }
    }
}

/// How a serving process relates to the app it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Serves {
    /// The app the system holds responsible for it; when the system does not say, the
    /// frontmost app (the panel is modal to the app in front).
    ResponsibleOrFront,
    /// The app the system holds responsible for it, and no other.
    Responsible,
}

/// A process that draws windows on another app's behalf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ServingRule {
    pub(crate) bundle: &'static str,
    pub(crate) serves: Serves,
    pub(crate) why: &'static str,
}

/// The processes whose windows count as the target's own. Anything else over the target is
/// refused by name. A system dialog (SecurityAgent, CoreServicesUIAgent, UserNotificationCenter)
/// is not here: it counts only when the caller targets it by name (its own pid).
pub(crate) const SERVING: &[ServingRule] = &[
    ServingRule {
        bundle: "com.apple.appkit.xpc.openAndSavePanelService",
        serves: Serves::ResponsibleOrFront,
        why: "a sandboxed app's Open and Save panels are drawn by this XPC service (Powerbox), \
              one instance per client app, modal to the app in front",
    },
    ServingRule {
        bundle: "com.apple.WebKit.WebContent",
        serves: Serves::Responsible,
        why: "WKWebView and Safari run web content in this process; its windows (full-screen \
              video, pop-ups) belong to the app that hosts the view",
    },
    ServingRule {
        bundle: "com.apple.Safari.SafeBrowsing.Service",
        serves: Serves::Responsible,
        why: "Safari's warning pages and sheets for a site come from this helper of Safari",
    },
];

/// The menu bar is one window owned by the window server (`Window Server`, layer
/// `kCGMainMenuWindowLevel`); it shows the frontmost app's menus.
const WINDOW_SERVER: &str = "Window Server";

/// Why a window at the point counts as the target's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Allowed {
    /// A window of the target's own pid (its windows, sheets, menus, popovers).
    Own,
    /// The menu bar while the target is frontmost (it shows the target's menus).
    MenuBar,
    /// A window a [`SERVING`] process draws for the target.
    Served(&'static str),
}

/// What the adapter observed just before posting.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Observed {
    /// The frontmost app (`NSWorkspace.frontmostApplication`), if any.
    pub(crate) frontmost: Option<AppRef>,
    /// The window list, front to back, off-screen windows included (`on_screen` false).
    pub(crate) windows: Vec<WindowInfo>,
    /// The activation steps taken, and how each went (`Err` says how it failed).
    pub(crate) tried: Vec<(Step, Result<(), String>)>,
}

/// The event about to be posted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Event {
    /// Keys go to the frontmost app's key window.
    Keys,
    /// A pointer event at a global point.
    Pointer { at: (f64, f64) },
}

/// One way to bring an app forward, in the order tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// `AXFrontmost` ← true on the application element.
    Frontmost,
    /// `NSRunningApplication.activateWithOptions(.activateAllWindows)`: brings every
    /// window forward, switching to its Space.
    ActivateWithOptions,
    /// `AXRaise` + `AXMain` on the app's main (else focused, else first) window: works when
    /// the app is frontmost but another window of its own or a panel is on top.
    RaiseWindow,
}

impl Step {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Step::Frontmost => "AXFrontmost",
            Step::ActivateWithOptions => "activateWithOptions",
            Step::RaiseWindow => "AXRaise",
        }
    }
}

/// The activation fallbacks, each with the time since the first step by which it must have
/// taken effect before the next is tried. Activation on macOS 14+ is cooperative and
/// asynchronous; a Space switch or a full-screen app takes most of the 1.5 s.
pub(crate) const LADDER: [(Step, Duration); 3] = [
    (Step::Frontmost, Duration::from_millis(800)),
    (Step::ActivateWithOptions, Duration::from_millis(1300)),
    (Step::RaiseWindow, Duration::from_millis(1500)),
];

/// How often to look again while an activation takes effect.
pub(crate) const POLL: Duration = Duration::from_millis(25);

/// The topmost window that takes a pointer event at `point`.
pub(crate) fn window_at(point: (f64, f64), windows: &[WindowInfo]) -> Option<&WindowInfo> {
    windows
        .iter()
        .find(|w| w.takes_pointer() && w.contains(point))
}

/// Whether `window` counts as the target's, and by which rule.
pub(crate) fn allowed(
    target: Pid,
    window: &WindowInfo,
    frontmost: Option<&AppRef>,
) -> Option<Allowed> {
    let target_in_front = frontmost.is_some_and(|f| f.pid == target);
    if window.pid == target {
        return Some(Allowed::Own);
    }
    if window.owner == WINDOW_SERVER && window.layer == level::MAIN_MENU {
        return target_in_front.then_some(Allowed::MenuBar);
    }
    let rule = SERVING
        .iter()
        .find(|r| window.bundle.as_deref() == Some(r.bundle))?;
    let serves = match (rule.serves, window.responsible) {
        (_, Some(responsible)) => responsible == target,
        (Serves::ResponsibleOrFront, None) => target_in_front,
        (Serves::Responsible, None) => false,
    };
    serves.then_some(Allowed::Served(rule.bundle))
}

/// Whether the target is frontmost with its window on top: then nothing is activated or
/// raised (that would close its open menus and popovers). "On top" is the topmost on-screen
/// normal-layer window: the target's own, or one served for it. An app frontmost without any
/// window (a menu-bar app) is on top too; one whose windows are all off screen (another
/// Space, minimised) is not.
pub(crate) fn in_front(target: Pid, observed: &Observed) -> bool {
    let frontmost = observed.frontmost.as_ref();
    if frontmost.is_none_or(|f| f.pid != target) {
        return false;
    }
    if !observed.windows.iter().any(|w| w.pid == target) {
        return true;
    }
    let top = observed
        .windows
        .iter()
        .find(|w| w.on_screen && w.layer == level::NORMAL && w.alpha > 0.0);
    top.is_some_and(|top| allowed(target, top, frontmost).is_some())
}

/// Allows the event (saying by which rule, for pointer events), or says why it would land
/// elsewhere and what to do.
pub(crate) fn may_post(
    target: &AppRef,
    event: Event,
    observed: &Observed,
) -> Result<Option<Allowed>, String> {
    let frontmost = observed.frontmost.as_ref();
    if frontmost.is_none_or(|f| f.pid != target.pid) {
        return Err(not_in_front(target, observed));
    }
    let Event::Pointer { at } = event else {
        if !in_front(target.pid, observed) && !has_on_screen_window(target.pid, observed) {
            return Err(off_screen(target, observed));
        }
        return Ok(None);
    };
    let (x, y) = at;
    let Some(window) = window_at(at, &observed.windows) else {
        if !has_on_screen_window(target.pid, observed) {
            return Err(off_screen(target, observed));
        }
        return Err(format!(
            "refused: nothing of {} is at ({x}, {y}) (the point is off its windows or off \
             screen); pick a point inside one of its windows",
            target.label
        ));
    };
    if let Some(rule) = allowed(target.pid, window, frontmost) {
        return Ok(Some(rule));
    }
    Err(format!(
        "refused: the point ({x}, {y}) is covered by {}, so a pointer event there would go to \
         it, not to {}. {}",
        window.describe(),
        target.label,
        cover_fix(window)
    ))
}

/// What to do about a foreign window over the point, by what it is.
fn cover_fix(window: &WindowInfo) -> &'static str {
    match window.layer {
        l if (level::SCREEN_SAVER..level::CURSOR).contains(&l) => {
            "The screen saver or a system overlay is up: wake the display and turn the screen \
             saver off on unattended Macs (System Settings > Lock Screen)"
        }
        l if l >= level::POP_UP_MENU => {
            "A menu or pop-up of that app is open: close it (press escape in it) and retry"
        }
        level::DOCK => "The Dock covers the point: move the window away from it, or hide the Dock",
        level::MAIN_MENU | level::STATUS => {
            "That is the menu bar or a status item: act on the app's menus with semantic \
             actions (select a menu item) instead"
        }
        l if l > level::NORMAL => {
            "It floats above normal windows (a banner, panel or utility window): dismiss it \
             or wait for it to go, or use a semantic action instead"
        }
        _ => {
            "Move or close that window, bring the target's window forward (activate_app or \
             focus a window), or use a semantic action instead"
        }
    }
}

fn has_on_screen_window(target: Pid, observed: &Observed) -> bool {
    observed
        .windows
        .iter()
        .any(|w| w.pid == target && w.on_screen && w.layer >= level::NORMAL)
}

/// The target is frontmost but its windows are all off screen.
fn off_screen(target: &AppRef, observed: &Observed) -> String {
    let has_windows = observed.windows.iter().any(|w| w.pid == target.pid);
    if has_windows {
        format!(
            "refused: {} is frontmost but none of its windows is on screen (on another Space, \
             minimised or hidden){}; switch to its Space, restore a window (window_action \
             restore) or use a semantic action instead",
            target.label,
            tried(observed)
        )
    } else {
        format!(
            "refused: {} has no window on screen to take the event; open one, or use a \
             semantic action instead",
            target.label
        )
    }
}

/// The target did not come forward: names who is in front and what was tried.
fn not_in_front(target: &AppRef, observed: &Observed) -> String {
    let front = observed
        .frontmost
        .as_ref()
        .map_or_else(|| "no app".to_owned(), |f| f.label.clone());
    format!(
        "refused: {} is not frontmost{}; {front} is in front, so synthetic input would go \
         there. Bring {} forward by hand (click its Dock icon; check that it is not waiting \
         on another Space or behind a system dialog), or use a semantic action instead",
        target.label,
        tried(observed),
        target.label
    )
}

/// ` (tried AXFrontmost: failed (…), activateWithOptions, AXRaise within 1.5 s)`, or nothing.
fn tried(observed: &Observed) -> String {
    if observed.tried.is_empty() {
        return String::new();
    }
    let steps: Vec<String> = observed
        .tried
        .iter()
        .map(|(step, result)| match result {
            Ok(()) => step.name().to_owned(),
            Err(why) => format!("{} (failed: {why})", step.name()),
        })
        .collect();
    let total = LADDER[LADDER.len() - 1].1;
    format!(
        " (tried {} within {:.1} s)",
        steps.join(", "),
        total.as_secs_f64()
    )
}

#[cfg(test)]
#[path = "input_guard_tests.rs"]
mod tests;
