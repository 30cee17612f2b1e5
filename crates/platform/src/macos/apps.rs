//! Running apps: `NSWorkspace.runningApplications` for discovery (a cache the main run loop
//! keeps fresh), the application element of a pid, and a one-attribute probe for liveness.

use objc2::rc::autoreleasepool;
use objc2_app_kit::{NSApplicationActivationPolicy, NSRunningApplication, NSWorkspace};

use axgate_engine::{AppInfo, AxError, CallCtx, Pid};

use super::attrs;
use super::element::AxElement;
use super::errors::to_ax_error;
use super::process;

/// A running app and where its bundle lives.
pub(super) struct Running {
    pub(super) info: AppInfo,
    pub(super) bundle_path: Option<String>,
}

/// Running apps that can have an accessibility tree: regular apps and accessory (menu-bar)
/// apps, not background-only processes, and not axgate itself. Reads the workspace's local
/// cache: no round trips to any app.
pub(super) fn running() -> Vec<Running> {
    let me = std::process::id();
    autoreleasepool(|_| {
        NSWorkspace::sharedWorkspace()
            .runningApplications()
            .to_vec()
            .into_iter()
            .filter(|app| {
                !app.isTerminated()
                    && app.activationPolicy() != NSApplicationActivationPolicy::Prohibited
            })
            .filter_map(|app| {
                let pid = Pid::try_from(app.processIdentifier()).ok()?;
                (pid != me).then(|| Running {
                    info: app_info(pid, &app),
                    bundle_path: app
                        .bundleURL()
                        .and_then(|url| url.path())
                        .map(|p| p.to_string()),
                })
            })
            .collect()
    })
}

pub(super) fn list_apps(_ctx: &mut CallCtx) -> Result<Vec<AppInfo>, AxError> {
    Ok(running().into_iter().map(|app| app.info).collect())
}

fn app_info(pid: Pid, app: &NSRunningApplication) -> AppInfo {
    let bundle_id = app.bundleIdentifier().map(|s| s.to_string());
    let name = app
        .localizedName()
        .map(|s| s.to_string())
        .or_else(|| bundle_id.clone())
        .unwrap_or_else(|| format!("pid {pid}"));
    AppInfo {
        pid,
        name,
        bundle_id,
        started_at: process::start_time(pid).unwrap_or(0),
        frontmost: app.isActive(),
    }
}

/// The application element of `pid`, or the error for a pid that is no app.
pub(super) fn app_element(pid: Pid) -> Result<AxElement, AxError> {
    if !process::is_running(pid) {
        return Err(AxError::AppExited { pid });
    }
    AxElement::application(pid)
        .ok_or_else(|| AxError::Backend(format!("cannot address pid {pid} as an application")))
}

/// One cheap read (`AXRole` of the app element) that proves the app answers.
pub(super) fn probe(pid: Pid, ctx: &mut CallCtx) -> Result<(), AxError> {
    let started = std::time::Instant::now();
    let app = app_element(pid)?;
    match attrs::read(&app, "AXRole", ctx) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(AxError::Backend(format!(
            "{} answered without a role; it has no accessibility tree",
            process::label(pid)
        ))),
        Err(f) => Err(to_ax_error(f, pid, None, started)),
    }
}
