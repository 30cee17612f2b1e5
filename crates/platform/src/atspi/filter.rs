//! Which AT-SPI events become engine change events, and the debouncing of floods. Animated
//! widgets send bounds changes continuously (hundreds per second in gtk3-widget-factory) and
//! caret moves and visible-data changes carry nothing the engine re-reads for, so those are
//! dropped or thinned here. Plain logic.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axgate_engine::{ChangeKind, Pid};

/// How often an app may report bounds changes.
pub(super) const BOUNDS_EVERY: Duration = Duration::from_millis(250);

/// The change kind of an AT-SPI event (`interface` is the last part of
/// `org.a11y.atspi.Event.*`, `member` the signal, `kind` its first argument), if it is one
/// the engine wants.
pub(super) fn classify(
    interface: &str,
    member: &str,
    kind: &str,
    detail1: i32,
) -> Option<ChangeKind> {
    let kind = kind.split(':').next().unwrap_or(kind);
    match (interface, member) {
        ("Object", "StateChanged") => match kind {
            "focused" if detail1 != 0 => Some(ChangeKind::FocusChanged),
            "focused" => None,
            _ => Some(ChangeKind::StateChanged),
        },
        ("Object", "PropertyChange") => match kind {
            "accessible-name" | "accessible-description" => Some(ChangeKind::TitleChanged),
            "accessible-value" => Some(ChangeKind::ValueChanged),
            "accessible-parent" | "accessible-role" => Some(ChangeKind::ChildrenChanged),
            _ => None,
        },
        ("Object", "TextChanged" | "ValueChanged") => Some(ChangeKind::ValueChanged),
        ("Object", "ChildrenChanged") => Some(ChangeKind::ChildrenChanged),
        ("Object", "SelectionChanged") => Some(ChangeKind::StateChanged),
        ("Object", "BoundsChanged") => Some(ChangeKind::BoundsChanged),
        ("Window", "Create") => Some(ChangeKind::WindowCreated),
        ("Window", "Destroy") => Some(ChangeKind::WindowClosed),
        ("Window", "Activate" | "Deactivate") => Some(ChangeKind::FocusChanged),
        ("Focus", "Focus") => Some(ChangeKind::FocusChanged),
        _ => None,
    }
}

/// The registry event names to register, so apps emit them.
pub(super) const REGISTRY_EVENTS: &[&str] = &[
    "object:state-changed",
    "object:property-change",
    "object:children-changed",
    "object:text-changed",
    "object:value-changed",
    "object:selection-changed",
    "object:bounds-changed",
    "window:create",
    "window:destroy",
    "window:activate",
    "window:deactivate",
    "focus:",
];

/// Thins bounds-change floods to one per app per [`BOUNDS_EVERY`].
#[derive(Default)]
pub(super) struct Debounce {
    last: HashMap<Pid, Instant>,
}

impl Debounce {
    /// Whether an event of `kind` from `pid` at `now` passes.
    pub(super) fn admit(&mut self, pid: Pid, kind: ChangeKind, now: Instant) -> bool {
        if kind != ChangeKind::BoundsChanged {
            return true;
        }
        match self.last.get(&pid) {
            Some(t) if now.duration_since(*t) < BOUNDS_EVERY => false,
            _ => {
                self.last.insert(pid, now);
                true
            }
        }
    }

    /// Forgets an app that exited.
    pub(super) fn forget(&mut self, pid: Pid) {
        self.last.remove(&pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_map_to_kinds() {
        let c = classify;
        assert_eq!(
            c("Object", "StateChanged", "focused", 1),
            Some(ChangeKind::FocusChanged)
        );
        assert_eq!(c("Object", "StateChanged", "focused", 0), None);
        assert_eq!(
            c("Object", "StateChanged", "checked", 1),
            Some(ChangeKind::StateChanged)
        );
        assert_eq!(
            c("Object", "PropertyChange", "accessible-name", 0),
            Some(ChangeKind::TitleChanged)
        );
        assert_eq!(
            c("Object", "PropertyChange", "accessible-value", 0),
            Some(ChangeKind::ValueChanged)
        );
        assert_eq!(
            c("Object", "TextChanged", "insert:system", 0),
            Some(ChangeKind::ValueChanged)
        );
        assert_eq!(
            c("Object", "ChildrenChanged", "add", 0),
            Some(ChangeKind::ChildrenChanged)
        );
        assert_eq!(
            c("Window", "Create", "", 0),
            Some(ChangeKind::WindowCreated)
        );
        assert_eq!(c("Object", "TextCaretMoved", "", 5), None);
        assert_eq!(c("Object", "VisibleDataChanged", "", 0), None);
    }

    #[test]
    fn bounds_floods_are_thinned_per_app() {
        let mut d = Debounce::default();
        let t0 = Instant::now();
        let b = ChangeKind::BoundsChanged;
        assert!(d.admit(1, b, t0));
        assert!(!d.admit(1, b, t0 + Duration::from_millis(10)));
        assert!(d.admit(2, b, t0 + Duration::from_millis(10)), "another app");
        assert!(d.admit(1, ChangeKind::ValueChanged, t0), "other kinds pass");
        assert!(d.admit(1, b, t0 + BOUNDS_EVERY));
        // 330 bounds events over one second come out as four.
        let mut d = Debounce::default();
        let passed = (0..330)
            .filter(|i| d.admit(7, b, t0 + Duration::from_micros(i * 3_000)))
            .count();
        assert_eq!(passed, 4);
    }
}
