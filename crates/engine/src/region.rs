//! What a screenshot of a region shows: the named app's own window, cut to the region. A
//! region (given, or an element's frame) is never captured from the screen as it is, which
//! would show whatever lies there, a denied app's window too. Refusing a region because a
//! denied window lies in it was itself the leak: where the refusals start maps the hidden
//! window (issue #33, finding 6). So every backend captures the app's window that overlaps the
//! region most, by itself (raised first where the platform has no window-only capture), and
//! [`crop`] cuts that picture to the region here, in one place for every backend. The answer
//! depends on the named app's windows only: a region outside them is refused with the same
//! words wherever other apps' windows are.

use png::{BitDepth, ColorType, Decoder, Encoder, Transformations};

use super::capture::Capture;
use super::error::AxError;
use super::model::Rect;

impl Rect {
    /// The area the two rects share, if any.
    pub fn intersection(&self, other: &Rect) -> Option<Rect> {
        if !self.overlaps(other) {
            return None;
        }
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let right = (self.x + self.w).min(other.x + other.w);
        let bottom = (self.y + self.h).min(other.y + other.h);
        Some(Rect {
            x,
            y,
            w: right - x,
            h: bottom - y,
        })
    }
}

/// Which of `frames` (an app's windows, front to back) a capture for `region` takes: the one
/// the region overlaps most, the frontmost on a tie; `None` when it overlaps none.
pub fn window_for(frames: &[Option<Rect>], region: Rect) -> Option<usize> {
    let area = |f: &Option<Rect>| {
        f.and_then(|f| f.intersection(&region))
            .map_or(0.0, |a| a.w * a.h)
    };
    let mut best: Option<(usize, f64)> = None;
    for (i, frame) in frames.iter().enumerate() {
        let a = area(frame);
        if a > 0.0 && best.is_none_or(|(_, b)| a > b) {
            best = Some((i, a));
        }
    }
    best.map(|(i, _)| i)
}

/// `shot` (a capture of one of `app`'s windows, with its frame) cut to `region`. Refused when
/// the region lies outside that window; a region covering the whole window returns it as is.
pub fn crop(shot: Capture, region: Rect, app: &str) -> Result<Capture, AxError> {
    let (Some(frame), Some(scale)) = (shot.frame, shot.scale) else {
        return Err(AxError::Backend(format!(
            "the capture of {app}'s window has no frame, so it cannot be cut to the region; \
             omit `region` to capture the whole window"
        )));
    };
    let Some(area) = frame.intersection(&region) else {
        return Err(AxError::Unsupported(format!(
            "the region [{}, {}, {}, {}] lies outside {app}'s window; a region is cut from the \
             app's own window: give one inside it, or omit `region`",
            region.x, region.y, region.w, region.h
        )));
    };
    // Pixel bounds, rounded outwards so the cut shows all of the area.
    let left = ((area.x - frame.x) * scale).floor().max(0.0) as u32;
    let top = ((area.y - frame.y) * scale).floor().max(0.0) as u32;
    let right = ((area.x + area.w - frame.x) * scale).ceil() as u32;
    let bottom = ((area.y + area.h - frame.y) * scale).ceil() as u32;
    let cut = cut_png(&shot.png, (left, top, right, bottom))?;
    let Some((png, (left, top, right, bottom))) = cut else {
        return Ok(shot);
    };
    let shown = Rect {
        x: frame.x + f64::from(left) / scale,
        y: frame.y + f64::from(top) / scale,
        w: f64::from(right - left) / scale,
        h: f64::from(bottom - top) / scale,
    };
    Ok(Capture::new(png, Some(shown)))
}

/// The pixels `(left, top, right, bottom)` of a PNG (clamped to the image) as a new PNG, with
/// the bounds used; `None` when they cover the whole image.
type Cut = Option<(Vec<u8>, (u32, u32, u32, u32))>;

fn cut_png(png: &[u8], (left, top, right, bottom): (u32, u32, u32, u32)) -> Result<Cut, AxError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        AxError::Backend(format!(
            "cannot cut the screenshot to the region ({what}: {e})"
        ))
    };
    let mut decoder = Decoder::new(std::io::Cursor::new(png));
    // 8-bit samples, palettes expanded: one byte per channel from here on.
    decoder.set_transformations(Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| fail("decode", &e))?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut pixels)
        .map_err(|e| fail("decode", &e))?;
    let (width, height) = (info.width, info.height);
    let (right, bottom) = (right.min(width), bottom.min(height));
    if left >= right || top >= bottom {
        return Err(AxError::Backend(
            "the region shows no whole pixel of the window; give a larger region".into(),
        ));
    }
    if (left, top, right, bottom) == (0, 0, width, height) {
        return Ok(None);
    }
    let channels = info.color_type.samples();
    let row = info.line_size;
    let (w, h) = (right - left, bottom - top);
    let mut out = Vec::with_capacity((w * h) as usize * channels);
    for y in top..bottom {
        let start = y as usize * row + left as usize * channels;
        out.extend_from_slice(&pixels[start..start + w as usize * channels]);
    }
    let mut encoded = Vec::new();
    let mut encoder = Encoder::new(&mut encoded, w, h);
    encoder.set_color(info.color_type);
    encoder.set_depth(BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| fail("encode", &e))?;
    writer
        .write_image_data(&out)
        .map_err(|e| fail("encode", &e))?;
    writer.finish().map_err(|e| fail("encode", &e))?;
    debug_assert!(matches!(
        info.color_type,
        ColorType::Rgb | ColorType::Rgba | ColorType::Grayscale | ColorType::GrayscaleAlpha
    ));
    Ok(Some((encoded, (left, top, right, bottom))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    /// A `w` × `h` RGB PNG whose pixel (x, y) is (x, y, 7).
    fn gradient(w: u32, h: u32) -> Vec<u8> {
        let mut rgb = Vec::new();
        for y in 0..h {
            for x in 0..w {
                rgb.extend_from_slice(&[x as u8, y as u8, 7]);
            }
        }
        let mut out = Vec::new();
        let mut encoder = Encoder::new(&mut out, w, h);
        encoder.set_color(ColorType::Rgb);
        encoder.set_depth(BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&rgb).unwrap();
        writer.finish().unwrap();
        out
    }

    fn pixel(png: &[u8], x: u32, y: u32) -> [u8; 3] {
        let mut reader = Decoder::new(std::io::Cursor::new(png)).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let at = y as usize * info.line_size + x as usize * 3;
        [buf[at], buf[at + 1], buf[at + 2]]
    }

    #[test]
    fn rects_overlap_only_when_they_share_area() {
        let a = rect(0.0, 0.0, 10.0, 10.0);
        let inside = rect(5.0, 5.0, 1.0, 1.0);
        let touching = Rect { x: 10.0, ..inside };
        assert!(a.overlaps(&inside) && inside.overlaps(&a));
        assert!(!a.overlaps(&touching), "edges do not count");
        assert_eq!(a.intersection(&inside), Some(inside));
        assert_eq!(a.intersection(&touching), None);
        assert_eq!(
            a.intersection(&rect(-5.0, 8.0, 10.0, 10.0)),
            Some(rect(0.0, 8.0, 5.0, 2.0))
        );
    }

    #[test]
    fn the_window_a_region_overlaps_most_is_taken_the_frontmost_on_a_tie() {
        let back = Some(rect(0.0, 0.0, 100.0, 100.0));
        let front = Some(rect(50.0, 0.0, 100.0, 100.0));
        let frames = [front, None, back];
        assert_eq!(window_for(&frames, rect(10.0, 10.0, 50.0, 10.0)), Some(2));
        assert_eq!(window_for(&frames, rect(60.0, 10.0, 10.0, 10.0)), Some(0));
        assert_eq!(window_for(&frames, rect(500.0, 500.0, 10.0, 10.0)), None);
    }

    #[test]
    fn a_region_inside_the_window_is_cut_at_the_capture_scale() {
        // A window at (100, 50), 40×30 points, captured at 2 pixels per point.
        let shot = Capture::new(gradient(80, 60), Some(rect(100.0, 50.0, 40.0, 30.0)));
        let cut = crop(shot, rect(110.0, 60.0, 5.0, 4.0), "Form").unwrap();
        assert_eq!(cut.frame, Some(rect(110.0, 60.0, 5.0, 4.0)));
        assert_eq!(cut.scale, Some(2.0));
        assert_eq!(crate::capture::png_size(&cut.png), Some((10, 8)));
        assert_eq!(
            pixel(&cut.png, 0, 0),
            [20, 20, 7],
            "(110, 60) is pixel (20, 20)"
        );
    }

    #[test]
    fn a_region_beyond_the_window_shows_only_the_window() {
        let frame = rect(100.0, 50.0, 40.0, 30.0);
        let whole = gradient(80, 60);
        let shot = Capture::new(whole.clone(), Some(frame));
        let screen = crop(shot, rect(0.0, 0.0, 1920.0, 1080.0), "Form").unwrap();
        assert_eq!(screen.frame, Some(frame));
        assert_eq!(screen.png, whole, "the whole window, untouched");
        let corner = Capture::new(whole, Some(frame));
        let cut = crop(corner, rect(130.0, 70.0, 500.0, 500.0), "Form").unwrap();
        assert_eq!(cut.frame, Some(rect(130.0, 70.0, 10.0, 10.0)));
    }

    #[test]
    fn a_region_outside_the_window_is_refused_naming_only_the_app() {
        let shot = || Capture::new(gradient(8, 6), Some(rect(100.0, 50.0, 4.0, 3.0)));
        let far = crop(shot(), rect(1400.0, 600.0, 100.0, 100.0), "Form").unwrap_err();
        let text = far.to_string();
        assert!(text.contains("outside Form's window"), "{text}");
        assert!(text.contains("omit `region`"), "{text}");
        let frameless = Capture::new(gradient(8, 6), None);
        let no_frame = crop(frameless, rect(0.0, 0.0, 5.0, 5.0), "Form").unwrap_err();
        assert!(no_frame.to_string().contains("has no frame"), "{no_frame}");
    }
}
