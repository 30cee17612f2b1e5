//! Screenshots of the X display as PNG, in Rust: the app's window (raised first so nothing
//! covers it), or its part of a region, read with `GetImage` and encoded with the `png`
//! crate.

use axgate_engine::{AxError, CallCtx, Capture, Pid, Rect};

use super::Core;
use super::x11::Display;

/// Whether the X display can be opened (readiness).
pub(super) fn check_display() -> Result<(), String> {
    if std::env::var_os("DISPLAY").is_none() {
        return Err(
            "DISPLAY is not set: screenshots and synthetic input need the X display \
                    of the desktop session"
                .to_owned(),
        );
    }
    Display::open().map(drop).map_err(|e| e.to_string())
}

/// A PNG of the app's window, or of its part of `region`.
pub(super) fn screenshot(
    core: &Core,
    pid: Pid,
    region: Option<Rect>,
    ctx: &mut CallCtx,
) -> Result<Capture, AxError> {
    // Never the screen as it is: the app is raised, and only its window's part of the region
    // is read (the window containing the region's centre, else its top-most one).
    super::input::raise_app(core, pid, ctx)?;
    let display = Display::open()?;
    let window = display
        .window_of(pid, None, region.map(|r| r.center()))?
        .map(|w| w.rect)
        .ok_or_else(|| AxError::Unsupported(format!("pid {pid} shows no window")))?;
    let rect = region
        .and_then(|r| window.intersection(&r))
        .unwrap_or(window);
    let (rgb, w, h) = display.capture(rect)?;
    Ok(Capture::new(encode_png(&rgb, w, h)?, Some(rect)))
}

/// Encodes 8-bit RGB rows as a PNG.
pub(super) fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, AxError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let fail = |e: png::EncodingError| AxError::Backend(format!("PNG encoding failed: {e}"));
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(rgb).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips() {
        let rgb = vec![10u8; 4 * 3 * 3];
        let png_bytes = encode_png(&rgb, 4, 3).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let reader = decoder.read_info().unwrap();
        assert_eq!((reader.info().width, reader.info().height), (4, 3));
    }
}
