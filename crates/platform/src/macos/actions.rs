//! Semantic operations on one element: actions (`AXPerformAction`), value writes, keyboard
//! focus and selection. Each acts on a [`Target`] the backend read first, so disabled
//! elements fail early; the engine verifies every effect afterwards. Values are never logged.

use accessibility_sys::kAXErrorIllegalArgument;
use core_foundation::array::CFArray;
use core_foundation::base::{CFType, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;

use axgate_engine::{AxError, AxResult, AxValue, CallCtx, Pid, Role};

use super::attrs;
use super::element::AxElement;
use super::errors::AxCall;
use super::snapshot;
use super::target::Target;
use crate::mac_logic::action_names;
use crate::mac_logic::roles;
use crate::mac_logic::writes::{self, TimedOutWrite, WritePlan};

/// Container attributes that select their children, tried in order by [`select`].
const SELECTION_ATTRS: &[&str] = &["AXSelectedRows", "AXSelectedChildren"];

/// Performs a normalised action (`press`, `show_menu`, …) after checking the element is
/// enabled and offers it.
pub(super) fn perform_action(target: &Target, action: &str, ctx: &mut CallCtx) -> AxResult {
    let available = target.actions(ctx)?;
    let native = action_names::to_native(action).filter(|_| available.iter().any(|a| a == action));
    let Some(native) = native else {
        return Err(AxError::UnsupportedAction {
            element: target.describe(),
            action: action.to_owned(),
            available,
        });
    };
    target.perform(&native, ctx)
}

/// Writes a value: toggles are pressed, numbers clamped to the element's range, anything else
/// written to `AXValue` once the app says it is settable.
pub(super) fn set_value(target: &Target, value: &AxValue, ctx: &mut CallCtx) -> AxResult {
    let node = &target.node;
    let plan = writes::plan(
        node.role,
        node.value.as_ref(),
        value,
        node.min_value,
        node.max_value,
    )
    .map_err(|reason| AxError::InvalidValue {
        element: target.describe(),
        reason,
    })?;
    match plan {
        WritePlan::Nothing => Ok(()),
        WritePlan::Press => press(target, ctx, || AxError::NotSettable {
            element: target.describe(),
        }),
        WritePlan::Attribute(value) => {
            let settable =
                attrs::is_settable(&target.element, "AXValue", ctx).map_err(|f| target.fail(f))?;
            if !settable {
                return Err(AxError::NotSettable {
                    element: target.describe(),
                });
            }
            match attrs::write(&target.element, "AXValue", &to_cf(&value), ctx) {
                Ok(()) => Ok(()),
                Err(f) if f.is(kAXErrorIllegalArgument) => Err(AxError::InvalidValue {
                    element: target.describe(),
                    reason: "the app rejected the value".to_owned(),
                }),
                Err(f) if f.is_timeout() => after_timed_out_write(target, &value, ctx),
                Err(f) => Err(target.fail(f)),
            }
        }
    }
}

/// A value write that timed out may still have landed (the app applied it and answered
/// late): read the value back once and let `mac_logic::writes` judge.
fn after_timed_out_write(
    target: &Target,
    written: &AxValue,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let read_back = snapshot::read_node(&target.element, ctx).ok();
    let value = read_back.as_ref().and_then(|node| node.value.as_ref());
    match writes::judge_timed_out_write(written, value, target.node.states.secure) {
        TimedOutWrite::Landed => Ok(()),
        TimedOutWrite::Unverified(reason) => {
            Err(AxError::Backend(format!("{}: {reason}", target.describe())))
        }
    }
}

/// Moves keyboard focus: brings the app forward (`AXFrontmost`), then raises a window
/// (`AXRaise` + `AXMain`) or focuses a control (`AXFocused`).
pub(super) fn focus(target: &Target, ctx: &mut CallCtx) -> AxResult {
    // A refused activation is no failure here: the focus write below is what counts.
    let _activation = bring_forward(target.pid, ctx).map_err(|f| target.fail(f))?;
    match target.node.role {
        Role::Application => Ok(()),
        role if roles::is_window(role) => raise_window(target, ctx),
        _ => target.write("AXFocused", &true_cf(), ctx).map_err(|_| {
            AxError::Unsupported(format!(
                "{} cannot take keyboard focus; focus a text field, control or window instead",
                target.describe()
            ))
        }),
    }
}

/// Selects an item: tabs, radio buttons and menu items are pressed; other items get
/// `AXSelected` ← true, or their container's `AXSelectedRows`/`AXSelectedChildren` ← [item],
/// or else are pressed when they list `AXPress` (tappable SwiftUI cells and rows).
pub(super) fn select(target: &Target, ctx: &mut CallCtx) -> AxResult {
    let unsupported = || {
        AxError::Unsupported(format!(
            "{} cannot be selected; press or click it instead",
            target.describe()
        ))
    };
    if matches!(
        target.node.role,
        Role::Tab | Role::RadioButton | Role::MenuItem | Role::MenuBarItem
    ) {
        return press(target, ctx, unsupported);
    }
    if target.node.states.selected {
        return Ok(());
    }
    let fail = |f| target.fail(f);
    if attrs::is_settable(&target.element, "AXSelected", ctx).map_err(fail)? {
        return target.write("AXSelected", &true_cf(), ctx);
    }
    let Some(parent) = attrs::read_element(&target.element, "AXParent", ctx).map_err(fail)? else {
        return Err(unsupported());
    };
    for attr in SELECTION_ATTRS {
        if attrs::is_settable(&parent, attr, ctx).map_err(fail)? {
            let items = CFArray::from_CFTypes(&[target.element.to_cf_type()]);
            return attrs::write(&parent, attr, &items.into_CFType(), ctx).map_err(fail);
        }
    }
    // A SwiftUI cell or row made tappable (`onTapGesture`) selects by being pressed, and
    // says so by listing AXPress.
    press(target, ctx, unsupported)
}

/// Presses the element if it offers `press` now (its real action names, read at act time:
/// one call); otherwise the error from `missing`.
fn press(
    target: &Target,
    ctx: &mut CallCtx,
    missing: impl FnOnce() -> AxError,
) -> Result<(), AxError> {
    if !target.actions(ctx)?.iter().any(|a| a == "press") {
        return Err(missing());
    }
    target.perform("AXPress", ctx)
}

/// Raises a window and makes it the app's main window (sheets and panels that cannot
/// become main are left raised).
pub(super) fn raise_window(target: &Target, ctx: &mut CallCtx) -> Result<(), AxError> {
    target.perform("AXRaise", ctx)?;
    match attrs::write(&target.element, "AXMain", &true_cf(), ctx) {
        Ok(()) => Ok(()),
        Err(f) if f.is_absent() || f.is(kAXErrorIllegalArgument) => Ok(()),
        Err(f) => Err(target.fail(f)),
    }
}

/// Asks the app to become frontmost (`AXFrontmost` ← true) and says how the request went.
/// Activation on macOS 14+ is cooperative, so callers verify the effect rather than trusting
/// this (the input guard waits until the app is frontmost); only a timeout is an error, a
/// refused request is the inner `Err` (the text says how).
pub(super) fn bring_forward(pid: Pid, ctx: &mut CallCtx) -> AxCall<Result<(), String>> {
    let Some(app) = AxElement::application(pid) else {
        return Ok(Err(format!("pid {pid} is no application")));
    };
    match attrs::write(&app, "AXFrontmost", &true_cf(), ctx) {
        Ok(()) => Ok(Ok(())),
        Err(f) if f.is_timeout() => Err(f),
        Err(f) => Ok(Err(f.describe())),
    }
}

pub(super) fn true_cf() -> CFType {
    CFBoolean::true_value().into_CFType()
}

pub(super) fn false_cf() -> CFType {
    CFBoolean::false_value().into_CFType()
}

fn to_cf(value: &AxValue) -> CFType {
    match value {
        AxValue::Text(s) => CFString::new(s).into_CFType(),
        AxValue::Number(n) => CFNumber::from(*n).into_CFType(),
        AxValue::Bool(true) => true_cf(),
        AxValue::Bool(false) => false_cf(),
    }
}
