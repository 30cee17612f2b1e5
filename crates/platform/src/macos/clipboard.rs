//! The general pasteboard's plain text (`NSPasteboard`), accessed on the main thread when the
//! main run loop runs (AppKit's home), else on the caller's thread. Clipboard text is never
//! logged.
#![allow(unsafe_code)]

use std::time::Duration;

use objc2::rc::autoreleasepool;
use objc2_app_kit::{NSPasteboard, NSPasteboardTypeString};
use objc2_foundation::NSString;

use axgate_engine::{AxError, CallCtx};

use super::runloop;

/// The longest the main run loop may take to serve a clipboard call.
const WAIT: Duration = Duration::from_secs(2);

pub(super) fn read_clipboard(ctx: &mut CallCtx) -> Result<String, AxError> {
    let text = on_main(ctx, || {
        autoreleasepool(|_| {
            // SAFETY: an immutable AppKit constant.
            let kind = unsafe { NSPasteboardTypeString };
            NSPasteboard::generalPasteboard()
                .stringForType(kind)
                .map(|s| s.to_string())
        })
    })?;
    Ok(text.unwrap_or_default())
}

pub(super) fn write_clipboard(text: &str, ctx: &mut CallCtx) -> Result<(), AxError> {
    let text = text.to_owned();
    let written = on_main(ctx, move || {
        autoreleasepool(|_| {
            // SAFETY: an immutable AppKit constant.
            let kind = unsafe { NSPasteboardTypeString };
            let pasteboard = NSPasteboard::generalPasteboard();
            pasteboard.clearContents();
            pasteboard.setString_forType(&NSString::from_str(&text), kind)
        })
    })?;
    if written {
        Ok(())
    } else {
        Err(AxError::Backend(
            "the pasteboard did not accept the text".to_owned(),
        ))
    }
}

fn on_main<R: Send + 'static>(
    ctx: &mut CallCtx,
    job: impl FnOnce() -> R + Send + 'static,
) -> Result<R, AxError> {
    if !runloop::is_running() {
        return Ok(job());
    }
    runloop::run_on_main(ctx.remaining().min(WAIT), job)
        .map_err(|e| AxError::Backend(format!("clipboard: {e}")))
}
