//! The sessionless 2026-07-28 path in front of rmcp: what intake does for a request that
//! carries its protocol version in `_meta` (or is `server/discover`).
//!
//! - [`watch`] follows the SSE response of such a request. Before the first event id reaches
//!   the client it binds the stream to the caller in the event log (so a replay can be
//!   checked against who asks), and when the client closes the stream it cancels the request
//!   — that revision defines closing the response stream as cancellation, and rmcp does not
//!   cancel a request whose stream it persists. A stream closed before its response was
//!   stored is abandoned (replayable by nobody).
//! - A sessionless `GET` with `Last-Event-ID` is decided by intake with
//!   [`EventLog::resume_by_caller`]: rmcp's own replay there checks neither session nor
//!   principal, so only the caller the stream is bound to gets through; anyone else is
//!   answered as if the stream did not exist (404).

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt as _;
use tokio_util::sync::CancellationToken;

use crate::session::{Caller, EventLog};

/// Longest prefix of a response searched for its first event id.
const SCAN_LIMIT: usize = 64 * 1024;

/// Follows a sessionless request's response: binds its SSE stream to `caller` and cancels
/// `closed` when the client stops reading. A JSON answer is complete as it is: `closed` is
/// cancelled at once (the request is over).
pub fn watch(
    response: Response,
    log: Arc<EventLog>,
    caller: Caller,
    closed: CancellationToken,
) -> Response {
    let is_sse = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/event-stream"));
    if !is_sse {
        closed.cancel();
        return response;
    }
    let (parts, body) = response.into_parts();
    let mut follow = Follow {
        log,
        caller: Some(caller),
        closed,
        stream: None,
        scanned: Vec::new(),
    };
    // `follow` lives in the closure, as long as the body: its drop is the client going away
    // (or the stream having ended).
    let frames = body.into_data_stream().map(move |frame| {
        if let Ok(bytes) = &frame {
            follow.saw(bytes);
        }
        frame
    });
    Response::from_parts(parts, Body::from_stream(frames))
}

/// What [`watch`] keeps while a response is being read.
struct Follow {
    log: Arc<EventLog>,
    /// Taken when the stream is bound.
    caller: Option<Caller>,
    closed: CancellationToken,
    stream: Option<u64>,
    /// The response's start, until its first `id:` line is complete.
    scanned: Vec<u8>,
}

impl Follow {
    /// Looks for the first event id in the bytes about to be sent, and binds its stream.
    fn saw(&mut self, bytes: &Bytes) {
        let Some(caller) = self.caller.as_ref() else {
            return;
        };
        if self.scanned.len() + bytes.len() > SCAN_LIMIT {
            tracing::warn!(
                "no event id in the first 64 KiB of a sessionless stream; it cannot be replayed"
            );
            self.caller = None;
            self.scanned = Vec::new();
            return;
        }
        self.scanned.extend_from_slice(bytes);
        if let Some(id) = first_event_id(&self.scanned) {
            self.stream = self.log.bind_caller(&id, caller.clone());
            self.caller = None;
            self.scanned = Vec::new();
        }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        if let Some(stream) = self.stream
            && !self.log.is_finished(stream)
        {
            tracing::debug!(
                stream,
                "the client closed a sessionless stream before its response; cancelling the request"
            );
            self.log.abandon(stream);
        }
        // Once the response is out this only ends the watchers of the token.
        self.closed.cancel();
    }
}

/// The value of the first complete `id:` line of an SSE text.
fn first_event_id(text: &[u8]) -> Option<String> {
    let complete = &text[..text.iter().rposition(|&b| b == b'\n')?];
    complete
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .find_map(|line| line.strip_prefix(b"id:"))
        .map(|id| String::from_utf8_lossy(id).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::first_event_id;

    #[test]
    fn the_first_complete_id_line_is_found() {
        assert_eq!(
            first_event_id(b"id: 4-0\nretry: 3000\ndata:\n\n").as_deref(),
            Some("4-0")
        );
        assert_eq!(
            first_event_id(b"retry: 3000\r\nid:7-2\r\n").as_deref(),
            Some("7-2")
        );
        // Not yet complete: wait for more bytes.
        assert_eq!(first_event_id(b"id: 4-"), None);
        assert_eq!(first_event_id(b"data: {}\n\nid: 9-1"), None);
        assert_eq!(first_event_id(b": keep-alive\n\n"), None);
    }
}
