//! Screenshots through ScreenCaptureKit (`capture_sck.rs`, macOS 14+) or, where it is
//! missing or fails, `/usr/sbin/screencapture` (`CGWindowListCreateImage` is gone from the
//! macOS 15 SDK): the app's focused window by window id (from the private
//! `_AXUIElementGetWindow`, resolved with `dlsym` at run time so the binary still loads if it
//! disappears; the window frame is the fallback); for a region, the app's window it overlaps
//! most, which the engine cuts to the region (never the screen as it is). The PNG goes to a
//! temporary file, is read back and removed. Needs the Screen Recording grant, checked first:
//! without it `screencapture` silently returns only the desktop. The capture carries the
//! frame it shows (the window frame) and so its scale (`ax::Capture`).
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use accessibility_sys::{AXError, AXUIElementRef};
use core_graphics::access::ScreenCaptureAccess;

use axgate_engine::{AxError, CallCtx, Capture, Pid, Rect, region};

use super::apps;
use super::attrs;
use super::capture_sck;
use super::element::AxElement;
use super::errors::{AxCall, AxFailure, check, to_ax_error};
use super::permissions::screen_recording_fix;
use super::process;
use crate::mac_logic::capture::{self, SCREENCAPTURE, Target};
use crate::mac_logic::child;
use crate::mac_logic::decode;

/// `AXError _AXUIElementGetWindow(AXUIElementRef, CGWindowID *)`.
type GetWindowFn = unsafe extern "C" fn(AXUIElementRef, *mut u32) -> AXError;

pub(super) fn screenshot(
    pid: Pid,
    region: Option<Rect>,
    ctx: &mut CallCtx,
) -> Result<Capture, AxError> {
    let started = Instant::now();
    if !ScreenCaptureAccess.preflight() {
        return Err(AxError::Permission(screen_recording_fix()));
    }
    // A region is never captured from the screen as it is: the app's window it overlaps most
    // is captured by itself, and the engine cuts it to the region (`engine/region`).
    let (target, frame) = window_target(pid, region, ctx, started)?;
    let png = match capture_sck::capture(target, frame, ctx.deadline()) {
        Ok(png) => png,
        Err(capture_sck::Failure::Unavailable) => {
            run_screencapture(target, ctx.deadline(), started)?
        }
        Err(capture_sck::Failure::Failed(why)) => {
            tracing::debug!(%why, "ScreenCaptureKit failed; capturing with screencapture");
            run_screencapture(target, ctx.deadline(), started)?
        }
    };
    Ok(Capture::new(png, frame))
}

/// The app's window as a capture target, with its frame: for a region, the window that
/// overlaps it most; else (or when none does) the focused window, else the first.
fn window_target(
    pid: Pid,
    region: Option<Rect>,
    ctx: &mut CallCtx,
    started: Instant,
) -> Result<(Target, Option<Rect>), AxError> {
    let fail = |f: AxFailure| to_ax_error(f, pid, None, started);
    let app = apps::app_element(pid)?;
    let mut window = None;
    if let Some(region) = region {
        let windows = attrs::read_elements(&app, "AXWindows", ctx).map_err(fail)?;
        let mut frames = Vec::with_capacity(windows.len());
        for w in &windows {
            frames.push(window_frame(w, ctx).map_err(fail)?);
        }
        window = region::window_for(&frames, region).map(|i| windows[i].clone());
    }
    if window.is_none() {
        window = match attrs::read_element(&app, "AXFocusedWindow", ctx).map_err(fail)? {
            Some(window) => Some(window),
            None => attrs::read_elements(&app, "AXWindows", ctx)
                .map_err(fail)?
                .into_iter()
                .next(),
        };
    }
    let Some(window) = window else {
        return Err(AxError::Unsupported(format!(
            "{} has no window to capture",
            process::label(pid)
        )));
    };
    let frame = window_frame(&window, ctx).map_err(fail)?;
    if let Some(id) = window_id(&window, ctx).map_err(fail)? {
        return Ok((Target::Window(id), frame));
    }
    let region = frame.and_then(|f| capture::covered_region(&f));
    region.map(|r| (Target::Region(r), Some(r))).ok_or_else(|| {
        AxError::Backend(format!(
            "cannot locate the window of {} on screen",
            process::label(pid)
        ))
    })
}

/// A window's frame in global points.
fn window_frame(window: &AxElement, ctx: &mut CallCtx) -> AxCall<Option<Rect>> {
    let values = attrs::read_many(window, &attrs::names(&["AXPosition", "AXSize"]), ctx)?;
    Ok(match values.as_slice() {
        [position, size] => decode::frame(position, size),
        _ => None,
    })
}

/// The window-server id of a window element, when the private call is available.
fn window_id(window: &AxElement, ctx: &mut CallCtx) -> AxCall<Option<u32>> {
    let Some(get_window) = get_window_fn() else {
        return Ok(None);
    };
    attrs::arm(window, ctx)?;
    let mut id: u32 = 0;
    // SAFETY: a valid element and out pointer, matching the function's long-standing C
    // signature (see `GetWindowFn`).
    let code = unsafe { get_window(window.as_ptr(), &mut id) };
    match check(code) {
        Ok(()) => Ok((id != 0).then_some(id)),
        Err(f) if f.is_timeout() => Err(f),
        Err(_) => Ok(None),
    }
}

fn get_window_fn() -> Option<GetWindowFn> {
    static GET_WINDOW: OnceLock<Option<GetWindowFn>> = OnceLock::new();
    *GET_WINDOW.get_or_init(|| {
        // SAFETY: dlsym only looks a symbol up in the loaded images (ApplicationServices is
        // linked through accessibility-sys); the name is NUL-terminated.
        let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"_AXUIElementGetWindow".as_ptr()) };
        if symbol.is_null() {
            tracing::warn!("_AXUIElementGetWindow is unavailable; screenshots use window frames");
            return None;
        }
        // SAFETY: the symbol is the private HIServices function whose signature has been
        // `AXError (AXUIElementRef, CGWindowID *)` since it appeared; CGWindowID is a u32.
        Some(unsafe { std::mem::transmute::<*mut c_void, GetWindowFn>(symbol) })
    })
}

/// Runs `screencapture` into a temporary file, waiting until `deadline`, and returns the PNG.
fn run_screencapture(
    target: Target,
    deadline: Instant,
    started: Instant,
) -> Result<Vec<u8>, AxError> {
    let path = temp_path();
    let args = capture::args(target, &path).ok_or_else(|| AxError::InvalidValue {
        element: "the screenshot region".to_owned(),
        reason: "the region is empty".to_owned(),
    })?;
    let _ = fs::remove_file(&path);
    let mut running = Command::new(SCREENCAPTURE)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| AxError::Backend(format!("cannot run {SCREENCAPTURE}: {e}")))?;
    let status = child::wait_until(&mut running, deadline)
        .map_err(|e| AxError::Backend(format!("waiting for {SCREENCAPTURE} failed: {e}")))?;
    let Some(status) = status else {
        let _ = fs::remove_file(&path);
        return Err(AxError::Timeout {
            app: "screencapture".to_owned(),
            after: started.elapsed(),
        });
    };
    let stderr = child::stderr_of(&mut running);
    let bytes = fs::read(&path);
    let _ = fs::remove_file(&path);
    if !status.success() {
        return Err(AxError::Backend(format!(
            "{SCREENCAPTURE} failed ({status}): {}",
            stderr
        )));
    }
    match bytes {
        Ok(bytes) if capture::is_png(&bytes) => Ok(bytes),
        _ if !ScreenCaptureAccess.preflight() => Err(AxError::Permission(screen_recording_fix())),
        _ => Err(AxError::Backend(format!(
            "{SCREENCAPTURE} wrote no image; is the window on screen? {}",
            stderr
        ))),
    }
}

/// A fresh file name in the per-user temporary directory.
fn temp_path() -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("axgate-shot-{}-{n}.png", std::process::id()))
}
