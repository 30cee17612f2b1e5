//! The HTTP side of the direct path (`mcp::direct`): a read-only `tools/call` in an
//! initialized session is answered here, without rmcp's per-request tasks. The request's
//! stream is opened in the event log exactly as rmcp's worker opens one (priming event,
//! bound to the session, registered for the request id), the call runs on a task of its
//! own, and the response body is that stream written as the log stored it: one SSE event
//! per stored event, the JSON put on the wire as it is, never serialized again.
//!
//! Everything else goes to rmcp unchanged, and so does any request this path is not sure to
//! answer as rmcp would: a request with `_meta` (progress tokens, per-request revisions), a
//! revision from 2026-07-28 on (its standard headers are rmcp's to check), an `Accept`
//! header with parameters (rmcp weighs `q` values), a tool that acts (a destructive act may
//! ask the user, which must ride the request's stream), a session not yet initialized.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use futures::StreamExt;
use http::{HeaderValue, StatusCode, header};
use rmcp::model::{CallToolRequestParams, RequestId, ServerJsonRpcMessage};
use serde::Deserialize;
use serde_json::Value;
use sse_stream::{KeepAlive, Sse, SseBody};
use tokio_util::sync::CancellationToken;

use crate::mcp::AxServer;
use crate::mcp::context::Notices;
use crate::mcp::direct::{Direct, Handler};
use crate::mcp::tools::{self, Effect};
use crate::session::events::{From, Wire};
use crate::session::{EventLog, SessionRegistry};

/// The first revision whose standard headers rmcp checks against the body.
const STANDARD_HEADERS: &str = "2026-07-28";

/// What the direct path needs from the server.
pub struct DirectPath {
    pub calls: Arc<Direct<AxServer>>,
    pub events: Arc<EventLog>,
    pub registry: Arc<SessionRegistry>,
    /// `server.sse_keep_alive`: a comment line after this long without an event.
    pub keep_alive: Duration,
    /// `server.sse_retry`: the reconnect hint of the priming event.
    pub retry: Duration,
    /// Cancelled at shutdown: ends the response stream, as rmcp's do.
    pub shutdown: CancellationToken,
    /// `axgate_mcp_direct_calls_total`.
    pub counted: prometheus::IntCounter,
}

/// A call this path will answer: everything checked, its stream open.
pub struct Prepared {
    handler: Handler<AxServer>,
    session: String,
    id: RequestId,
    key: String,
    params: CallToolRequestParams,
    name: String,
    stream: u64,
}

impl DirectPath {
    /// The call, when this path answers it (`None`: rmcp does). `key` is the request id as
    /// JSON text, already claimed in the session by the intake layer; `version` the
    /// request's `MCP-Protocol-Version` header as rmcp will see it.
    pub fn prepare(
        &self,
        session: &str,
        parts: &http::request::Parts,
        version: Option<&http::HeaderValue>,
        (id, key): (&Value, &str),
        params: Option<&Value>,
    ) -> Option<Prepared> {
        let params = params?;
        if params.get("_meta").is_some() || !plain_accept(&parts.headers) {
            return None;
        }
        if version.is_some_and(|v| v.to_str().map_or(true, |v| v >= STANDARD_HEADERS)) {
            return None;
        }
        let params = CallToolRequestParams::deserialize(params).ok()?;
        let def = tools::find_def(&params.name)?;
        if def.effect != Effect::Read {
            return None;
        }
        let id = RequestId::deserialize(id).ok()?;
        let handler = self.calls.handler(session)?;
        let (name, stream) = self.events.open_request(session, key, self.retry)?;
        self.registry.touch(session);
        Some(Prepared {
            handler,
            session: session.to_owned(),
            id,
            key: key.to_owned(),
            params,
            name,
            stream,
        })
    }

    /// Starts the call and answers with its stream.
    pub fn run(&self, call: Prepared, parts: http::request::Parts) -> Response {
        self.counted.inc();
        // The session's own stream, as rmcp's worker names it.
        let (events, common) = (self.events.clone(), format!("{}:common", call.session));
        let notices = Notices(Arc::new(move |notification| {
            events.deliver(&common, ServerJsonRpcMessage::notification(notification));
        }));
        let events = self.events.clone();
        let name = call.name;
        let (id, key, params) = (call.id, call.key, call.params);
        call.handler
            .spawn(id, key, params, parts, notices, move |message| {
                events.deliver(&name, message);
            });
        let shutdown = self.shutdown.clone();
        let events = self
            .events
            .tail_wire(call.stream, From::Start)
            .map(|wire| Ok::<_, Infallible>(sse(wire)))
            .take_until(async move { shutdown.cancelled().await });
        let body = SseBody::new(events)
            .with_keep_alive::<Tick>(KeepAlive::new().interval(self.keep_alive));
        let mut response = Response::new(Body::new(body));
        *response.status_mut() = StatusCode::OK;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
        response
    }

    /// `notifications/cancelled` in `session`: a direct call it names is cancelled (rmcp
    /// cancels its own; the event log ends the request's stream either way).
    pub fn cancelled(&self, session: &str, params: Option<&Value>) {
        if let Some(request) = params.and_then(|p| p.get("requestId")) {
            self.calls.cancel(session, &request.to_string());
        }
    }
}

/// One stored event as an SSE event: a priming event has empty data, as rmcp writes it.
fn sse(wire: Wire) -> Sse {
    let data = match &wire.json {
        Some(json) => String::from_utf8_lossy(json).into_owned(),
        None => String::new(),
    };
    let mut sse = Sse::default().data(data).id(wire.id);
    sse.retry = wire.retry.map(|r| r.as_millis() as u64);
    sse
}

/// Whether `Accept` lists media types without parameters, `application/json` and
/// `text/event-stream` among them (what every client sends; anything else is rmcp's to
/// judge).
fn plain_accept(headers: &http::HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for essence in value.split(',').map(str::trim) {
            if essence.contains(';') || essence.contains('"') {
                return false;
            }
            json |= essence.eq_ignore_ascii_case("application/json");
            sse |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// The keep-alive clock of the SSE body.
struct Tick(Pin<Box<tokio::time::Sleep>>);

impl Future for Tick {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl sse_stream::Timer for Tick {
    fn reset(mut self: Pin<&mut Self>, instant: std::time::Instant) {
        self.0
            .as_mut()
            .reset(tokio::time::Instant::from_std(instant));
    }

    fn from_duration(duration: Duration) -> Self {
        Tick(Box::pin(tokio::time::sleep(duration)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(values: &[&str]) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        for v in values {
            headers.append(header::ACCEPT, HeaderValue::from_str(v).unwrap());
        }
        headers
    }

    #[test]
    fn only_a_plain_accept_of_both_types_is_answered_here() {
        assert!(plain_accept(&accept(&[
            "application/json, text/event-stream"
        ])));
        assert!(plain_accept(&accept(&[
            "text/event-stream",
            "application/json"
        ])));
        assert!(!plain_accept(&accept(&["application/json"])));
        assert!(!plain_accept(&accept(&[
            "application/json, text/event-stream;q=0"
        ])));
        assert!(!plain_accept(&accept(&[])));
    }

    #[test]
    fn a_stored_event_goes_out_as_stored() {
        let wire = Wire {
            id: "3-1".into(),
            json: Some(bytes::Bytes::from_static(
                br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            )),
            retry: None,
        };
        let sse = sse(wire);
        assert_eq!(sse.id.as_deref(), Some("3-1"));
        assert_eq!(
            sse.data.as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        );
        let priming = sse_stream::Sse::default().data("");
        let built = super::sse(Wire {
            id: "3-0".into(),
            json: None,
            retry: Some(Duration::from_millis(1500)),
        });
        assert_eq!(built.data, priming.data);
        assert_eq!(built.retry, Some(1500));
    }
}
