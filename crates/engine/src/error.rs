//! The engine's error enum: one variant per accessibility failure class. The MCP layer turns
//! these into `isError` tool results in one place; the text here is written for an agent
//! that must decide what to do next, so every message names the fix or the next step.

use std::time::Duration;

use super::model::Pid;

/// What an engine or backend call gives: its value, or the [`AxError`] that says why not
/// (`()` when the call only acts), as `io::Result` is for I/O.
pub type AxResult<T = ()> = Result<T, AxError>;

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum AxError {
    #[error("no running app matches {query:?}; running apps: {}. Call list_apps to see names and pids, or launch the app first", list(.available))]
    AppNotFound {
        query: String,
        available: Vec<String>,
    },

    /// The app policy refuses the app (`policy.allow_apps` / `deny_apps`). The caller is told
    /// exactly what it would be told if no such app existed (`shown`), so a refusal does not
    /// reveal that the app exists; `denial` names the rule, for the audit trail.
    #[error("{shown}")]
    AppDenied {
        denial: crate::app_rules::AppDenial,
        shown: Box<AxError>,
    },

    /// Nothing installed that `launch_app` may start matches the request.
    #[error(
        "nothing that can be launched matches {query:?}: name an installed app by its name, its bundle id or its path, such as /Applications/Name.app"
    )]
    NotLaunchable { query: String },

    #[error("{query:?} matches {} apps ({}); name it by pid instead", .candidates.len(), list(.candidates))]
    AppAmbiguous {
        query: String,
        candidates: Vec<String>,
    },

    #[error("no element at {path}: expected {expected}, found here: {}. Call get_tree on the parent to see what exists", list(.found))]
    NotFound {
        path: String,
        expected: String,
        found: Vec<String>,
    },

    #[error(
        "{path} is ambiguous: {expected} matches {count} elements; use an index step such as role[N]"
    )]
    Ambiguous {
        path: String,
        expected: String,
        count: usize,
    },

    #[error(
        "stale element {handle}: expected {expected}, found {found}. Re-run find or get_tree for a fresh handle"
    )]
    Stale {
        handle: String,
        expected: String,
        found: String,
    },

    #[error(
        "unknown handle {handle}: it was never minted in this session or was evicted. Re-run find or get_tree"
    )]
    UnknownHandle { handle: String },

    #[error("{app} did not answer within {}; the call was abandoned. Retry later, or check whether the app is hung", human_duration(*.after))]
    Timeout { app: String, after: Duration },

    #[error(
        "{app} (pid {pid}) is marked unresponsive after repeated timeouts; calls fail fast until a probe succeeds. Retry in a few seconds"
    )]
    Unresponsive { app: String, pid: Pid },

    /// The app's worker already holds `backend.max_queued_calls` calls (back-pressure).
    #[error(
        "{app} is busy: {queued} calls are already running or waiting for it (backend.max_queued_calls); retry after {} s",
        .retry_after.as_secs().max(1)
    )]
    Busy {
        app: String,
        queued: usize,
        retry_after: Duration,
    },

    #[error("{element} is disabled; wait_for it to become enabled, or act on something else first")]
    Disabled { element: String },

    #[error("{element} does not support {action:?}; it supports: {}", list(.available))]
    UnsupportedAction {
        element: String,
        action: String,
        available: Vec<String>,
    },

    #[error("{element} has no settable value")]
    NotSettable { element: String },

    #[error("invalid value for {element}: {reason}")]
    InvalidValue { element: String, reason: String },

    #[error("permission missing: {0}")]
    Permission(String),

    #[error("{0}")]
    Unsupported(String),

    #[error("the app exited (pid {pid}); launch it again to continue")]
    AppExited { pid: Pid },

    #[error("{element}: no rung produced an observable effect (tried {}) and require_effect was asked; check get_element, or omit require_effect to accept a click whose effect is invisible", list(.tried))]
    NoEffect { element: String, tried: Vec<String> },

    #[error(
        "{app} is leased by another session until {until}; wait for the lease to end, or coordinate with its holder"
    )]
    Leased { app: String, until: String },

    #[error(
        "{element} did not take the value: expected {expected}, it reads {actual}. The app ignored the write; try type_text or click instead"
    )]
    NotApplied {
        element: String,
        expected: String,
        actual: String,
    },

    #[error("backend failure: {0}")]
    Backend(String),

    #[error("cancelled")]
    Cancelled,
}

impl AxError {
    /// A short, bounded name for the error class (metrics labels, logs).
    pub fn kind(&self) -> &'static str {
        match self {
            AxError::AppNotFound { .. } => "app_not_found",
            AxError::AppAmbiguous { .. } => "app_ambiguous",
            AxError::AppDenied { .. } => "app_denied",
            AxError::NotLaunchable { .. } => "app_not_found",
            AxError::NotFound { .. } => "not_found",
            AxError::Ambiguous { .. } => "ambiguous",
            AxError::Stale { .. } => "stale",
            AxError::UnknownHandle { .. } => "unknown_handle",
            AxError::Timeout { .. } => "timeout",
            AxError::Unresponsive { .. } => "unresponsive",
            AxError::Busy { .. } => "busy",
            AxError::Disabled { .. } => "disabled",
            AxError::UnsupportedAction { .. } => "unsupported_action",
            AxError::NotSettable { .. } => "not_settable",
            AxError::InvalidValue { .. } => "invalid_value",
            AxError::Permission(_) => "permission",
            AxError::Unsupported(_) => "unsupported",
            AxError::AppExited { .. } => "app_exited",
            AxError::NoEffect { .. } => "no_effect",
            AxError::Leased { .. } => "leased",
            AxError::NotApplied { .. } => "not_applied",
            AxError::Backend(_) => "backend",
            AxError::Cancelled => "cancelled",
        }
    }

    /// Whether this error means the backend did not answer in time.
    pub fn is_timeout(&self) -> bool {
        matches!(self, AxError::Timeout { .. } | AxError::Unresponsive { .. })
    }
}

fn list(items: &[String]) -> String {
    const SHOWN: usize = 12;
    if items.is_empty() {
        return "nothing".to_owned();
    }
    let mut out = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        out.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    out
}

/// A duration as a person reads it in an error: `850 ms`, `5.2 s`, `90 s`.
pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 10_000 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{} s", d.as_secs_f64().round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_names_what_exists() {
        let err = AxError::NotFound {
            path: "window[0]/button[\"Save\"]".into(),
            expected: "button \"Save\"".into(),
            found: vec!["button \"Cancel\"".into(), "text_field[0]".into()],
        };
        let text = err.to_string();
        assert!(text.contains("button \"Cancel\""), "{text}");
        assert!(text.contains("get_tree"), "{text}");
    }

    #[test]
    fn long_lists_are_cut() {
        let many: Vec<String> = (0..30).map(|i| format!("app{i}")).collect();
        let err = AxError::AppNotFound {
            query: "x".into(),
            available: many,
        };
        assert!(err.to_string().contains("and 18 more"));
    }

    #[test]
    fn durations_in_errors_are_rounded_for_people() {
        assert_eq!(human_duration(Duration::from_micros(850_400)), "850 ms");
        assert_eq!(human_duration(Duration::from_nanos(5_150_734_179)), "5.2 s");
        assert_eq!(human_duration(Duration::from_millis(90_400)), "90 s");
        let err = AxError::Timeout {
            app: "Hung".into(),
            after: Duration::from_nanos(5_150_734_179),
        };
        assert!(
            err.to_string()
                .starts_with("Hung did not answer within 5.2 s;"),
            "{err}"
        );
    }
}
