//! A session's own audit lines, for `resources/read` of `axgate://session/audit`: every
//! audited call of this session (mutating calls and denied calls, as `mcp/server` records
//! them), kept in memory as the trail writes them — the same redacted fields, the same
//! 256-byte cut — without the chain's `prev`, which only the trail file needs. Bounded:
//! the newest [`MAX_LINES`] are kept and the rest counted. A scenario runner reads it to put
//! a failed case's audit lines in its artifacts without reading the server's trail file;
//! no session can see another's lines, because the view lives in the session's own state.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;
use serde_json::Value;

use crate::audit::{AuditEvent, AuditLine};

/// Most lines one session keeps.
pub const MAX_LINES: usize = 1_000;

/// The lines of one session, oldest first.
#[derive(Default)]
pub struct OwnAudit {
    lines: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    lines: VecDeque<Value>,
    dropped: u64,
}

/// The JSON of `axgate://session/audit`.
#[derive(Serialize)]
pub struct OwnAuditOut {
    /// The session's tag, as the trail's `session` field shows it (`null` over stdio).
    pub session: Option<String>,
    /// Whether the server writes an audit trail (`audit.path`); the lines are kept either way.
    pub trail: bool,
    /// Older lines no longer kept (past [`MAX_LINES`]).
    pub dropped: u64,
    pub lines: Vec<Value>,
}

impl OwnAudit {
    /// Keeps the line of `event` (after the trail accepted it).
    pub fn push(&self, event: AuditEvent) {
        let Ok(Value::Object(mut line)) =
            serde_json::to_value(AuditLine::new(event, String::new()))
        else {
            return;
        };
        line.remove("prev");
        let mut kept = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.lines.len() == MAX_LINES {
            kept.lines.pop_front();
            kept.dropped += 1;
        }
        kept.lines.push_back(Value::Object(line));
    }

    /// What the resource shows.
    pub fn snapshot(&self, session: Option<String>, trail: bool) -> OwnAuditOut {
        let kept = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        OwnAuditOut {
            session,
            trail,
            dropped: kept.dropped,
            lines: kept.lines.iter().cloned().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Outcome;

    #[test]
    fn lines_are_the_trails_without_prev_and_bounded() {
        let own = OwnAudit::default();
        for n in 0..MAX_LINES + 3 {
            let mut event = AuditEvent::new("click", Outcome::Ok);
            event.app = Some(format!("App{n}"));
            own.push(event);
        }
        let out = own.snapshot(Some("abc".into()), true);
        assert_eq!(out.lines.len(), MAX_LINES);
        assert_eq!(out.dropped, 3);
        assert_eq!(out.lines[0]["app"], "App3");
        assert!(out.lines[0].get("prev").is_none());
        assert_eq!(out.lines[0]["tool"], "click");
    }
}
