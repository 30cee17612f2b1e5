//! Prometheus metrics: typed metric families registered into a `prometheus::Registry` passed
//! in at start-up (no globals). Label values are bounded: route templates, MCP method names
//! from a fixed list, tool names, outcome classes, check names — never raw paths, app text
//! or user ids.

use std::sync::Arc;

pub use axgate_engine::metrics::EngineMetrics;

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Latency buckets in seconds, from sub-millisecond IPC to slow app launches.
const LATENCY: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
const TRIPS: &[f64] = &[
    1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 1000.0, 5000.0, 20000.0,
];

/// Every metric family of the server, shared: a clone is one reference count, not one per
/// family (the middleware's state is cloned for every request).
#[derive(Clone)]
pub struct Metrics(Arc<Families>);

impl std::ops::Deref for Metrics {
    type Target = Families;

    fn deref(&self) -> &Families {
        &self.0
    }
}

/// The metric families behind [`Metrics`].
pub struct Families {
    pub registry: Registry,
    pub http_requests: IntCounterVec,
    pub http_duration: HistogramVec,
    pub mcp_requests: IntCounterVec,
    /// `tools/call` requests answered without rmcp's per-request tasks (`http::direct`).
    pub direct_calls: IntCounter,
    /// Of those, the calls done within the hold: answered in one write (`http::direct`).
    pub direct_whole: IntCounter,
    pub tool_calls: IntCounterVec,
    pub tool_duration: HistogramVec,
    pub backend_round_trips: HistogramVec,
    pub sessions_active: IntGauge,
    pub sse_streams_open: IntGauge,
    pub connections_open: IntGauge,
    pub connections_closed: IntCounterVec,
    /// Source addresses with an unauthenticated connection open (`http::conn`'s table).
    pub connection_sources: IntGauge,
    /// MCP POSTs being served (until their response body ends).
    pub requests_in_flight: IntGauge,
    /// POSTs refused with 503 because `server.max_in_flight` were being served.
    pub requests_busy: IntCounter,
    /// GETs refused with 503 because `server.max_streams` (or the caller's share) were open.
    pub streams_busy: IntCounter,
    /// `GET` streams open on `/mcp` (`server.max_streams`).
    pub get_streams: IntGauge,
    pub events_replayed: IntCounter,
    /// Events the replay log dropped to stay within a bound, by the bound (`reason`).
    pub events_evicted: IntCounterVec,
    /// Events too large for the replay log: delivered live, never kept.
    pub events_too_large: IntCounter,
    /// Secret values a session stopped masking in its later results to stay within the
    /// bound (`crate::secrets::mask`).
    pub secret_masks_forgotten: IntCounter,
    /// Bytes the replay log holds.
    pub event_log_bytes: IntGauge,
    /// JSON bytes of messages kept in memory for their live consumer (`session/events/live.rs`).
    pub event_live_bytes: IntGauge,
    /// Bytes of the replay log's two queues of stream numbers (`session/events/queue.rs`).
    pub event_log_queue_bytes: IntGauge,
    /// Bytes of finished task results kept for `tasks/get` (`mcp/tasks.rs`).
    pub task_result_bytes: IntGauge,
    /// Tasks held, running or finished and kept.
    pub tasks_held: IntGauge,
    pub session_evictions: IntCounterVec,
    pub auth_failures: IntCounterVec,
    /// Bytes the verified-JWT cache holds (`http::auth::verified`).
    pub jwt_cache_bytes: IntGauge,
    pub rate_limited: IntCounterVec,
    pub audit_write_duration: Histogram,
    pub audit_failures: IntCounter,
    /// The first 48 bits of the audit chain's head (the hash of its last line), as a number:
    /// a copy kept by Prometheus makes a cut tail of the trail detectable.
    pub audit_head: IntGauge,
    pub readiness: IntGaugeVec,
    /// Per advisory readiness check: 1 while it is raised.
    pub readiness_advisory: IntGaugeVec,
    pub build_info: IntGaugeVec,
    /// The capacity state a balancer sees (`crate::fleet`): 1 for the current one of ready,
    /// busy, drain; 0 for the others.
    pub capacity_state: IntGaugeVec,
    /// Unix seconds since the exclusive holder's session took the machine; 0 when free.
    pub exclusive_held_since: IntGauge,
    /// Seconds before the hold ends unless the holder acts (`fleet.max_hold_secs`); 0 when free.
    pub exclusive_hold_left: IntGauge,
    /// 1 for the tag of the session holding the machine; no series when free.
    pub exclusive_holder: IntGaugeVec,
    /// 1 while draining.
    pub draining: IntGauge,
    /// New sessions (and sessionless requests) refused because another holds the machine
    /// (`busy`, reason `exclusive`) or it drains (reason `draining`).
    pub refused_exclusive: IntCounter,
    pub refused_draining: IntCounter,
    /// Live WebDriver sessions (`crate::wd`).
    pub webdriver_sessions: IntGauge,
    /// WebDriver commands by command template and W3C outcome (`ok` or the error code).
    pub webdriver_commands: IntCounterVec,
    pub engine: EngineMetrics,
}

/// MCP methods counted by name; anything else is `other` (bounded labels).
const MCP_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
];

/// The bounded label for an MCP method.
pub fn mcp_method_label(method: &str) -> &'static str {
    MCP_METHODS
        .iter()
        .copied()
        .find(|m| *m == method)
        .unwrap_or("other")
}

fn histogram(
    registry: &Registry,
    name: &str,
    help: &str,
    labels: &[&str],
    buckets: &[f64],
) -> prometheus::Result<HistogramVec> {
    let h = HistogramVec::new(
        HistogramOpts::new(name, help).buckets(buckets.to_vec()),
        labels,
    )?;
    registry.register(Box::new(h.clone()))?;
    Ok(h)
}

fn counter(
    registry: &Registry,
    name: &str,
    help: &str,
    labels: &[&str],
) -> prometheus::Result<IntCounterVec> {
    let c = IntCounterVec::new(Opts::new(name, help), labels)?;
    registry.register(Box::new(c.clone()))?;
    Ok(c)
}

impl Metrics {
    /// Registers every family into `registry`.
    pub fn new(registry: Registry) -> prometheus::Result<Metrics> {
        let r = &registry;
        let plain_counter = |name: &str, help: &str| -> prometheus::Result<IntCounter> {
            let c = IntCounter::new(name, help)?;
            r.register(Box::new(c.clone()))?;
            Ok(c)
        };
        let gauge = |name: &str, help: &str| -> prometheus::Result<IntGauge> {
            let g = IntGauge::new(name, help)?;
            r.register(Box::new(g.clone()))?;
            Ok(g)
        };
        let busy = counter(
            r,
            "axgate_busy_refusals_total",
            "Work refused with a busy answer and a retry delay, by the bound that was full: \
             app_queue (an app's AX worker queue, backend.max_queued_calls), in_flight \
             (server.max_in_flight MCP requests), streams (server.max_streams GET streams, or a \
             caller's server.max_streams_per_caller), exclusive (another session holds the machine, \
             fleet.exclusive) or draining.",
            &["reason"],
        )?;
        let engine = EngineMetrics {
            worker_busy: busy.with_label_values(&["app_queue"]),
            backend_call_duration: histogram(
                r,
                "axgate_backend_call_duration_seconds",
                "Backend (accessibility API) call latency by operation.",
                &["op"],
                LATENCY,
            )?,
            app_lists_shared: plain_counter(
                "axgate_backend_app_lists_shared_total",
                "Running-app lists a call got from a read another call started after it \
                 arrived, without a job of its own on the AX Global worker.",
            )?,
            nodes_walked: plain_counter(
                "axgate_nodes_walked_total",
                "Elements read from backends by tree walks.",
            )?,
            worker_queue_depth: gauge(
                "axgate_worker_queue_depth",
                "Backend jobs queued or running on AX worker threads.",
            )?,
            worker_queue_wait: {
                let h = Histogram::with_opts(
                    HistogramOpts::new(
                        "axgate_worker_queue_wait_seconds",
                        "Time a backend job waited for its AX worker thread.",
                    )
                    .buckets(LATENCY.to_vec()),
                )?;
                r.register(Box::new(h.clone()))?;
                h
            },
        };
        let audit_write_duration = {
            let h = Histogram::with_opts(
                HistogramOpts::new(
                    "axgate_audit_write_duration_seconds",
                    "Time to append and fsync one audit line.",
                )
                .buckets(LATENCY.to_vec()),
            )?;
            r.register(Box::new(h.clone()))?;
            h
        };
        let readiness = IntGaugeVec::new(
            Opts::new(
                "axgate_readiness",
                "1 when a gating readiness check passes, 0 when it fails (/readyz 503).",
            ),
            &["check"],
        )?;
        r.register(Box::new(readiness.clone()))?;
        let readiness_advisory = IntGaugeVec::new(
            Opts::new(
                "axgate_readiness_advisory",
                "1 while a readiness advisory is raised (the machine serves, some calls may \
                 not work: Secure Input held elsewhere, no screen recording grant, display \
                 asleep), 0 when it is not.",
            ),
            &["advisory"],
        )?;
        r.register(Box::new(readiness_advisory.clone()))?;
        let build_info = IntGaugeVec::new(
            Opts::new("axgate_build_info", "Build information; always 1."),
            &["version", "git_sha", "backend"],
        )?;
        r.register(Box::new(build_info.clone()))?;
        let capacity_state = IntGaugeVec::new(
            Opts::new(
                "axgate_capacity_state",
                "The capacity state balancers see: 1 for the current state (ready: takes new \
                 sessions; busy: held in exclusive mode or at sessions.max; drain: draining), 0 \
                 for the others. Health is separate (axgate_readiness, /readyz).",
            ),
            &["state"],
        )?;
        r.register(Box::new(capacity_state.clone()))?;
        let exclusive_holder = IntGaugeVec::new(
            Opts::new(
                "axgate_exclusive_holder",
                "1 for the session tag of the session holding the machine (fleet.exclusive); \
                 no series while it is free.",
            ),
            &["session"],
        )?;
        r.register(Box::new(exclusive_holder.clone()))?;
        Ok(Metrics(Arc::new(Families {
            capacity_state,
            exclusive_holder,
            exclusive_hold_left: gauge(
                "axgate_exclusive_hold_left_seconds",
                "Seconds before the exclusive hold ends unless its holder acts \
                 (fleet.max_hold_secs); 0 when free.",
            )?,
            exclusive_held_since: gauge(
                "axgate_exclusive_held_since_seconds",
                "Unix time the session holding the machine (fleet.exclusive) took it; 0 when free.",
            )?,
            draining: gauge(
                "axgate_draining",
                "1 while draining (fleet.drain, SIGUSR1, set_draining): current sessions are \
                 served, new ones refused.",
            )?,
            refused_exclusive: busy.with_label_values(&["exclusive"]),
            refused_draining: busy.with_label_values(&["draining"]),
            webdriver_sessions: gauge(
                "axgate_webdriver_sessions",
                "Live WebDriver sessions (webdriver.max_sessions bounds them).",
            )?,
            webdriver_commands: counter(
                r,
                "axgate_webdriver_commands_total",
                "WebDriver commands by command (the route template, such as \
                 POST /session/{id}/element) and outcome (ok, or the W3C error code).",
                &["command", "outcome"],
            )?,
            connections_open: gauge(
                "axgate_connections_open",
                "Open client connections (all listeners).",
            )?,
            connections_closed: counter(
                r,
                "axgate_connections_closed_total",
                "Connections closed by the server: refused at the cap or at an address's share \
                 of unauthenticated connections, evicted for a newcomer, or cut by the header, \
                 idle or TLS-handshake timeout.",
                &["reason"],
            )?,
            connection_sources: gauge(
                "axgate_connection_sources",
                "Source addresses (IPv6: /64s) with an unauthenticated connection open: the \
                 entries of the per-address table, at most server.max_connections.",
            )?,
            http_requests: counter(
                r,
                "axgate_http_requests_total",
                "HTTP requests by route template, method and status.",
                &["route", "method", "status"],
            )?,
            http_duration: histogram(
                r,
                "axgate_http_request_duration_seconds",
                "HTTP request latency (time to response headers) by route template.",
                &["route", "method"],
                LATENCY,
            )?,
            mcp_requests: counter(
                r,
                "axgate_mcp_requests_total",
                "MCP messages received by method.",
                &["method"],
            )?,
            direct_calls: plain_counter(
                "axgate_mcp_direct_calls_total",
                "Read-only tools/call requests answered without rmcp's per-request tasks.",
            )?,
            direct_whole: plain_counter(
                "axgate_mcp_direct_calls_whole_total",
                "Direct tools/call requests done within the hold, answered in one write \
                 (headers, priming event and response together).",
            )?,
            tool_calls: counter(
                r,
                "axgate_tool_calls_total",
                "Tool calls by tool and outcome (ok, tool_error, denied, timeout).",
                &["tool", "outcome"],
            )?,
            tool_duration: histogram(
                r,
                "axgate_tool_call_duration_seconds",
                "Tool call latency by tool.",
                &["tool"],
                LATENCY,
            )?,
            backend_round_trips: histogram(
                r,
                "axgate_backend_round_trips",
                "Backend round trips spent by one tool call.",
                &["tool"],
                TRIPS,
            )?,
            sessions_active: gauge("axgate_sessions_active", "Live MCP sessions.")?,
            sse_streams_open: gauge("axgate_sse_streams_open", "Open SSE streams.")?,
            jwt_cache_bytes: gauge(
                "axgate_jwt_cache_bytes",
                "Bytes the cache of already verified JWTs holds (at most 1 MiB).",
            )?,
            requests_in_flight: gauge(
                "axgate_requests_in_flight",
                "MCP POST requests being served (until their response ends).",
            )?,
            requests_busy: busy.with_label_values(&["in_flight"]),
            streams_busy: busy.with_label_values(&["streams"]),
            get_streams: gauge(
                "axgate_get_streams",
                "GET streams open on /mcp, each until it ends (server.max_streams).",
            )?,
            events_replayed: plain_counter(
                "axgate_events_replayed_total",
                "SSE events replayed after Last-Event-ID.",
            )?,
            events_evicted: counter(
                r,
                "axgate_events_evicted_total",
                "SSE events dropped from the replay log to stay within a budget, by budget (stream_budget, session_budget, total_budget).",
                &["reason"],
            )?,
            events_too_large: plain_counter(
                "axgate_events_too_large_total",
                "SSE events larger than a replay budget: delivered to the live reader, never kept for replay.",
            )?,
            secret_masks_forgotten: plain_counter(
                "axgate_secret_masks_forgotten_total",
                "Secret values a session stopped masking in later results (past 16 values or 4 KiB).",
            )?,
            event_log_bytes: gauge(
                "axgate_event_log_bytes",
                "Bytes held by the SSE replay log (event JSON plus a fixed overhead per event).",
            )?,
            event_live_bytes: gauge(
                "axgate_event_live_bytes",
                "JSON bytes of outgoing messages kept in memory for their waiting live reader (at most 4 MiB; each at most 64 KiB).",
            )?,
            event_log_queue_bytes: gauge(
                "axgate_event_log_queue_bytes",
                "Bytes of the replay log's queues of finished and unbound streams (24 per entry; at most twice the live streams, or 1,024 entries, per queue).",
            )?,
            task_result_bytes: gauge(
                "axgate_task_result_bytes",
                "Bytes of finished task results kept for tasks/get (at most limits.max_task_bytes).",
            )?,
            tasks_held: gauge(
                "axgate_tasks",
                "Tasks held (the tasks extension), running or finished and kept until their TTL.",
            )?,
            session_evictions: counter(
                r,
                "axgate_session_evictions_total",
                "Sessions ended by the server, by reason (idle, idle_without_stream, capacity_own, capacity_other).",
                &["reason"],
            )?,
            auth_failures: counter(
                r,
                "axgate_auth_failures_total",
                "Refused credentials by reason.",
                &["reason"],
            )?,
            rate_limited: counter(
                r,
                "axgate_rate_limited_total",
                "Calls refused by a rate limit, by kind.",
                &["kind"],
            )?,
            audit_write_duration,
            audit_failures: plain_counter(
                "axgate_audit_failures_total",
                "Audit lines that could not be written.",
            )?,
            audit_head: {
                let g = IntGauge::new(
                    "axgate_audit_head",
                    "The first 48 bits of the hash of the audit trail's last line (its head).",
                )?;
                r.register(Box::new(g.clone()))?;
                g
            },
            readiness,
            readiness_advisory,
            build_info,
            engine,
            registry,
        })))
    }

    /// The Prometheus text exposition of every family.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        let encoder = TextEncoder::new();
        if let Err(error) = encoder.encode(&self.registry.gather(), &mut buf) {
            tracing::error!(%error, "cannot encode metrics");
        }
        String::from_utf8(buf).unwrap_or_default()
    }
}

/// The git commit the binary was built from: `BUILD_GIT_SHA` at compile time (set by
/// `release.yml`), else `unknown`.
pub fn git_sha() -> &'static str {
    option_env!("BUILD_GIT_SHA").unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_register_once_and_render() {
        let m = Metrics::new(Registry::new()).expect("register");
        m.tool_calls.with_label_values(&["get_tree", "ok"]).inc();
        m.build_info
            .with_label_values(&["0.1.0", "abc", "demo"])
            .set(1);
        let text = m.render();
        assert!(
            text.contains("axgate_tool_calls_total{outcome=\"ok\",tool=\"get_tree\"} 1"),
            "{text}"
        );
        assert!(text.contains("axgate_build_info{"), "{text}");
        assert!(
            Metrics::new(m.registry.clone()).is_err(),
            "a second registration is refused"
        );
    }

    #[test]
    fn unknown_methods_are_bounded() {
        assert_eq!(mcp_method_label("tools/call"), "tools/call");
        assert_eq!(mcp_method_label("x/../../etc"), "other");
    }
}
