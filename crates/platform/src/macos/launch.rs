//! Launching, quitting and activating apps. `resolve_launch` finds the bundle a launch would
//! start (for the app policy, before anything starts). Launch runs `open -b id` / `open -a
//! name-or-path` (with `--env` and `--args` when asked; refused for an app that runs, which
//! `open` would only activate) and waits until the workspace lists a matching app (a pid is not yet a ready tree: the
//! engine waits for windows). Quit asks `NSRunningApplication` to terminate (or force) and
//! leaves verifying the exit to the engine: `terminate` succeeds even when a save sheet then
//! blocks it. Activation goes through the input guard (activate, raise, wait until frontmost).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use objc2::rc::autoreleasepool;
use objc2_app_kit::NSRunningApplication;

use axgate_engine::{AppInfo, AxError, CallCtx, LaunchRequest, Launchable, Pid};

use super::apps;
use super::guard;
use super::process;
use crate::mac_logic::child;
use crate::mac_logic::input_guard::Event;
use crate::mac_logic::launch_spec::{self, OPEN};

/// How often the workspace is checked for the launched app.
const POLL: Duration = Duration::from_millis(100);

pub(super) fn launch_app(request: &LaunchRequest, ctx: &mut CallCtx) -> Result<AppInfo, AxError> {
    let started = Instant::now();
    let spec = request.spec.as_str();
    let parsed = launch_spec::parse(spec).map_err(|reason| AxError::InvalidValue {
        element: "the app to launch".to_owned(),
        reason,
    })?;
    let running_now = || {
        apps::running().into_iter().find(|app| {
            launch_spec::matches(
                parsed,
                &app.info.name,
                app.info.bundle_id.as_deref(),
                app.bundle_path.as_deref(),
            )
        })
    };
    if request.has_extras()
        && let Some(app) = running_now()
    {
        return Err(request.already_running(&app.info.name));
    }
    let args = launch_spec::open_args(parsed, &request.arguments, &request.environment);
    let mut running = Command::new(OPEN)
        .args(args)
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
        // open's complaint may quote what it was given: with arguments or environment (which
        // may be secrets) only that it failed is logged.
        if request.has_extras() {
            tracing::debug!("open could not launch the app (with arguments or environment)");
        } else {
            tracing::debug!(%reason, "open could not launch the app");
        }
        return Err(AxError::AppNotFound {
            query: spec.to_owned(),
            available: apps::running().into_iter().map(|a| a.info.name).collect(),
        });
    }
    loop {
        if let Some(app) = running_now() {
            return Ok(app.info);
        }
        let left = ctx.remaining();
        if left.is_zero() {
            return Err(timeout());
        }
        thread::sleep(POLL.min(left));
    }
}

/// Where apps are installed, searched for `<name>.app` when a launch names an app by name.
const APP_DIRS: &[&str] = &[
    "/Applications",
    "/Applications/Utilities",
    "/System/Applications",
    "/System/Applications/Utilities",
];

/// What `launch_app(spec)` would start, without starting it: the bundle (the path given, the
/// `<name>.app` in the usual folders, or what Spotlight knows for a bundle id) with its name
/// and bundle id read from its `Info.plist`. What cannot be found keeps the words asked for,
/// so the rules still see them.
pub(super) fn resolve_launch(spec: &str) -> Result<Launchable, AxError> {
    let parsed = launch_spec::parse(spec).map_err(|reason| AxError::InvalidValue {
        element: "the app to launch".to_owned(),
        reason,
    })?;
    let bundle = match parsed {
        launch_spec::Spec::Path(path) if path.starts_with('/') => Some(PathBuf::from(path)),
        launch_spec::Spec::Path(file) => find_bundle(file.trim_end_matches(".app")),
        launch_spec::Spec::Name(name) => find_bundle(name),
        launch_spec::Spec::BundleId(id) => spotlight(id),
    };
    let Some(bundle) = bundle.filter(|b| b.is_dir()) else {
        return match parsed {
            launch_spec::Spec::Path(_) => Err(AxError::NotLaunchable {
                query: spec.to_owned(),
            }),
            launch_spec::Spec::BundleId(id) => Ok(Launchable {
                name: id.to_owned(),
                bundle_id: Some(id.to_owned()),
                ..Launchable::default()
            }),
            launch_spec::Spec::Name(name) => Ok(Launchable {
                name: name.to_owned(),
                ..Launchable::default()
            }),
        };
    };
    let bundle = std::fs::canonicalize(&bundle).unwrap_or(bundle);
    let stem = bundle
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned();
    let plist = bundle.join("Contents/Info.plist");
    let name = info(&plist, "CFBundleName").unwrap_or_else(|| stem.clone());
    let mut aliases = vec![stem];
    aliases.extend(info(&plist, "CFBundleDisplayName"));
    Ok(Launchable {
        name,
        bundle_id: info(&plist, "CFBundleIdentifier"),
        path: Some(bundle.display().to_string()),
        aliases,
    })
}

/// `<name>.app` (any case) in one of [`APP_DIRS`] or `~/Applications`.
fn find_bundle(name: &str) -> Option<PathBuf> {
    let wanted = format!("{name}.app").to_lowercase();
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join("Applications"));
    APP_DIRS
        .iter()
        .map(PathBuf::from)
        .chain(home)
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().to_lowercase() == wanted)
        .map(|e| e.path())
}

/// The bundle Spotlight knows for a bundle id.
fn spotlight(id: &str) -> Option<PathBuf> {
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    {
        return None;
    }
    let out = Command::new("/usr/bin/mdfind")
        .arg(format!("kMDItemCFBundleIdentifier == '{id}'"))
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.ends_with(".app"))
        .map(PathBuf::from)
}

/// One string value of an `Info.plist` (binary or XML), through `plutil`.
fn info(plist: &Path, key: &str) -> Option<String> {
    let out = Command::new("/usr/bin/plutil")
        .args(["-extract", key, "raw", "-o", "-"])
        .arg(plist)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let value = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !value.is_empty()).then_some(value)
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
            process::label(pid)
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
