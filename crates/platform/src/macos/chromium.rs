//! Chromium and Electron apps at first contact: `AXManualAccessibility` ← true on the app
//! element (other apps answer "unsupported", which is ignored), `AXEnhancedUserInterface`
//! ← true for the bundle ids opted in (`backend.enhanced_ui_apps`: Chrome), and, when the
//! app accepted either, a bounded wait while its tree fills, measured on the front window
//! and decided by `mac_logic::tree_fill`. The wait never outlasts the call's deadline.

use std::thread;

use objc2::rc::autoreleasepool;
use objc2_app_kit::NSRunningApplication;

use crate::mac_logic::tree_fill::{self, CHILDREN_LOOKED_INTO, Next};
use axgate_engine::{CallCtx, Pid};

use super::actions::true_cf;
use super::apps;
use super::attrs;
use super::element::AxElement;

/// Switches the app's accessibility on and waits (bounded) for its tree to fill.
pub(super) fn prepare(pid: Pid, enhanced_ui_apps: &[String], ctx: &mut CallCtx) {
    let Ok(app) = apps::app_element(pid) else {
        return;
    };
    let mut accepted = attrs::write(&app, "AXManualAccessibility", &true_cf(), ctx).is_ok();
    if tree_fill::wants_enhanced_ui(bundle_id(pid).as_deref(), enhanced_ui_apps) {
        accepted |= attrs::write(&app, "AXEnhancedUserInterface", &true_cf(), ctx).is_ok();
    }
    if accepted {
        wait_until_filled(&app, ctx);
    }
}

fn wait_until_filled(app: &AxElement, ctx: &mut CallCtx) {
    let mut sizes = Vec::new();
    while let Next::Wait(pause) = tree_fill::next(&sizes) {
        if ctx.remaining() <= pause {
            return;
        }
        thread::sleep(pause);
        sizes.push(front_window_size(app, ctx));
    }
}

/// The front window's children and grandchildren (a few children looked into), or `None`
/// without a window or when the app does not answer.
fn front_window_size(app: &AxElement, ctx: &mut CallCtx) -> Option<usize> {
    let window = ["AXFocusedWindow", "AXMainWindow"]
        .into_iter()
        .find_map(|attr| attrs::read_element(app, attr, ctx).ok().flatten())?;
    let children = attrs::read_elements(&window, "AXChildren", ctx).ok()?;
    let grandchildren: usize = children
        .iter()
        .take(CHILDREN_LOOKED_INTO)
        .map(|child| attrs::read_elements(child, "AXChildren", ctx).map_or(0, |g| g.len()))
        .sum();
    Some(children.len() + grandchildren)
}

fn bundle_id(pid: Pid) -> Option<String> {
    let pid = i32::try_from(pid).ok()?;
    autoreleasepool(|_| {
        NSRunningApplication::runningApplicationWithProcessIdentifier(pid)
            .and_then(|app| app.bundleIdentifier())
            .map(|id| id.to_string())
    })
}
