//! The AX calls of the backend. Each is one IPC round trip: it re-arms the element's
//! messaging timeout with the call's slice (`mac_logic::budget`), counts the trip in the
//! [`CallCtx`], makes the call and converts the Core Foundation result. Attribute reads are
//! batched (`AXUIElementCopyMultipleAttributeValues`; failed slots become
//! [`AttrValue::Missing`] or [`AttrValue::Failed`]; an `AXChildren` slot can be taken out as
//! elements), so a snapshot node costs one round trip.
#![allow(unsafe_code)]
// Apple's constant names (kAX…) are matched as patterns.
#![allow(non_upper_case_globals)]

use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use accessibility_sys::{
    AXUIElementCopyActionNames, AXUIElementCopyAttributeValue, AXUIElementCopyAttributeValues,
    AXUIElementCopyElementAtPosition, AXUIElementCopyMultipleAttributeValues,
    AXUIElementCopyParameterizedAttributeValue, AXUIElementGetAttributeValueCount,
    AXUIElementGetTypeID, AXUIElementIsAttributeSettable, AXUIElementPerformAction, AXUIElementRef,
    AXUIElementSetAttributeValue, AXValueCreate, AXValueGetType, AXValueGetTypeID, AXValueGetValue,
    AXValueRef, kAXErrorAttributeUnsupported, kAXErrorCannotComplete, kAXErrorIllegalArgument,
    kAXErrorInvalidUIElement, kAXErrorNoValue, kAXValueTypeAXError, kAXValueTypeCFRange,
    kAXValueTypeCGPoint, kAXValueTypeCGRect, kAXValueTypeCGSize,
};
use core_foundation::array::{CFArray, CFArrayRef};
use core_foundation::attributed_string::{CFAttributedString, CFAttributedStringGetString};
use core_foundation::base::{CFIndex, CFNullGetTypeID, CFRange, CFType, CFTypeRef, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::number::{CFNumber, CFNumberIsFloatType};
use core_foundation::string::CFString;
use core_foundation::url::CFURL;
use core_graphics::geometry::{CGPoint, CGRect, CGSize};

use axgate_engine::{CallCtx, Rect};

use super::element::AxElement;
use super::errors::{AxCall, AxFailure, check};
use crate::mac_logic::budget::{self, Slicing};
use crate::mac_logic::decode::{self, AttrValue};

pub(super) const CHILDREN: &str = "AXChildren";

/// The slice floor in milliseconds, set once when the backend is made.
static FLOOR_MS: AtomicU64 = AtomicU64::new(budget::DEFAULT_FLOOR.as_millis() as u64);

/// Sets how AX calls are timed (the backend's configuration).
pub(super) fn set_slicing(slicing: Slicing) {
    let ms = u64::try_from(slicing.floor.as_millis()).unwrap_or(u64::MAX);
    FLOOR_MS.store(ms, Ordering::Relaxed);
}

fn slicing() -> Slicing {
    Slicing {
        floor: Duration::from_millis(FLOOR_MS.load(Ordering::Relaxed)),
    }
}

/// Arms the element's messaging timeout with this call's slice and counts the round trip.
pub(super) fn arm(element: &AxElement, ctx: &mut CallCtx) -> AxCall<()> {
    let slice = slicing()
        .slice(ctx.remaining())
        .ok_or(AxFailure::Deadline)?;
    element.set_timeout(slice);
    ctx.trips(1);
    Ok(())
}

/// A CF array of attribute names, built once per backend call and reused for every node.
pub(super) fn names(names: &[&str]) -> CFArray<CFString> {
    let strings: Vec<CFString> = names.iter().map(|n| CFString::new(n)).collect();
    CFArray::from_CFTypes(&strings)
}

/// Reads every attribute in `names` in one round trip, one slot per name. Fails as a whole
/// when every slot carries the same "element gone" or "app not answering" error.
pub(super) fn read_many(
    element: &AxElement,
    names: &CFArray<CFString>,
    ctx: &mut CallCtx,
) -> AxCall<Vec<AttrValue>> {
    let raw = read_raw(element, names, ctx)?;
    let slots: Vec<AttrValue> = raw
        .iter()
        .map(|v| v.as_ref().map_or(AttrValue::Missing, convert))
        .collect();
    check_slots(&slots)?;
    Ok(slots)
}

/// One batched node read: [`read_many`] for `names` whose last entry is `AXChildren`, with
/// the element in slot `link` (`AXTitleUIElement`) taken out as an element too, and the
/// children as elements (none when the slot failed or is missing).
pub(super) fn read_node_slots(
    element: &AxElement,
    names: &CFArray<CFString>,
    link: usize,
    ctx: &mut CallCtx,
) -> AxCall<NodeSlots> {
    let mut raw = read_raw(element, names, ctx)?;
    let children = raw.pop().flatten();
    let (values, linked) = convert_linked(&raw, link)?;
    let children = children
        .and_then(|v| v.downcast::<CFArray>())
        .map_or_else(Vec::new, |array| elements_of(&array));
    Ok(NodeSlots {
        values,
        linked,
        children,
    })
}

/// What [`read_node_slots`] returns.
pub(super) struct NodeSlots {
    pub(super) values: Vec<AttrValue>,
    pub(super) linked: Option<AxElement>,
    pub(super) children: Vec<AxElement>,
}

/// [`read_many`], with the element in slot `link` taken out as an element.
pub(super) fn read_linked(
    element: &AxElement,
    names: &CFArray<CFString>,
    link: usize,
    ctx: &mut CallCtx,
) -> AxCall<(Vec<AttrValue>, Option<AxElement>)> {
    let raw = read_raw(element, names, ctx)?;
    convert_linked(&raw, link)
}

fn convert_linked(
    raw: &[Option<CFType>],
    link: usize,
) -> AxCall<(Vec<AttrValue>, Option<AxElement>)> {
    let values: Vec<AttrValue> = raw
        .iter()
        .map(|v| v.as_ref().map_or(AttrValue::Missing, convert))
        .collect();
    check_slots(&values)?;
    // SAFETY: a valid CF object; `from_get` checks its type and retains it.
    let linked = raw
        .get(link)
        .and_then(Option::as_ref)
        .and_then(|v| unsafe { AxElement::from_get(v.as_CFTypeRef()) });
    Ok((values, linked))
}

/// One batched read: the raw value of each name, in order (`None` for missing slots).
pub(super) fn read_raw(
    element: &AxElement,
    names: &CFArray<CFString>,
    ctx: &mut CallCtx,
) -> AxCall<Vec<Option<CFType>>> {
    arm(element, ctx)?;
    let mut out: CFArrayRef = ptr::null();
    // SAFETY: valid element and name array; `out` receives a +1 array (Copy rule) on success.
    check(unsafe {
        AXUIElementCopyMultipleAttributeValues(
            element.as_ptr(),
            names.as_concrete_TypeRef(),
            0,
            &mut out,
        )
    })?;
    let wanted = usize::try_from(names.len()).unwrap_or(0);
    let mut slots = Vec::with_capacity(wanted);
    if !out.is_null() {
        // SAFETY: a non-null array we own one reference to (Copy rule).
        let values: CFArray<CFType> = unsafe { CFArray::wrap_under_create_rule(out) };
        slots.extend(values.iter().map(|v| Some(CFType::clone(&v))));
    }
    slots.resize(wanted, None);
    Ok(slots)
}

/// Fails a read whose slots all carry the same "element gone" or "app not answering" code.
fn check_slots(slots: &[AttrValue]) -> AxCall<()> {
    match decode::uniform_failure(slots) {
        Some(code) if code == kAXErrorInvalidUIElement || code == kAXErrorCannotComplete => {
            Err(AxFailure::Code(code))
        }
        _ => Ok(()),
    }
}

/// Reads one attribute; `None` when the element has no such attribute or no value.
pub(super) fn read(element: &AxElement, name: &str, ctx: &mut CallCtx) -> AxCall<Option<CFType>> {
    arm(element, ctx)?;
    let name = CFString::new(name);
    let mut out: CFTypeRef = ptr::null();
    // SAFETY: valid element and name; `out` receives a +1 value (Copy rule) on success.
    let code = unsafe {
        AXUIElementCopyAttributeValue(element.as_ptr(), name.as_concrete_TypeRef(), &mut out)
    };
    match check(code) {
        Ok(()) if out.is_null() => Ok(None),
        // SAFETY: a non-null value we own one reference to.
        Ok(()) => Ok(Some(unsafe { CFType::wrap_under_create_rule(out) })),
        Err(f) if f.is_absent() => Ok(None),
        Err(f) => Err(f),
    }
}

/// Reads an attribute holding one element (`AXFocusedWindow`, …).
pub(super) fn read_element(
    element: &AxElement,
    name: &str,
    ctx: &mut CallCtx,
) -> AxCall<Option<AxElement>> {
    let value = read(element, name, ctx)?;
    // SAFETY: a valid CF object; `from_get` checks its type and retains it.
    Ok(value.and_then(|v| unsafe { AxElement::from_get(v.as_CFTypeRef()) }))
}

/// Reads an attribute holding an array of elements (`AXWindows`, …).
pub(super) fn read_elements(
    element: &AxElement,
    name: &str,
    ctx: &mut CallCtx,
) -> AxCall<Vec<AxElement>> {
    let Some(value) = read(element, name, ctx)? else {
        return Ok(Vec::new());
    };
    Ok(value
        .downcast::<CFArray>()
        .map_or_else(Vec::new, |array| elements_of(&array)))
}

/// At most `count` items of an array attribute from position `start`, in one round trip
/// (`AXUIElementCopyAttributeValues`): a table's rows without its 50,000 others. None past
/// the end (the API answers "illegal argument" there).
pub(super) fn read_elements_range(
    element: &AxElement,
    name: &str,
    start: usize,
    count: usize,
    ctx: &mut CallCtx,
) -> AxCall<Vec<AxElement>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    arm(element, ctx)?;
    let name = CFString::new(name);
    let index = CFIndex::try_from(start).unwrap_or(CFIndex::MAX);
    let max = CFIndex::try_from(count).unwrap_or(CFIndex::MAX);
    let mut out: CFArrayRef = ptr::null();
    // SAFETY: valid element and name; `out` receives a +1 array (Copy rule) on success.
    let code = unsafe {
        AXUIElementCopyAttributeValues(
            element.as_ptr(),
            name.as_concrete_TypeRef(),
            index,
            max,
            &mut out,
        )
    };
    match check(code) {
        Ok(()) if out.is_null() => Ok(Vec::new()),
        Ok(()) => {
            // SAFETY: a non-null array we own one reference to (Copy rule).
            let array: CFArray = unsafe { CFArray::wrap_under_create_rule(out) };
            Ok(elements_of(&array))
        }
        Err(f) if f.is_absent() || f.is(kAXErrorIllegalArgument) => Ok(Vec::new()),
        Err(f) => Err(f),
    }
}

/// How many items an array attribute holds (`AXUIElementGetAttributeValueCount`), without
/// carrying them.
pub(super) fn count(element: &AxElement, name: &str, ctx: &mut CallCtx) -> AxCall<usize> {
    arm(element, ctx)?;
    let name = CFString::new(name);
    let mut n: CFIndex = 0;
    // SAFETY: valid element, name and out pointer.
    let code = unsafe {
        AXUIElementGetAttributeValueCount(element.as_ptr(), name.as_concrete_TypeRef(), &mut n)
    };
    match check(code) {
        Ok(()) => Ok(usize::try_from(n).unwrap_or(0)),
        Err(f) if f.is_absent() => Ok(0),
        Err(f) => Err(f),
    }
}

/// The first `units` UTF-16 units of an element's text (`AXStringForRange`), in one round
/// trip: a text area's start without the rest of its document.
pub(super) fn string_for_range(
    element: &AxElement,
    units: usize,
    ctx: &mut CallCtx,
) -> AxCall<String> {
    let range = CFRange {
        location: 0,
        length: CFIndex::try_from(units).unwrap_or(CFIndex::MAX),
    };
    // SAFETY: the type matches the buffer (CFRange); the value is +1 (Create rule) or null.
    let raw = unsafe { AXValueCreate(kAXValueTypeCFRange, (&range as *const CFRange).cast()) };
    if raw.is_null() {
        return Ok(String::new());
    }
    // SAFETY: a non-null value we own one reference to.
    let parameter = unsafe { CFType::wrap_under_create_rule(raw as CFTypeRef) };
    arm(element, ctx)?;
    let name = CFString::from_static_string("AXStringForRange");
    let mut out: CFTypeRef = ptr::null();
    // SAFETY: valid element, name and parameter; `out` receives a +1 value (Copy rule).
    let code = unsafe {
        AXUIElementCopyParameterizedAttributeValue(
            element.as_ptr(),
            name.as_concrete_TypeRef(),
            parameter.as_CFTypeRef(),
            &mut out,
        )
    };
    match check(code) {
        Ok(()) if out.is_null() => Ok(String::new()),
        Ok(()) => {
            // SAFETY: a non-null value we own one reference to.
            let value = unsafe { CFType::wrap_under_create_rule(out) };
            Ok(match convert(&value) {
                AttrValue::Text(text) => text,
                _ => String::new(),
            })
        }
        Err(f) if f.is_absent() => Ok(String::new()),
        Err(f) => Err(f),
    }
}

/// The element's native action names.
pub(super) fn action_names(element: &AxElement, ctx: &mut CallCtx) -> AxCall<Vec<String>> {
    arm(element, ctx)?;
    let mut out: CFArrayRef = ptr::null();
    // SAFETY: valid element; `out` receives a +1 array (Copy rule) on success.
    let code = unsafe { AXUIElementCopyActionNames(element.as_ptr(), &mut out) };
    match check(code) {
        Ok(()) if out.is_null() => Ok(Vec::new()),
        Ok(()) => {
            // SAFETY: a non-null array we own one reference to (Copy rule).
            let array: CFArray<CFType> = unsafe { CFArray::wrap_under_create_rule(out) };
            Ok(array
                .iter()
                .filter_map(|v| v.downcast::<CFString>().map(|s| s.to_string()))
                .collect())
        }
        Err(f) if f.is_absent() => Ok(Vec::new()),
        Err(f) => Err(f),
    }
}

/// Whether the attribute can be written.
pub(super) fn is_settable(element: &AxElement, name: &str, ctx: &mut CallCtx) -> AxCall<bool> {
    arm(element, ctx)?;
    let name = CFString::new(name);
    let mut settable: u8 = 0;
    // SAFETY: valid element, name and out pointer.
    let code = unsafe {
        AXUIElementIsAttributeSettable(element.as_ptr(), name.as_concrete_TypeRef(), &mut settable)
    };
    match check(code) {
        Ok(()) => Ok(settable != 0),
        Err(f) if f.is_absent() => Ok(false),
        Err(f) => Err(f),
    }
}

/// Writes an attribute.
pub(super) fn write(
    element: &AxElement,
    name: &str,
    value: &CFType,
    ctx: &mut CallCtx,
) -> AxCall<()> {
    arm(element, ctx)?;
    let name = CFString::new(name);
    // SAFETY: valid element, name and value; the value is only read.
    check(unsafe {
        AXUIElementSetAttributeValue(
            element.as_ptr(),
            name.as_concrete_TypeRef(),
            value.as_CFTypeRef(),
        )
    })
}

/// Performs a native action.
pub(super) fn perform(element: &AxElement, action: &str, ctx: &mut CallCtx) -> AxCall<()> {
    arm(element, ctx)?;
    let action = CFString::new(action);
    // SAFETY: valid element and action name.
    check(unsafe { AXUIElementPerformAction(element.as_ptr(), action.as_concrete_TypeRef()) })
}

/// The frontmost app's element (`AXFocusedApplication` of the system-wide element). The
/// system-wide element's timeout is the process default, so it is not re-armed: the
/// global timeout applies.
pub(super) fn focused_application(
    system: &AxElement,
    ctx: &mut CallCtx,
) -> AxCall<Option<AxElement>> {
    count_unarmed(ctx)?;
    let name = CFString::from_static_string("AXFocusedApplication");
    let mut out: CFTypeRef = ptr::null();
    // SAFETY: valid element and name; `out` receives a +1 value (Copy rule) on success.
    let code = unsafe {
        AXUIElementCopyAttributeValue(system.as_ptr(), name.as_concrete_TypeRef(), &mut out)
    };
    match check(code) {
        Ok(()) if out.is_null() => Ok(None),
        Ok(()) => {
            // SAFETY: a non-null value we own one reference to.
            let value = unsafe { CFType::wrap_under_create_rule(out) };
            // SAFETY: a valid CF object; `from_get` checks its type and retains it.
            Ok(unsafe { AxElement::from_get(value.as_CFTypeRef()) })
        }
        Err(f) if f.is_absent() => Ok(None),
        Err(f) => Err(f),
    }
}

/// The element of any app at a global point (a hit test on the system-wide element, so a
/// window of another app over the point is what it finds). Not re-armed, as above.
pub(super) fn system_element_at(
    system: &AxElement,
    point: (f32, f32),
    ctx: &mut CallCtx,
) -> AxCall<Option<AxElement>> {
    count_unarmed(ctx)?;
    copy_element_at(system, point)
}

/// Counts a round trip on an element whose timeout must not change (the system-wide one).
fn count_unarmed(ctx: &mut CallCtx) -> AxCall<()> {
    slicing()
        .slice(ctx.remaining())
        .ok_or(AxFailure::Deadline)?;
    ctx.trips(1);
    Ok(())
}

fn copy_element_at(element: &AxElement, (x, y): (f32, f32)) -> AxCall<Option<AxElement>> {
    let mut out: AXUIElementRef = ptr::null_mut();
    // SAFETY: valid element and out pointer; `out` is +1 (Copy rule) on success.
    let code = unsafe { AXUIElementCopyElementAtPosition(element.as_ptr(), x, y, &mut out) };
    match check(code) {
        // SAFETY: `out` is null or an element we own one reference to.
        Ok(()) => Ok(unsafe { AxElement::from_create(out) }),
        Err(f) if f.is_absent() => Ok(None),
        Err(f) => Err(f),
    }
}

/// An `AXValue` holding a point, for writing `AXPosition`.
pub(super) fn point_value(x: f64, y: f64) -> Option<CFType> {
    let point = CGPoint::new(x, y);
    // SAFETY: the type matches the buffer (CGPoint); the value is +1 (Create rule) or null.
    let raw = unsafe { AXValueCreate(kAXValueTypeCGPoint, (&point as *const CGPoint).cast()) };
    // SAFETY: a non-null value we own one reference to.
    (!raw.is_null()).then(|| unsafe { CFType::wrap_under_create_rule(raw as CFTypeRef) })
}

/// An `AXValue` holding a size, for writing `AXSize`.
pub(super) fn size_value(w: f64, h: f64) -> Option<CFType> {
    let size = CGSize::new(w, h);
    // SAFETY: the type matches the buffer (CGSize); the value is +1 (Create rule) or null.
    let raw = unsafe { AXValueCreate(kAXValueTypeCGSize, (&size as *const CGSize).cast()) };
    // SAFETY: a non-null value we own one reference to.
    (!raw.is_null()).then(|| unsafe { CFType::wrap_under_create_rule(raw as CFTypeRef) })
}

/// The element a value holds, when it is one.
pub(super) fn element_of(value: &CFType) -> Option<AxElement> {
    // SAFETY: a valid CF object; `from_get` checks its type and retains it.
    unsafe { AxElement::from_get(value.as_CFTypeRef()) }
}

/// The elements of a CF array, skipping anything that is not an element.
pub(super) fn elements_of(array: &CFArray) -> Vec<AxElement> {
    array
        .iter()
        // SAFETY: array items are valid CF objects; `from_get` checks the type and retains.
        .filter_map(|item| unsafe { AxElement::from_get(*item) })
        .collect()
}

/// Converts one attribute value by its CF type id.
pub(super) fn convert(value: &CFType) -> AttrValue {
    if let Some(s) = value.downcast::<CFString>() {
        return AttrValue::Text(s.to_string());
    }
    if let Some(b) = value.downcast::<CFBoolean>() {
        return AttrValue::Bool(b.into());
    }
    if let Some(n) = value.downcast::<CFNumber>() {
        // SAFETY: a valid CFNumber.
        let float = unsafe { CFNumberIsFloatType(n.as_concrete_TypeRef()) } != 0;
        let number = if float {
            n.to_f64()
        } else {
            n.to_i64().map(|i| i as f64)
        };
        return number.map_or(AttrValue::Other, AttrValue::Number);
    }
    if let Some(s) = value.downcast::<CFAttributedString>() {
        // SAFETY: a valid attributed string; the plain string is returned under the Get rule.
        let plain = unsafe { CFAttributedStringGetString(s.as_concrete_TypeRef()) };
        if plain.is_null() {
            return AttrValue::Other;
        }
        // SAFETY: non-null string owned by `s`; wrapping under the Get rule retains it.
        return AttrValue::Text(unsafe { CFString::wrap_under_get_rule(plain) }.to_string());
    }
    if let Some(url) = value.downcast::<CFURL>() {
        return AttrValue::Text(url.get_string().to_string());
    }
    if let Some(array) = value.downcast::<CFArray>() {
        return AttrValue::List(usize::try_from(array.len()).unwrap_or(0));
    }
    let type_id = value.type_of();
    // SAFETY: type-id getters have no preconditions.
    let (null_id, element_id, ax_value_id) = unsafe {
        (
            CFNullGetTypeID(),
            AXUIElementGetTypeID(),
            AXValueGetTypeID(),
        )
    };
    if type_id == null_id {
        AttrValue::Missing
    } else if type_id == element_id {
        AttrValue::Element(())
    } else if type_id == ax_value_id {
        ax_value(value.as_CFTypeRef() as AXValueRef)
    } else {
        AttrValue::Other
    }
}

/// Unpacks an `AXValue`: geometry, or the error code of a failed slot.
fn ax_value(value: AXValueRef) -> AttrValue {
    // SAFETY: `value` is a valid AXValue (checked by type id by the caller).
    let kind = unsafe { AXValueGetType(value) };
    match kind {
        kAXValueTypeCGPoint => {
            let mut p = CGPoint::new(0.0, 0.0);
            // SAFETY: the type matches the out buffer (CGPoint).
            let ok = unsafe { AXValueGetValue(value, kind, (&mut p as *mut CGPoint).cast()) };
            if ok {
                AttrValue::Point { x: p.x, y: p.y }
            } else {
                AttrValue::Other
            }
        }
        kAXValueTypeCGSize => {
            let mut s = CGSize::new(0.0, 0.0);
            // SAFETY: the type matches the out buffer (CGSize).
            let ok = unsafe { AXValueGetValue(value, kind, (&mut s as *mut CGSize).cast()) };
            if ok {
                AttrValue::Size {
                    w: s.width,
                    h: s.height,
                }
            } else {
                AttrValue::Other
            }
        }
        kAXValueTypeCGRect => {
            let mut r = CGRect::new(&CGPoint::new(0.0, 0.0), &CGSize::new(0.0, 0.0));
            // SAFETY: the type matches the out buffer (CGRect).
            let ok = unsafe { AXValueGetValue(value, kind, (&mut r as *mut CGRect).cast()) };
            if ok {
                AttrValue::Rect(Rect {
                    x: r.origin.x,
                    y: r.origin.y,
                    w: r.size.width,
                    h: r.size.height,
                })
            } else {
                AttrValue::Other
            }
        }
        kAXValueTypeAXError => {
            let mut code: accessibility_sys::AXError = 0;
            // SAFETY: the type matches the out buffer (AXError, an i32).
            let ok = unsafe {
                AXValueGetValue(
                    value,
                    kind,
                    (&mut code as *mut accessibility_sys::AXError).cast(),
                )
            };
            if !ok || code == kAXErrorNoValue || code == kAXErrorAttributeUnsupported {
                AttrValue::Missing
            } else {
                AttrValue::Failed(code)
            }
        }
        _ => AttrValue::Other,
    }
}
