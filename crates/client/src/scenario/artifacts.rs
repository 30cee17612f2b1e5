//! A failed case's artifact folder, `<--artifacts>/<file>/<case>/`, filled through the
//! case's own session right after the failure (before its teardown):
//!
//! - `failure.txt`: where and why, the step's arguments as written, the result's text;
//! - for each app the case named: `screenshot-<app>.png` (the `screenshot` tool's image,
//!   the failing step's element outlined in it: its frame mapped to pixels by the
//!   screenshot's frame and scale),
//!   `tree-<app>.txt` (`get_tree`, depth 20 and 3,000 nodes, as text) and `diff-<app>.txt`
//!   (the `diff` tool, whose baseline the runner took when the case first named the app, so
//!   it shows what changed since);
//! - `audit.jsonl`: the session's own audit lines (`resources/read` of
//!   `axgate://session/audit`); the session is the case's, so these are the case's calls.
//!
//! - `diff.png`, `actual.png`: a failed baseline comparison's images (`baseline.rs`).
//!
//! [`capture`] gathers it all as [`Evidence`] (the HTML report embeds it), [`write`] fills the
//! folder. Everything textual passes through the [`Redactor`] first. What cannot be captured
//! is named in `not-captured.txt`, and does not fail the run.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::expect::text_of;
use super::failure::Failure;
use super::picture::{self, Geometry, PixelRect};
use super::template::Redactor;
use crate::args::app_value;
use crate::{Client, ClientError};

/// The server's resource with the calling session's own audit lines.
pub const SESSION_AUDIT_URI: &str = "axgate://session/audit";
/// The tree's bounds in an artifact.
const TREE_DEPTH: u32 = 20;
const TREE_NODES: u32 = 3_000;

/// A name safe as one path component: letters, digits, `.`, `-`, `_`; others become `-`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let keep = c.is_alphanumeric() || matches!(c, '.' | '_' | '-');
        if keep {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches(['-', '.']).to_owned();
    if out.is_empty() { "case".into() } else { out }
}

/// The folder of one case's artifacts.
pub fn folder(root: &Path, suite: &str, case: &str) -> PathBuf {
    root.join(slug(suite)).join(slug(case))
}

/// A screenshot of an app the case named.
#[derive(Clone, Debug)]
pub struct Shot {
    pub app: String,
    pub png: Vec<u8>,
    /// The failing step's target, when it is outlined in this picture.
    pub outlined: Option<String>,
}

/// What was captured of a failed case, already redacted: for the artifact folder and the
/// HTML report.
#[derive(Clone, Debug, Default)]
pub struct Evidence {
    /// `failure.txt`.
    pub about: String,
    pub shots: Vec<Shot>,
    /// App → `get_tree` text.
    pub trees: Vec<(String, String)>,
    /// App → what changed since the case first named it.
    pub diffs: Vec<(String, String)>,
    /// `audit.jsonl`, if the server gave the lines.
    pub audit: Option<String>,
    /// What could not be had, and why.
    pub missing: Vec<String>,
}

/// Captures the failure's evidence through the case's session; a connection or token
/// failure stops the run, anything else is noted in [`Evidence::missing`].
pub async fn capture(
    client: &Client,
    redactor: &Redactor,
    failure: &Failure,
    apps: &[String],
) -> Result<Evidence, ClientError> {
    let mut evidence = Evidence::default();
    let mut about = format!(
        "{}\nat {}\nreason: {}\nkind: {}\narguments (as written): {}\n",
        failure.step,
        failure.at(),
        failure.reason,
        failure.kind,
        failure.arguments
    );
    if let Some(text) = &failure.result_text {
        about.push_str(&format!("result text:\n{text}\n"));
    }
    if apps.is_empty() {
        about.push_str("no app was named, so there is no screenshot, tree or diff\n");
    }
    evidence.about = redactor.text(&about);
    for app in apps {
        let target = app_value(app);
        match tool(client, "screenshot", json!({"app": target})).await? {
            Ok(result) => match png_of(&result) {
                Some(png) => {
                    let shot = outlined(client, app, png, &result, failure, &mut evidence).await?;
                    evidence.shots.push(shot);
                }
                None => evidence
                    .missing
                    .push(format!("screenshot of {app}: the result has no image")),
            },
            Err(why) => evidence.missing.push(format!("screenshot of {app}: {why}")),
        }
        // With frames: a person reads this beside the screenshot.
        let tree =
            json!({"app": target, "depth": TREE_DEPTH, "max_nodes": TREE_NODES, "frames": true});
        match tool(client, "get_tree", tree).await? {
            Ok(result) => evidence
                .trees
                .push((app.clone(), redactor.text(&text_of(&result)))),
            Err(why) => evidence.missing.push(format!("tree of {app}: {why}")),
        }
        match tool(client, "diff", json!({"app": target})).await? {
            Ok(result) => {
                let text = format!(
                    "changes in {app} since the case first named it:\n{}\n",
                    text_of(&result)
                );
                evidence.diffs.push((app.clone(), redactor.text(&text)));
            }
            Err(why) => evidence.missing.push(format!("diff of {app}: {why}")),
        }
    }
    match audit_lines(client).await? {
        Ok(lines) => {
            let mut text = String::new();
            for line in lines {
                text.push_str(&redactor.json(&line).to_string());
                text.push('\n');
            }
            evidence.audit = Some(text);
        }
        Err(why) => evidence.missing.push(format!("audit lines: {why}")),
    }
    evidence.missing = evidence.missing.iter().map(|m| redactor.text(m)).collect();
    Ok(evidence)
}

/// The screenshot of `app`, with the failing step's element outlined when the step named
/// one in this app: its frame (`get_element`) mapped to pixels by the screenshot's frame and
/// scale, a rectangle drawn into the PNG. Why it could not be is noted in `missing`.
async fn outlined(
    client: &Client,
    app: &str,
    png: Vec<u8>,
    result: &Value,
    failure: &Failure,
    evidence: &mut Evidence,
) -> Result<Shot, ClientError> {
    let plain = |png| Shot {
        app: app.to_owned(),
        png,
        outlined: None,
    };
    let Some((_, target)) = failure.element.as_ref().filter(|(a, _)| a == app) else {
        return Ok(plain(png));
    };
    let args = json!({"app": app_value(app), "target": target});
    let frame = match tool(client, "get_element", args).await? {
        Ok(found) => found
            .pointer("/structuredContent/element/frame")
            .and_then(|f| {
                Some(PixelRect {
                    x: f.get("x")?.as_f64()?,
                    y: f.get("y")?.as_f64()?,
                    w: f.get("w")?.as_f64()?,
                    h: f.get("h")?.as_f64()?,
                })
            })
            .ok_or_else(|| "the element has no frame".to_owned()),
        Err(why) => Err(why),
    };
    let drawn = frame.and_then(|frame| {
        let geometry = Geometry::parse(&text_of(result))
            .ok_or("the screenshot did not say where it lies on the screen")?;
        let mut image = picture::decode(&png).map_err(|e| e.to_string())?;
        let rect = geometry.to_pixels(frame, image.width);
        if !picture::outline(&mut image, rect) {
            return Err("the element lies outside the screenshot".to_owned());
        }
        Ok(picture::encode(&image))
    });
    Ok(match drawn {
        Ok(png) => Shot {
            app: app.to_owned(),
            png,
            outlined: Some(target.clone()),
        },
        Err(why) => {
            evidence.missing.push(format!(
                "the outline of {target} in {app}'s screenshot: {why}"
            ));
            plain(png)
        }
    })
}

/// Writes `evidence` and the failure's images into `dir` (emptied first); a file that
/// cannot be written is named in `not-captured.txt`.
pub fn write(dir: &Path, evidence: &Evidence, failure: &Failure) {
    let _ = std::fs::remove_dir_all(dir);
    if let Err(error) = std::fs::create_dir_all(dir) {
        eprintln!(
            "axgate: cannot create {} ({error}); no artifacts for this case",
            dir.display()
        );
        return;
    }
    let mut missing = evidence.missing.clone();
    let mut put = |name: &str, bytes: &[u8]| {
        if let Err(error) = std::fs::write(dir.join(name), bytes) {
            missing.push(format!("{name}: cannot write it ({error})"));
        }
    };
    put("failure.txt", evidence.about.as_bytes());
    for shot in &evidence.shots {
        put(&format!("screenshot-{}.png", slug(&shot.app)), &shot.png);
    }
    for (app, text) in &evidence.trees {
        put(&format!("tree-{}.txt", slug(app)), text.as_bytes());
    }
    for (app, text) in &evidence.diffs {
        put(&format!("diff-{}.txt", slug(app)), text.as_bytes());
    }
    if let Some(audit) = &evidence.audit {
        put("audit.jsonl", audit.as_bytes());
    }
    for attachment in &failure.attachments {
        put(attachment.name, &attachment.png);
    }
    if !missing.is_empty() {
        let _ = std::fs::write(dir.join("not-captured.txt"), missing.join("\n") + "\n");
    }
}

/// A tool's result, or why there is none (a tool error, a refused request).
async fn tool(
    client: &Client,
    name: &str,
    args: Value,
) -> Result<Result<Value, String>, ClientError> {
    match client.call(name, args).await {
        Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => {
            Ok(Err(text_of(&result)))
        }
        Ok(result) => Ok(Ok(result)),
        Err(error @ (ClientError::Connection(_) | ClientError::Auth(_))) => Err(error),
        Err(error) => Ok(Err(error.to_string())),
    }
}

pub fn png_of(result: &Value) -> Option<Vec<u8>> {
    let block = result
        .get("content")?
        .as_array()?
        .iter()
        .find(|b| b.get("type").and_then(Value::as_str) == Some("image"))?;
    STANDARD.decode(block.get("data")?.as_str()?).ok()
}

/// The session's audit lines from `axgate://session/audit`.
async fn audit_lines(client: &Client) -> Result<Result<Vec<Value>, String>, ClientError> {
    let read = match client.read_resource(SESSION_AUDIT_URI).await {
        Ok(read) => read,
        Err(error @ (ClientError::Connection(_) | ClientError::Auth(_))) => return Err(error),
        Err(error) => return Ok(Err(format!("{error} (a server older than this client?)"))),
    };
    let text = read
        .pointer("/contents/0/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    let parsed: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Ok(Err(format!("{SESSION_AUDIT_URI} is not JSON ({e})"))),
    };
    Ok(Ok(parsed
        .get("lines")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_one_safe_path_component() {
        assert_eq!(slug("fill the form"), "fill-the-form");
        assert_eq!(slug("File > Save As…"), "File-Save-As");
        assert_eq!(slug("../../etc"), "etc");
        assert_eq!(slug("///"), "case");
    }
}
