//! Reading a stream: a tail delivers a stream's events from a starting point, then live,
//! rebuilding each message from its stored JSON outside the lock. One consumer per stream: a
//! new tail takes over and the earlier one ends. A tail that would skip an event the log no
//! longer holds ends instead, so the client resumes and is told the events are gone.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::Stream;
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use tokio::sync::watch;

use super::{EventLog, EventRef, Stored, wire};

/// Where a tail starts reading.
#[derive(Clone, Copy, Debug)]
pub enum From {
    /// Everything the log still holds.
    Start,
    /// Strictly after this seq (a `Last-Event-ID`).
    After(u64),
    /// After whatever an earlier consumer was already given (or what was lost before).
    Undelivered,
}

impl EventLog {
    /// A live stream of `stream`'s events, starting at `from`. Takes over from any earlier
    /// consumer of the same stream; ends when the stream finishes, is dropped, is taken
    /// over again, or would skip an event no longer held.
    pub fn tail(
        self: &Arc<Self>,
        stream: u64,
        from: From,
    ) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
        futures::stream::unfold(self.open_tail(stream, from), |mut tail| async move {
            let next = tail.next().await?;
            Some((next, tail))
        })
    }

    /// [`EventLog::tail`] as the stored bytes, for a writer that puts them on the wire as
    /// they are (`http::direct`): nothing is rebuilt or serialized again.
    pub fn tail_wire(
        self: &Arc<Self>,
        stream: u64,
        from: From,
    ) -> impl Stream<Item = Wire> + Send + Sync + 'static {
        futures::stream::unfold(self.open_tail(stream, from), |mut tail| async move {
            let (event, _) = tail.next_stored().await?;
            let wire = Wire {
                id: tail.id(event.seq),
                json: event.json,
                retry: event.retry,
            };
            Some((wire, tail))
        })
    }

    fn open_tail(self: &Arc<Self>, stream: u64, from: From) -> Tail {
        let opened = self
            .with_stream(stream, |_, state| {
                let log = state.streams.get_mut(&stream)?;
                log.consumer += 1;
                log.attached += 1;
                let cursor = match from {
                    From::Start => None,
                    From::After(seq) => Some(seq),
                    From::Undelivered => log.delivered.max(log.lost),
                };
                log.wake();
                Some((log.changed.subscribe(), log.consumer, cursor))
            })
            .flatten();
        self.open_tails.fetch_add(1, Ordering::Relaxed);
        match opened {
            Some((rx, generation, cursor)) => Tail {
                log: self.clone(),
                stream,
                generation,
                cursor,
                rx: Some(rx),
            },
            None => Tail {
                log: self.clone(),
                stream,
                generation: 0,
                cursor: None,
                rx: None,
            },
        }
    }
}

/// One event as stored: its id, its JSON (`None`: a priming event, empty data) and the
/// reconnect hint it carries.
pub struct Wire {
    pub id: String,
    pub json: Option<bytes::Bytes>,
    pub retry: Option<std::time::Duration>,
}

struct Tail {
    log: Arc<EventLog>,
    stream: u64,
    generation: u64,
    cursor: Option<u64>,
    /// `None`: the stream was unknown when the tail opened (it ends at once).
    rx: Option<watch::Receiver<u64>>,
}

/// What a look at the stream found.
enum Step {
    /// The event, the bytes its delivery frees, and its message when it was kept live.
    Event(Stored, usize, Option<Arc<ServerJsonRpcMessage>>),
    Wait,
    End,
}

impl Tail {
    fn look(&mut self) -> Step {
        let (stream, generation, cursor) = (self.stream, self.generation, &mut self.cursor);
        let step = self.log.with_stream(stream, |_, state| {
            let Some(log) = state.streams.get_mut(&stream) else {
                return Step::End;
            };
            if log.consumer != generation {
                return Step::End;
            }
            if log.lost.is_some_and(|lost| cursor.is_none_or(|c| lost > c)) {
                // The next event is gone: end, and let the resume say so.
                return Step::End;
            }
            let after = |seq: u64| cursor.is_none_or(|c| seq > c);
            let at = log
                .events
                .partition_point(|e| cursor.is_some_and(|c| e.seq <= c));
            let stored = log.events.get(at).map(|e| e.seq);
            let passing = log.passing.front().map(|e| e.seq).filter(|&s| after(s));
            let (event, freed) = match (stored, passing) {
                (Some(s), Some(p)) if p < s => (log.passing.pop_front(), true),
                (None, Some(_)) => (log.passing.pop_front(), true),
                (Some(_), _) => (log.events.get(at).cloned(), false),
                (None, None) => (None, false),
            };
            match event {
                Some(event) => {
                    if freed {
                        // Delivered once, never again: a resume from before it is refused.
                        log.lose(event.seq);
                    }
                    *cursor = Some(event.seq);
                    log.delivered = Some(log.delivered.map_or(event.seq, |d| d.max(event.seq)));
                    let freed = if freed { event.weight } else { 0 };
                    // A kept message older than this one was skipped: let it go too.
                    let live = log
                        .live
                        .take_if(|live| live.seq <= event.seq)
                        .filter(|live| live.seq == event.seq)
                        .map(|live| live.message.clone());
                    Step::Event(event, freed, live)
                }
                None if log.finished_at.is_some() => Step::End,
                None => Step::Wait,
            }
        });
        step.unwrap_or(Step::End)
    }

    fn id(&self, seq: u64) -> String {
        EventRef {
            stream: self.stream,
            seq,
        }
        .format()
    }

    /// The next event, and its message when it was kept for this reader (`live.rs`).
    async fn next_stored(&mut self) -> Option<(Stored, Option<Arc<ServerJsonRpcMessage>>)> {
        loop {
            self.rx.as_mut()?.borrow_and_update();
            match self.look() {
                Step::End => return None,
                Step::Wait => {
                    self.rx.as_mut()?.changed().await.ok()?;
                }
                Step::Event(event, freed, live) => {
                    self.log.release(freed);
                    return Some((event, live));
                }
            }
        }
    }

    async fn next(&mut self) -> Option<ServerSseMessage> {
        loop {
            let (event, live) = self.next_stored().await?;
            let message = match (&event.json, live) {
                (None, _) => None,
                (Some(_), Some(live)) => Some(live),
                (Some(json), None) => match wire::decode(json, event.result) {
                    Some(message) => Some(Arc::new(message)),
                    None => continue,
                },
            };
            let mut out = ServerSseMessage::default();
            out.event_id = Some(self.id(event.seq));
            out.message = message;
            out.retry = event.retry;
            return Some(out);
        }
    }
}

impl Drop for Tail {
    fn drop(&mut self) {
        self.log.open_tails.fetch_sub(1, Ordering::Relaxed);
        if self.rx.is_none() {
            return;
        }
        let stream = self.stream;
        // The last reader gone: what was waiting for it is not kept.
        let freed = self.log.with_stream(stream, |_, state| {
            let log = state.streams.get_mut(&stream)?;
            log.attached = log.attached.saturating_sub(1);
            if log.attached > 0 {
                return None;
            }
            log.live = None;
            let last = log.passing.back()?.seq;
            log.lose(last);
            Some(log.passing.drain(..).map(|e| e.weight).sum::<usize>())
        });
        if let Some(Some(freed)) = freed {
            self.log.release(freed);
        }
    }
}
