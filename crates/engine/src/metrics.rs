//! The engine's metric handles: created and registered by the server's `metrics` into its
//! registry (no globals), cloned into the engine and its workers, which only update them.

use prometheus::{Histogram, HistogramVec, IntCounter, IntGauge};

/// Metrics of the accessibility engine and its workers.
#[derive(Clone)]
pub struct EngineMetrics {
    pub backend_call_duration: HistogramVec,
    pub nodes_walked: IntCounter,
    pub worker_queue_depth: IntGauge,
    pub worker_queue_wait: Histogram,
    /// Calls refused because their app's worker queue was full (`busy`, reason `app_queue`).
    pub worker_busy: IntCounter,
    /// App lists a call got from a read another call started after it arrived (`ax::shared`).
    pub app_lists_shared: IntCounter,
}
