//! The `screencapture` command line for a window or a screen region. Plain Rust, no Apple
//! types: `screenshot.rs` runs the command.

use std::path::Path;

use axgate_engine::Rect;

/// The system screenshot tool.
pub(crate) const SCREENCAPTURE: &str = "/usr/sbin/screencapture";

/// What to capture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    /// A window by its window-server id.
    Window(u32),
    /// A region in global top-left points.
    Region(Rect),
}

/// The area `screencapture -R` captures for a region: whole points covering the rectangle
/// (the frame a region capture reports), or `None` for an empty or non-finite one.
pub(crate) fn covered_region(r: &Rect) -> Option<Rect> {
    if ![r.x, r.y, r.w, r.h].iter().all(|v| v.is_finite()) || r.w <= 0.0 || r.h <= 0.0 {
        return None;
    }
    // `+ 0.0` turns a negative zero into zero.
    let (x0, y0) = (r.x.floor() + 0.0, r.y.floor() + 0.0);
    let (x1, y1) = ((r.x + r.w).ceil(), (r.y + r.h).ceil());
    Some(Rect {
        x: x0,
        y: y0,
        w: x1 - x0,
        h: y1 - y0,
    })
}

/// The `-R` argument for a region: whole points covering the rectangle, or `None` for an
/// empty or non-finite one.
pub(crate) fn region_arg(r: &Rect) -> Option<String> {
    let c = covered_region(r)?;
    // Float-to-int casts saturate; screen coordinates are far inside the i64 range.
    Some(format!(
        "{},{},{},{}",
        c.x as i64, c.y as i64, c.w as i64, c.h as i64
    ))
}

/// Arguments for a silent (`-x`) PNG capture into `out`; `None` for an empty region.
/// Window captures leave out the shadow (`-o`) so the image is the window's own frame.
pub(crate) fn args(target: Target, out: &Path) -> Option<Vec<String>> {
    let mut args = vec!["-x".to_owned(), "-t".to_owned(), "png".to_owned()];
    match target {
        Target::Window(id) => {
            args.extend(["-o".to_owned(), "-l".to_owned(), id.to_string()]);
        }
        Target::Region(rect) => {
            args.extend(["-R".to_owned(), region_arg(&rect)?]);
        }
    }
    args.push(out.to_string_lossy().into_owned());
    Some(args)
}

/// Whether bytes start with the PNG signature.
pub(crate) fn is_png(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_round_outwards() {
        let r = Rect {
            x: 10.5,
            y: -20.25,
            w: 100.0,
            h: 50.5,
        };
        assert_eq!(region_arg(&r).as_deref(), Some("10,-21,101,52"));
        let negative_zero = Rect {
            x: -0.0,
            y: 0.0,
            w: 1.0,
            h: 1.0,
        };
        assert_eq!(region_arg(&negative_zero).as_deref(), Some("0,0,1,1"));
    }

    #[test]
    fn a_region_capture_reports_the_area_it_covers() {
        let r = Rect {
            x: 10.5,
            y: -20.25,
            w: 100.0,
            h: 50.5,
        };
        assert_eq!(
            covered_region(&r),
            Some(Rect {
                x: 10.0,
                y: -21.0,
                w: 101.0,
                h: 52.0
            })
        );
    }

    #[test]
    fn empty_regions_are_refused() {
        let empty = Rect {
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 10.0,
        };
        assert_eq!(region_arg(&empty), None);
        let nan = Rect {
            x: f64::NAN,
            ..Rect::default()
        };
        assert_eq!(region_arg(&nan), None);
        assert_eq!(args(Target::Region(empty), Path::new("/tmp/x.png")), None);
    }

    #[test]
    fn window_capture_args() {
        let got = args(Target::Window(42), Path::new("/tmp/shot.png")).unwrap();
        assert_eq!(got, ["-x", "-t", "png", "-o", "-l", "42", "/tmp/shot.png"]);
    }

    #[test]
    fn region_capture_args() {
        let r = Rect {
            x: 0.0,
            y: 0.0,
            w: 10.0,
            h: 20.0,
        };
        let got = args(Target::Region(r), Path::new("/tmp/shot.png")).unwrap();
        assert_eq!(got, ["-x", "-t", "png", "-R", "0,0,10,20", "/tmp/shot.png"]);
    }

    #[test]
    fn png_signature() {
        assert!(is_png(b"\x89PNG\r\n\x1a\n rest"));
        assert!(!is_png(b"GIF89a"));
    }
}
