//! A captured bitmap as PNG. ScreenCaptureKit hands back a `CGImage` whose pixels are 32 bits
//! in one of a few layouts (in practice BGRA, premultiplied, little-endian); the macOS
//! adapter copies the pixel bytes and the image's bitmap info out, and this file decides the
//! layout, un-premultiplies, and encodes RGBA PNG with the `png` crate. It also works out the
//! pixel size to ask for from a frame in points and the display's scale. Plain Rust, no
//! Apple types.

use axgate_engine::Rect;

/// `CGImageAlphaInfo` values (the low 5 bits of `CGBitmapInfo`).
const ALPHA_PREMULTIPLIED_LAST: u32 = 1;
const ALPHA_PREMULTIPLIED_FIRST: u32 = 2;
const ALPHA_LAST: u32 = 3;
const ALPHA_FIRST: u32 = 4;
const ALPHA_NONE_SKIP_LAST: u32 = 5;
const ALPHA_NONE_SKIP_FIRST: u32 = 6;
const ALPHA_MASK: u32 = 0x1F;
/// `kCGBitmapByteOrderMask` and `kCGBitmapByteOrder32Little`.
const BYTE_ORDER_MASK: u32 = 0x7000;
const BYTE_ORDER_32_LITTLE: u32 = 2 << 12;

/// Where each channel sits in a 4-byte pixel, and whether colour is premultiplied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Byte offsets of red, green, blue and alpha (`None`: no alpha, opaque).
    r: usize,
    g: usize,
    b: usize,
    a: Option<usize>,
    premultiplied: bool,
}

/// The layout of a 32-bit pixel from `CGImageGetBitmapInfo`, or `None` for one this file
/// does not read (float pixels, 16-bit channels: the caller falls back to `screencapture`).
pub(crate) fn layout(bitmap_info: u32, bits_per_pixel: usize) -> Option<Layout> {
    if bits_per_pixel != 32 || bitmap_info & 0x100 != 0 {
        // Not 8-bit channels, or kCGBitmapFloatComponents.
        return None;
    }
    let alpha = bitmap_info & ALPHA_MASK;
    let little = match bitmap_info & BYTE_ORDER_MASK {
        0 | 0x3000 => false, // default (big-endian bytes) or 32Big
        BYTE_ORDER_32_LITTLE => true,
        _ => return None,
    };
    // In memory order (big-endian): alpha first = A R G B, alpha last = R G B A. A 32-bit
    // little-endian word reverses the bytes: B G R A and A B G R.
    let (first, last) = match alpha {
        ALPHA_PREMULTIPLIED_FIRST | ALPHA_FIRST | ALPHA_NONE_SKIP_FIRST => (true, false),
        ALPHA_PREMULTIPLIED_LAST | ALPHA_LAST | ALPHA_NONE_SKIP_LAST => (false, true),
        _ => return None,
    };
    let argb = first && !last;
    let (r, g, b, a) = match (argb, little) {
        (true, false) => (1, 2, 3, 0),
        (true, true) => (2, 1, 0, 3),
        (false, false) => (0, 1, 2, 3),
        (false, true) => (3, 2, 1, 0),
    };
    let has_alpha = !matches!(alpha, ALPHA_NONE_SKIP_FIRST | ALPHA_NONE_SKIP_LAST);
    Some(Layout {
        r,
        g,
        b,
        a: has_alpha.then_some(a),
        premultiplied: matches!(alpha, ALPHA_PREMULTIPLIED_FIRST | ALPHA_PREMULTIPLIED_LAST),
    })
}

/// Encodes `width`×`height` pixels of `data` (rows `bytes_per_row` apart) as an RGBA PNG.
/// `None` when the buffer is too short for the sizes given.
pub(crate) fn to_png(
    data: &[u8],
    width: usize,
    height: usize,
    bytes_per_row: usize,
    layout: Layout,
) -> Option<Vec<u8>> {
    if width == 0 || height == 0 || bytes_per_row < width * 4 {
        return None;
    }
    let needed = bytes_per_row
        .checked_mul(height - 1)?
        .checked_add(width * 4)?;
    if data.len() < needed {
        return None;
    }
    let mut rgba = Vec::with_capacity(width * height * 4);
    for row in data.chunks(bytes_per_row).take(height) {
        for px in row[..width * 4].chunks_exact(4) {
            let a = layout.a.map_or(255, |i| px[i]);
            let un = |c: u8| {
                if !layout.premultiplied || a == 255 {
                    c
                } else if a == 0 {
                    0
                } else {
                    ((u32::from(c) * 255 + u32::from(a) / 2) / u32::from(a)).min(255) as u8
                }
            };
            rgba.extend_from_slice(&[un(px[layout.r]), un(px[layout.g]), un(px[layout.b]), a]);
        }
    }
    let mut out = Vec::new();
    {
        let w = u32::try_from(width).ok()?;
        let h = u32::try_from(height).ok()?;
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&rgba).ok()?;
    }
    Some(out)
}

/// The pixel size to ask a capture of `frame` (points) for, at `scale` pixels per point: at
/// least one pixel each way, or `None` for an empty or non-finite frame or scale.
pub(crate) fn pixel_size(frame: &Rect, scale: f64) -> Option<(usize, usize)> {
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !ok(frame.w) || !ok(frame.h) || !ok(scale) {
        return None;
    }
    let px = |points: f64| ((points * scale).round() as usize).max(1);
    Some((px(frame.w), px(frame.h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little`: what ScreenCaptureKit
    /// returns on Apple silicon and Intel.
    const BGRA_PREMULTIPLIED: u32 = ALPHA_PREMULTIPLIED_FIRST | BYTE_ORDER_32_LITTLE;

    fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    #[test]
    fn screen_capture_kits_bgra_becomes_rgba() {
        let layout = layout(BGRA_PREMULTIPLIED, 32).unwrap();
        // Two pixels a row, rows padded to 12 bytes: opaque red, half-transparent blue
        // (premultiplied: 0x40 of blue at alpha 0x80 is 0x80 straight).
        let data = [
            0x00, 0x00, 0xFF, 0xFF, 0x40, 0x00, 0x00, 0x80, 9, 9, 9, 9, //
            0x00, 0xFF, 0x00, 0xFF, 0x00, 0x00, 0x00, 0x00, 9, 9, 9, 9,
        ];
        let png_bytes = to_png(&data, 2, 2, 12, layout).unwrap();
        let (w, h, rgba) = decode(&png_bytes);
        assert_eq!((w, h), (2, 2));
        assert_eq!(
            rgba,
            [
                0xFF, 0, 0, 0xFF, 0, 0, 0x80, 0x80, //
                0, 0xFF, 0, 0xFF, 0, 0, 0, 0
            ]
        );
    }

    #[test]
    fn every_eight_bit_layout_is_read_and_others_are_refused() {
        let rgba = layout(ALPHA_LAST, 32).unwrap();
        assert_eq!((rgba.r, rgba.a, rgba.premultiplied), (0, Some(3), false));
        let argb = layout(ALPHA_FIRST, 32).unwrap();
        assert_eq!((argb.r, argb.b, argb.a), (1, 3, Some(0)));
        let xbgr = layout(ALPHA_NONE_SKIP_LAST | BYTE_ORDER_32_LITTLE, 32).unwrap();
        assert_eq!((xbgr.r, xbgr.a), (3, None));
        assert_eq!(layout(BGRA_PREMULTIPLIED, 64), None, "16-bit channels");
        assert_eq!(layout(BGRA_PREMULTIPLIED | 0x100, 32), None, "float pixels");
        assert_eq!(
            layout(0, 32),
            None,
            "no alpha info at 32 bits is not a layout"
        );
        assert_eq!(layout(ALPHA_LAST | 0x1000, 32), None, "16-bit byte order");
    }

    #[test]
    fn a_short_buffer_or_an_empty_image_is_refused() {
        let layout = layout(BGRA_PREMULTIPLIED, 32).unwrap();
        assert!(to_png(&[0; 15], 2, 2, 8, layout).is_none());
        assert!(to_png(&[0; 16], 2, 2, 8, layout).is_some());
        assert!(to_png(&[], 0, 0, 0, layout).is_none());
        assert!(
            to_png(&[0; 64], 4, 2, 8, layout).is_none(),
            "rows shorter than the width"
        );
    }

    #[test]
    fn the_pixel_size_follows_the_scale() {
        let frame = Rect {
            x: -100.0,
            y: 20.0,
            w: 640.5,
            h: 400.0,
        };
        assert_eq!(pixel_size(&frame, 2.0), Some((1281, 800)));
        assert_eq!(pixel_size(&frame, 1.0), Some((641, 400)));
        let tiny = Rect {
            w: 0.1,
            h: 0.1,
            ..frame
        };
        assert_eq!(pixel_size(&tiny, 1.0), Some((1, 1)));
        assert_eq!(pixel_size(&Rect { w: 0.0, ..frame }, 2.0), None);
        assert_eq!(pixel_size(&frame, f64::NAN), None);
    }
}
