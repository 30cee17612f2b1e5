//! The adapter half of the input guard: gathers what `mac_logic::input_guard` decides from
//! before a synthetic event is posted. Activates the app (`AXFrontmost`, error kept), raises
//! its focused or main window (`AXRaise`), polls the system-wide `AXFocusedApplication`
//! until the app is frontmost, for pointer events hit-tests the point on the system-wide
//! element, so another app's window over the point is seen, and for key events asks which
//! process holds Secure Input.

use std::thread;
use std::time::Instant;

use crate::mac_logic::input_guard::{self, AppRef, Event, FRONTMOST_POLLS, Observed, PointOwner};
use axgate_engine::{AxError, CallCtx, Pid};

use super::actions;
use super::attrs;
use super::element::AxElement;
use super::errors::{AxFailure, to_ax_error};
use super::{permissions, process};

/// Prepares `pid` for a synthetic `event` and refuses when the event would land elsewhere.
pub(super) fn ensure_target(pid: Pid, event: Event, ctx: &mut CallCtx) -> Result<(), AxError> {
    let started = Instant::now();
    let fail = |f: AxFailure| to_ax_error(f, pid, None, started);
    let activation = actions::bring_forward(pid, ctx).map_err(fail)?;
    raise_front_window(pid, ctx).map_err(fail)?;
    let system = AxElement::system_wide()
        .ok_or_else(|| AxError::Backend("cannot create the system-wide element".to_owned()))?;
    let target = app_ref(pid);
    let mut observed = Observed {
        activation,
        frontmost: None,
        at_point: None,
        secure_input: None,
    };
    for pause in FRONTMOST_POLLS {
        if ctx.remaining() <= *pause {
            break;
        }
        thread::sleep(*pause);
        // A failed query (the app in front does not answer) leaves the front unknown, which
        // the guard refuses: it is not a failure of the target app.
        observed.frontmost = match attrs::focused_application(&system, ctx) {
            Ok(found) => found.and_then(|app| app.pid()).map(app_ref),
            Err(AxFailure::Deadline) => return Err(fail(AxFailure::Deadline)),
            Err(_) => None,
        };
        if input_guard::is_frontmost(pid, &observed) {
            break;
        }
    }
    if event == Event::Keys {
        observed.secure_input = permissions::secure_input_holder().map(app_ref);
    }
    if let Event::Pointer { at: (x, y) } = event {
        // The AX API takes single-precision points; screen coordinates fit easily.
        observed.at_point = Some(
            match attrs::system_element_at(&system, (x as f32, y as f32), ctx) {
                Ok(hit) => match hit.and_then(|element| element.pid()) {
                    Some(owner) => PointOwner::App(app_ref(owner)),
                    None => PointOwner::Nobody,
                },
                Err(AxFailure::Deadline) => return Err(fail(AxFailure::Deadline)),
                Err(f) => PointOwner::Unknown(f.describe()),
            },
        );
    }
    input_guard::may_post(&target, event, &observed).map_err(AxError::Unsupported)
}

fn app_ref(pid: Pid) -> AppRef {
    AppRef {
        pid,
        label: process::label(pid),
    }
}

/// Raises the app's focused window (else its main window). Only a timeout reading the window,
/// or a passed deadline, is an error: an app without windows (a menu-bar app) or one that
/// refuses still gets the guard's checks, and CannotComplete after `AXRaise` means
/// "delivered, unverified" (the frontmost check verifies).
fn raise_front_window(pid: Pid, ctx: &mut CallCtx) -> Result<(), AxFailure> {
    let Some(app) = AxElement::application(pid) else {
        return Ok(());
    };
    let mut window = None;
    for attr in ["AXFocusedWindow", "AXMainWindow"] {
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
        return Ok(());
    };
    match attrs::perform(&window, "AXRaise", ctx) {
        Err(AxFailure::Deadline) => Err(AxFailure::Deadline),
        _ => Ok(()),
    }
}
