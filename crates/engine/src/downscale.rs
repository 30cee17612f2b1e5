//! Screenshots that fit one message. MCP clients refuse a message over 1 MiB (the Python SDK's
//! SSE limit), and a capture of a Retina window easily weighs several MiB as PNG. A capture
//! whose PNG exceeds the budget is decoded, resampled (`resize`, a triangle filter with
//! premultiplied alpha) to the size that should fit, and re-encoded, shrinking further until it
//! does. The frame stays; the scale (pixels per point) follows the new size, so the maths of
//! [`Capture::to_global`] still holds. Plain pixel work, the same on every backend.

use rgb::FromSlice;

use super::capture::Capture;
use super::error::AxError;

/// The most PNG bytes a screenshot result carries: base64 turns them into 4/3 as many
/// characters, and the result (with its text and JSON-RPC envelope) stays under 1 MiB.
pub const MAX_PNG_BYTES: usize = 700 * 1024;

/// How many times a capture is shrunk at most before giving up.
const ROUNDS: usize = 8;

/// A capture within the budget, and the pixel sizes before and after when it was shrunk.
pub struct Fitted {
    pub capture: Capture,
    pub shrunk: Option<((u32, u32), (u32, u32))>,
}

/// `capture` itself when its PNG holds at most `max_bytes`; else a downscaled copy that does.
pub fn fit(capture: Capture, max_bytes: usize) -> Result<Fitted, AxError> {
    if capture.png.len() <= max_bytes {
        return Ok(Fitted {
            capture,
            shrunk: None,
        });
    }
    let (w, h, rgba) = decode(&capture.png)?;
    let (mut tw, mut th) = (w, h);
    let mut size = capture.png.len();
    for _ in 0..ROUNDS {
        // PNG size grows roughly with the pixel count; aim a little below the budget.
        let factor = ((max_bytes as f64 / size as f64).sqrt() * 0.9).clamp(0.05, 0.9);
        tw = ((f64::from(tw) * factor) as u32).max(1);
        th = ((f64::from(th) * factor) as u32).max(1);
        let png = encode(&resample(&rgba, (w, h), (tw, th))?, tw, th)?;
        size = png.len();
        if size <= max_bytes || (tw, th) == (1, 1) {
            return Ok(Fitted {
                capture: Capture::new(png, capture.frame),
                shrunk: Some(((w, h), (tw, th))),
            });
        }
    }
    Err(AxError::Backend(format!(
        "the screenshot ({w}×{h} pixels) does not fit {max_bytes} bytes even at {tw}×{th}: \
         capture a smaller region or element"
    )))
}

/// RGBA pixels of a PNG of any colour type and depth.
fn decode(png_bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), AxError> {
    axgate_parse::picture::decode_rgba(png_bytes)
        .map_err(|e| AxError::Backend(format!("unreadable screenshot PNG: {e}")))
}

fn resample(rgba: &[u8], (w, h): (u32, u32), (tw, th): (u32, u32)) -> Result<Vec<u8>, AxError> {
    let mut out = vec![0; tw as usize * th as usize * 4];
    let mut resizer = resize::new(
        w as usize,
        h as usize,
        tw as usize,
        th as usize,
        resize::Pixel::RGBA8P,
        resize::Type::Triangle,
    )
    .map_err(|e| AxError::Backend(format!("cannot downscale the screenshot: {e}")))?;
    resizer
        .resize(rgba.as_rgba(), out.as_rgba_mut())
        .map_err(|e| AxError::Backend(format!("cannot downscale the screenshot: {e}")))?;
    Ok(out)
}

/// A PNG of RGBA pixels; RGB when every pixel is opaque (a quarter fewer bytes to compress).
fn encode(rgba: &[u8], w: u32, h: u32) -> Result<Vec<u8>, AxError> {
    let fail = |e: png::EncodingError| AxError::Backend(format!("PNG encoding failed: {e}"));
    let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    let data: Vec<u8> = if opaque {
        encoder.set_color(png::ColorType::Rgb);
        rgba.chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect()
    } else {
        encoder.set_color(png::ColorType::Rgba);
        rgba.to_vec()
    };
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(&data).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::png_size;
    use crate::model::Rect;

    /// A PNG of `w` × `h` pixels of noise (which compresses badly, like a photo).
    fn noise(w: u32, h: u32) -> Vec<u8> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let rgba: Vec<u8> = (0..w * h * 4)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if i % 4 == 3 { 255 } else { state as u8 }
            })
            .collect();
        encode(&rgba, w, h).unwrap()
    }

    #[test]
    fn a_small_capture_is_left_alone() {
        let png = noise(20, 10);
        let fitted = fit(Capture::new(png.clone(), None), MAX_PNG_BYTES).unwrap();
        assert!(fitted.shrunk.is_none());
        assert_eq!(fitted.capture.png, png);
    }

    #[test]
    fn a_big_capture_shrinks_under_the_budget_and_keeps_its_geometry() {
        let png = noise(1200, 800);
        assert!(png.len() > MAX_PNG_BYTES, "{} bytes", png.len());
        let frame = Rect {
            x: 10.0,
            y: 20.0,
            w: 600.0,
            h: 400.0,
        };
        let fitted = fit(Capture::new(png, Some(frame)), MAX_PNG_BYTES).unwrap();
        let shot = fitted.capture;
        assert!(shot.png.len() <= MAX_PNG_BYTES, "{} bytes", shot.png.len());
        let (w, h) = png_size(&shot.png).expect("a PNG");
        assert_eq!(fitted.shrunk, Some(((1200, 800), (w, h))));
        assert!(w < 1200 && h < 800, "{w}×{h}");
        // The aspect ratio holds within a pixel, and the scale follows the new size.
        assert!((f64::from(w) / f64::from(h) - 1.5).abs() < 0.01, "{w}×{h}");
        let scale = shot.scale.expect("a scale");
        assert!((scale - f64::from(w) / 600.0).abs() < 0.01, "{scale}");
        assert_eq!(shot.frame, Some(frame));
    }

    #[test]
    fn every_colour_type_decodes() {
        for (color, channels) in [
            (png::ColorType::Grayscale, 1),
            (png::ColorType::GrayscaleAlpha, 2),
            (png::ColorType::Rgb, 3),
            (png::ColorType::Rgba, 4),
        ] {
            let mut png_bytes = Vec::new();
            let mut encoder = png::Encoder::new(&mut png_bytes, 3, 2);
            encoder.set_color(color);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().unwrap();
            writer
                .write_image_data(&vec![200; 3 * 2 * channels])
                .unwrap();
            writer.finish().unwrap();
            let (w, h, rgba) = decode(&png_bytes).unwrap();
            assert_eq!((w, h, rgba.len()), (3, 2, 24), "{color:?}");
            assert_eq!(rgba[..3], [200, 200, 200], "{color:?}");
        }
        assert!(decode(b"not a png").is_err());
    }
}
