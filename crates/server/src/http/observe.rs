//! The operational endpoints and the HTTP metrics layer: `/metrics` (Prometheus text),
//! `/readyz` (200 when the backend can serve, naming any advisory; 503 when a gating check
//! fails, with the failing checks and how to fix each), and the middleware that counts requests by route template, method and status.

use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde::Serialize;

use crate::fleet::Fleet;
use crate::metrics::Metrics;
use crate::session::AxSessionManager;
use axgate_engine::{CheckClass, Engine, ReadinessCheck};

/// What the operational endpoints read.
pub struct Observed {
    pub metrics: Metrics,
    pub engine: Arc<Engine>,
    pub sessions: Arc<AxSessionManager>,
    pub fleet: Arc<Fleet>,
}

/// The bounded route label of a path: never the raw path.
pub fn route_template(path: &str) -> &'static str {
    match path {
        "/mcp" => "/mcp",
        "/healthz" => "/healthz",
        "/readyz" => "/readyz",
        "/metrics" => "/metrics",
        // The WebDriver facade: one label here; its commands are counted by template in
        // axgate_webdriver_commands_total.
        "/status" | "/wd/hub/status" => "/status",
        p if p == "/session" || p.starts_with("/session/") || p.starts_with("/wd/hub/session") => {
            "/session"
        }
        p if p.starts_with("/.well-known/oauth-protected-resource") => {
            "/.well-known/oauth-protected-resource"
        }
        _ => "other",
    }
}

/// Counts every request by route template, method and status, and times it.
pub async fn layer(State(metrics): State<Metrics>, request: Request, next: Next) -> Response {
    let route = route_template(request.uri().path());
    let method: &'static str = match request.method().as_str() {
        "GET" => "GET",
        "POST" => "POST",
        "DELETE" => "DELETE",
        "HEAD" => "HEAD",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    };
    let started = Instant::now();
    let response = next.run(request).await;
    metrics
        .http
        .duration
        .with_label_values(&[route, method])
        .observe(started.elapsed().as_secs_f64());
    metrics
        .http
        .requests
        .with_label_values(&[route, method, response.status().as_str()])
        .inc();
    response
}

#[derive(Serialize)]
struct CheckBody {
    name: &'static str,
    /// `gate` (a failure makes `/readyz` 503) or `advisory` (reported, still 200).
    class: &'static str,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

/// An advisory that is raised now: the machine serves, but some calls may not work.
#[derive(Serialize)]
struct AdvisoryBody {
    name: &'static str,
    detail: String,
}

#[derive(Serialize)]
pub struct ReadyBody {
    ready: bool,
    backend: &'static str,
    /// Why this backend serves (for `auto`: what it found).
    #[serde(skip_serializing_if = "Option::is_none")]
    backend_reason: Option<String>,
    /// The backend's capabilities (`ax::Capability` names), and those it lacks: a tool that
    /// needs a lacking one fails naming it.
    capabilities: Vec<&'static str>,
    lacks: Vec<&'static str>,
    checks: Vec<CheckBody>,
    /// The advisories raised now (failing advisory checks), each with what it means.
    advisories: Vec<AdvisoryBody>,
}

/// Runs the readiness checks and records them as gauges: a gate's pass or fail in
/// `axgate_readiness`, an advisory's presence in `axgate_readiness_advisory`, so alerts on
/// the first never fire for the second.
async fn readiness(observed: &Observed) -> ReadyBody {
    let checks = observed.engine.readiness().await;
    // An advisory the backend no longer reports is not raised: drop every series first.
    observed.metrics.health.readiness_advisory.reset();
    for c in &checks {
        let m = &observed.metrics;
        match c.class {
            CheckClass::Gate => m
                .health
                .readiness
                .with_label_values(&[c.name])
                .set(i64::from(c.ok)),
            CheckClass::Advisory => m
                .health
                .readiness_advisory
                .with_label_values(&[c.name])
                .set(i64::from(!c.ok)),
        }
    }
    ReadyBody {
        ready: !checks.iter().any(ReadinessCheck::blocks),
        backend: observed.engine.backend_name(),
        backend_reason: observed.engine.backend_reason().map(str::to_owned),
        capabilities: capability_names(observed.engine.capabilities().present()),
        lacks: capability_names(observed.engine.capabilities().missing()),
        advisories: checks
            .iter()
            .filter(|c| c.class == CheckClass::Advisory && !c.ok)
            .map(|c| AdvisoryBody {
                name: c.name,
                detail: c.detail.clone(),
            })
            .collect(),
        checks: checks
            .into_iter()
            .map(|c| CheckBody {
                name: c.name,
                class: c.class.as_str(),
                ok: c.ok,
                fix: (!c.ok).then_some(c.detail),
            })
            .collect(),
    }
}

fn capability_names(list: Vec<axgate_engine::Capability>) -> Vec<&'static str> {
    list.into_iter()
        .map(axgate_engine::Capability::as_str)
        .collect()
}

pub async fn readyz(State(observed): State<Arc<Observed>>) -> Response {
    let body = readiness(&observed).await;
    let status = if body.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body)).into_response()
}

pub async fn metrics(State(observed): State<Arc<Observed>>) -> Response {
    let m = &observed.metrics;
    m.sessions
        .active
        .set(observed.sessions.registry().len() as i64);
    m.http
        .sse_streams_open
        .set(observed.sessions.event_log().open_tails() as i64);
    readiness(&observed).await;
    observed.fleet.record();
    (
        [(
            http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        m.render(),
    )
        .into_response()
}
