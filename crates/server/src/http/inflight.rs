//! Back-pressure at the door of `/mcp`: at most `server.max_in_flight` POSTs are served at
//! once, each counted from its arrival until its response body ends (a tool call's result
//! travels in an SSE body after the headers, so the count covers the whole call). One more
//! gets 503 with `Retry-After` and a JSON-RPC error saying what is full, at once and before
//! its body is read: a flood costs a bounded amount of memory and every client is told when
//! to come back. `DELETE` is not counted.
//!
//! `GET` streams (a session's stream, a resume with `Last-Event-ID`) are counted the same
//! way in a pool of their own: at most `server.max_streams` open at once, at most
//! `server.max_streams_per_caller` of them one caller's (one per session up to the session
//! quota, and resumes: each holds a connection, and together they could leave no place at
//! `server.max_connections` for `/healthz`).
//!
//! The bound is shared, not one pool: each caller — an authenticated principal, or before
//! authentication (auth off) the source address — holds at most
//! `server.max_in_flight_per_caller` of it, so one caller's trickled bodies or long waits
//! (`wait_for` with a 300 s timeout) fill its own share and every other caller is still
//! served. `/healthz`, `/readyz` and `/metrics` are never counted here.
//!
//! Behind it, each app's AX worker queue has its own bound (`backend.max_queued_calls`,
//! `ax::worker`), so one busy app refuses its own callers without filling this one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderValue, Method, StatusCode};
use http_body_util::BodyExt;
use tokio::sync::Semaphore;

use crate::http::auth::Principal;
use crate::http::conn::Peer;
use crate::http::intake::jsonrpc_error;
use crate::metrics::Metrics;

/// Seconds a refused client is told to wait.
const RETRY_AFTER_SECS: u64 = 1;

/// What a pool counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// MCP POSTs, each until its response ends.
    Posts,
    /// `GET` streams, each until it ends.
    Streams,
}

impl Kind {
    fn method(self) -> Method {
        match self {
            Kind::Posts => Method::POST,
            Kind::Streams => Method::GET,
        }
    }

    /// What the caller is told: one of the caller's share is full, or the whole pool.
    fn full(self, count: usize, own: bool) -> String {
        match (self, own) {
            (Kind::Posts, true) => format!(
                "Busy for this caller: it already has {count} MCP requests being served \
                 (server.max_in_flight_per_caller); let one finish, or retry after \
                 {RETRY_AFTER_SECS} s"
            ),
            (Kind::Posts, false) => format!(
                "Server busy: {count} MCP requests are being served (server.max_in_flight); \
                 retry after {RETRY_AFTER_SECS} s"
            ),
            (Kind::Streams, true) => format!(
                "Busy for this caller: it already has {count} GET streams open \
                 (server.max_streams_per_caller); close one (one per session is enough), or \
                 retry after {RETRY_AFTER_SECS} s"
            ),
            (Kind::Streams, false) => format!(
                "Server busy: {count} GET streams are open (server.max_streams); retry after \
                 {RETRY_AFTER_SECS} s"
            ),
        }
    }
}

/// The permits of one pool (in-flight POSTs, or open GET streams), and each caller's count
/// of them.
pub struct InFlight {
    kind: Kind,
    permits: Arc<Semaphore>,
    max: usize,
    per_caller: usize,
    callers: Arc<Mutex<HashMap<String, usize>>>,
    busy: prometheus::IntCounter,
    gauge: prometheus::IntGauge,
}

impl InFlight {
    /// The pool of MCP POSTs (`server.max_in_flight`, `server.max_in_flight_per_caller`).
    pub fn new(max: usize, per_caller: usize, metrics: Metrics) -> InFlight {
        InFlight::pool(Kind::Posts, max, per_caller, &metrics)
    }

    /// The pool of `GET` streams (`server.max_streams`, `server.max_streams_per_caller`).
    pub fn streams(max: usize, per_caller: usize, metrics: &Metrics) -> InFlight {
        InFlight::pool(Kind::Streams, max, per_caller, metrics)
    }

    fn pool(kind: Kind, max: usize, per_caller: usize, metrics: &Metrics) -> InFlight {
        let (busy, gauge) = match kind {
            Kind::Posts => (
                metrics.http.requests_busy.clone(),
                metrics.http.requests_in_flight.clone(),
            ),
            Kind::Streams => (
                metrics.http.streams_busy.clone(),
                metrics.http.get_streams.clone(),
            ),
        };
        InFlight {
            kind,
            permits: Arc::new(Semaphore::new(max)),
            max,
            per_caller: per_caller.clamp(1, max.max(1)),
            callers: Arc::default(),
            busy,
            gauge,
        }
    }

    /// A place in `caller`'s share, or `None` when its share is full.
    fn share(&self, caller: String) -> Option<Share> {
        let mut callers = self.callers.lock().unwrap_or_else(PoisonError::into_inner);
        let count = callers.entry(caller.clone()).or_default();
        if *count >= self.per_caller {
            return None;
        }
        *count += 1;
        Some(Share {
            callers: self.callers.clone(),
            caller,
        })
    }
}

/// Who a request counts against: its principal, else its source address.
fn caller_of(request: &Request) -> String {
    if let Some(principal) = request.extensions().get::<Principal>() {
        return principal.key().to_owned();
    }
    match request.extensions().get::<Peer>() {
        Some(Peer(ip)) => format!("addr:{ip}"),
        None => "anonymous".to_owned(),
    }
}

/// A 503 with `Retry-After`, saying which bound is full.
fn busy(state: &InFlight, message: String) -> Response {
    state.busy.inc();
    let mut response = jsonrpc_error(StatusCode::SERVICE_UNAVAILABLE, None, -32000, message);
    response.headers_mut().insert(
        http::header::RETRY_AFTER,
        HeaderValue::from(RETRY_AFTER_SECS),
    );
    response
}

/// Counts the POST (or, in the streams pool, the GET) against the bound for as long as its
/// response body lives; refuses it with 503 when the bound is reached.
pub async fn layer(State(state): State<Arc<InFlight>>, request: Request, next: Next) -> Response {
    if request.method() != state.kind.method() {
        return next.run(request).await;
    }
    let Some(share) = state.share(caller_of(&request)) else {
        return busy(&state, state.kind.full(state.per_caller, true));
    };
    let Ok(permit) = state.permits.clone().try_acquire_owned() else {
        return busy(&state, state.kind.full(state.max, false));
    };
    let gauge = state.gauge.clone();
    gauge.inc();
    let held = Held {
        _permit: permit,
        _share: share,
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

/// A place in the bound and in its caller's share, given back (and the gauge lowered) when
/// dropped.
struct Held {
    _permit: tokio::sync::OwnedSemaphorePermit,
    _share: Share,
    gauge: prometheus::IntGauge,
}

/// A place in one caller's share; the caller is forgotten when it holds none.
struct Share {
    callers: Arc<Mutex<HashMap<String, usize>>>,
    caller: String,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut callers = self.callers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = callers.get_mut(&self.caller) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                callers.remove(&self.caller);
            }
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.gauge.dec();
    }
}
