//! The readiness checks of the macOS backend, decided from facts the adapter gathers without
//! prompting (the Accessibility grant, the right to post input events, the Screen Recording
//! grant, the GUI session's state, the displays, Secure Input, the frontmost process, the main
//! run loop). Each failing check says how to fix it.
//!
//! Checks come in two classes, one table ([`CLASSES`]): a failing *gate* means nothing can be
//! driven (`/readyz` 503, balancers send no one); a raised *advisory* means some calls may
//! fail while most work (`/readyz` stays 200 and names it). Secure Input is an advisory: it
//! is common on real Macs (loginwindow keeps it after an unlock, a password manager in the
//! background) and often stale, so typing goes ahead and reports when the text did not land.

use axgate_engine::{CheckClass, ReadinessCheck};

use super::failures::{accessibility_fix, exe_label, screen_recording_fix};

/// The GUI session, from the window server's session dictionary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Session {
    pub(crate) on_console: bool,
    pub(crate) locked: bool,
}

/// The displays, from the window server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Displays {
    /// Active displays (`CGGetActiveDisplayList`); 0 on a headless Mac without a dummy plug.
    pub(crate) active: u32,
    /// Whether the main display sleeps (`CGDisplayIsAsleep`).
    pub(crate) main_asleep: bool,
}

/// Secure Input (`IsSecureEventInputEnabled`): while it is on, macOS delivers key events
/// only to the process that turned it on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SecureInput {
    /// The process holding it, from the session's `kCGSSessionSecureInputPID`, with its name
    /// when it is a running app.
    pub(crate) holder: Option<(i32, Option<String>)>,
}

/// What the adapter found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    pub(crate) ax_trusted: bool,
    /// `CGPreflightPostEventAccess`: synthetic clicks and keys will be delivered.
    pub(crate) post_events: bool,
    pub(crate) screen_recording: bool,
    /// `None` outside a GUI session (SSH, a LaunchDaemon).
    pub(crate) session: Option<Session>,
    pub(crate) displays: Displays,
    /// `None` when Secure Input is off.
    pub(crate) secure_input: Option<SecureInput>,
    /// The bundle id of the frontmost process, when one is known.
    pub(crate) frontmost: Option<String>,
    pub(crate) main_loop: bool,
}

/// The bundle id of loginwindow, frontmost at the login window, the lock screen and the
/// fast-user-switching screen.
pub(crate) const LOGINWINDOW: &str = "com.apple.loginwindow";

/// The class of every check, and why: the one place a check is made a gate or an advisory.
pub(crate) const CLASSES: &[(&str, CheckClass, &str)] = &[
    (
        "ax_trusted",
        CheckClass::Gate,
        "without the Accessibility grant no tree can be read and nothing can be done",
    ),
    (
        "post_events",
        CheckClass::Gate,
        "the same grant as seen by the event system: without it no click or key is delivered",
    ),
    (
        "screen_recording",
        CheckClass::Advisory,
        "only screenshots need it; trees, semantic actions and input work without it",
    ),
    (
        "gui_session",
        CheckClass::Gate,
        "outside the logged-in Aqua session the AX API and the window server answer nothing",
    ),
    (
        "screen_unlocked",
        CheckClass::Gate,
        "behind the lock screen apps report inconsistent trees and input goes to loginwindow",
    ),
    (
        "display_present",
        CheckClass::Gate,
        "without any display macOS lays out no windows, so there is nothing to drive",
    ),
    (
        "display_awake",
        CheckClass::Advisory,
        "a sleeping display blacks out screenshots; trees and actions still work",
    ),
    (
        "secure_input",
        CheckClass::Advisory,
        "often stale (loginwindow after an unlock, a background password manager); typing goes \
         ahead, is read back and names the holder when it did not land",
    ),
    (
        "loginwindow_not_frontmost",
        CheckClass::Gate,
        "loginwindow in front means nobody is logged in at the screen: input goes nowhere",
    ),
    (
        "main_run_loop",
        CheckClass::Gate,
        "without the main run loop no change event arrives, so waits and verified acts fail",
    ),
];

/// The class of the check `name`; a check missing from [`CLASSES`] gates (fail closed).
pub(crate) fn class_of(name: &str) -> CheckClass {
    CLASSES
        .iter()
        .find(|(known, _, _)| *known == name)
        .map_or(CheckClass::Gate, |(_, class, _)| *class)
}

/// The checks, in the order of [`CLASSES`].
pub(crate) fn checks(facts: &Facts) -> Vec<ReadinessCheck> {
    vec![
        check("ax_trusted", facts.ax_trusted, || {
            accessibility_fix(&exe_label())
        }),
        check("post_events", facts.post_events, || {
            format!(
                "macOS will not deliver synthetic clicks and keys from {}: allow it under System \
                 Settings > Privacy & Security > Accessibility (on managed Macs a PPPC profile \
                 granting Accessibility and PostEvent to this binary's signing identity), then \
                 restart axgate",
                exe_label()
            )
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
        check("display_present", facts.displays.active > 0, || {
            "no display is active, and macOS lays out no windows without one: connect a display \
             or an HDMI/USB-C dummy plug to the headless Mac"
                .to_owned()
        }),
        check(
            "display_awake",
            facts.displays.active == 0 || !facts.displays.main_asleep,
            || {
                "the display is asleep, so windows are not drawn and screenshots are black: wake \
                 it (caffeinate -u -t 2) and keep it awake (sudo pmset -a displaysleep 0 sleep 0)"
                    .to_owned()
            },
        ),
        check("secure_input", facts.secure_input.is_none(), || {
            secure_input_fix(facts.secure_input.as_ref())
        }),
        check(
            "loginwindow_not_frontmost",
            facts.frontmost.as_deref() != Some(LOGINWINDOW),
            || {
                "loginwindow is frontmost (the login window, the lock screen or the user switcher), \
                 so input goes nowhere: log the user in, and enable auto-login on unattended Macs"
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

/// Names who holds Secure Input and how to release it.
fn secure_input_fix(secure: Option<&SecureInput>) -> String {
    let holder = match secure.and_then(|s| s.holder.as_ref()) {
        Some((pid, Some(name))) => format!("{name} (pid {pid})"),
        Some((pid, None)) => format!("pid {pid}"),
        None => "a process macOS does not name".to_owned(),
    };
    format!(
        "Secure Input is on, held by {holder}, so typed keys may reach only it; typing still \
         goes ahead and reports secure_input_held_by when the text did not land. To release \
         it, close the password field it has focused or turn off its secure keyboard entry \
         (Terminal > Secure Keyboard Entry), or quit it"
    )
}

fn check(name: &'static str, ok: bool, fix: impl FnOnce() -> String) -> ReadinessCheck {
    ReadinessCheck {
        name,
        class: class_of(name),
        ok,
        detail: if ok { String::new() } else { fix() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready() -> Facts {
        Facts {
            ax_trusted: true,
            post_events: true,
            screen_recording: true,
            session: Some(Session {
                on_console: true,
                locked: false,
            }),
            displays: Displays {
                active: 1,
                main_asleep: false,
            },
            secure_input: None,
            frontmost: Some("com.apple.finder".into()),
            main_loop: true,
        }
    }

    fn failing(facts: &Facts) -> Vec<&'static str> {
        let checks = checks(facts);
        assert!(
            checks.iter().all(|c| c.ok == c.detail.is_empty()),
            "{checks:?}"
        );
        checks.iter().filter(|c| !c.ok).map(|c| c.name).collect()
    }

    fn detail(facts: &Facts, name: &str) -> String {
        checks(facts)
            .into_iter()
            .find(|c| c.name == name)
            .map(|c| c.detail)
            .unwrap_or_else(|| panic!("no check {name}"))
    }

    #[test]
    fn a_ready_mac_passes_every_check() {
        let names: Vec<_> = checks(&ready()).iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "ax_trusted",
                "post_events",
                "screen_recording",
                "gui_session",
                "screen_unlocked",
                "display_present",
                "display_awake",
                "secure_input",
                "loginwindow_not_frontmost",
                "main_run_loop"
            ]
        );
        assert!(failing(&ready()).is_empty());
        let table: Vec<_> = CLASSES.iter().map(|(name, _, _)| *name).collect();
        assert_eq!(names, table, "every check has exactly one row in CLASSES");
    }

    /// The checks that fail and gate (what turns `/readyz` to 503).
    fn blocking(facts: &Facts) -> Vec<&'static str> {
        checks(facts)
            .iter()
            .filter(|c| c.blocks())
            .map(|c| c.name)
            .collect()
    }

    #[test]
    fn secure_input_a_missing_screen_recording_grant_and_a_sleeping_display_only_advise() {
        // Regression: Secure Input held by any process (a password manager in the
        // background) failed readiness, so /readyz said 503 and HAProxy took the Mac out.
        let advised = Facts {
            screen_recording: false,
            displays: Displays {
                active: 1,
                main_asleep: true,
            },
            secure_input: Some(SecureInput {
                holder: Some((412, Some("1Password".to_owned()))),
            }),
            ..ready()
        };
        assert_eq!(
            failing(&advised),
            ["screen_recording", "display_awake", "secure_input"]
        );
        assert!(blocking(&advised).is_empty());
        for c in checks(&advised).iter().filter(|c| !c.ok) {
            assert_eq!(c.class, CheckClass::Advisory, "{}", c.name);
        }
    }

    #[test]
    fn no_gui_session_no_accessibility_grant_and_a_locked_screen_gate() {
        for (facts, gate) in [
            (
                Facts {
                    session: None,
                    ..ready()
                },
                "gui_session",
            ),
            (
                Facts {
                    ax_trusted: false,
                    ..ready()
                },
                "ax_trusted",
            ),
            (
                Facts {
                    session: Some(Session {
                        on_console: true,
                        locked: true,
                    }),
                    ..ready()
                },
                "screen_unlocked",
            ),
        ] {
            assert_eq!(blocking(&facts), [gate]);
        }
        assert_eq!(class_of("no_such_check"), CheckClass::Gate, "fails closed");
    }

    #[test]
    fn outside_a_gui_session_only_the_session_fails() {
        let ssh = Facts {
            session: None,
            ..ready()
        };
        assert_eq!(failing(&ssh), ["gui_session"]);
    }

    #[test]
    fn a_locked_screen_and_missing_grants_are_reported_with_a_fix() {
        let facts = Facts {
            ax_trusted: false,
            post_events: false,
            screen_recording: false,
            session: Some(Session {
                on_console: true,
                locked: true,
            }),
            ..ready()
        };
        assert_eq!(
            failing(&facts),
            [
                "ax_trusted",
                "post_events",
                "screen_recording",
                "screen_unlocked"
            ]
        );
        assert!(detail(&facts, "screen_unlocked").contains("pmset"));
        assert!(detail(&facts, "post_events").contains("PostEvent"));
    }

    #[test]
    fn a_headless_mac_without_a_display_fails_only_the_presence_check() {
        let headless = Facts {
            displays: Displays {
                active: 0,
                main_asleep: true,
            },
            ..ready()
        };
        assert_eq!(failing(&headless), ["display_present"]);
        assert!(detail(&headless, "display_present").contains("dummy plug"));
        let asleep = Facts {
            displays: Displays {
                active: 1,
                main_asleep: true,
            },
            ..ready()
        };
        assert_eq!(failing(&asleep), ["display_awake"]);
        assert!(detail(&asleep, "display_awake").contains("caffeinate"));
    }

    #[test]
    fn secure_input_names_the_process_that_holds_it() {
        let held = |holder| Facts {
            secure_input: Some(SecureInput { holder }),
            ..ready()
        };
        let named = held(Some((412, Some("Terminal".to_owned()))));
        assert_eq!(failing(&named), ["secure_input"]);
        assert!(detail(&named, "secure_input").contains("Terminal (pid 412)"));
        assert!(detail(&named, "secure_input").contains("typing still goes ahead"));
        let pid_only = held(Some((77, None)));
        assert!(detail(&pid_only, "secure_input").contains("held by pid 77"));
        let unknown = held(None);
        assert!(detail(&unknown, "secure_input").contains("does not name"));
    }

    #[test]
    fn loginwindow_in_front_means_nobody_is_logged_in_to_the_screen() {
        let login = Facts {
            frontmost: Some(LOGINWINDOW.to_owned()),
            ..ready()
        };
        assert_eq!(failing(&login), ["loginwindow_not_frontmost"]);
        assert!(detail(&login, "loginwindow_not_frontmost").contains("auto-login"));
        let unknown = Facts {
            frontmost: None,
            ..ready()
        };
        assert!(failing(&unknown).is_empty());
    }
}
