//! The readiness checks of the macOS backend, decided from facts the adapter gathers without
//! prompting (the Accessibility grant, the Screen Recording grant, the GUI session's state,
//! the main run loop). Each failing check says how to fix it.

use crate::ax::ReadinessCheck;

use super::failures::{accessibility_fix, exe_label, screen_recording_fix};

/// The GUI session, from the window server's session dictionary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Session {
    pub(crate) on_console: bool,
    pub(crate) locked: bool,
}

/// What the adapter found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    pub(crate) ax_trusted: bool,
    pub(crate) screen_recording: bool,
    /// `None` outside a GUI session (SSH, a LaunchDaemon).
    pub(crate) session: Option<Session>,
    pub(crate) main_loop: bool,
}

/// The checks, in a stable order: `ax_trusted`, `screen_recording`, `gui_session`,
/// `screen_unlocked`, `main_run_loop`.
pub(crate) fn checks(facts: Facts) -> Vec<ReadinessCheck> {
    vec![
        check("ax_trusted", facts.ax_trusted, || {
            accessibility_fix(&exe_label())
        }),
        check("screen_recording", facts.screen_recording, || {
            screen_recording_fix(&exe_label())
        }),
        check(
            "gui_session",
            facts.session.is_some_and(|s| s.on_console),
            || {
                "axgate is not running in the logged-in user's GUI (Aqua) session: run it as a \
                 LaunchAgent of that user (from SSH: launchctl bootstrap gui/<uid> …), never \
                 as a LaunchDaemon or a plain SSH process, and enable auto-login on unattended \
                 Macs"
                    .to_owned()
            },
        ),
        check(
            "screen_unlocked",
            !facts.session.is_some_and(|s| s.locked),
            || {
                "the screen is locked, so apps report inconsistent trees: unlock it, and on \
                 unattended Macs turn off the screen lock and screen saver (System Settings > \
                 Lock Screen) and display sleep (pmset displaysleep 0 sleep 0)"
                    .to_owned()
            },
        ),
        check("main_run_loop", facts.main_loop, || {
            "the main run loop is not running, so no change events are delivered: start \
             axgate through platform::macos::run_with_main_loop"
                .to_owned()
        }),
    ]
}

fn check(name: &'static str, ok: bool, fix: impl FnOnce() -> String) -> ReadinessCheck {
    ReadinessCheck {
        name,
        ok,
        detail: if ok { String::new() } else { fix() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const READY: Facts = Facts {
        ax_trusted: true,
        screen_recording: true,
        session: Some(Session {
            on_console: true,
            locked: false,
        }),
        main_loop: true,
    };

    fn failing(facts: Facts) -> Vec<&'static str> {
        let checks = checks(facts);
        assert!(
            checks.iter().all(|c| c.ok == c.detail.is_empty()),
            "{checks:?}"
        );
        checks.iter().filter(|c| !c.ok).map(|c| c.name).collect()
    }

    #[test]
    fn a_ready_mac_passes_every_check() {
        let names: Vec<_> = checks(READY).iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "ax_trusted",
                "screen_recording",
                "gui_session",
                "screen_unlocked",
                "main_run_loop"
            ]
        );
        assert!(failing(READY).is_empty());
    }

    #[test]
    fn outside_a_gui_session_only_the_session_fails() {
        let ssh = Facts {
            session: None,
            ..READY
        };
        assert_eq!(failing(ssh), ["gui_session"]);
    }

    #[test]
    fn a_locked_screen_and_missing_grants_are_reported_with_a_fix() {
        let facts = Facts {
            ax_trusted: false,
            screen_recording: false,
            session: Some(Session {
                on_console: true,
                locked: true,
            }),
            main_loop: true,
        };
        assert_eq!(
            failing(facts),
            ["ax_trusted", "screen_recording", "screen_unlocked"]
        );
        let checks = checks(facts);
        assert!(checks[3].detail.contains("pmset"), "{}", checks[3].detail);
    }
}
