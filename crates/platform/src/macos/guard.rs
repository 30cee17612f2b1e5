//! The adapter half of the input guard: gathers what `mac_logic::input_guard` decides from
//! before a synthetic event is posted, and applies its activation ladder. It reads the
//! frontmost app (the system-wide `AXFocusedApplication`) and the window server's window
//! list (`window_list.rs`). When the app is already frontmost with its window on top it
//! activates and raises nothing (that would close its open menus and popovers); otherwise it
//! walks the ladder (`AXFrontmost`, `activateWithOptions`, `AXRaise` of the main window),
//! polling until the app is in front or the step's deadline passes. Secure Input is not
//! checked here: typing goes ahead and `typing.rs` reads back.

use std::thread;
use std::time::Instant;

use objc2::rc::autoreleasepool;
use objc2_app_kit::{NSApplicationActivationOptions, NSRunningApplication};

use crate::mac_logic::input_guard::{self, AppRef, Event, LADDER, Observed, POLL, Step};
use axgate_engine::{AxError, CallCtx, Pid};

use super::actions::{self, true_cf};
use super::attrs;
use super::element::AxElement;
use super::errors::{AxFailure, to_ax_error};
use super::{process, window_list};

/// Prepares `pid` for a synthetic `event` and refuses when the event would land elsewhere.
pub(super) fn ensure_target(pid: Pid, event: Event, ctx: &mut CallCtx) -> Result<(), AxError> {
    let started = Instant::now();
    let fail = |f: AxFailure| to_ax_error(f, pid, None, started);
    let system = AxElement::system_wide()
        .ok_or_else(|| AxError::Backend("cannot create the system-wide element".to_owned()))?;
    let target = app_ref(pid);
    let mut observed = observe(&system, ctx).map_err(fail)?;
    if !input_guard::in_front(pid, &observed) {
        let ladder_started = Instant::now();
        'ladder: for (step, until) in LADDER {
            let outcome = apply(step, pid, ctx).map_err(fail)?;
            let tried = std::mem::take(&mut observed.tried);
            loop {
                observed = Observed {
                    tried: tried.clone(),
                    ..observe(&system, ctx).map_err(fail)?
                };
                if input_guard::in_front(pid, &observed) {
                    observed.tried.push((step, outcome));
                    break 'ladder;
                }
                let elapsed = ladder_started.elapsed();
                if elapsed >= until || ctx.remaining() <= POLL {
                    break;
                }
                thread::sleep(POLL.min(until - elapsed));
            }
            observed.tried.push((step, outcome));
            if ctx.remaining() <= POLL {
                break;
            }
        }
    }
    input_guard::may_post(&target, event, &observed)
        .map(|_| ())
        .map_err(AxError::Unsupported)
}

/// The frontmost app and the window list, now. A failed frontmost query (the app in front
/// does not answer) leaves the front unknown, which the guard refuses: it is not a failure
/// of the target app.
fn observe(system: &AxElement, ctx: &mut CallCtx) -> Result<Observed, AxFailure> {
    let frontmost = match attrs::focused_application(system, ctx) {
        Ok(found) => found.and_then(|app| app.pid()).map(app_ref),
        Err(AxFailure::Deadline) => return Err(AxFailure::Deadline),
        Err(_) => None,
    };
    Ok(Observed {
        frontmost,
        windows: window_list::windows(),
        tried: Vec::new(),
    })
}

/// Takes one step of the activation ladder; `Err` in the outcome says how it failed. Only a
/// passed deadline or a timeout is an error of the call.
fn apply(step: Step, pid: Pid, ctx: &mut CallCtx) -> Result<Result<(), String>, AxFailure> {
    match step {
        Step::Frontmost => actions::bring_forward(pid, ctx),
        Step::ActivateWithOptions => Ok(activate_with_options(pid)),
        Step::RaiseWindow => raise_main_window(pid, ctx),
    }
}

/// `NSRunningApplication.activateWithOptions(.activateAllWindows)`: the AppKit way, which
/// also switches to the app's Space.
fn activate_with_options(pid: Pid) -> Result<(), String> {
    let raw = process::pid_t(pid).ok_or_else(|| format!("pid {pid} is not a process id"))?;
    autoreleasepool(|_| {
        let app = NSRunningApplication::runningApplicationWithProcessIdentifier(raw)
            .ok_or_else(|| format!("pid {pid} is no running application"))?;
        if app.activateWithOptions(NSApplicationActivationOptions::ActivateAllWindows) {
            Ok(())
        } else {
            Err("activateWithOptions returned false".to_owned())
        }
    })
}

/// Raises the app's main window (else its focused one) and makes it main. CannotComplete
/// after `AXRaise` means "delivered, unverified": the next observation verifies.
fn raise_main_window(pid: Pid, ctx: &mut CallCtx) -> Result<Result<(), String>, AxFailure> {
    let Some(app) = AxElement::application(pid) else {
        return Ok(Err(format!("pid {pid} is no application")));
    };
    let mut window = None;
    for attr in ["AXMainWindow", "AXFocusedWindow"] {
        match attrs::read_element(&app, attr, ctx) {
            Ok(Some(found)) => {
                window = Some(found);
                break;
            }
            Ok(None) => {}
            Err(f) if f.is_timeout() => return Err(f),
            Err(_) => {}
        }
    }
    let Some(window) = window else {
        return Ok(Err("it has no main or focused window".to_owned()));
    };
    match attrs::perform(&window, "AXRaise", ctx) {
        Err(AxFailure::Deadline) => return Err(AxFailure::Deadline),
        Err(f) if !f.is_timeout() => return Ok(Err(f.describe())),
        _ => {}
    }
    match attrs::write(&window, "AXMain", &true_cf(), ctx) {
        Err(AxFailure::Deadline) => Err(AxFailure::Deadline),
        _ => Ok(Ok(())),
    }
}

fn app_ref(pid: Pid) -> AppRef {
    AppRef {
        pid,
        label: process::label(pid),
    }
}
