//! Readiness checks of the macOS backend, all without prompting: the Accessibility grant
//! (`AXIsProcessTrustedWithOptions` with prompt off; it also covers posting input events,
//! which `input.rs` re-checks before each gesture), the right to record the screen, the GUI session (on the console, screen unlocked: a locked screen yields
//! inconsistent trees rather than errors) and the main run loop that delivers events. Each
//! failing check says how to fix it.
#![allow(unsafe_code)]

use accessibility_sys::{AXIsProcessTrustedWithOptions, kAXTrustedCheckOptionPrompt};
use core_foundation::base::{CFType, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::dictionary::{CFDictionary, CFDictionaryRef};
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;
use core_graphics::access::ScreenCaptureAccess;

use crate::ax::ReadinessCheck;

use super::errors::accessibility_fix;
use super::runloop;

#[link(name = "CoreGraphics", kind = "framework")]
unsafe extern "C" {
    /// The window-server session dictionary (+1), or null outside a GUI session.
    fn CGSessionCopyCurrentDictionary() -> CFDictionaryRef;
}

/// Session dictionary keys (the values of `kCGSessionOnConsoleKey` and the screen-lock key).
const ON_CONSOLE_KEY: &str = "kCGSSessionOnConsoleKey";
const SCREEN_LOCKED_KEY: &str = "CGSSessionScreenIsLocked";

pub(super) fn readiness() -> Vec<ReadinessCheck> {
    let session = session();
    vec![
        check("ax_trusted", ax_trusted(), accessibility_fix),
        check(
            "screen_recording",
            ScreenCaptureAccess.preflight(),
            screen_recording_fix,
        ),
        check("gui_session", session.is_some_and(|s| s.on_console), || {
            "axgate is not running in the logged-in user's GUI (Aqua) session: run it as a \
             LaunchAgent of that user (from SSH: launchctl bootstrap gui/<uid> …), never as a \
             LaunchDaemon or a plain SSH process, and enable auto-login on unattended Macs"
                .to_owned()
        }),
        check(
            "screen_unlocked",
            !session.is_some_and(|s| s.locked),
            || {
                "the screen is locked, so apps report inconsistent trees: unlock it, and on \
             unattended Macs turn off the screen lock and screen saver (System Settings > \
             Lock Screen) and display sleep (pmset displaysleep 0 sleep 0)"
                    .to_owned()
            },
        ),
        check("main_run_loop", runloop::is_running(), || {
            "the main run loop is not running, so no change events are delivered: start \
             axgate through platform::macos::run_with_main_loop"
                .to_owned()
        }),
    ]
}

/// Fix-it text for a missing Screen Recording grant.
pub(super) fn screen_recording_fix() -> String {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "the axgate binary".to_owned());
    format!(
        "Screen Recording is not granted to {exe}: enable it in System Settings > Privacy & \
         Security > Screen & System Audio Recording (Screen Recording before macOS 15), then \
         restart axgate"
    )
}

fn check(name: &'static str, ok: bool, fix: impl FnOnce() -> String) -> ReadinessCheck {
    ReadinessCheck {
        name,
        ok,
        detail: if ok { String::new() } else { fix() },
    }
}

fn ax_trusted() -> bool {
    // SAFETY: an immutable framework constant, retained by the wrapper (Get rule).
    let prompt = unsafe { CFString::wrap_under_get_rule(kAXTrustedCheckOptionPrompt) };
    let options = CFDictionary::from_CFType_pairs(&[(prompt, CFBoolean::false_value())]);
    // SAFETY: a valid options dictionary; with the prompt off this only reads TCC state.
    unsafe { AXIsProcessTrustedWithOptions(options.as_concrete_TypeRef()) }
}

#[derive(Clone, Copy)]
struct Session {
    on_console: bool,
    locked: bool,
}

/// The GUI session's state; `None` outside a GUI session.
fn session() -> Option<Session> {
    // SAFETY: no preconditions; returns a +1 dictionary or null.
    let raw = unsafe { CGSessionCopyCurrentDictionary() };
    if raw.is_null() {
        return None;
    }
    // SAFETY: a non-null dictionary we own one reference to (Create rule).
    let dict: CFDictionary<CFString, CFType> = unsafe { CFDictionary::wrap_under_create_rule(raw) };
    let flag = |key: &'static str| {
        let value = dict.find(CFString::from_static_string(key))?;
        if let Some(b) = value.downcast::<CFBoolean>() {
            return Some(bool::from(b));
        }
        value
            .downcast::<CFNumber>()
            .and_then(|n| n.to_i64())
            .map(|n| n != 0)
    };
    Some(Session {
        on_console: flag(ON_CONSOLE_KEY).unwrap_or(false),
        locked: flag(SCREEN_LOCKED_KEY).unwrap_or(false),
    })
}
