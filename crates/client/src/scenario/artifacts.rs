//! A failed case's artifact folder, `<--artifacts>/<file>/<case>/`, filled through the
//! case's own session right after the failure (before its teardown):
//!
//! - `failure.txt`: where and why, the step's arguments as written, the result's text;
//! - for each app the case named: `screenshot-<app>.png` (the `screenshot` tool's image),
//!   `tree-<app>.txt` (`get_tree`, depth 20 and 3,000 nodes, as text) and `diff-<app>.txt`
//!   (the `diff` tool, whose baseline the runner took when the case first named the app, so
//!   it shows what changed since);
//! - `audit.jsonl`: the session's own audit lines (`resources/read` of
//!   `axgate://session/audit`); the session is the case's, so these are the case's calls.
//!
//! Everything textual passes through the [`Redactor`] first. What cannot be captured is named
//! in `not-captured.txt`, and does not fail the run.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::expect::text_of;
use super::failure::Failure;
use super::template::Redactor;
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

/// Fills `dir` (emptied first); a connection or token failure stops the run, anything else
/// is noted in `not-captured.txt`.
pub async fn capture(
    client: &Client,
    dir: &Path,
    redactor: &Redactor,
    failure: &Failure,
    apps: &[String],
) -> Result<(), ClientError> {
    let _ = std::fs::remove_dir_all(dir);
    if let Err(error) = std::fs::create_dir_all(dir) {
        eprintln!(
            "axgate: cannot create {} ({error}); no artifacts for this case",
            dir.display()
        );
        return Ok(());
    }
    let mut missing: Vec<String> = Vec::new();
    let write = |name: &str, bytes: &[u8], missing: &mut Vec<String>| {
        if let Err(error) = std::fs::write(dir.join(name), bytes) {
            missing.push(format!("{name}: cannot write it ({error})"));
        }
    };
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
    write(
        "failure.txt",
        redactor.text(&about).as_bytes(),
        &mut missing,
    );
    for app in apps {
        let name = slug(app);
        let target = match app.parse::<u64>() {
            Ok(pid) => json!(pid),
            Err(_) => json!(app),
        };
        match tool(client, "screenshot", json!({"app": target})).await? {
            Ok(result) => match png_of(&result) {
                Some(png) => write(&format!("screenshot-{name}.png"), &png, &mut missing),
                None => missing.push(format!("screenshot of {app}: the result has no image")),
            },
            Err(why) => missing.push(format!("screenshot of {app}: {why}")),
        }
        // With frames: a person reads this beside the screenshot.
        let tree =
            json!({"app": target, "depth": TREE_DEPTH, "max_nodes": TREE_NODES, "frames": true});
        match tool(client, "get_tree", tree).await? {
            Ok(result) => write(
                &format!("tree-{name}.txt"),
                redactor.text(&text_of(&result)).as_bytes(),
                &mut missing,
            ),
            Err(why) => missing.push(format!("tree of {app}: {why}")),
        }
        match tool(client, "diff", json!({"app": target})).await? {
            Ok(result) => {
                let text = format!(
                    "changes in {app} since the case first named it:\n{}\n",
                    text_of(&result)
                );
                write(
                    &format!("diff-{name}.txt"),
                    redactor.text(&text).as_bytes(),
                    &mut missing,
                )
            }
            Err(why) => missing.push(format!("diff of {app}: {why}")),
        }
    }
    match audit_lines(client).await? {
        Ok(lines) => {
            let mut text = String::new();
            for line in lines {
                text.push_str(&redactor.json(&line).to_string());
                text.push('\n');
            }
            write("audit.jsonl", text.as_bytes(), &mut missing);
        }
        Err(why) => missing.push(format!("audit lines: {why}")),
    }
    if !missing.is_empty() {
        let text = redactor.text(&(missing.join("\n") + "\n"));
        write("not-captured.txt", text.as_bytes(), &mut Vec::new());
    }
    Ok(())
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

fn png_of(result: &Value) -> Option<Vec<u8>> {
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
