//! What one audit line says. [`AuditEvent`] is what a caller fills in for a mutating or
//! denied tool call; [`AuditLine`] is its JSON shape on disk (the serde type of this
//! boundary, so engine types never derive `Serialize`), with the chain's `prev`.
//!
//! Nothing here may carry typed text, secure values or tokens: arguments reach an event only
//! through [`redact_args`](super::redact_args), which keeps safe fields and replaces the rest
//! by their length.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The principal of calls made before authentication exists.
pub const ANONYMOUS: &str = "anonymous";

/// How a call ended (the same classes as `axgate_tool_calls_total`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The tool ran and succeeded.
    Ok,
    /// The tool ran and failed (`isError: true`).
    ToolError,
    /// The call was refused before the tool ran; `reason` says why.
    Denied,
    /// The tool ran out of time.
    Timeout,
    /// A sessionless call stopped before a destructive act to ask the user (an MRTR
    /// input-required result); nothing was acted on.
    InputRequired,
}

/// One mutating or denied tool call, as the caller describes it.
#[derive(Clone, Debug)]
pub struct AuditEvent {
    /// When the call started.
    pub time: SystemTime,
    /// Who made the call; [`ANONYMOUS`] until authentication exists.
    pub principal: String,
    /// A short, non-secret tag of the MCP session: use [`session_tag`], never the raw id.
    pub session: Option<String>,
    pub tool: String,
    pub app: Option<String>,
    /// The element acted on (a path or handle), as returned by `redact_args`.
    pub target: Option<String>,
    pub outcome: Outcome,
    pub duration: Duration,
    /// The actuation-ladder rung that produced the effect (click).
    pub rung: Option<String>,
    /// Why a call was denied; must not quote arguments.
    pub reason: Option<String>,
    /// How a destructive press was confirmed (`accepted_by_user`, `declined_by_user`,
    /// `refused_without_elicitation`, `allowed_without_elicitation`).
    pub confirmation: Option<String>,
    /// Safe arguments and the lengths of the others, from `redact_args`.
    pub redacted: Map<String, Value>,
    /// A summary line: how many denied calls it stands for (see `coalesce.rs`).
    pub count: Option<u64>,
    /// A retention marker: the hash the oldest line still kept chains from, i.e. the last
    /// line of the files retention removed (see `retention.rs`).
    pub dropped_head: Option<String>,
}

impl AuditEvent {
    /// An event for `tool` that started now, by [`ANONYMOUS`], with nothing else known.
    pub fn new(tool: impl Into<String>, outcome: Outcome) -> AuditEvent {
        AuditEvent {
            time: SystemTime::now(),
            principal: ANONYMOUS.to_owned(),
            session: None,
            tool: tool.into(),
            app: None,
            target: None,
            outcome,
            duration: Duration::ZERO,
            rung: None,
            reason: None,
            confirmation: None,
            redacted: Map::new(),
            count: None,
            dropped_head: None,
        }
    }
}

/// The longest string an audit line keeps of any field; longer ones are cut at a character
/// boundary and end in `…(+N bytes)`, so a 100 KB app name costs the trail 256 bytes.
pub const MAX_FIELD_BYTES: usize = 256;

/// `text` cut to [`MAX_FIELD_BYTES`].
pub(super) fn bounded(text: String) -> String {
    if text.len() <= MAX_FIELD_BYTES {
        return text;
    }
    let mut end = MAX_FIELD_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…(+{} bytes)", &text[..end], text.len() - end)
}

/// Every string in `value` (keys too) cut to [`MAX_FIELD_BYTES`]; at most 64 entries per
/// object or array.
fn bounded_value(value: Value) -> Value {
    const ENTRIES: usize = 64;
    match value {
        Value::String(s) => Value::String(bounded(s)),
        Value::Array(items) => {
            Value::Array(items.into_iter().take(ENTRIES).map(bounded_value).collect())
        }
        Value::Object(map) => Value::Object(bounded_map(map)),
        other => other,
    }
}

fn bounded_map(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter()
        .take(64)
        .map(|(k, v)| (bounded(k), bounded_value(v)))
        .collect()
}

/// One line of the trail as written: the event plus `prev`. Absent optional fields are
/// omitted. Field order is the order on disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditLine {
    /// RFC 3339, UTC, milliseconds: `2026-05-01T09:30:12.345Z`.
    pub time: String,
    pub principal: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub outcome: Outcome,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rung: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub redacted: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_head: Option<String>,
    /// Hex SHA-256 of the previous line, or the genesis value.
    pub prev: String,
}

impl AuditLine {
    /// The line for `event`, every string cut to [`MAX_FIELD_BYTES`] (arguments such as
    /// `app` reach the trail as the caller sent them, even in a denied call).
    pub fn new(event: AuditEvent, prev: String) -> AuditLine {
        let cut = |s: Option<String>| s.map(bounded);
        AuditLine {
            time: humantime::format_rfc3339_millis(event.time).to_string(),
            principal: bounded(event.principal),
            session: cut(event.session),
            tool: bounded(event.tool),
            app: cut(event.app),
            target: cut(event.target),
            outcome: event.outcome,
            duration_ms: u64::try_from(event.duration.as_millis()).unwrap_or(u64::MAX),
            rung: cut(event.rung),
            reason: cut(event.reason),
            confirmation: cut(event.confirmation),
            redacted: bounded_map(event.redacted),
            count: event.count,
            dropped_head: event.dropped_head,
            prev,
        }
    }
}

/// A short tag for an MCP session id: the first 12 hex digits of its SHA-256. The same
/// session always gets the same tag, and the tag does not reveal the id (which would let a
/// reader of the trail join the session).
pub fn session_tag(session_id: &str) -> String {
    let mut tag = hex::encode(Sha256::digest(session_id.as_bytes()));
    tag.truncate(12);
    tag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_shape_is_stable() {
        let mut event = AuditEvent::new("click", Outcome::Ok);
        event.time = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        event.session = Some(session_tag("7b0c0bd2-0000-4000-8000-000000000000"));
        event.app = Some("TextEdit".into());
        event.target = Some("window[0]/button[\"Save\"]".into());
        event.duration = Duration::from_micros(12_900);
        event.rung = Some("press".into());
        let line = AuditLine::new(event, super::super::GENESIS.into());
        let text = serde_json::to_string(&line).expect("encodes");
        let tag = session_tag("7b0c0bd2-0000-4000-8000-000000000000");
        assert_eq!(
            text,
            format!(
                "{{\"time\":\"2023-11-14T22:13:20.123Z\",\"principal\":\"anonymous\",\
                 \"session\":\"{tag}\",\"tool\":\"click\",\"app\":\"TextEdit\",\
                 \"target\":\"window[0]/button[\\\"Save\\\"]\",\"outcome\":\"ok\",\
                 \"duration_ms\":12,\"rung\":\"press\",\"prev\":\"{}\"}}",
                super::super::GENESIS
            )
        );
        let back: AuditLine = serde_json::from_str(&text).expect("decodes");
        assert_eq!(back, line);
    }

    #[test]
    fn long_arguments_are_cut() {
        let mut event = AuditEvent::new("get_tree", Outcome::Denied);
        event.app = Some("A".repeat(100_000));
        event
            .redacted
            .insert("menu".into(), Value::from("é".repeat(50_000)));
        let line = AuditLine::new(event, super::super::GENESIS.into());
        let text = serde_json::to_string(&line).expect("encodes");
        assert!(text.len() < 1_000, "{} bytes", text.len());
        let app = line.app.expect("kept");
        assert!(app.starts_with(&"A".repeat(MAX_FIELD_BYTES)), "{app}");
        assert!(app.ends_with("…(+99744 bytes)"), "{app}");
        let menu = line.redacted["menu"].as_str().expect("a string");
        assert!(menu.ends_with(" bytes)") && menu.len() < 300, "{menu}");
        assert_eq!(bounded("short".into()), "short");
    }

    #[test]
    fn session_tags_are_short_stable_and_not_the_id() {
        let id = "7b0c0bd2-0000-4000-8000-000000000000";
        assert_eq!(session_tag(id).len(), 12);
        assert_eq!(session_tag(id), session_tag(id));
        assert_ne!(session_tag(id), session_tag("other"));
        assert!(!id.contains(&session_tag(id)));
    }

    #[test]
    fn outcomes_use_the_metric_names() {
        let names: Vec<String> = [
            Outcome::Ok,
            Outcome::ToolError,
            Outcome::Denied,
            Outcome::Timeout,
            Outcome::InputRequired,
        ]
        .iter()
        .map(|o| serde_json::to_string(o).expect("encodes"))
        .collect();
        assert_eq!(
            names,
            [
                "\"ok\"",
                "\"tool_error\"",
                "\"denied\"",
                "\"timeout\"",
                "\"input_required\""
            ]
        );
    }
}
