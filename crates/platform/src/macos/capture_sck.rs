//! Window and region captures through ScreenCaptureKit (`SCScreenshotManager`, macOS 14+),
//! which needs no helper process and avoids the legacy-capture prompt macOS 15 shows
//! unattended Macs for `screencapture`. `screenshot.rs` tries this first and falls back to
//! `screencapture` when the class is missing (macOS 13) or the capture fails.
//!
//! The asynchronous API is waited for with the call's deadline: each completion handler
//! sends its result on a channel. A window is captured by its window-server id without its
//! shadow, at the display's pixel scale; a region through a filter on the display that holds
//! its centre and a source rectangle. The bitmap's layout and the PNG encoding are
//! `mac_logic::pixels`.
#![allow(unsafe_code)]

use std::sync::mpsc::{self, Receiver};
use std::time::Instant;

use block2::RcBlock;
use core_graphics::image::CGImageRef;
use foreign_types::ForeignTypeRef;
use objc2::AllocAnyThread;
use objc2::rc::Retained;
use objc2::runtime::AnyClass;
use objc2_core_foundation::{CGPoint, CGRect, CGSize};
use objc2_core_graphics::CGImage;
use objc2_foundation::{NSArray, NSError};
use objc2_screen_capture_kit::{
    SCContentFilter, SCScreenshotManager, SCShareableContent, SCStreamConfiguration,
};

use crate::mac_logic::capture::Target;
use crate::mac_logic::pixels;
use axgate_engine::Rect;

#[link(name = "CoreGraphics", kind = "framework")]
unsafe extern "C" {
    fn CGImageGetBitmapInfo(image: *const core_graphics::sys::CGImage) -> u32;
}

/// Why ScreenCaptureKit gave no image.
#[derive(Debug)]
pub(super) enum Failure {
    /// Not on this macOS (before 14).
    Unavailable,
    /// It ran and failed; the text says how.
    Failed(String),
}

/// An Objective-C object on its way from a completion handler to the waiting thread.
struct Handed<T>(T);

// SAFETY: ScreenCaptureKit's content objects are immutable snapshots, only read after the
// hand-over, by one thread at a time.
unsafe impl<T> Send for Handed<T> {}

/// Captures `target` (whose frame in points is `frame`) as PNG.
pub(super) fn capture(
    target: Target,
    frame: Option<Rect>,
    deadline: Instant,
) -> Result<Vec<u8>, Failure> {
    if AnyClass::get(c"SCScreenshotManager").is_none() {
        return Err(Failure::Unavailable);
    }
    let content = shareable_content(deadline)?;
    let (filter, source) = match target {
        Target::Window(id) => (window_filter(&content, id)?, None),
        Target::Region(rect) => region_filter(&content, rect)?,
    };
    // SAFETY: a fully initialised filter; the property is read-only (macOS 14+, checked above).
    let scale = f64::from(unsafe { filter.pointPixelScale() });
    let points = source.or(frame).ok_or_else(|| {
        Failure::Failed("the capture has no frame to size the image by".to_owned())
    })?;
    let (width, height) = pixels::pixel_size(&points, scale)
        .ok_or_else(|| Failure::Failed("the capture area is empty".to_owned()))?;
    // SAFETY: plain property setters on a configuration this function owns.
    let config = unsafe {
        let config = SCStreamConfiguration::new();
        config.setWidth(width);
        config.setHeight(height);
        config.setShowsCursor(false);
        config.setIgnoreShadowsSingleWindow(true);
        if let Some(source) = source {
            config.setSourceRect(source_rect(&source, &filter));
        }
        config
    };
    let (tx, rx) = mpsc::sync_channel(1);
    let handler = RcBlock::new(move |image: *mut CGImage, error: *mut NSError| {
        let result = if image.is_null() {
            Err(Failure::Failed(describe(error)))
        } else {
            // SAFETY: a valid CGImage for the handler's duration (Get rule).
            encode(unsafe { CGImageRef::from_ptr(image.cast()) })
        };
        let _ = tx.try_send(result);
    });
    // SAFETY: valid filter and configuration; the handler is retained by the call.
    unsafe {
        SCScreenshotManager::captureImageWithFilter_configuration_completionHandler(
            &filter,
            &config,
            Some(&handler),
        );
    }
    wait(&rx, deadline, "the capture")?
}

/// What the Mac may capture (windows and displays), waited for until `deadline`.
fn shareable_content(deadline: Instant) -> Result<Retained<SCShareableContent>, Failure> {
    let (tx, rx) = mpsc::sync_channel(1);
    let handler = RcBlock::new(
        move |content: *mut SCShareableContent, error: *mut NSError| {
            // SAFETY: `content` is null or valid for the handler's duration; retained here.
            let result = match unsafe { Retained::retain(content) } {
                Some(content) => Ok(Handed(content)),
                None => Err(Failure::Failed(describe(error))),
            };
            let _ = tx.try_send(result);
        },
    );
    // SAFETY: the handler is retained by the call and runs once.
    unsafe { SCShareableContent::getShareableContentWithCompletionHandler(&handler) };
    wait(&rx, deadline, "the list of shareable windows")?.map(|handed| handed.0)
}

fn window_filter(
    content: &SCShareableContent,
    id: u32,
) -> Result<Retained<SCContentFilter>, Failure> {
    // SAFETY: reading an immutable content snapshot.
    let windows = unsafe { content.windows() };
    let window = windows
        .to_vec()
        .into_iter()
        // SAFETY: a read-only property of a window of the snapshot.
        .find(|w| unsafe { w.windowID() } == id)
        .ok_or_else(|| {
            Failure::Failed(format!(
                "window {id} is not among the windows it may capture"
            ))
        })?;
    // SAFETY: initialising a freshly allocated filter with a valid window.
    Ok(unsafe {
        SCContentFilter::initWithDesktopIndependentWindow(SCContentFilter::alloc(), &window)
    })
}

/// A filter on the display holding the region's centre, and the region.
fn region_filter(
    content: &SCShareableContent,
    region: Rect,
) -> Result<(Retained<SCContentFilter>, Option<Rect>), Failure> {
    let (cx, cy) = (region.x + region.w / 2.0, region.y + region.h / 2.0);
    // SAFETY: reading an immutable content snapshot.
    let displays = unsafe { content.displays() };
    let display = displays
        .to_vec()
        .into_iter()
        .find(|d| {
            // SAFETY: a read-only property of a display of the snapshot.
            let f = unsafe { d.frame() };
            cx >= f.origin.x
                && cx < f.origin.x + f.size.width
                && cy >= f.origin.y
                && cy < f.origin.y + f.size.height
        })
        .ok_or_else(|| Failure::Failed("no display holds the region".to_owned()))?;
    let none = NSArray::new();
    // SAFETY: initialising a freshly allocated filter with a valid display and an empty list.
    let filter = unsafe {
        SCContentFilter::initWithDisplay_excludingWindows(SCContentFilter::alloc(), &display, &none)
    };
    Ok((filter, Some(region)))
}

/// The region relative to the filtered display's top-left, in points.
fn source_rect(region: &Rect, filter: &SCContentFilter) -> CGRect {
    // SAFETY: a read-only property of an initialised filter (macOS 14+).
    let display = unsafe { filter.contentRect() };
    CGRect {
        origin: CGPoint {
            x: region.x - display.origin.x,
            y: region.y - display.origin.y,
        },
        size: CGSize {
            width: region.w,
            height: region.h,
        },
    }
}

/// The image's pixels as PNG.
fn encode(image: &CGImageRef) -> Result<Vec<u8>, Failure> {
    // SAFETY: a valid image (caller contract).
    let info = unsafe { CGImageGetBitmapInfo(image.as_ptr()) };
    let layout = pixels::layout(info, image.bits_per_pixel()).ok_or_else(|| {
        Failure::Failed(format!(
            "the image has a pixel layout axgate does not read ({info:#x})"
        ))
    })?;
    let data = image.data();
    pixels::to_png(
        data.bytes(),
        image.width(),
        image.height(),
        image.bytes_per_row(),
        layout,
    )
    .ok_or_else(|| Failure::Failed("the image's pixel buffer is shorter than its size".to_owned()))
}

fn wait<T>(
    rx: &Receiver<Result<T, Failure>>,
    deadline: Instant,
    what: &str,
) -> Result<Result<T, Failure>, Failure> {
    rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .map_err(|_| Failure::Failed(format!("ScreenCaptureKit did not deliver {what} in time")))
}

fn describe(error: *mut NSError) -> String {
    // SAFETY: null or a valid error for the handler's duration.
    match unsafe { error.as_ref() } {
        Some(error) => error.localizedDescription().to_string(),
        None => "ScreenCaptureKit gave neither an image nor an error".to_owned(),
    }
}
