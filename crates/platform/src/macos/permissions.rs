//! The facts behind the macOS readiness checks, all read without prompting: the
//! Accessibility grant (`AXIsProcessTrustedWithOptions` with prompt off), the right to post
//! input events (`CGPreflightPostEventAccess`, which `input.rs` re-checks before each
//! gesture), the right to record the screen, the GUI session (on the console, screen unlocked:
//! a locked screen yields inconsistent trees rather than errors), the active displays and
//! whether the main one sleeps, Secure Input and the process holding it, the frontmost
//! process (loginwindow means nobody is at the screen) and the main run loop that delivers
//! events. The checks and their fix texts are `mac_logic::readiness`.
#![allow(unsafe_code)]

use accessibility_sys::{AXIsProcessTrustedWithOptions, kAXTrustedCheckOptionPrompt};
use core_foundation::base::{CFType, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::dictionary::{CFDictionary, CFDictionaryRef};
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;
use core_graphics::access::ScreenCaptureAccess;
use core_graphics::display::CGDisplay;
use objc2::rc::autoreleasepool;
use objc2_app_kit::{NSRunningApplication, NSWorkspace};

use axgate_engine::{Pid, ReadinessCheck};

use super::runloop;
use crate::mac_logic::failures;
use crate::mac_logic::readiness::{self, Displays, Facts, SecureInput, Session};

#[link(name = "CoreGraphics", kind = "framework")]
unsafe extern "C" {
    /// The window-server session dictionary (+1), or null outside a GUI session.
    fn CGSessionCopyCurrentDictionary() -> CFDictionaryRef;
    /// macOS 10.15+: whether this process may post events, without prompting.
    fn CGPreflightPostEventAccess() -> bool;
}

/// Whether this process may post input events (the `post_events` readiness check, and
/// `input.rs` before each synthetic event).
pub(super) fn may_post_events() -> bool {
    // SAFETY: no arguments or preconditions; only reads the TCC state.
    unsafe { CGPreflightPostEventAccess() }
}

#[link(name = "Carbon", kind = "framework")]
unsafe extern "C" {
    /// Whether any process has Secure Input (secure event input) on.
    fn IsSecureEventInputEnabled() -> u8;
}

/// Session dictionary keys (the values of `kCGSessionOnConsoleKey` and the screen-lock key).
const ON_CONSOLE_KEY: &str = "kCGSSessionOnConsoleKey";
const SCREEN_LOCKED_KEY: &str = "CGSSessionScreenIsLocked";
/// The pid holding Secure Input, in the same dictionary (what `ioreg -l` shows).
const SECURE_INPUT_PID_KEY: &str = "kCGSSessionSecureInputPID";

pub(super) fn readiness() -> Vec<ReadinessCheck> {
    let dict = session_dictionary();
    readiness::checks(&Facts {
        ax_trusted: ax_trusted(),
        post_events: may_post_events(),
        screen_recording: ScreenCaptureAccess.preflight(),
        session: dict.as_ref().map(session),
        displays: displays(),
        secure_input: secure_input(dict.as_ref()),
        frontmost: frontmost(),
        main_loop: runloop::is_running(),
    })
}

/// Fix-it text for a missing Screen Recording grant of this binary.
pub(super) fn screen_recording_fix() -> String {
    failures::screen_recording_fix(&failures::exe_label())
}

fn ax_trusted() -> bool {
    // SAFETY: an immutable framework constant, retained by the wrapper (Get rule).
    let prompt = unsafe { CFString::wrap_under_get_rule(kAXTrustedCheckOptionPrompt) };
    let options = CFDictionary::from_CFType_pairs(&[(prompt, CFBoolean::false_value())]);
    // SAFETY: a valid options dictionary; with the prompt off this only reads TCC state.
    unsafe { AXIsProcessTrustedWithOptions(options.as_concrete_TypeRef()) }
}

type SessionDict = CFDictionary<CFString, CFType>;

/// The window server's session dictionary; `None` outside a GUI session.
fn session_dictionary() -> Option<SessionDict> {
    // SAFETY: no preconditions; returns a +1 dictionary or null.
    let raw = unsafe { CGSessionCopyCurrentDictionary() };
    if raw.is_null() {
        return None;
    }
    // SAFETY: a non-null dictionary we own one reference to (Create rule).
    Some(unsafe { CFDictionary::wrap_under_create_rule(raw) })
}

/// A number or boolean of the session dictionary, as an integer.
fn number(dict: &SessionDict, key: &'static str) -> Option<i64> {
    let value = dict.find(CFString::from_static_string(key))?;
    if let Some(b) = value.downcast::<CFBoolean>() {
        return Some(i64::from(bool::from(b)));
    }
    value.downcast::<CFNumber>().and_then(|n| n.to_i64())
}

/// The GUI session's state.
fn session(dict: &SessionDict) -> Session {
    Session {
        on_console: number(dict, ON_CONSOLE_KEY).is_some_and(|n| n != 0),
        locked: number(dict, SCREEN_LOCKED_KEY).is_some_and(|n| n != 0),
    }
}

/// How many displays are active and whether the main one sleeps.
fn displays() -> Displays {
    let active = CGDisplay::active_displays().map_or(0, |ids| ids.len());
    Displays {
        active: u32::try_from(active).unwrap_or(u32::MAX),
        main_asleep: CGDisplay::main().is_asleep(),
    }
}

/// Secure Input and who holds it, when it is on.
fn secure_input(dict: Option<&SessionDict>) -> Option<SecureInput> {
    // SAFETY: no arguments; a read of the event system's state.
    if unsafe { IsSecureEventInputEnabled() } == 0 {
        return None;
    }
    let holder = dict
        .and_then(|d| number(d, SECURE_INPUT_PID_KEY))
        .and_then(|pid| i32::try_from(pid).ok())
        .filter(|pid| *pid > 0)
        .map(|pid| {
            let name = autoreleasepool(|_| {
                NSRunningApplication::runningApplicationWithProcessIdentifier(pid)
                    .and_then(|app| app.localizedName())
                    .map(|name| name.to_string())
            });
            (pid, name)
        });
    Some(SecureInput { holder })
}

/// The pid holding Secure Input, when it is on and the session names the holder (typing
/// reads its text back while another process holds it, and names the holder when the text
/// did not land; nothing is refused for it).
pub(super) fn secure_input_holder() -> Option<Pid> {
    let (pid, _) = secure_input(session_dictionary().as_ref())?.holder?;
    Pid::try_from(pid).ok()
}

/// The bundle id of the frontmost app, from the workspace's cache.
fn frontmost() -> Option<String> {
    autoreleasepool(|_| {
        NSWorkspace::sharedWorkspace()
            .frontmostApplication()
            .and_then(|app| app.bundleIdentifier())
            .map(|id| id.to_string())
    })
}
