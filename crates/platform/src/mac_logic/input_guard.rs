//! May a synthetic pointer or key event be posted? Synthetic events go to whatever is
//! frontmost and under the pointer, not to the app a call names, so before posting the
//! macOS adapter activates the app (checking the error), raises its window, waits until the
//! app is frontmost, and for pointer events hit-tests the point with the system-wide
//! element; for key events it asks whether another process holds Secure Input (macOS then
//! delivers typed keys to that process only). This file decides from what it observed; the
//! adapter only gathers the facts.
//! Plain Rust, no Apple types: tested here with recorded observations.

use std::time::Duration;

use axgate_engine::Pid;

/// An app as error messages name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AppRef {
    pub(crate) pid: Pid,
    /// `Name (pid N)`.
    pub(crate) label: String,
}

/// How asking the app to come forward went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Activation {
    Done,
    /// The request failed (the text says how); the app may be frontmost anyway.
    Failed(String),
}

/// What owns the point a pointer event goes to, by the system-wide hit test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PointOwner {
    App(AppRef),
    /// No accessible element is there (the desktop, or off every screen).
    Nobody,
    /// The hit test failed (the text says how; a hung app in front answers nothing).
    Unknown(String),
}

/// The event about to be posted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Event {
    /// Keys go to the frontmost app's focused element.
    Keys,
    /// A pointer event at a global point.
    Pointer { at: (f64, f64) },
}

/// What the adapter observed just before posting.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Observed {
    pub(crate) activation: Activation,
    /// The frontmost app (the system-wide `AXFocusedApplication`), if any.
    pub(crate) frontmost: Option<AppRef>,
    /// Who owns the event's point; `None` for key events.
    pub(crate) at_point: Option<PointOwner>,
    /// The process holding Secure Input, for key events; `None` when it is off (or not
    /// asked: pointer events).
    pub(crate) secure_input: Option<AppRef>,
}

/// How long to wait for an activation to take effect, poll by poll: activation on macOS
/// 14+ is cooperative and asynchronous, so the first check often comes too early.
pub(crate) const FRONTMOST_POLLS: &[Duration] = &[
    Duration::from_millis(0),
    Duration::from_millis(20),
    Duration::from_millis(40),
    Duration::from_millis(80),
    Duration::from_millis(160),
];

/// Whether the target is frontmost yet (the adapter stops polling when it is).
pub(crate) fn is_frontmost(target: Pid, observed: &Observed) -> bool {
    observed.frontmost.as_ref().is_some_and(|f| f.pid == target)
}

/// Allows the event, or says why it would land elsewhere.
pub(crate) fn may_post(target: &AppRef, event: Event, observed: &Observed) -> Result<(), String> {
    if !is_frontmost(target.pid, observed) {
        let front = observed
            .frontmost
            .as_ref()
            .map_or_else(|| "no app".to_owned(), |f| f.label.clone());
        let why = match &observed.activation {
            Activation::Done => "it did not come forward".to_owned(),
            Activation::Failed(reason) => format!("activating it failed: {reason}"),
        };
        return Err(format!(
            "{} is not frontmost ({why}); {front} is in front, so synthetic input would go \
             there. Bring {} forward (activate_app or focus a window), or use a semantic \
             action instead",
            target.label, target.label
        ));
    }
    let Event::Pointer { at: (x, y) } = event else {
        return match &observed.secure_input {
            Some(holder) if holder.pid != target.pid => Err(format!(
                "Secure Input is on, held by {}, so macOS delivers typed keys only to it, not to \
                 {}. Close that app's password field or its secure keyboard entry, or set the \
                 value semantically (set_value) instead",
                holder.label, target.label
            )),
            _ => Ok(()),
        };
    };
    match &observed.at_point {
        Some(PointOwner::App(owner)) if owner.pid == target.pid => Ok(()),
        Some(PointOwner::App(owner)) => Err(format!(
            "a window of {} covers ({x}, {y}); a pointer event there would go to it, not to {}. \
             Move or close that window, or use a semantic action instead",
            owner.label, target.label
        )),
        Some(PointOwner::Nobody) | None => Err(format!(
            "nothing of {} is at ({x}, {y}) (the point is off its windows or off screen)",
            target.label
        )),
        Some(PointOwner::Unknown(reason)) => Err(format!(
            "cannot tell what is at ({x}, {y}) ({reason}), so a pointer event there might not \
             reach {}; retry, or use a semantic action instead",
            target.label
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(pid: Pid, name: &str) -> AppRef {
        AppRef {
            pid,
            label: format!("{name} (pid {pid})"),
        }
    }

    fn observed(frontmost: Option<AppRef>, at_point: Option<PointOwner>) -> Observed {
        Observed {
            activation: Activation::Done,
            frontmost,
            at_point,
            secure_input: None,
        }
    }

    const CLICK: Event = Event::Pointer { at: (100.0, 200.0) };

    #[test]
    fn frontmost_and_on_top_may_post() {
        let notes = app(42, "Notes");
        let seen = observed(Some(notes.clone()), Some(PointOwner::App(notes.clone())));
        assert_eq!(may_post(&notes, CLICK, &seen), Ok(()));
        assert_eq!(may_post(&notes, Event::Keys, &seen), Ok(()));
    }

    #[test]
    fn keys_need_no_hit_test() {
        let notes = app(42, "Notes");
        assert_eq!(
            may_post(&notes, Event::Keys, &observed(Some(notes.clone()), None)),
            Ok(())
        );
    }

    #[test]
    fn another_app_in_front_is_named() {
        let notes = app(42, "Notes");
        let mail = app(7, "Mail");
        let seen = Observed {
            activation: Activation::Failed("kAXErrorCannotComplete".into()),
            frontmost: Some(mail.clone()),
            at_point: Some(PointOwner::App(mail)),
            secure_input: None,
        };
        for event in [CLICK, Event::Keys] {
            let err = may_post(&notes, event, &seen).unwrap_err();
            assert!(err.contains("Mail (pid 7) is in front"), "{err}");
            assert!(err.contains("Notes (pid 42) is not frontmost"), "{err}");
            assert!(err.contains("kAXErrorCannotComplete"), "{err}");
        }
        let nobody = observed(None, None);
        let err = may_post(&notes, Event::Keys, &nobody).unwrap_err();
        assert!(err.contains("no app is in front"), "{err}");
    }

    #[test]
    fn an_activation_error_does_not_matter_once_frontmost() {
        let notes = app(42, "Notes");
        let seen = Observed {
            activation: Activation::Failed("unsupported".into()),
            frontmost: Some(notes.clone()),
            at_point: Some(PointOwner::App(notes.clone())),
            secure_input: None,
        };
        assert_eq!(may_post(&notes, CLICK, &seen), Ok(()));
    }

    #[test]
    fn a_window_of_another_app_over_the_point_refuses_pointer_events() {
        // Regression: the hit test asked the target app's own element, so a floating window
        // of another app over the point went unnoticed.
        let notes = app(42, "Notes");
        let seen = observed(Some(notes.clone()), Some(PointOwner::App(app(99, "Zoom"))));
        let err = may_post(&notes, CLICK, &seen).unwrap_err();
        assert!(
            err.contains("a window of Zoom (pid 99) covers (100, 200)"),
            "{err}"
        );
        assert_eq!(may_post(&notes, Event::Keys, &seen), Ok(()));
    }

    #[test]
    fn nothing_at_the_point_refuses_pointer_events() {
        let notes = app(42, "Notes");
        let seen = observed(Some(notes.clone()), Some(PointOwner::Nobody));
        let err = may_post(&notes, CLICK, &seen).unwrap_err();
        assert!(err.contains("nothing of Notes (pid 42)"), "{err}");
    }

    #[test]
    fn a_failed_hit_test_refuses_pointer_events_only() {
        let notes = app(42, "Notes");
        let seen = observed(
            Some(notes.clone()),
            Some(PointOwner::Unknown("kAXErrorCannotComplete".into())),
        );
        let err = may_post(&notes, CLICK, &seen).unwrap_err();
        assert!(err.contains("cannot tell what is at (100, 200)"), "{err}");
        assert!(err.contains("kAXErrorCannotComplete"), "{err}");
        assert_eq!(may_post(&notes, Event::Keys, &seen), Ok(()));
    }

    #[test]
    fn secure_input_held_by_another_process_refuses_keys_but_not_clicks() {
        let notes = app(42, "Notes");
        let mut seen = observed(Some(notes.clone()), Some(PointOwner::App(notes.clone())));
        seen.secure_input = Some(app(412, "Terminal"));
        let err = may_post(&notes, Event::Keys, &seen).unwrap_err();
        assert!(err.contains("held by Terminal (pid 412)"), "{err}");
        assert!(err.contains("not to Notes (pid 42)"), "{err}");
        assert_eq!(may_post(&notes, CLICK, &seen), Ok(()));
        // The target's own password field turns Secure Input on for itself: keys reach it.
        seen.secure_input = Some(notes.clone());
        assert_eq!(may_post(&notes, Event::Keys, &seen), Ok(()));
    }

    #[test]
    fn polling_starts_at_once_and_stays_short() {
        assert_eq!(FRONTMOST_POLLS[0], Duration::ZERO);
        let total: Duration = FRONTMOST_POLLS.iter().sum();
        assert!(total <= Duration::from_millis(500), "{total:?}");
        assert!(is_frontmost(1, &observed(Some(app(1, "A")), None)));
        assert!(!is_frontmost(1, &observed(Some(app(2, "B")), None)));
    }
}
