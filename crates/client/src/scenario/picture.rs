//! Pixels for the reports: PNG in and out (`png`, as RGBA 8-bit), a rectangle drawn around
//! the element a failed step named, and the comparison of a screenshot with a baseline image
//! (a per-channel threshold decides whether a pixel differs, the tolerance is the fraction of
//! pixels that may), with a diff image that shows where.

use std::fmt;

/// An RGBA image, 8 bits per channel, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The outline's colour: a magenta no UI theme uses for a control.
pub const OUTLINE: [u8; 4] = [255, 0, 255, 255];
/// The outline's width in pixels.
pub const OUTLINE_WIDTH: u32 = 3;
/// A pixel differs when one channel differs by more than this (out of 255), unless the step
/// says otherwise: font smoothing and colour management move values a little.
pub const DEFAULT_THRESHOLD: u8 = 16;

/// A rectangle in pixels of an image (may reach beyond it: it is clipped when drawn).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PixelRect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// Where a screenshot lies on the screen: its frame in global points and its pixels per
/// point, as the `screenshot` tool's text says (`frame x=… y=… w=… h=… (points); scale S …`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    /// `None` when the tool gave none: the image's width over the frame's is used.
    pub scale: Option<f64>,
}

impl Geometry {
    /// Reads the `screenshot` tool's geometry line out of its result text.
    pub fn parse(text: &str) -> Option<Geometry> {
        let line = text.lines().find(|l| l.starts_with("frame x="))?;
        let number = |key: &str| -> Option<f64> {
            let at = line.find(key)? + key.len();
            let rest = &line[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | '+')))
                .unwrap_or(rest.len());
            rest[..end].parse().ok()
        };
        Some(Geometry {
            x: number("frame x=")?,
            y: number(" y=")?,
            w: number(" w=")?,
            h: number(" h=")?,
            scale: number("scale "),
        })
    }

    /// A frame in global points as pixels of an image `width` pixels wide taken here.
    pub fn to_pixels(&self, frame: PixelRect, width: u32) -> PixelRect {
        let scale = self
            .scale
            .filter(|s| *s > 0.0)
            .unwrap_or_else(|| f64::from(width) / self.w.max(1.0));
        PixelRect {
            x: (frame.x - self.x) * scale,
            y: (frame.y - self.y) * scale,
            w: frame.w * scale,
            h: frame.h * scale,
        }
    }
}

/// Why an image could not be read or written.
#[derive(Debug)]
pub struct PictureError(pub String);

impl fmt::Display for PictureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Decodes a PNG of any colour type and depth into RGBA 8-bit.
pub fn decode(bytes: &[u8]) -> Result<Image, PictureError> {
    let (width, height, rgba) = axgate_parse::picture::decode_rgba(bytes)
        .map_err(|e| PictureError(format!("not a readable PNG ({e})")))?;
    Ok(Image {
        width,
        height,
        rgba,
    })
}

/// Encodes an image as an RGBA PNG.
pub fn encode(image: &Image) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    // Writing to memory fails only on a size that does not match, which `Image` rules out.
    if let Ok(mut writer) = encoder.write_header() {
        let _ = writer.write_image_data(&image.rgba);
    }
    out
}

/// Draws an [`OUTLINE_WIDTH`]-pixel rectangle in [`OUTLINE`] along the inside of `rect`
/// (clipped to the image); whether any of it fell on the image.
pub fn outline(image: &mut Image, rect: PixelRect) -> bool {
    let (w, h) = (i64::from(image.width), i64::from(image.height));
    let left = rect.x.round() as i64;
    let top = rect.y.round() as i64;
    let right = (rect.x + rect.w).round() as i64 - 1;
    let bottom = (rect.y + rect.h).round() as i64 - 1;
    if right < left || bottom < top || right < 0 || bottom < 0 || left >= w || top >= h {
        return false;
    }
    let t = i64::from(OUTLINE_WIDTH);
    let mut drawn = false;
    for y in top.max(0)..=bottom.min(h - 1) {
        for x in left.max(0)..=right.min(w - 1) {
            let edge = x < left + t || x > right - t || y < top + t || y > bottom - t;
            if edge {
                let at = ((y * w + x) * 4) as usize;
                image.rgba[at..at + 4].copy_from_slice(&OUTLINE);
                drawn = true;
            }
        }
    }
    drawn
}

/// How an image compared with its baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Pixels with a channel past the threshold.
    pub differing: u64,
    pub total: u64,
    /// The baseline dimmed to grey, each differing pixel red.
    pub diff: Image,
}

impl Comparison {
    /// The fraction of pixels that differ.
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.differing as f64 / self.total as f64
        }
    }
}

/// Compares two images of one size pixel by pixel; a pixel differs when any channel
/// (alpha included) differs by more than `threshold`. A size mismatch is an error naming both.
pub fn compare(
    baseline: &Image,
    actual: &Image,
    threshold: u8,
) -> Result<Comparison, PictureError> {
    if (baseline.width, baseline.height) != (actual.width, actual.height) {
        return Err(PictureError(format!(
            "the image is {}×{} pixels, the baseline {}×{}",
            actual.width, actual.height, baseline.width, baseline.height
        )));
    }
    let mut diff = Vec::with_capacity(baseline.rgba.len());
    let mut differing = 0u64;
    for (b, a) in baseline
        .rgba
        .chunks_exact(4)
        .zip(actual.rgba.chunks_exact(4))
    {
        if b.iter().zip(a).any(|(x, y)| x.abs_diff(*y) > threshold) {
            differing += 1;
            diff.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            // A faint grey copy of the baseline, so the red reads against the layout.
            let grey = ((u32::from(b[0]) + u32::from(b[1]) + u32::from(b[2])) / 3) as u8;
            let faint = 255 - (255 - grey) / 4;
            diff.extend_from_slice(&[faint, faint, faint, 255]);
        }
    }
    Ok(Comparison {
        differing,
        total: u64::from(baseline.width) * u64::from(baseline.height),
        diff: Image {
            width: baseline.width,
            height: baseline.height,
            rgba: diff,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Image {
        Image {
            width,
            height,
            rgba: rgba.repeat((width * height) as usize),
        }
    }

    fn pixel(image: &Image, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * image.width + x) * 4) as usize;
        image.rgba[at..at + 4].try_into().expect("4 bytes")
    }

    #[test]
    fn an_outline_is_three_pixels_inside_the_rect_and_clipped() {
        let white = [255, 255, 255, 255];
        let mut image = filled(20, 20, white);
        assert!(outline(
            &mut image,
            PixelRect {
                x: 2.0,
                y: 4.0,
                w: 10.0,
                h: 8.0
            }
        ));
        for (x, y) in [(2, 4), (4, 6), (11, 11), (9, 4), (2, 9), (11, 5)] {
            assert_eq!(pixel(&image, x, y), OUTLINE, "({x}, {y}) is on the edge");
        }
        for (x, y) in [(5, 7), (8, 8), (1, 4), (12, 4), (2, 3), (2, 12)] {
            assert_eq!(pixel(&image, x, y), white, "({x}, {y}) is not");
        }
        // Half off the image: the part on it is drawn; wholly off: nothing.
        let mut image = filled(10, 10, white);
        assert!(outline(
            &mut image,
            PixelRect {
                x: -5.0,
                y: -5.0,
                w: 10.0,
                h: 10.0
            }
        ));
        assert_eq!(pixel(&image, 3, 0), OUTLINE);
        assert_eq!(pixel(&image, 1, 1), white);
        let before = image.clone();
        assert!(!outline(
            &mut image,
            PixelRect {
                x: 30.0,
                y: 0.0,
                w: 5.0,
                h: 5.0
            }
        ));
        assert_eq!(image, before);
    }

    #[test]
    fn a_png_round_trips_and_the_geometry_maps_points_to_pixels_at_two_x() {
        let mut image = filled(4, 3, [10, 20, 30, 255]);
        image.rgba[0] = 200;
        assert_eq!(decode(&encode(&image)).expect("decodes"), image);
        assert!(decode(b"not a png").is_err());
        let text = "screenshot of Form (10 bytes PNG)\n\
                    frame x=40 y=60 w=480 h=440 (points); scale 2 pixels per point: point = frame origin + pixel / scale";
        let geometry = Geometry::parse(text).expect("a geometry line");
        assert_eq!(geometry.scale, Some(2.0));
        let button = PixelRect {
            x: 60.0,
            y: 100.0,
            w: 80.0,
            h: 24.0,
        };
        assert_eq!(
            geometry.to_pixels(button, 960),
            PixelRect {
                x: 40.0,
                y: 80.0,
                w: 160.0,
                h: 48.0
            }
        );
        // No scale given: the image's width over the frame's.
        let plain = Geometry::parse("frame x=40.5 y=60 w=480 h=440 (points)").expect("parses");
        assert_eq!(plain.scale, None);
        assert_eq!(
            geometry.to_pixels(button, 960),
            plain.to_pixels(PixelRect { x: 60.5, ..button }, 960)
        );
        assert_eq!(Geometry::parse("screenshot of Form"), None);
    }

    #[test]
    fn compare_counts_pixels_past_the_threshold_and_marks_them_red() {
        let base = filled(10, 10, [100, 100, 100, 255]);
        let mut actual = base.clone();
        // Within the threshold: the same.
        actual.rgba[0] = 110;
        let same = compare(&base, &actual, 16).expect("one size");
        assert_eq!((same.differing, same.total), (0, 100));
        // Three pixels past it, on different channels.
        actual.rgba[4 * 5] = 200;
        actual.rgba[4 * 50 + 1] = 0;
        actual.rgba[4 * 99 + 3] = 0;
        let changed = compare(&base, &actual, 16).expect("one size");
        assert_eq!(changed.differing, 3);
        assert!((changed.fraction() - 0.03).abs() < 1e-9);
        assert_eq!(pixel(&changed.diff, 5, 0), [255, 0, 0, 255]);
        assert_eq!(pixel(&changed.diff, 9, 9), [255, 0, 0, 255]);
        assert_ne!(pixel(&changed.diff, 1, 0), [255, 0, 0, 255]);
        // A zero threshold counts the small change too.
        assert_eq!(compare(&base, &actual, 0).expect("size").differing, 4);
        let error = compare(&base, &filled(10, 11, [0; 4]), 16).expect_err("sizes differ");
        assert_eq!(
            error.to_string(),
            "the image is 10×11 pixels, the baseline 10×10"
        );
    }
}
