//! The metric families by area of the server (HTTP, MCP, sessions, audit, health, fleet,
//! WebDriver, engine), each registered by its own function, and [`Reg`], the registry with
//! one constructor per kind of family.

use prometheus::{
    Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry,
};

use axgate_engine::metrics::EngineMetrics;

/// Latency buckets in seconds, from sub-millisecond IPC to slow app launches.
const LATENCY: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
const TRIPS: &[f64] = &[
    1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 1000.0, 5000.0, 20000.0,
];

type Made<T> = prometheus::Result<T>;

/// The registry, with a constructor per kind of family that registers what it makes.
pub(super) struct Reg<'a>(pub(super) &'a Registry);

impl Reg<'_> {
    fn keep<T: prometheus::core::Collector + Clone + 'static>(&self, family: T) -> Made<T> {
        self.0.register(Box::new(family.clone()))?;
        Ok(family)
    }

    fn counter(&self, name: &str, help: &str) -> Made<IntCounter> {
        self.keep(IntCounter::new(name, help)?)
    }

    pub(super) fn counters(&self, name: &str, help: &str, labels: &[&str]) -> Made<IntCounterVec> {
        self.keep(IntCounterVec::new(Opts::new(name, help), labels)?)
    }

    fn gauge(&self, name: &str, help: &str) -> Made<IntGauge> {
        self.keep(IntGauge::new(name, help)?)
    }

    fn gauges(&self, name: &str, help: &str, labels: &[&str]) -> Made<IntGaugeVec> {
        self.keep(IntGaugeVec::new(Opts::new(name, help), labels)?)
    }

    fn histogram(&self, name: &str, help: &str, buckets: &[f64]) -> Made<Histogram> {
        let opts = HistogramOpts::new(name, help).buckets(buckets.to_vec());
        self.keep(Histogram::with_opts(opts)?)
    }

    fn histograms(
        &self,
        name: &str,
        help: &str,
        labels: &[&str],
        buckets: &[f64],
    ) -> Made<HistogramVec> {
        let opts = HistogramOpts::new(name, help).buckets(buckets.to_vec());
        self.keep(HistogramVec::new(opts, labels)?)
    }
}

/// The HTTP layer's families (`crate::http`): requests, connections, streams, credentials.
pub struct HttpMetrics {
    pub requests: IntCounterVec,
    pub duration: HistogramVec,
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
    pub sse_streams_open: IntGauge,
    pub auth_failures: IntCounterVec,
    /// Bytes the verified-JWT cache holds (`http::auth::verified`).
    pub jwt_cache_bytes: IntGauge,
    pub rate_limited: IntCounterVec,
}

impl HttpMetrics {
    pub(super) fn register(reg: &Reg<'_>, busy: &IntCounterVec) -> Made<HttpMetrics> {
        Ok(HttpMetrics {
            requests: reg.counters(
                "axgate_http_requests_total",
                "HTTP requests by route template, method and status.",
                &["route", "method", "status"],
            )?,
            duration: reg.histograms(
                "axgate_http_request_duration_seconds",
                "HTTP request latency (time to response headers) by route template.",
                &["route", "method"],
                LATENCY,
            )?,
            connections_open: reg.gauge(
                "axgate_connections_open",
                "Open client connections (all listeners).",
            )?,
            connections_closed: reg.counters(
                "axgate_connections_closed_total",
                "Connections closed by the server: refused at the cap or at an address's share \
                 of unauthenticated connections, evicted for a newcomer, or cut by the header, \
                 idle or TLS-handshake timeout.",
                &["reason"],
            )?,
            connection_sources: reg.gauge(
                "axgate_connection_sources",
                "Source addresses (IPv6: /64s) with an unauthenticated connection open: the \
                 entries of the per-address table, at most server.max_connections.",
            )?,
            requests_in_flight: reg.gauge(
                "axgate_requests_in_flight",
                "MCP POST requests being served (until their response ends).",
            )?,
            requests_busy: busy.with_label_values(&["in_flight"]),
            streams_busy: busy.with_label_values(&["streams"]),
            get_streams: reg.gauge(
                "axgate_get_streams",
                "GET streams open on /mcp, each until it ends (server.max_streams).",
            )?,
            sse_streams_open: reg.gauge("axgate_sse_streams_open", "Open SSE streams.")?,
            auth_failures: reg.counters(
                "axgate_auth_failures_total",
                "Refused credentials by reason.",
                &["reason"],
            )?,
            jwt_cache_bytes: reg.gauge(
                "axgate_jwt_cache_bytes",
                "Bytes the cache of already verified JWTs holds (at most 1 MiB).",
            )?,
            rate_limited: reg.counters(
                "axgate_rate_limited_total",
                "Calls refused by a rate limit, by kind.",
                &["kind"],
            )?,
        })
    }
}

/// The MCP layer's families (`crate::mcp`): messages, tool calls, tasks, secret masks.
pub struct McpMetrics {
    pub requests: IntCounterVec,
    /// `tools/call` requests answered without rmcp's per-request tasks (`http::direct`).
    pub direct_calls: IntCounter,
    /// Of those, the calls done within the hold: answered in one write (`http::direct`).
    pub direct_whole: IntCounter,
    pub tool_calls: IntCounterVec,
    pub tool_duration: HistogramVec,
    pub backend_round_trips: HistogramVec,
    /// Bytes of finished task results kept for `tasks/get` (`mcp/tasks.rs`).
    pub task_result_bytes: IntGauge,
    /// Tasks held, running or finished and kept.
    pub tasks_held: IntGauge,
    /// Secret values a session stopped masking in its later results to stay within the
    /// bound (`crate::secrets::mask`).
    pub secret_masks_forgotten: IntCounter,
}

impl McpMetrics {
    pub(super) fn register(reg: &Reg<'_>) -> Made<McpMetrics> {
        Ok(McpMetrics {
            requests: reg.counters(
                "axgate_mcp_requests_total",
                "MCP messages received by method.",
                &["method"],
            )?,
            direct_calls: reg.counter(
                "axgate_mcp_direct_calls_total",
                "Read-only tools/call requests answered without rmcp's per-request tasks.",
            )?,
            direct_whole: reg.counter(
                "axgate_mcp_direct_calls_whole_total",
                "Direct tools/call requests done within the hold, answered in one write \
                 (headers, priming event and response together).",
            )?,
            tool_calls: reg.counters(
                "axgate_tool_calls_total",
                "Tool calls by tool and outcome (ok, tool_error, denied, timeout).",
                &["tool", "outcome"],
            )?,
            tool_duration: reg.histograms(
                "axgate_tool_call_duration_seconds",
                "Tool call latency by tool.",
                &["tool"],
                LATENCY,
            )?,
            backend_round_trips: reg.histograms(
                "axgate_backend_round_trips",
                "Backend round trips spent by one tool call.",
                &["tool"],
                TRIPS,
            )?,
            task_result_bytes: reg.gauge(
                "axgate_task_result_bytes",
                "Bytes of finished task results kept for tasks/get (at most limits.max_task_bytes).",
            )?,
            tasks_held: reg.gauge(
                "axgate_tasks",
                "Tasks held (the tasks extension), running or finished and kept until their TTL.",
            )?,
            secret_masks_forgotten: reg.counter(
                "axgate_secret_masks_forgotten_total",
                "Secret values a session stopped masking in later results (past 16 values or 4 KiB).",
            )?,
        })
    }
}

/// The sessions' families (`crate::session`): live sessions, evictions and the replay log.
pub struct SessionMetrics {
    pub active: IntGauge,
    pub evictions: IntCounterVec,
    pub events_replayed: IntCounter,
    /// Events the replay log dropped to stay within a bound, by the bound (`reason`).
    pub events_evicted: IntCounterVec,
    /// Events too large for the replay log: delivered live, never kept.
    pub events_too_large: IntCounter,
    /// Bytes the replay log holds.
    pub event_log_bytes: IntGauge,
    /// JSON bytes of messages kept in memory for their live consumer (`session/events/live.rs`).
    pub event_live_bytes: IntGauge,
    /// Bytes of the replay log's two queues of stream numbers (`session/events/queue.rs`).
    pub event_log_queue_bytes: IntGauge,
}

impl SessionMetrics {
    pub(super) fn register(reg: &Reg<'_>) -> Made<SessionMetrics> {
        Ok(SessionMetrics {
            active: reg.gauge("axgate_sessions_active", "Live MCP sessions.")?,
            evictions: reg.counters(
                "axgate_session_evictions_total",
                "Sessions ended by the server, by reason (idle, idle_without_stream, capacity_own, capacity_other).",
                &["reason"],
            )?,
            events_replayed: reg.counter(
                "axgate_events_replayed_total",
                "SSE events replayed after Last-Event-ID.",
            )?,
            events_evicted: reg.counters(
                "axgate_events_evicted_total",
                "SSE events dropped from the replay log to stay within a budget, by budget (stream_budget, session_budget, total_budget).",
                &["reason"],
            )?,
            events_too_large: reg.counter(
                "axgate_events_too_large_total",
                "SSE events larger than a replay budget: delivered to the live reader, never kept for replay.",
            )?,
            event_log_bytes: reg.gauge(
                "axgate_event_log_bytes",
                "Bytes held by the SSE replay log (event JSON plus a fixed overhead per event).",
            )?,
            event_live_bytes: reg.gauge(
                "axgate_event_live_bytes",
                "JSON bytes of outgoing messages kept in memory for their waiting live reader (at most 4 MiB; each at most 64 KiB).",
            )?,
            event_log_queue_bytes: reg.gauge(
                "axgate_event_log_queue_bytes",
                "Bytes of the replay log's queues of finished and unbound streams (24 per entry; at most twice the live streams, or 1,024 entries, per queue).",
            )?,
        })
    }
}

/// The audit trail's families (`crate::audit`).
pub struct AuditMetrics {
    pub write_duration: Histogram,
    pub failures: IntCounter,
    /// The first 48 bits of the audit chain's head (the hash of its last line), as a number:
    /// a copy kept by Prometheus makes a cut tail of the trail detectable.
    pub head: IntGauge,
}

impl AuditMetrics {
    pub(super) fn register(reg: &Reg<'_>) -> Made<AuditMetrics> {
        Ok(AuditMetrics {
            write_duration: reg.histogram(
                "axgate_audit_write_duration_seconds",
                "Time to append and fsync one audit line.",
                LATENCY,
            )?,
            failures: reg.counter(
                "axgate_audit_failures_total",
                "Audit lines that could not be written.",
            )?,
            head: reg.gauge(
                "axgate_audit_head",
                "The first 48 bits of the hash of the audit trail's last line (its head).",
            )?,
        })
    }
}

/// Readiness and the build (`/readyz`, `crate::http::health`).
pub struct HealthMetrics {
    pub readiness: IntGaugeVec,
    /// Per advisory readiness check: 1 while it is raised.
    pub readiness_advisory: IntGaugeVec,
    pub build_info: IntGaugeVec,
}

impl HealthMetrics {
    pub(super) fn register(reg: &Reg<'_>) -> Made<HealthMetrics> {
        Ok(HealthMetrics {
            readiness: reg.gauges(
                "axgate_readiness",
                "1 when a gating readiness check passes, 0 when it fails (/readyz 503).",
                &["check"],
            )?,
            readiness_advisory: reg.gauges(
                "axgate_readiness_advisory",
                "1 while a readiness advisory is raised (the machine serves, some calls may \
                 not work: Secure Input held elsewhere, no screen recording grant, display \
                 asleep), 0 when it is not.",
                &["advisory"],
            )?,
            build_info: reg.gauges(
                "axgate_build_info",
                "Build information; always 1.",
                &["version", "git_sha", "backend"],
            )?,
        })
    }
}

/// The fleet's families (`crate::fleet`): capacity, exclusive mode, draining.
pub struct FleetMetrics {
    /// The capacity state a balancer sees: 1 for the current one of ready, busy, drain; 0 for
    /// the others.
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
}

impl FleetMetrics {
    pub(super) fn register(reg: &Reg<'_>, busy: &IntCounterVec) -> Made<FleetMetrics> {
        Ok(FleetMetrics {
            capacity_state: reg.gauges(
                "axgate_capacity_state",
                "The capacity state balancers see: 1 for the current state (ready: takes new \
                 sessions; busy: held in exclusive mode or at sessions.max; drain: draining), 0 \
                 for the others. Health is separate (axgate_readiness, /readyz).",
                &["state"],
            )?,
            exclusive_held_since: reg.gauge(
                "axgate_exclusive_held_since_seconds",
                "Unix time the session holding the machine (fleet.exclusive) took it; 0 when free.",
            )?,
            exclusive_hold_left: reg.gauge(
                "axgate_exclusive_hold_left_seconds",
                "Seconds before the exclusive hold ends unless its holder acts \
                 (fleet.max_hold_secs); 0 when free.",
            )?,
            exclusive_holder: reg.gauges(
                "axgate_exclusive_holder",
                "1 for the session tag of the session holding the machine (fleet.exclusive); \
                 no series while it is free.",
                &["session"],
            )?,
            draining: reg.gauge(
                "axgate_draining",
                "1 while draining (fleet.drain, SIGUSR1, set_draining): current sessions are \
                 served, new ones refused.",
            )?,
            refused_exclusive: busy.with_label_values(&["exclusive"]),
            refused_draining: busy.with_label_values(&["draining"]),
        })
    }
}

/// The WebDriver facade's families (`crate::wd`).
pub struct WebDriverMetrics {
    /// Live WebDriver sessions.
    pub sessions: IntGauge,
    /// WebDriver commands by command template and W3C outcome (`ok` or the error code).
    pub commands: IntCounterVec,
}

impl WebDriverMetrics {
    pub(super) fn register(reg: &Reg<'_>) -> Made<WebDriverMetrics> {
        Ok(WebDriverMetrics {
            sessions: reg.gauge(
                "axgate_webdriver_sessions",
                "Live WebDriver sessions (webdriver.max_sessions bounds them).",
            )?,
            commands: reg.counters(
                "axgate_webdriver_commands_total",
                "WebDriver commands by command (the route template, such as \
                 POST /session/{id}/element) and outcome (ok, or the W3C error code).",
                &["command", "outcome"],
            )?,
        })
    }
}

/// The engine's families (`axgate_engine::metrics`): backend calls and the AX workers.
pub(super) fn engine(reg: &Reg<'_>, busy: &IntCounterVec) -> Made<EngineMetrics> {
    Ok(EngineMetrics {
        worker_busy: busy.with_label_values(&["app_queue"]),
        backend_call_duration: reg.histograms(
            "axgate_backend_call_duration_seconds",
            "Backend (accessibility API) call latency by operation.",
            &["op"],
            LATENCY,
        )?,
        app_lists_shared: reg.counter(
            "axgate_backend_app_lists_shared_total",
            "Running-app lists a call got from a read another call started after it \
             arrived, without a job of its own on the AX Global worker.",
        )?,
        nodes_walked: reg.counter(
            "axgate_nodes_walked_total",
            "Elements read from backends by tree walks.",
        )?,
        worker_queue_depth: reg.gauge(
            "axgate_worker_queue_depth",
            "Backend jobs queued or running on AX worker threads.",
        )?,
        worker_queue_wait: reg.histogram(
            "axgate_worker_queue_wait_seconds",
            "Time a backend job waited for its AX worker thread.",
            LATENCY,
        )?,
    })
}
