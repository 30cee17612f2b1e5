//! Back-pressure at the door of `/mcp`: at most `server.max_in_flight` POSTs are served at
//! once, each counted from its arrival until its response body ends (a tool call's result
//! travels in an SSE body after the headers, so the count covers the whole call). One more
//! gets 503 with `Retry-After` and a JSON-RPC error saying what is full, at once and before
//! its body is read: a flood costs a bounded amount of memory and every client is told when
//! to come back. `GET` streams and `DELETE` are not counted (sessions bound the streams).
//!
//! Behind it, each app's AX worker queue has its own bound (`backend.max_queued_calls`,
//! `ax::worker`), so one busy app refuses its own callers without filling this one.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderValue, Method, StatusCode};
use http_body_util::BodyExt;
use tokio::sync::Semaphore;

use crate::http::intake::jsonrpc_error;
use crate::metrics::Metrics;

/// Seconds a refused client is told to wait.
const RETRY_AFTER_SECS: u64 = 1;

/// The permits of in-flight POSTs.
pub struct InFlight {
    permits: Arc<Semaphore>,
    max: usize,
    metrics: Metrics,
}

impl InFlight {
    pub fn new(max: usize, metrics: Metrics) -> InFlight {
        InFlight {
            permits: Arc::new(Semaphore::new(max)),
            max,
            metrics,
        }
    }
}

/// Counts the POST against the bound for as long as its response body lives; refuses it
/// with 503 when the bound is reached.
pub async fn layer(State(state): State<Arc<InFlight>>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let Ok(permit) = state.permits.clone().try_acquire_owned() else {
        state.metrics.requests_busy.inc();
        let mut response = jsonrpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            -32000,
            format!(
                "Server busy: {} MCP requests are being served (server.max_in_flight); retry \
                 after {RETRY_AFTER_SECS} s",
                state.max
            ),
        );
        response.headers_mut().insert(
            http::header::RETRY_AFTER,
            HeaderValue::from(RETRY_AFTER_SECS),
        );
        return response;
    };
    let gauge = state.metrics.requests_in_flight.clone();
    gauge.inc();
    let held = Held {
        _permit: permit,
        gauge,
    };
    let (parts, body) = next.run(request).await.into_parts();
    // The permit goes with the body: released when the body ends or the client leaves.
    let body = body.map_frame(move |frame| {
        let _ = &held;
        frame
    });
    Response::from_parts(parts, Body::new(body))
}

/// A place in the bound, given back (and the gauge lowered) when dropped.
struct Held {
    _permit: tokio::sync::OwnedSemaphorePermit,
    gauge: prometheus::IntGauge,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.gauge.dec();
    }
}
