//! `expect: {image: …}`: a step's image (the `screenshot` tool's) against a baseline PNG
//! kept beside the scenario file. A pixel differs when a channel differs by more than the
//! step's `threshold`; the step fails when more than `tolerance` (a fraction) of the pixels
//! do, or when the sizes differ, leaving `actual.png` and `diff.png` (the differing pixels
//! red) for the case's artifacts. A missing baseline fails and says how to accept one;
//! `--update-baselines` writes the image as the baseline and passes.

use std::path::{Path, PathBuf};

use marked_yaml::Node;
use serde_json::Value;

use super::artifacts::png_of;
use super::picture::{self, DEFAULT_THRESHOLD};
use super::yaml::json_of;

/// What a step's `expect.image` asks.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageCheck {
    /// The baseline file as written: relative to the scenario file's folder.
    pub baseline: String,
    /// The fraction of pixels (0 to 1) that may differ.
    pub tolerance: f64,
    /// How far (0 to 255) a channel may move before the pixel counts as differing.
    pub threshold: u8,
}

impl ImageCheck {
    pub fn new(baseline: String) -> ImageCheck {
        ImageCheck {
            baseline,
            tolerance: 0.0,
            threshold: DEFAULT_THRESHOLD,
        }
    }
}

fn line_of(node: &Node) -> usize {
    node.span().start().map_or(1, |m| m.line())
}

/// Reads `image: FILE` or `image: {baseline: FILE, tolerance: 0.01, threshold: 16}`; a
/// problem is its line and message.
pub fn read(node: &Node) -> Result<ImageCheck, (usize, String)> {
    const SHAPE: &str = "`image` is a baseline PNG (relative to the scenario file) or \
                         {baseline: FILE, tolerance: 0.01, threshold: 16}";
    if let Some(file) = node.as_scalar().map(|s| s.as_str()) {
        return match file {
            "" => Err((line_of(node), SHAPE.to_owned())),
            file => Ok(ImageCheck::new(file.to_owned())),
        };
    }
    let Some(map) = node.as_mapping() else {
        return Err((line_of(node), SHAPE.to_owned()));
    };
    let mut check = ImageCheck::new(String::new());
    for (key, value) in map.iter() {
        let at = key.span().start().map_or(1, |m| m.line());
        let number = json_of(value).as_f64();
        match key.as_str() {
            "baseline" => {
                check.baseline = value.as_scalar().map(|s| s.as_str().to_owned()).unwrap_or_default();
            }
            "tolerance" => match number {
                Some(t) if (0.0..=1.0).contains(&t) => check.tolerance = t,
                _ => return Err((at, "`tolerance` is the fraction of pixels that may differ, from 0 to 1 (0.01 is 1%)".into())),
            },
            "threshold" => match number {
                Some(t) if (0.0..=255.0).contains(&t) && t.fract() == 0.0 => check.threshold = t as u8,
                _ => return Err((at, "`threshold` is how far a channel may move, a whole number from 0 to 255".into())),
            },
            other => return Err((at, format!("unknown key '{other}' in `image` (known keys: baseline, tolerance, threshold)"))),
        }
    }
    if check.baseline.is_empty() {
        return Err((line_of(node), SHAPE.to_owned()));
    }
    Ok(check)
}

/// What a run does with baselines (`--update-baselines`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baselines {
    /// Compare with them; a missing one fails.
    Compare,
    /// Write each step's image as its baseline, and pass.
    Accept,
}

/// An image a failed step leaves for the case's artifacts (and the HTML report).
#[derive(Clone, Debug)]
pub struct Attachment {
    /// `actual.png`, `diff.png`.
    pub name: &'static str,
    pub png: Vec<u8>,
}

/// Why the image check failed, with the images to keep.
#[derive(Debug)]
pub struct Mismatch {
    pub reason: String,
    pub attachments: Vec<Attachment>,
}

/// The baseline's path: `baseline` relative to the folder of `scenario_file`.
pub fn path_of(scenario_file: &str, baseline: &str) -> PathBuf {
    let folder = Path::new(scenario_file).parent().unwrap_or(Path::new(""));
    folder.join(baseline)
}

/// Checks `result`'s image against the baseline. `kept_in` is where the case's artifacts
/// go (named in the message), if anywhere. `Ok` carries a line for the step log.
pub fn check(
    result: &Value,
    check: &ImageCheck,
    scenario_file: &str,
    mode: Baselines,
    kept_in: Option<&Path>,
) -> Result<String, Mismatch> {
    let plain = |reason: String| Mismatch {
        reason,
        attachments: Vec::new(),
    };
    let path = path_of(scenario_file, &check.baseline);
    let shown = path.display();
    let Some(png) = png_of(result) else {
        return Err(plain(format!(
            "expect.image: the result has no PNG image to compare with {shown} (use the \
             `screenshot` tool)"
        )));
    };
    let actual = picture::decode(&png).map_err(|e| plain(format!("the result's image: {e}")))?;
    if mode == Baselines::Accept {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|e| {
                plain(format!(
                    "cannot create {} for the baseline ({e})",
                    folder.display()
                ))
            })?;
        }
        std::fs::write(&path, &png)
            .map_err(|e| plain(format!("cannot write the baseline {shown} ({e})")))?;
        return Ok(format!(
            "wrote {shown} ({}×{} pixels)",
            actual.width, actual.height
        ));
    }
    let actual_kept = || Attachment {
        name: "actual.png",
        png: png.clone(),
    };
    let keep = |names: &str| match kept_in {
        Some(dir) => format!("; see {names} in {}", dir.display()),
        None => format!(
            "; {names}: with --artifacts DIR in the case's folder, with --html FILE in the page"
        ),
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Mismatch {
                reason: format!(
                    "there is no baseline {shown}: run with --update-baselines to accept this \
                     image as the baseline{}",
                    keep("actual.png")
                ),
                attachments: vec![actual_kept()],
            });
        }
        Err(e) => return Err(plain(format!("cannot read the baseline {shown} ({e})"))),
    };
    let baseline =
        picture::decode(&bytes).map_err(|e| plain(format!("the baseline {shown}: {e}")))?;
    let comparison = match picture::compare(&baseline, &actual, check.threshold) {
        Ok(comparison) => comparison,
        Err(why) => {
            return Err(Mismatch {
                reason: format!(
                    "{why} ({shown}): capture the same window or element at the same scale, or \
                     accept the new size with --update-baselines{}",
                    keep("actual.png")
                ),
                attachments: vec![actual_kept()],
            });
        }
    };
    let measured = format!(
        "{:.2}% of the pixels ({} of {}) differ by more than {} per channel",
        comparison.fraction() * 100.0,
        comparison.differing,
        comparison.total,
        check.threshold
    );
    if comparison.fraction() <= check.tolerance {
        return Ok(format!(
            "matches {shown}: {measured}, tolerance {:.2}%",
            check.tolerance * 100.0
        ));
    }
    Err(Mismatch {
        reason: format!(
            "the image differs from {shown}: {measured}, more than the tolerance {:.2}%{} \
             (accept it with --update-baselines)",
            check.tolerance * 100.0,
            keep("diff.png (the differing pixels red) and actual.png")
        ),
        attachments: vec![
            Attachment {
                name: "diff.png",
                png: picture::encode(&comparison.diff),
            },
            actual_kept(),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::super::format::parse;
    use super::*;

    fn step_image(image: &str) -> Result<Option<ImageCheck>, Vec<String>> {
        let text = format!(
            "cases:\n  - name: c\n    steps:\n      - tool: screenshot\n        expect:\n          image: {image}\n"
        );
        parse("ui/f.yaml", &text)
            .map(|s| s.cases[0].steps[0].expect.image.clone())
            .map_err(|problems| problems.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn image_checks_read_short_and_long_and_name_bad_values() {
        assert_eq!(
            step_image("baselines/form.png"),
            Ok(Some(ImageCheck::new("baselines/form.png".into())))
        );
        assert_eq!(
            step_image("{baseline: b.png, tolerance: 0.01, threshold: 0}"),
            Ok(Some(ImageCheck {
                baseline: "b.png".into(),
                tolerance: 0.01,
                threshold: 0
            }))
        );
        for (bad, says) in [
            (
                "{baseline: b.png, tolerance: 5}",
                "`tolerance` is the fraction",
            ),
            (
                "{baseline: b.png, threshold: 300}",
                "`threshold` is how far",
            ),
            (
                "{baseline: b.png, tolerence: 0.1}",
                "unknown key 'tolerence'",
            ),
            ("{tolerance: 0.1}", "`image` is a baseline PNG"),
        ] {
            let problems = step_image(bad).expect_err(bad);
            assert!(
                problems[0].starts_with("ui/f.yaml:6: case \"c\", step 1: ")
                    && problems[0].contains(says),
                "{bad}: {problems:?}"
            );
        }
        assert_eq!(
            path_of("ui/f.yaml", "baselines/form.png"),
            Path::new("ui/baselines/form.png")
        );
    }
}
