//! The HTTP side of the direct path (`mcp::direct`): a read-only `tools/call` in an
//! initialized session is answered here, without rmcp's per-request tasks. The request's
//! stream is opened in the event log exactly as rmcp's worker opens one (priming event,
//! bound to the session, registered for the request id). The call is polled in the
//! connection's own task ([`Call`]), first for up to [`HOLD`] before the headers go out,
//! then by the response body ([`CallBody`]), which is that stream written as the log stored
//! it: one SSE event per stored event, the JSON put on the wire as it is, never serialized
//! again.
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
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use hyper::body::Frame;
use rmcp::model::{CallToolRequestParams, RequestId, ServerJsonRpcMessage};
use serde::Deserialize;
use serde_json::Value;
use sse_stream::Sse;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::mcp::AxServer;
use crate::mcp::context::Notices;
use crate::mcp::direct::{Direct, Handler};
use crate::mcp::tools::{self, Effect};
use crate::session::events::{From, Wire};
use crate::session::{EventLog, SessionRegistry};

/// How long a call may take and still be answered in one write, headers and all. A call
/// that takes longer gets its headers and priming event now, and its response when done.
const HOLD: Duration = Duration::from_millis(5);

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
    /// `axgate_mcp_direct_calls_whole_total`: the calls done within [`HOLD`].
    pub whole: prometheus::IntCounter,
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
        if def.profile.effect != Effect::Read {
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

    /// Starts the call and answers with its stream. A call done within [`HOLD`] is answered
    /// whole: headers, priming event and response leave in one write.
    pub async fn run(&self, call: Prepared, parts: http::request::Parts) -> Response {
        self.counted.inc();
        // The session's own stream, as rmcp's worker names it.
        let (events, common) = (self.events.clone(), format!("{}:common", call.session));
        let notices = Notices(Arc::new(move |notification| {
            events.deliver(&common, ServerJsonRpcMessage::notification(notification));
        }));
        let events = self.events.clone();
        let name = call.name;
        let (id, key, params) = (call.id, call.key, call.params);
        let run = call
            .handler
            .call(id, key, params, parts, notices, move |message| {
                events.deliver(&name, message);
            });
        let mut run = Call(Some(Box::pin(run)));
        // One clock per response: first the hold, then the keep-alive.
        let mut clock = Box::pin(tokio::time::sleep(HOLD));
        let whole = std::future::poll_fn(|cx| {
            if run.poll(cx).is_ready() {
                return Poll::Ready(true);
            }
            clock.as_mut().poll(cx).map(|()| false)
        })
        .await;
        if whole {
            self.whole.inc();
        }
        let body = CallBody {
            call: run,
            tail: self.events.tail_wire(call.stream, From::Start),
            shutdown: self.shutdown.clone().cancelled_owned(),
            clock,
            quiet_since: tokio::time::Instant::now(),
            keep_alive: self.keep_alive,
        };
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

/// A direct call, polled by whoever holds it: first the request's own task (up to
/// [`HOLD`]), then the response body. No task is spawned for it, unless it is still running
/// when dropped (the client left, the server shuts down): then it finishes on a task of its
/// own and its response is stored for a `Last-Event-ID` resume, as any call in rmcp's hands
/// would be.
struct Call(Option<Pin<Box<dyn Future<Output = ()> + Send>>>);

impl Call {
    /// Ready once the call has ended (and stored its response).
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(call) = self.0.as_mut() else {
            return Poll::Ready(());
        };
        let done = call.as_mut().poll(cx);
        if done.is_ready() {
            self.0 = None;
        }
        done
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if let Some(call) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(call);
        }
    }
}

pin_project_lite::pin_project! {
    /// The response body: the request's stream as the log stored it, one SSE event per
    /// stored event, with the call polled in front of it; a keep-alive comment after
    /// `keep_alive` without an event; the end at shutdown.
    struct CallBody<S> {
        call: Call,
        #[pin]
        tail: S,
        #[pin]
        shutdown: WaitForCancellationFutureOwned,
        clock: Pin<Box<tokio::time::Sleep>>,
        quiet_since: tokio::time::Instant,
        keep_alive: Duration,
    }
}

impl<S: futures::Stream<Item = Wire>> http_body::Body for CallBody<S> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.project();
        // Ready or not, the tail says what there is to send.
        let _ = this.call.poll(cx);
        match this.tail.poll_next(cx) {
            Poll::Ready(Some(wire)) => {
                *this.quiet_since = tokio::time::Instant::now();
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(sse(wire))))));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        if this.shutdown.poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        // The clock is only moved when it rings: an event does not reset it.
        while this.clock.as_mut().poll(cx).is_ready() {
            let due = *this.quiet_since + *this.keep_alive;
            if due <= tokio::time::Instant::now() {
                *this.quiet_since = tokio::time::Instant::now();
                this.clock
                    .as_mut()
                    .reset(*this.quiet_since + *this.keep_alive);
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b":\n\n")))));
            }
            this.clock.as_mut().reset(due);
        }
        Poll::Pending
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
