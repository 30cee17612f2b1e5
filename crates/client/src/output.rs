//! Printing a tool's result: `structuredContent` as pretty JSON (or the content blocks when
//! there is none), the text blocks with `--format text`, nothing with `quiet`; a failed call
//! (`isError`) prints its message on stderr. Image blocks are written to PNG files whose
//! names are printed, never to the terminal. Whatever the server says is shown inert: its
//! control characters (ESC, CSI, OSC, BEL, carriage return…) and bidirectional overrides are
//! escaped ([`inert`]), so a result cannot retitle the window, clear the screen or write
//! the clipboard (OSC 52).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::args::{Format, Output};
use super::{ClientError, exit};

/// Where image content goes.
pub enum Images<'a> {
    /// Files named `<stem>-<unix ms>-<n>.<ext>` in a folder.
    Folder { dir: &'a Path, stem: &'a str },
    /// The first image to this file (`axgate screenshot --output`).
    File(&'a Path),
}

impl Output {
    /// The `--format` asked for, else the command's own default.
    pub(crate) fn format_or(&self, default: Format) -> Format {
        self.format.unwrap_or(default)
    }

    /// Images go to `--output-dir`, named after `stem` (the command or the tool).
    pub(crate) fn images<'a>(&'a self, stem: &'a str) -> Images<'a> {
        Images::Folder {
            dir: &self.output_dir,
            stem,
        }
    }
}

impl Images<'_> {
    fn path(&self, index: usize, mime: &str) -> PathBuf {
        let ext = match mime {
            "image/jpeg" => "jpg",
            "image/gif" => "gif",
            _ => "png",
        };
        match self {
            Images::File(path) if index == 0 => path.to_path_buf(),
            Images::File(path) => path.with_extension(format!("{index}.{ext}")),
            Images::Folder { dir, stem } => {
                let millis = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or_default();
                dir.join(format!("{stem}-{millis}-{index}.{ext}"))
            }
        }
    }
}

/// Writes the result's images, prints it in `format`, and returns the exit code: 0, or 1
/// for `isError`.
pub fn print_result(result: &Value, format: Format, images: &Images) -> Result<u8, ClientError> {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut shown = Vec::with_capacity(blocks.len());
    let mut written = Vec::new();
    for block in blocks {
        if block.get("type").and_then(Value::as_str) != Some("image") {
            shown.push(block);
            continue;
        }
        let mime = block
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or("image/png")
            .to_owned();
        let data = block.get("data").and_then(Value::as_str).unwrap_or("");
        let bytes = STANDARD.decode(data).map_err(|e| {
            ClientError::Connection(format!("an image in the result is not base64 ({e})"))
        })?;
        let path = images.path(written.len(), &mime);
        std::fs::write(&path, &bytes).map_err(|e| {
            ClientError::Usage(format!(
                "cannot write the image to {} ({e}); choose another --output-dir or --output",
                path.display()
            ))
        })?;
        shown.push(json!({"type": "image", "mimeType": mime, "file": path.display().to_string()}));
        written.push(path);
    }
    let texts: Vec<&str> = shown
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if result.get("isError") == Some(&Value::Bool(true)) {
        let message = if texts.is_empty() {
            "the tool failed and said nothing".to_owned()
        } else {
            texts.join("\n")
        };
        eprintln!("{}", inert(&message));
        return Ok(exit::TOOL_ERROR);
    }
    let mut out = std::io::stdout().lock();
    let printed = match format {
        Format::Quiet => Ok(()),
        Format::Text => {
            let mut lines: Vec<String> = texts.iter().map(|t| inert(t)).collect();
            lines.extend(written.iter().map(|p| format!("wrote {}", p.display())));
            writeln!(out, "{}", lines.join("\n"))
        }
        Format::Json => {
            let value = match result.get("structuredContent") {
                Some(structured) => {
                    for path in &written {
                        eprintln!("wrote {}", path.display());
                    }
                    structured.clone()
                }
                None => json!({"content": shown}),
            };
            writeln!(out, "{}", inert_json(&pretty(&value)))
        }
    };
    printed.map_err(|e| ClientError::stdout(&e))?;
    Ok(exit::OK)
}

/// The tool list: `name  first line of the description` per tool, or JSON.
pub fn print_tools(tools: &[Value], format: Format) -> Result<u8, ClientError> {
    let rows: Vec<(String, String)> = tools
        .iter()
        .map(|t| {
            let name = t
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned();
            let description = t
                .get("description")
                .and_then(Value::as_str)
                .and_then(|d| d.lines().next())
                .unwrap_or("")
                .to_owned();
            (name, description)
        })
        .collect();
    let text = match format {
        Format::Quiet => return Ok(exit::OK),
        Format::Json => inert_json(&pretty(&Value::Array(
            rows.iter()
                .map(|(name, description)| json!({"name": name, "description": description}))
                .collect(),
        ))),
        Format::Text => {
            let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
            rows.iter()
                .map(|(name, description)| format!("{name:width$}  {description}"))
                .map(|line| inert(&line))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    writeln!(std::io::stdout().lock(), "{text}").map_err(|e| ClientError::stdout(&e))?;
    Ok(exit::OK)
}

/// `text` safe for a terminal: line breaks and tabs kept, every other control character
/// (C0, DEL, C1: ESC, CSI, OSC, BEL, `\r`…) and each bidirectional override written as a
/// Rust escape (`\u{1b}`).
pub fn inert(text: &str) -> String {
    escape(text, |c| format!("\\u{{{:x}}}", c as u32))
}

/// Pretty JSON safe for a terminal: serde escapes C0 controls in strings already; C1
/// controls and bidirectional overrides, which JSON allows raw, become `\u009b` escapes
/// (they only occur inside strings, so the JSON stays valid and means the same).
fn inert_json(text: &str) -> String {
    escape(text, |c| format!("\\u{:04x}", c as u32))
}

fn escape(text: &str, escaped: impl Fn(char) -> String) -> String {
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    let unsafe_char = |c: char| (c.is_control() && c != '\n' && c != '\t') || bidi(c);
    if !text.chars().any(unsafe_char) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&escaped(c));
        } else {
            out.push(c);
        }
    }
    out
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
