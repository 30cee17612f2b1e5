//! The deployment kit in `deploy/` and its runbook `docs/OPERATIONS.md`: promtool accepts the
//! Prometheus configuration and rules and passes their unit tests, the LaunchAgent plist has
//! the keys launchd needs, the install script's dry run shows the launchctl steps, the Grafana
//! dashboard queries only metrics axgate exports, and every alert has a unit test and a
//! runbook section.
//!
//! promtool comes from Debian's `prometheus` package; these tests fail (never skip) without it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

/// Every metric axgate exports (docs/OPERATIONS.md, "Metrics reference").
const METRICS: &[&str] = &[
    "axgate_http_requests_total",
    "axgate_http_request_duration_seconds",
    "axgate_mcp_requests_total",
    "axgate_mcp_direct_calls_total",
    "axgate_mcp_direct_calls_whole_total",
    "axgate_backend_app_lists_shared_total",
    "axgate_tool_calls_total",
    "axgate_tool_call_duration_seconds",
    "axgate_backend_call_duration_seconds",
    "axgate_backend_round_trips",
    "axgate_nodes_walked_total",
    "axgate_worker_queue_depth",
    "axgate_worker_queue_wait_seconds",
    "axgate_sessions_active",
    "axgate_sse_streams_open",
    "axgate_events_replayed_total",
    "axgate_session_evictions_total",
    "axgate_auth_failures_total",
    "axgate_rate_limited_total",
    "axgate_audit_write_duration_seconds",
    "axgate_audit_failures_total",
    "axgate_audit_head",
    "axgate_readiness",
    "axgate_readiness_advisory",
    "axgate_build_info",
    "axgate_busy_refusals_total",
    "axgate_requests_in_flight",
    "axgate_get_streams",
    "axgate_connections_open",
    "axgate_connections_closed_total",
    "axgate_connection_sources",
    "axgate_events_evicted_total",
    "axgate_events_too_large_total",
    "axgate_secret_masks_forgotten_total",
    "axgate_event_log_bytes",
    "axgate_event_live_bytes",
    "axgate_event_log_queue_bytes",
    "axgate_task_result_bytes",
    "axgate_tasks",
    "axgate_jwt_cache_bytes",
    "axgate_capacity_state",
    "axgate_exclusive_held_since_seconds",
    "axgate_exclusive_hold_left_seconds",
    "axgate_exclusive_holder",
    "axgate_draining",
    "axgate_webdriver_sessions",
    "axgate_webdriver_commands_total",
];

/// The histograms among them, which also export `_bucket`, `_sum` and `_count` series.
const HISTOGRAMS: &[&str] = &[
    "axgate_http_request_duration_seconds",
    "axgate_tool_call_duration_seconds",
    "axgate_backend_call_duration_seconds",
    "axgate_backend_round_trips",
    "axgate_worker_queue_wait_seconds",
    "axgate_audit_write_duration_seconds",
];

const LABEL: &str = "dev.axgate.agent";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------
// promtool

/// Runs promtool with `args` from the repository root; fails the test if promtool is
/// missing or reports a problem.
fn promtool(args: &[&str], dir: &Path) -> String {
    let output = Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run promtool ({e}): install Debian's prometheus package \
                 (apt-get install prometheus)"
            )
        });
    let text = combined(&output);
    assert!(
        output.status.success(),
        "promtool {} failed ({}):\n{text}",
        args.join(" "),
        output.status
    );
    text
}

fn combined(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const TOKEN_FILE: &str = "/etc/prometheus/axgate-scrape.token";

mod action;
mod dashboard;
mod launchd;
mod release;
// Metric names, for every file that names metrics.

/// Every `axgate_…` identifier in `text`.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(i) = text[from..].find("axgate_").map(|i| i + from) {
        let mut end = i;
        while end < bytes.len() && ident(bytes[end]) {
            end += 1;
        }
        if i == 0 || !ident(bytes[i - 1]) {
            out.insert(text[i..end].to_owned());
        }
        from = end;
    }
    out
}

fn is_known_metric(name: &str) -> bool {
    METRICS.contains(&name)
        || ["_bucket", "_sum", "_count"].iter().any(|suffix| {
            name.strip_suffix(suffix)
                .is_some_and(|base| HISTOGRAMS.contains(&base))
        })
}

fn assert_known_metrics(what: &str, text: &str) {
    let unknown: Vec<String> = metric_names(text)
        .into_iter()
        .filter(|m| !is_known_metric(m))
        .collect();
    assert!(
        unknown.is_empty(),
        "{what} names unknown metrics {unknown:?}"
    );
}

mod prometheus;
