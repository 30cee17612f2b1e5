//! The window server's window list, as `mac_logic::input_guard` reads it: every window
//! (`CGWindowListCopyWindowInfo` with `kCGWindowListOptionAll`, desktop elements excluded),
//! front to back, with its owner pid and name, the owner's bundle id, the process the system
//! holds responsible for the owner, title, layer, bounds, alpha and whether it is on screen.
//! Gathers only; the guard decides.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::OnceLock;

use core_foundation::base::{CFType, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::dictionary::{CFDictionary, CFDictionaryRef};
use core_foundation::number::CFNumber;
use core_foundation::string::{CFString, CFStringRef};
use core_graphics::geometry::CGRect;
use core_graphics::window::{
    copy_window_info, kCGNullWindowID, kCGWindowAlpha, kCGWindowBounds, kCGWindowIsOnscreen,
    kCGWindowLayer, kCGWindowListExcludeDesktopElements, kCGWindowListOptionAll, kCGWindowName,
    kCGWindowOwnerName, kCGWindowOwnerPID,
};
use objc2::rc::autoreleasepool;
use objc2_app_kit::NSRunningApplication;

use axgate_engine::Pid;

use crate::mac_logic::input_guard::WindowInfo;

type WindowDict = CFDictionary<CFString, CFType>;

/// Every window, front to back; empty when the window server gives no list (outside a GUI
/// session), which the guard then refuses.
pub(super) fn windows() -> Vec<WindowInfo> {
    let options = kCGWindowListOptionAll | kCGWindowListExcludeDesktopElements;
    let Some(list) = copy_window_info(options, kCGNullWindowID) else {
        return Vec::new();
    };
    let mut bundles = std::collections::HashMap::new();
    list.iter()
        .filter_map(|item| {
            let raw = *item as CFDictionaryRef;
            if raw.is_null() {
                return None;
            }
            // SAFETY: each element of the window list is a CFDictionary of CFString keys;
            // the wrapper retains it (Get rule) while the list is alive.
            let dict: WindowDict = unsafe { CFDictionary::wrap_under_get_rule(raw) };
            let pid = Pid::try_from(number(&dict, unsafe { kCGWindowOwnerPID })?).ok()?;
            let bundle = bundles.entry(pid).or_insert_with(|| bundle_id(pid)).clone();
            Some(WindowInfo {
                pid,
                owner: string(&dict, unsafe { kCGWindowOwnerName }).unwrap_or_default(),
                bundle,
                responsible: responsible_for(pid),
                title: string(&dict, unsafe { kCGWindowName }),
                layer: number(&dict, unsafe { kCGWindowLayer })
                    .and_then(|l| i32::try_from(l).ok())
                    .unwrap_or(0),
                bounds: bounds(&dict).unwrap_or((0.0, 0.0, 0.0, 0.0)),
                alpha: float(&dict, unsafe { kCGWindowAlpha }).unwrap_or(1.0),
                on_screen: number(&dict, unsafe { kCGWindowIsOnscreen }).is_some_and(|n| n != 0),
            })
        })
        .collect()
}

fn value(dict: &WindowDict, key: CFStringRef) -> Option<CFType> {
    // SAFETY: the key is an immutable framework constant (Get rule).
    let key = unsafe { CFString::wrap_under_get_rule(key) };
    dict.find(&key).map(|v| CFType::clone(&v))
}

/// A number or boolean entry as an integer.
fn number(dict: &WindowDict, key: CFStringRef) -> Option<i64> {
    let value = value(dict, key)?;
    if let Some(b) = value.downcast::<CFBoolean>() {
        return Some(i64::from(bool::from(b)));
    }
    value.downcast::<CFNumber>().and_then(|n| n.to_i64())
}

fn float(dict: &WindowDict, key: CFStringRef) -> Option<f64> {
    value(dict, key)?.downcast::<CFNumber>()?.to_f64()
}

fn string(dict: &WindowDict, key: CFStringRef) -> Option<String> {
    Some(value(dict, key)?.downcast::<CFString>()?.to_string())
}

/// `kCGWindowBounds`: a CGRect in dictionary form.
fn bounds(dict: &WindowDict) -> Option<(f64, f64, f64, f64)> {
    // SAFETY: an immutable framework constant.
    let value = value(dict, unsafe { kCGWindowBounds })?;
    let rect_dict = value.downcast::<CFDictionary>()?;
    let rect = CGRect::from_dict_representation(&rect_dict)?;
    Some((
        rect.origin.x,
        rect.origin.y,
        rect.size.width,
        rect.size.height,
    ))
}

fn bundle_id(pid: Pid) -> Option<String> {
    let raw = libc::pid_t::try_from(pid).ok()?;
    autoreleasepool(|_| {
        NSRunningApplication::runningApplicationWithProcessIdentifier(raw)
            .and_then(|app| app.bundleIdentifier())
            .map(|id| id.to_string())
    })
}

/// `pid_t responsibility_get_pid_responsible_for_pid(pid_t)`: the app an XPC service or
/// helper runs for (what Activity Monitor shows in parentheses). Private, so resolved with
/// `dlsym` at run time; without it the guard falls back to the rule's default.
type ResponsibleFn = unsafe extern "C" fn(libc::pid_t) -> libc::pid_t;

fn responsible_for(pid: Pid) -> Option<Pid> {
    static FUNCTION: OnceLock<Option<ResponsibleFn>> = OnceLock::new();
    let function = (*FUNCTION.get_or_init(|| {
        // SAFETY: dlsym only looks a symbol up in the loaded images; the name is
        // NUL-terminated.
        let symbol = unsafe {
            libc::dlsym(
                libc::RTLD_DEFAULT,
                c"responsibility_get_pid_responsible_for_pid".as_ptr(),
            )
        };
        // SAFETY: the symbol is libquarantine's `pid_t (pid_t)` function, exported by
        // libSystem since macOS 10.14.
        (!symbol.is_null())
            .then(|| unsafe { std::mem::transmute::<*mut c_void, ResponsibleFn>(symbol) })
    }))?;
    let raw = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: takes and returns a plain pid; a failure is a non-positive result.
    let responsible = unsafe { function(raw) };
    Pid::try_from(responsible)
        .ok()
        .filter(|r| *r > 0 && *r != pid)
}
