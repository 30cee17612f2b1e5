//! Prometheus metrics: typed metric families registered into a `prometheus::Registry` passed
//! in at start-up (no globals). Label values are bounded: route templates, MCP method names
//! from a fixed list, tool names, outcome classes, check names — never raw paths, app text
//! or user ids.

mod areas;

use std::sync::Arc;

pub use axgate_engine::metrics::EngineMetrics;

use prometheus::{Encoder, Registry, TextEncoder};

pub use areas::{
    AuditMetrics, FleetMetrics, HealthMetrics, HttpMetrics, McpMetrics, SessionMetrics,
    WebDriverMetrics,
};
use areas::{Reg, engine};

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

/// The metric families behind [`Metrics`], by the part of the server that counts them.
pub struct Families {
    pub registry: Registry,
    pub http: HttpMetrics,
    pub mcp: McpMetrics,
    pub sessions: SessionMetrics,
    pub audit: AuditMetrics,
    pub health: HealthMetrics,
    pub fleet: FleetMetrics,
    pub webdriver: WebDriverMetrics,
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

impl Metrics {
    /// Registers every family into `registry`.
    pub fn new(registry: Registry) -> prometheus::Result<Metrics> {
        let reg = Reg(&registry);
        let busy = reg.counters(
            "axgate_busy_refusals_total",
            "Work refused with a busy answer and a retry delay, by the bound that was full: \
             app_queue (an app's AX worker queue, backend.max_queued_calls), in_flight \
             (server.max_in_flight MCP requests), streams (server.max_streams GET streams, or a \
             caller's server.max_streams_per_caller), exclusive (another session holds the machine, \
             fleet.exclusive) or draining.",
            &["reason"],
        )?;
        Ok(Metrics(Arc::new(Families {
            http: HttpMetrics::register(&reg, &busy)?,
            mcp: McpMetrics::register(&reg)?,
            sessions: SessionMetrics::register(&reg)?,
            audit: AuditMetrics::register(&reg)?,
            health: HealthMetrics::register(&reg)?,
            fleet: FleetMetrics::register(&reg, &busy)?,
            webdriver: WebDriverMetrics::register(&reg)?,
            engine: engine(&reg, &busy)?,
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
        m.mcp
            .tool_calls
            .with_label_values(&["get_tree", "ok"])
            .inc();
        m.health
            .build_info
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
