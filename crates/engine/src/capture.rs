//! A screenshot and where it lies on screen. Images are in pixels, frames and every other
//! coordinate in global points (origin at the primary display's top-left), and the two
//! differ on Retina displays, so a capture carries its frame and its scale (pixels per
//! point, from the PNG's own size): an agent that finds something at pixel (px, py) clicks
//! at `frame.x + px / scale`, `frame.y + py / scale`. Plain maths, the same on every backend.

use super::model::Rect;

/// A PNG with the screen area it shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    pub png: Vec<u8>,
    /// The captured area in global points, when the backend knows it.
    pub frame: Option<Rect>,
    /// Image pixels per point; `None` without a frame or a readable PNG header.
    pub scale: Option<f64>,
}

impl Capture {
    /// A capture of `frame`, its scale read from the PNG's header.
    pub fn new(png: Vec<u8>, frame: Option<Rect>) -> Capture {
        let scale = frame.and_then(|f| scale(png_size(&png)?, f));
        Capture { png, frame, scale }
    }

    /// The global point shown at pixel `(px, py)` of the image.
    pub fn to_global(&self, (px, py): (f64, f64)) -> Option<(f64, f64)> {
        let (frame, scale) = (self.frame?, self.scale?);
        Some((frame.x + px / scale, frame.y + py / scale))
    }

    /// One line for people and agents: the frame and the scale, when known.
    pub fn describe_geometry(&self) -> Option<String> {
        let f = self.frame?;
        let mut line = format!(
            "frame x={} y={} w={} h={} (points)",
            round2(f.x),
            round2(f.y),
            round2(f.w),
            round2(f.h)
        );
        if let Some(scale) = self.scale {
            line.push_str(&format!(
                "; scale {} pixels per point: point = frame origin + pixel / scale",
                round2(scale)
            ));
        }
        Some(line)
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Width and height of a PNG, from its `IHDR` chunk (always the first); `None` for
/// anything else.
pub fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    let rest = bytes.strip_prefix(SIGNATURE)?;
    if rest.get(4..8)? != b"IHDR" {
        return None;
    }
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(rest.get(at..at + 4)?.try_into().ok()?))
    };
    let (w, h) = (word(8)?, word(12)?);
    (w > 0 && h > 0).then_some((w, h))
}

/// Pixels per point of an image of `size` pixels showing `frame`: the mean of the two axes'
/// ratios (a capture rounded to whole pixels differs by a fraction of a pixel per axis).
/// `None` for an empty or non-finite frame.
pub fn scale((w, h): (u32, u32), frame: Rect) -> Option<f64> {
    let finite = [frame.x, frame.y, frame.w, frame.h]
        .iter()
        .all(|v| v.is_finite());
    if !finite || frame.w <= 0.0 || frame.h <= 0.0 {
        return None;
    }
    let ratio = (f64::from(w) / frame.w + f64::from(h) / frame.h) / 2.0;
    Some(ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first bytes of a PNG of `w` × `h` pixels (signature and IHDR).
    fn header(w: u32, h: u32) -> Vec<u8> {
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend_from_slice(&13u32.to_be_bytes());
        png.extend_from_slice(b"IHDR");
        png.extend_from_slice(&w.to_be_bytes());
        png.extend_from_slice(&h.to_be_bytes());
        png.extend_from_slice(&[8, 2, 0, 0, 0]);
        png
    }

    fn rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    #[test]
    fn png_sizes_come_from_the_header() {
        assert_eq!(png_size(&header(1600, 1200)), Some((1600, 1200)));
        assert_eq!(png_size(b"GIF89a"), None);
        assert_eq!(png_size(&header(1600, 1200)[..20]), None);
        assert_eq!(png_size(&header(0, 10)), None);
    }

    #[test]
    fn a_retina_capture_has_scale_two() {
        let shot = Capture::new(header(1600, 1200), Some(rect(-800.0, 25.0, 800.0, 600.0)));
        assert_eq!(shot.scale, Some(2.0));
        assert_eq!(shot.to_global((100.0, 50.0)), Some((-750.0, 50.0)));
        let line = shot.describe_geometry().unwrap();
        assert!(line.contains("x=-800 y=25 w=800 h=600"), "{line}");
        assert!(line.contains("scale 2 pixels per point"), "{line}");
    }

    #[test]
    fn rounding_to_whole_pixels_barely_moves_the_scale() {
        let s = scale((201, 100), rect(0.0, 0.0, 100.5, 50.0)).unwrap();
        assert!((s - 2.0).abs() < 0.01, "{s}");
    }

    #[test]
    fn no_frame_or_no_header_means_no_scale() {
        let shot = Capture::new(header(10, 10), None);
        assert_eq!(shot.scale, None);
        assert_eq!(shot.to_global((1.0, 1.0)), None);
        assert_eq!(shot.describe_geometry(), None);
        let unreadable = Capture::new(b"not a png".to_vec(), Some(rect(0.0, 0.0, 5.0, 5.0)));
        assert_eq!(unreadable.scale, None);
        assert!(unreadable.describe_geometry().unwrap().contains("w=5"));
        assert_eq!(scale((10, 10), rect(0.0, 0.0, 0.0, 5.0)), None);
        assert_eq!(scale((10, 10), rect(f64::NAN, 0.0, 5.0, 5.0)), None);
    }
}
