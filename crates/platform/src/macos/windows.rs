//! Windows of an app: the list (`AXWindows`, one batched read per window) and window
//! operations through their attributes and buttons: raise + main (focus), `AXMinimized`,
//! the close button's `AXPress`, `AXPosition` and `AXSize` (global top-left points), and
//! zoom / full screen as `mac_logic::window_zoom` decides (zoom button, `AXFullScreen`,
//! full-screen button), re-read until the change shows.

use std::thread;
use std::time::{Duration, Instant};

use accessibility_sys::kAXErrorInvalidUIElement;

use axgate_engine::backend::WindowAction;
use axgate_engine::{AxError, CallCtx, NodeId, Pid, WindowInfo};

use super::actions::{self, false_cf, true_cf};
use super::apps;
use super::attrs;
use super::element::AxElement;
use super::errors::{AxFailure, to_ax_error};
use super::handles::Handles;
use super::snapshot;
use super::target::Target;
use crate::mac_logic::decode::{self, AttrValue, LINK_ATTR, WINDOW_ATTRS};
use crate::mac_logic::naming::LABEL_ATTRS;
use crate::mac_logic::roles;
use crate::mac_logic::window_zoom::{self, Offers, Step, Wanted};

/// The app's windows. Windows that vanish while being read are left out.
pub(super) fn list_windows(
    handles: &Handles,
    pid: Pid,
    ctx: &mut CallCtx,
) -> Result<Vec<WindowInfo>, AxError> {
    let started = Instant::now();
    let app = apps::app_element(pid)?;
    let fail = |f: AxFailure| to_ax_error(f, pid, None, started);
    let windows = attrs::read_elements(&app, "AXWindows", ctx).map_err(fail)?;
    let names = attrs::names(WINDOW_ATTRS);
    let label_names = attrs::names(LABEL_ATTRS);
    let link = WINDOW_ATTRS
        .iter()
        .position(|n| *n == LINK_ATTR)
        .unwrap_or(usize::MAX);
    let mut read = Vec::with_capacity(windows.len());
    for window in windows {
        match attrs::read_linked(&window, &names, link, ctx) {
            Ok((values, linked)) => {
                let mut fields = decode::decode_window(&values);
                // An untitled window shows its title in a linked text (System Settings):
                // one more read, of that text only.
                if let Some(label) = linked.filter(|_| fields.wants_linked_label(&values))
                    && let Ok(label_values) = attrs::read_many(&label, &label_names, ctx)
                {
                    fields.apply_linked_label(&label_values);
                }
                read.push((window, fields));
            }
            Err(f) if f.is(kAXErrorInvalidUIElement) => {}
            Err(f) => return Err(fail(f)),
        }
    }
    let (elements, fields): (Vec<_>, Vec<_>) = read.into_iter().unzip();
    let ids = handles.mint(pid, elements);
    Ok(ids
        .into_iter()
        .zip(fields)
        .map(|(node, w)| WindowInfo {
            node,
            title: w.title,
            frame: w.frame,
            focused: w.focused,
            minimized: w.minimized,
        })
        .collect())
}

/// Operates on a window. The engine verifies the effect.
pub(super) fn window_action(
    handles: &Handles,
    pid: Pid,
    window: NodeId,
    action: WindowAction,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let target = Target::read(handles, pid, window, ctx)?;
    if !roles::is_window(target.node.role) {
        return Err(AxError::Unsupported(format!(
            "{} is not a window; list_windows names the app's windows",
            target.describe()
        )));
    }
    match action {
        WindowAction::Focus => {
            // A refused activation is no failure here: raising the window is what counts.
            let _activation = actions::bring_forward(pid, ctx).map_err(|f| target.fail(f))?;
            actions::raise_window(&target, ctx)
        }
        WindowAction::Minimize => target.write("AXMinimized", &true_cf(), ctx),
        WindowAction::Maximize => zoom(&target, Wanted::Maximize, ctx),
        WindowAction::FullScreen => zoom(&target, Wanted::FullScreen, ctx),
        WindowAction::Restore => {
            // Out of full screen first (nothing when it is not in it).
            zoom(&target, Wanted::LeaveFullScreen, ctx)?;
            if target.node.states.visible {
                return actions::raise_window(&target, ctx);
            }
            target.write("AXMinimized", &false_cf(), ctx)?;
            actions::raise_window(&target, ctx)
        }
        WindowAction::Close => {
            let button = attrs::read_element(&target.element, "AXCloseButton", ctx)
                .map_err(|f| target.fail(f))?;
            let Some(button) = button else {
                return Err(AxError::Unsupported(format!(
                    "{} has no close button; press its Cancel or Close button instead",
                    target.describe()
                )));
            };
            target.perform_on(&button, "AXPress", ctx)
        }
        WindowAction::Move { x, y } => {
            let value = attrs::point_value(x, y)
                .filter(|_| x.is_finite() && y.is_finite())
                .ok_or_else(|| invalid(&target, "the position must be finite numbers"))?;
            target.write("AXPosition", &value, ctx)
        }
        WindowAction::Resize { w, h } => {
            let value = attrs::size_value(w, h)
                .filter(|_| w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0)
                .ok_or_else(|| invalid(&target, "the size must be positive finite numbers"))?;
            target.write("AXSize", &value, ctx)
        }
    }
}

/// How long a zoom or full-screen change may take to show: full screen animates.
const ZOOM_SETTLE: Duration = Duration::from_secs(3);
/// How often the window is re-read meanwhile.
const ZOOM_POLL: Duration = Duration::from_millis(50);

/// Zooms the window, or enters or leaves full screen, and waits until it shows.
fn zoom(target: &Target, wanted: Wanted, ctx: &mut CallCtx) -> Result<(), AxError> {
    let offers = Offers {
        full_screen: full_screen(target, ctx)?,
        full_screen_settable: attrs::is_settable(&target.element, "AXFullScreen", ctx)
            .map_err(|f| target.fail(f))?,
        zoom_button: button(target, "AXZoomButton", ctx)?.is_some(),
        full_screen_button: button(target, "AXFullScreenButton", ctx)?.is_some(),
    };
    let step = window_zoom::plan(wanted, offers)
        .map_err(|why| AxError::Unsupported(format!("{} {why}", target.describe())))?;
    match step {
        Step::Nothing => return Ok(()),
        Step::Press(attribute) => {
            let Some(button) = button(target, attribute, ctx)? else {
                return Err(AxError::Unsupported(format!(
                    "{} lost its {attribute}; read the window again",
                    target.describe()
                )));
            };
            target.perform_on(&button, "AXPress", ctx)?;
        }
        Step::Write(attribute, on) => {
            let value = if on { true_cf() } else { false_cf() };
            target.write(attribute, &value, ctx)?;
        }
    }
    let until = Instant::now() + ZOOM_SETTLE.min(ctx.remaining());
    loop {
        let now = snapshot::read_node(&target.element, ctx).map_err(|f| target.fail(f))?;
        let full = full_screen(target, ctx)?;
        if window_zoom::landed(wanted, target.node.frame, now.frame, full) {
            return Ok(());
        }
        if Instant::now() >= until {
            return Err(AxError::Unsupported(format!(
                "{} did not change within {} s of {step:?}; the app may keep it from zooming \
                 or going full screen",
                target.describe(),
                ZOOM_SETTLE.as_secs()
            )));
        }
        thread::sleep(ZOOM_POLL);
    }
}

/// The window's `AXFullScreen`, if it has one.
fn full_screen(target: &Target, ctx: &mut CallCtx) -> Result<Option<bool>, AxError> {
    let value = attrs::read(&target.element, "AXFullScreen", ctx).map_err(|f| target.fail(f))?;
    Ok(match value.map(|v| attrs::convert(&v)) {
        Some(AttrValue::Bool(on)) => Some(on),
        _ => None,
    })
}

/// One of the window's buttons (`AXZoomButton`, `AXFullScreenButton`), if it has it.
fn button(
    target: &Target,
    attribute: &str,
    ctx: &mut CallCtx,
) -> Result<Option<AxElement>, AxError> {
    attrs::read_element(&target.element, attribute, ctx).map_err(|f| target.fail(f))
}

fn invalid(target: &Target, reason: &str) -> AxError {
    AxError::InvalidValue {
        element: target.describe(),
        reason: reason.to_owned(),
    }
}
