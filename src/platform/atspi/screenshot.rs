//! Screenshots of the X display as PNG, in Rust: a window (the app's top-most one, raised
//! first so nothing covers it) or a screen region, read with `GetImage` and encoded with the
//! `png` crate.

use crate::ax::{AxError, CallCtx, Capture, Pid, Rect};

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

/// A PNG of the app's window, or of a region of the screen.
pub(super) fn screenshot(
    core: &Core,
    pid: Pid,
    region: Option<Rect>,
    ctx: &mut CallCtx,
) -> Result<Capture, AxError> {
    let rect = match region {
        Some(r) => r,
        None => {
            super::input::raise_app(core, pid, ctx)?;
            let display = Display::open()?;
            display
                .window_of(pid, None, None)?
                .map(|w| w.rect)
                .ok_or_else(|| AxError::Unsupported(format!("pid {pid} shows no window")))?
        }
    };
    let display = Display::open()?;
    let (rgb, w, h) = display.capture(rect)?;
    Ok(Capture::new(encode_png(&rgb, w, h)?, Some(rect)))
}

/// 32-bit Z-pixmap data (little-endian words, channels found by mask) → 8-bit RGB.
pub(super) fn to_rgb(
    data: &[u8],
    w: u32,
    h: u32,
    masks: (u32, u32, u32),
) -> Result<Vec<u8>, AxError> {
    let pixels = (w as usize) * (h as usize);
    if data.len() < pixels * 4 {
        return Err(AxError::Unsupported(
            "the X server's pixel format is not 32 bits per pixel".to_owned(),
        ));
    }
    let channel = |p: u32, mask: u32| -> u8 {
        if mask == 0 {
            return 0;
        }
        let v = (p & mask) >> mask.trailing_zeros();
        let bits = (mask >> mask.trailing_zeros()).count_ones();
        if bits >= 8 {
            (v >> (bits - 8)) as u8
        } else {
            ((v * 255) / ((1 << bits) - 1)) as u8
        }
    };
    let mut out = Vec::with_capacity(pixels * 3);
    for px in data.chunks_exact(4).take(pixels) {
        let p = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
        out.extend_from_slice(&[
            channel(p, masks.0),
            channel(p, masks.1),
            channel(p, masks.2),
        ]);
    }
    Ok(out)
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
    fn bgrx_words_become_rgb() {
        // One red and one blue pixel in little-endian 0x00RRGGBB words.
        let data = [0x00, 0x00, 0xff, 0x00, 0xff, 0x00, 0x00, 0x00];
        let rgb = to_rgb(&data, 2, 1, (0xff0000, 0x00ff00, 0x0000ff)).unwrap();
        assert_eq!(rgb, [255, 0, 0, 0, 0, 255]);
        assert!(to_rgb(&data, 3, 1, (0xff0000, 0xff00, 0xff)).is_err());
    }

    #[test]
    fn png_round_trips() {
        let rgb = vec![10u8; 4 * 3 * 3];
        let png_bytes = encode_png(&rgb, 4, 3).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let reader = decoder.read_info().unwrap();
        assert_eq!((reader.info().width, reader.info().height), (4, 3));
    }
}
