//! The facts behind the macOS readiness checks, all read without prompting: the
//! Accessibility grant (`AXIsProcessTrustedWithOptions` with prompt off; it also covers
//! posting input events, which `input.rs` re-checks before each gesture), the right to
//! record the screen, the GUI session (on the console, screen unlocked: a locked screen
//! yields inconsistent trees rather than errors) and the main run loop that delivers events.
//! The checks and their fix texts are `mac_logic::readiness`.
#![allow(unsafe_code)]

use accessibility_sys::{AXIsProcessTrustedWithOptions, kAXTrustedCheckOptionPrompt};
use core_foundation::base::{CFType, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::dictionary::{CFDictionary, CFDictionaryRef};
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;
use core_graphics::access::ScreenCaptureAccess;

use crate::ax::ReadinessCheck;

use super::runloop;
use crate::platform::mac_logic::failures;
use crate::platform::mac_logic::readiness::{self, Facts, Session};

#[link(name = "CoreGraphics", kind = "framework")]
unsafe extern "C" {
    /// The window-server session dictionary (+1), or null outside a GUI session.
    fn CGSessionCopyCurrentDictionary() -> CFDictionaryRef;
}

/// Session dictionary keys (the values of `kCGSessionOnConsoleKey` and the screen-lock key).
const ON_CONSOLE_KEY: &str = "kCGSSessionOnConsoleKey";
const SCREEN_LOCKED_KEY: &str = "CGSSessionScreenIsLocked";

pub(super) fn readiness() -> Vec<ReadinessCheck> {
    readiness::checks(Facts {
        ax_trusted: ax_trusted(),
        screen_recording: ScreenCaptureAccess.preflight(),
        session: session(),
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
