//! Chromium and Electron apps at first contact: `AXManualAccessibility` ← true on the app
//! element (other apps answer "unsupported", which is ignored), `AXEnhancedUserInterface`
//! ← true for the bundle ids opted in (`backend.enhanced_ui_apps`: Chrome), and, when the
//! app accepted either, a bounded wait while its tree fills, measured on the front window's
//! web area (`AXWebArea`, its `AXLoaded` and subtree) and decided by `mac_logic::tree_fill`
//! over the snapshot's AX source. The wait never outlasts the call's deadline.

use std::thread;

use objc2::rc::autoreleasepool;
use objc2_app_kit::NSRunningApplication;

use crate::mac_logic::tree_fill::{self, Next};
use axgate_engine::{CallCtx, Pid};

use super::actions::true_cf;
use super::apps;
use super::attrs;
use super::element::AxElement;
use super::snapshot::MacSource;

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
    let source = MacSource::new();
    let mut fills = Vec::new();
    let mut web_area = None;
    while let Next::Wait(pause) = tree_fill::next(&fills) {
        if ctx.remaining() <= pause {
            return;
        }
        thread::sleep(pause);
        if web_area.is_none() {
            web_area = front_window(app, ctx)
                .and_then(|window| tree_fill::find_web_area(&source, &window, ctx));
        }
        let fill = web_area
            .as_ref()
            .and_then(|area| tree_fill::measure(&source, area, ctx));
        if fill.is_none() {
            // Not there yet, or replaced by a new page: look for it again next time.
            web_area = None;
        }
        fills.push(fill);
    }
}

/// The app's front window, or `None` without one or when the app does not answer.
fn front_window(app: &AxElement, ctx: &mut CallCtx) -> Option<AxElement> {
    ["AXFocusedWindow", "AXMainWindow"]
        .into_iter()
        .find_map(|attr| attrs::read_element(app, attr, ctx).ok().flatten())
}

fn bundle_id(pid: Pid) -> Option<String> {
    let pid = i32::try_from(pid).ok()?;
    autoreleasepool(|_| {
        NSRunningApplication::runningApplicationWithProcessIdentifier(pid)
            .and_then(|app| app.bundleIdentifier())
            .map(|id| id.to_string())
    })
}
