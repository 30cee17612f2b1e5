//! Launching, quitting and activating apps. Launch runs `open -b id` / `open -a name-or-path`
//! and waits until the workspace lists a matching app (a pid is not yet a ready tree: the
//! engine waits for windows). Quit asks `NSRunningApplication` to terminate (or force) and
//! leaves verifying the exit to the engine: `terminate` succeeds even when a save sheet then
//! blocks it. Activation goes through the input guard (activate, raise, wait until frontmost).

use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use objc2::rc::autoreleasepool;
use objc2_app_kit::NSRunningApplication;

use crate::ax::{AppInfo, AxError, CallCtx, Pid};

use super::apps;
use super::guard;
use super::process;
use crate::platform::mac_logic::child;
use crate::platform::mac_logic::input_guard::Event;
use crate::platform::mac_logic::launch_spec::{self, OPEN};

/// How often the workspace is checked for the launched app.
const POLL: Duration = Duration::from_millis(100);

pub(super) fn launch_app(spec: &str, ctx: &mut CallCtx) -> Result<AppInfo, AxError> {
    let started = Instant::now();
    let parsed = launch_spec::parse(spec).map_err(|reason| AxError::InvalidValue {
        element: "the app to launch".to_owned(),
        reason,
    })?;
    let mut running = Command::new(OPEN)
        .args(launch_spec::open_args(parsed))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| AxError::Backend(format!("cannot run {OPEN}: {e}")))?;
    let status = child::wait_until(&mut running, ctx.deadline())
        .map_err(|e| AxError::Backend(format!("waiting for {OPEN} failed: {e}")))?;
    let timeout = || AxError::Timeout {
        app: spec.to_owned(),
        after: started.elapsed(),
    };
    let Some(status) = status else {
        return Err(timeout());
    };
    if !status.success() {
        let reason = child::stderr_of(&mut running);
        tracing::debug!(%reason, "open could not launch the app");
        return Err(AxError::AppNotFound {
            query: spec.to_owned(),
            available: apps::running().into_iter().map(|a| a.info.name).collect(),
        });
    }
    loop {
        let found = apps::running().into_iter().find(|app| {
            launch_spec::matches(
                parsed,
                &app.info.name,
                app.info.bundle_id.as_deref(),
                app.bundle_path.as_deref(),
            )
        });
        if let Some(app) = found {
            return Ok(app.info);
        }
        let left = ctx.remaining();
        if left.is_zero() {
            return Err(timeout());
        }
        thread::sleep(POLL.min(left));
    }
}

pub(super) fn quit_app(pid: Pid, force: bool, _ctx: &mut CallCtx) -> Result<(), AxError> {
    let Some(raw) = process::pid_t(pid) else {
        return Err(AxError::AppExited { pid });
    };
    let asked = autoreleasepool(|_| {
        NSRunningApplication::runningApplicationWithProcessIdentifier(raw).map(|app| {
            if force {
                app.forceTerminate()
            } else {
                app.terminate()
            }
        })
    });
    match asked {
        // Already gone: the exit the caller wants.
        _ if !process::is_running(pid) => Ok(()),
        Some(true) => Ok(()),
        Some(false) => Err(AxError::Backend(format!(
            "{} did not accept the request to quit; try again with force",
            apps::label(pid)
        ))),
        None => Err(AxError::Unsupported(format!(
            "pid {pid} is not an app axgate can quit"
        ))),
    }
}

/// Brings the app forward the way the input guard does (activate, raise, wait until it is
/// frontmost), so a refusal names the app that kept the front.
pub(super) fn activate_app(pid: Pid, ctx: &mut CallCtx) -> Result<(), AxError> {
    apps::app_element(pid)?;
    guard::ensure_target(pid, Event::Keys, ctx)
}
