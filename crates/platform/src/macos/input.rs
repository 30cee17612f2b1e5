//! Synthetic pointer input through CoreGraphics events posted at the HID tap: clicks, drags
//! and scrolling, as sequenced in `mac_logic::gestures`, with modifier flags cleared on every
//! event. Nothing is posted until the input guard (`guard.rs`) has the app frontmost and,
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

use axgate_engine::backend::{Click, MouseButton};
use axgate_engine::{AxError, CallCtx, Pid};

use super::errors::accessibility_fix;
use super::guard;
use super::permissions;
use super::process;
use crate::mac_logic::gestures::{self, Phase};
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

/// Posts one event at the HID tap with no modifier flags.
pub(super) fn post(event: &CGEvent) {
    event.set_flags(CGEventFlags::CGEventFlagNull);
    event.post(CGEventTapLocation::HID);
}

fn finite_point(point: (f64, f64), what: &str) -> Result<CGPoint, AxError> {
    if !gestures::is_finite_point(point) {
        return Err(AxError::InvalidValue {
            element: what.to_owned(),
            reason: "coordinates must be finite numbers".to_owned(),
        });
    }
    Ok(CGPoint::new(point.0, point.1))
}

fn mouse(
    source: &CGEventSource,
    kind: CGEventType,
    point: CGPoint,
    button: CGMouseButton,
    click_state: i64,
) -> Result<(), AxError> {
    let event = CGEvent::new_mouse_event(source.clone(), kind, point, button)
        .map_err(|()| AxError::Backend("cannot create a mouse event".to_owned()))?;
    event.set_integer_value_field(EventField::MOUSE_EVENT_CLICK_STATE, click_state);
    post(&event);
    Ok(())
}

/// Clicks `count` times (1–3) with `button` at a global point.
pub(super) fn click_at(pid: Pid, click: Click, ctx: &mut CallCtx) -> Result<(), AxError> {
    let Click {
        point,
        button,
        count,
    } = click;
    let point = finite_point(point, "the click point")?;
    let source = prepare(
        pid,
        Event::Pointer {
            at: (point.x, point.y),
        },
        gestures::click_duration(count),
        ctx,
    )?;
    let (cg_button, down, up) = match button {
        MouseButton::Left => (
            CGMouseButton::Left,
            CGEventType::LeftMouseDown,
            CGEventType::LeftMouseUp,
        ),
        MouseButton::Right => (
            CGMouseButton::Right,
            CGEventType::RightMouseDown,
            CGEventType::RightMouseUp,
        ),
    };
    mouse(&source, CGEventType::MouseMoved, point, cg_button, 0)?;
    thread::sleep(gestures::SETTLE);
    for step in gestures::click_steps(count) {
        let kind = match step.phase {
            Phase::Down => down,
            Phase::Up => up,
        };
        mouse(&source, kind, point, cg_button, step.click_state)?;
        thread::sleep(gestures::BETWEEN);
    }
    Ok(())
}

/// Drags with the left button: press at `from`, drag events along the way, release at `to`.
pub(super) fn drag(
    pid: Pid,
    from: (f64, f64),
    to: (f64, f64),
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let start = finite_point(from, "the drag start")?;
    let end = finite_point(to, "the drag end")?;
    let source = prepare(
        pid,
        Event::Pointer { at: from },
        gestures::drag_duration(),
        ctx,
    )?;
    let left = CGMouseButton::Left;
    mouse(&source, CGEventType::MouseMoved, start, left, 0)?;
    thread::sleep(gestures::SETTLE);
    mouse(&source, CGEventType::LeftMouseDown, start, left, 1)?;
    thread::sleep(gestures::BETWEEN);
    for (x, y) in gestures::drag_points(from, to) {
        mouse(
            &source,
            CGEventType::LeftMouseDragged,
            CGPoint::new(x, y),
            left,
            1,
        )?;
        thread::sleep(gestures::BETWEEN);
    }
    thread::sleep(gestures::SETTLE);
    mouse(&source, CGEventType::LeftMouseUp, end, left, 1)
}

/// Scrolls by `(dx, dy)` lines at a point (positive `dy` scrolls down).
pub(super) fn scroll(
    pid: Pid,
    point: (f64, f64),
    delta: (f64, f64),
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let at = finite_point(point, "the scroll point")?;
    let Some((vertical, horizontal)) = gestures::scroll_wheels(delta) else {
        return Err(AxError::InvalidValue {
            element: "the scroll amount".to_owned(),
            reason: "give at least one whole line as finite numbers".to_owned(),
        });
    };
    let source = prepare(
        pid,
        Event::Pointer { at: point },
        gestures::SETTLE + gestures::BETWEEN * 2,
        ctx,
    )?;
    mouse(&source, CGEventType::MouseMoved, at, CGMouseButton::Left, 0)?;
    thread::sleep(gestures::SETTLE);
    let event =
        CGEvent::new_scroll_event(source, ScrollEventUnit::LINE, 2, vertical, horizontal, 0)
            .map_err(|()| AxError::Backend("cannot create a scroll event".to_owned()))?;
    post(&event);
    thread::sleep(gestures::BETWEEN);
    Ok(())
}
