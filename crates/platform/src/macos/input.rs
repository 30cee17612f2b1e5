//! Synthetic pointer input through CoreGraphics events posted at the HID tap: every gesture
//! (click, hover, long press, scroll, drag) as planned in `mac_logic::gestures`, the held keys'
//! flags set on every event (none held: flags cleared). Nothing is posted until the input guard (`guard.rs`) has the app frontmost and,
//! for pointer events, the point on one of its windows. Posting needs the Accessibility
//! grant, checked without prompting; `typing.rs` shares the checks and the event source.
#![allow(unsafe_code)]

use std::thread;
use std::time::{Duration, Instant};

use core_graphics::event::{
    CGEvent, CGEventFlags, CGEventTapLocation, CGEventType, CGMouseButton, EventField,
    ScrollEventUnit,
};
use core_graphics::event_source::{CGEventSource, CGEventSourceStateID};
use core_graphics::geometry::CGPoint;

use axgate_engine::backend::{MouseButton, Pointer};
use axgate_engine::keys::Modifiers;
use axgate_engine::{AxError, CallCtx, Pid};

use super::errors::accessibility_fix;
use super::guard;
use super::permissions;
use super::process;
use crate::mac_logic::gestures::{self, MouseKind, Step};
use crate::mac_logic::input_guard::Event;

/// Prepares synthetic input for `pid`: checks the grant, runs the input guard for `event`
/// and checks that `needed` fits before the deadline (a half-posted gesture is worse than
/// none). Returns the event source to post from.
pub(super) fn prepare(
    pid: Pid,
    event: Event,
    needed: Duration,
    ctx: &mut CallCtx,
) -> Result<CGEventSource, AxError> {
    let started = Instant::now();
    if !permissions::may_post_events() {
        return Err(AxError::Permission(format!(
            "posting input events is not allowed. {}",
            accessibility_fix()
        )));
    }
    guard::ensure_target(pid, event, ctx)?;
    if ctx.remaining() < needed {
        return Err(AxError::Timeout {
            app: process::label(pid),
            after: started.elapsed(),
        });
    }
    CGEventSource::new(CGEventSourceStateID::HIDSystemState)
        .map_err(|()| AxError::Backend("cannot create a CoreGraphics event source".to_owned()))
}

/// Posts one event at the HID tap with `flags` (the held keys).
fn post(event: &CGEvent, flags: CGEventFlags) {
    event.set_flags(flags);
    event.post(CGEventTapLocation::HID);
}

fn event_type(kind: MouseKind, button: MouseButton) -> CGEventType {
    match (kind, button) {
        (MouseKind::Moved, _) => CGEventType::MouseMoved,
        (MouseKind::Down, MouseButton::Left) => CGEventType::LeftMouseDown,
        (MouseKind::Down, MouseButton::Right) => CGEventType::RightMouseDown,
        (MouseKind::Up, MouseButton::Left) => CGEventType::LeftMouseUp,
        (MouseKind::Up, MouseButton::Right) => CGEventType::RightMouseUp,
        (MouseKind::Dragged, MouseButton::Left) => CGEventType::LeftMouseDragged,
        (MouseKind::Dragged, MouseButton::Right) => CGEventType::RightMouseDragged,
    }
}

/// Posts a pointer gesture: planned first (nothing is posted for a bad point or amount), then
/// the input guard decides on its first point, then every step is posted in order.
pub(super) fn pointer(pid: Pid, act: &Pointer, ctx: &mut CallCtx) -> Result<(), AxError> {
    let plan = gestures::plan(act)?;
    let at = plan.start().unwrap_or(act.at);
    let source = prepare(pid, Event::Pointer { at }, plan.duration(), ctx)?;
    let flags = flags(plan.held);
    for step in &plan.steps {
        match *step {
            Step::Mouse {
                kind,
                at,
                button,
                click_state,
            } => {
                let cg_button = match button {
                    MouseButton::Left => CGMouseButton::Left,
                    MouseButton::Right => CGMouseButton::Right,
                };
                let point = CGPoint::new(at.0, at.1);
                let event = CGEvent::new_mouse_event(
                    source.clone(),
                    event_type(kind, button),
                    point,
                    cg_button,
                )
                .map_err(|()| AxError::Backend("cannot create a mouse event".to_owned()))?;
                event.set_integer_value_field(EventField::MOUSE_EVENT_CLICK_STATE, click_state);
                post(&event, flags);
            }
            Step::Wheel {
                vertical,
                horizontal,
            } => {
                let event = CGEvent::new_scroll_event(
                    source.clone(),
                    ScrollEventUnit::LINE,
                    2,
                    vertical,
                    horizontal,
                    0,
                )
                .map_err(|()| AxError::Backend("cannot create a scroll event".to_owned()))?;
                post(&event, flags);
            }
            Step::Wait(pause) => thread::sleep(pause),
        }
    }
    Ok(())
}

/// The event flags of held keys (none: no flags).
pub(super) fn flags(modifiers: Modifiers) -> CGEventFlags {
    let mut flags = CGEventFlags::CGEventFlagNull;
    for (on, flag) in [
        (modifiers.cmd, CGEventFlags::CGEventFlagCommand),
        (modifiers.ctrl, CGEventFlags::CGEventFlagControl),
        (modifiers.opt, CGEventFlags::CGEventFlagAlternate),
        (modifiers.shift, CGEventFlags::CGEventFlagShift),
    ] {
        if on {
            flags |= flag;
        }
    }
    flags
}
