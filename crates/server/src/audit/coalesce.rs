//! Coalescing denied calls, so that refusals cannot flood the trail: a read-only token
//! hammering a write tool once wrote and fsync'd a line per call (8,227 in 10 s). Now the
//! first denied call of a principal opens a window (`audit.deny_window_secs`, 10 s) and is
//! written in full; the further denied calls of that principal in the window are only
//! counted, and when the window ends one summary line (tool `denied_calls`, `count`, the
//! calls per tool and per reason) stands for them. A trail of denials grows by at most two
//! lines per principal per window.
//!
//! Not coalesced: lines that record a confirmation decision (a destructive act refused or
//! declined is a decision worth its own line, and writes are rate-limited anyway). A summary
//! is written when its window ends, or when the trail closes; a crash loses the counts of the
//! open windows (never a full line that was acknowledged).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Map, Value};

use super::event::{AuditEvent, Outcome};

/// The tool name of a summary line.
pub const SUMMARY_TOOL: &str = "denied_calls";

/// Distinct tools (or reasons) named in one summary; the rest are counted as `other`.
const KINDS: usize = 16;

struct Window {
    ends: Instant,
    started: SystemTime,
    session: Option<String>,
    counted: u64,
    tools: BTreeMap<String, u64>,
    reasons: BTreeMap<String, u64>,
}

/// The open windows, by principal.
pub(super) struct Coalescer {
    length: Duration,
    open: HashMap<String, Window>,
}

fn tally(map: &mut BTreeMap<String, u64>, key: &str) {
    if map.len() < KINDS || map.contains_key(key) {
        *map.entry(key.to_owned()).or_default() += 1;
    } else {
        *map.entry("other".to_owned()).or_default() += 1;
    }
}

impl Coalescer {
    /// Windows of `length`; zero turns coalescing off.
    pub(super) fn new(length: Duration) -> Coalescer {
        Coalescer {
            length,
            open: HashMap::new(),
        }
    }

    /// Whether `event` gets its own line: anything but a denied call, the first denied call
    /// of its principal in a window, or one with a confirmation outcome. Otherwise it is
    /// counted in its principal's window.
    pub(super) fn admit(&mut self, event: &AuditEvent, now: Instant) -> bool {
        let decided = event
            .confirmation
            .as_deref()
            .is_some_and(|c| !matches!(c, "not_checked" | "not_destructive"));
        if self.length.is_zero() || event.outcome != Outcome::Denied || decided {
            return true;
        }
        match self.open.get_mut(&event.principal) {
            Some(window) if window.ends > now => {
                window.counted += 1;
                tally(&mut window.tools, &event.tool);
                tally(
                    &mut window.reasons,
                    event.reason.as_deref().unwrap_or("policy"),
                );
                false
            }
            _ => {
                self.open.insert(
                    event.principal.clone(),
                    Window {
                        ends: now + self.length,
                        started: event.time,
                        session: event.session.clone(),
                        counted: 0,
                        tools: BTreeMap::new(),
                        reasons: BTreeMap::new(),
                    },
                );
                true
            }
        }
    }

    /// When the next window ends.
    pub(super) fn next_end(&self) -> Option<Instant> {
        self.open.values().map(|w| w.ends).min()
    }

    /// The summaries of the windows that ended by `now` (and closes them).
    pub(super) fn due(&mut self, now: Instant) -> Vec<AuditEvent> {
        let ended: Vec<String> = self
            .open
            .iter()
            .filter(|(_, w)| w.ends <= now)
            .map(|(p, _)| p.clone())
            .collect();
        ended
            .into_iter()
            .filter_map(|p| self.open.remove_entry(&p))
            .filter_map(|(principal, window)| summary(principal, window))
            .collect()
    }

    /// The summaries of every open window (the trail is closing).
    pub(super) fn drain(&mut self) -> Vec<AuditEvent> {
        self.open
            .drain()
            .filter_map(|(principal, window)| summary(principal, window))
            .collect()
    }
}

fn summary(principal: String, window: Window) -> Option<AuditEvent> {
    if window.counted == 0 {
        return None;
    }
    let mut event = AuditEvent::new(SUMMARY_TOOL, Outcome::Denied);
    event.time = window.started;
    event.principal = principal;
    event.session = window.session;
    event.count = Some(window.counted);
    event.reason = Some(format!(
        "coalesced: {} further denied calls of this principal in the {} since `time`",
        window.counted,
        humantime::format_duration(Duration::from_secs(
            SystemTime::now()
                .duration_since(window.started)
                .map_or(0, |d| d.as_secs())
        ))
    ));
    let counts = |m: BTreeMap<String, u64>| {
        Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, Value::from(v)))
                .collect::<Map<_, _>>(),
        )
    };
    event.redacted.insert("tools".into(), counts(window.tools));
    event
        .redacted
        .insert("reasons".into(), counts(window.reasons));
    Some(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(principal: &str, tool: &str) -> AuditEvent {
        let mut e = AuditEvent::new(tool, Outcome::Denied);
        e.principal = principal.into();
        e.reason = Some("insufficient_scope: needs axgate:act".into());
        e
    }

    #[test]
    fn the_first_denial_is_written_and_the_rest_summarised_per_principal() {
        let mut c = Coalescer::new(Duration::from_secs(10));
        let t0 = Instant::now();
        assert!(c.admit(&denied("ro", "click"), t0));
        for i in 0..1_000 {
            let tool = if i % 2 == 0 { "click" } else { "type_text" };
            assert!(!c.admit(&denied("ro", tool), t0));
        }
        assert!(c.admit(&denied("other", "click"), t0), "its own window");
        assert!(c.admit(&AuditEvent::new("click", Outcome::Ok), t0));
        let mut asked = denied("ro", "click");
        asked.confirmation = Some("declined_by_user".into());
        assert!(
            c.admit(&asked, t0),
            "a confirmation outcome has its own line"
        );
        let mut unchecked = denied("ro", "launch_app");
        unchecked.confirmation = Some("not_checked".into());
        assert!(!c.admit(&unchecked, t0), "no decision was made: counted");
        assert!(c.due(t0 + Duration::from_secs(9)).is_empty());
        let summaries = c.due(t0 + Duration::from_secs(10));
        assert_eq!(summaries.len(), 1, "`other` counted nothing");
        let s = &summaries[0];
        assert_eq!(
            (s.tool.as_str(), s.principal.as_str()),
            (SUMMARY_TOOL, "ro")
        );
        assert_eq!(s.count, Some(1_001));
        assert_eq!(s.redacted["tools"]["click"], 500);
        assert_eq!(
            s.redacted["reasons"]["insufficient_scope: needs axgate:act"],
            1_001
        );
        // The next denial opens a new window and is written.
        assert!(c.admit(&denied("ro", "click"), t0 + Duration::from_secs(11)));
        assert!(c.drain().is_empty());
    }

    #[test]
    fn a_zero_window_writes_everything() {
        let mut c = Coalescer::new(Duration::ZERO);
        let t0 = Instant::now();
        assert!(c.admit(&denied("ro", "click"), t0));
        assert!(c.admit(&denied("ro", "click"), t0));
        assert_eq!(c.next_end(), None);
    }
}
