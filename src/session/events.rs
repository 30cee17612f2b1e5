//! The event log behind every SSE stream. rmcp stores each outgoing event here before it
//! sends it; axgate then delivers every stream *from this log*, never from rmcp's channels.
//! That one decision gives:
//! - no lost messages: a tool result completed while the client was disconnected is in the
//!   log and is replayed on `Last-Event-ID`, then the stream continues live;
//! - no duplicates and no broadcast: each stream has at most one consumer at a time (a new
//!   GET for the same stream takes over and the old one ends);
//! - replay scoped to the stream's session: ids are `<stream>-<seq>`, and a stream is bound
//!   to its session before its first id reaches a client.
//!
//! Sessionless (2026-07-28) requests have no session: rmcp stores their response streams here
//! under a bare UUID. The intake layer binds such a stream to its *caller* (the principal of
//! the request) before the first id reaches the client, and `replay_events_after` — rmcp's
//! sessionless `GET` + `Last-Event-ID` replay, which checks nothing itself — serves only
//! streams bound to a caller, and only after intake has checked that the caller asking is
//! the one bound. A stream whose client went away before its response was stored is
//! abandoned: cancelled, never replayable.
//!
//! Buffers are bounded per stream and per session; what falls off is counted.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use futures::Stream;
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::{
    EventStore, EventStoreError, EventStream, ServerSseMessage,
};
use tokio::sync::watch;

use super::registry::Owner;

/// Who may replay a sessionless stream: the principal whose request it answers (`None`
/// when authentication is off).
pub type Caller = Option<Owner>;

/// Bounds of the log, from configuration.
#[derive(Clone, Debug)]
pub struct EventLimits {
    pub per_stream: usize,
    pub per_session: usize,
    /// How long a finished request stream stays replayable.
    pub finished_ttl: Duration,
}

/// A parsed event id: which stream, which position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRef {
    pub stream: u64,
    pub seq: u64,
}

impl EventRef {
    pub fn parse(text: &str) -> Option<EventRef> {
        let (stream, seq) = text.split_once('-')?;
        Some(EventRef {
            stream: stream.parse().ok()?,
            seq: seq.parse().ok()?,
        })
    }

    fn format(self) -> String {
        format!("{}-{}", self.stream, self.seq)
    }
}

struct StreamLog {
    session: Option<String>,
    /// Set for a sessionless stream: the only caller that may replay it.
    caller: Option<Caller>,
    created: Instant,
    rmcp_id: String,
    events: VecDeque<(u64, ServerSseMessage)>,
    next_seq: u64,
    /// Highest seq handed to a consumer, so a fresh GET does not resend it.
    delivered: Option<u64>,
    finished_at: Option<Instant>,
    consumer: u64,
    changed: watch::Sender<u64>,
}

#[derive(Default)]
struct State {
    next_stream: u64,
    /// (session, JSON-RPC request id) → the request's stream, to end it on cancellation.
    requests: HashMap<(String, String), u64>,
    by_rmcp_id: HashMap<String, u64>,
    streams: HashMap<u64, StreamLog>,
    dropped: u64,
}

/// Counters for metrics and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventLogStats {
    pub streams: usize,
    pub events: usize,
    pub dropped: u64,
}

pub struct EventLog {
    /// This log itself, for the tails `replay_events_after` (called through `&self`) opens.
    me: Weak<EventLog>,
    limits: EventLimits,
    state: Mutex<State>,
    open_tails: Arc<std::sync::atomic::AtomicUsize>,
}

/// Where a tail starts reading.
#[derive(Clone, Copy, Debug)]
pub enum From {
    /// Everything the log still holds.
    Start,
    /// Strictly after this seq (a `Last-Event-ID`).
    After(u64),
    /// After whatever an earlier consumer was already given.
    Undelivered,
}

impl EventLog {
    pub fn new(limits: EventLimits) -> Arc<EventLog> {
        Arc::new_cyclic(|me| EventLog {
            me: me.clone(),
            limits,
            state: Mutex::new(State {
                next_stream: 1,
                ..State::default()
            }),
            open_tails: Arc::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Binds the stream of `event_id` to `session` (request streams are named by rmcp with a
    /// bare UUID, so the session is learned from the first event the wrapper sees).
    pub fn bind(&self, event_id: &str, session: &str) -> Option<u64> {
        let r = EventRef::parse(event_id)?;
        let mut state = self.lock();
        let log = state.streams.get_mut(&r.stream)?;
        log.session = Some(session.to_owned());
        Some(r.stream)
    }

    /// Binds the sessionless stream of `event_id` to the caller whose request it answers.
    /// Only a stream with neither session nor caller is bound; returns its number.
    pub fn bind_caller(&self, event_id: &str, caller: Caller) -> Option<u64> {
        let r = EventRef::parse(event_id)?;
        let mut state = self.lock();
        let log = state.streams.get_mut(&r.stream)?;
        if log.session.is_some() || log.caller.is_some() {
            return None;
        }
        log.caller = Some(caller);
        Some(r.stream)
    }

    /// Whether `caller` may replay after `event_id`: it names a sessionless stream bound to
    /// this very caller that the log still holds.
    pub fn replayable_by(&self, event_id: &str, caller: &Caller) -> bool {
        let Some(r) = EventRef::parse(event_id) else {
            return false;
        };
        self.lock()
            .streams
            .get(&r.stream)
            .is_some_and(|log| log.session.is_none() && log.caller.as_ref() == Some(caller))
    }

    /// Whether the stream's request has ended (its response or error is stored).
    pub fn is_finished(&self, stream: u64) -> bool {
        self.lock()
            .streams
            .get(&stream)
            .is_none_or(|log| log.finished_at.is_some())
    }

    /// Waits until no sessionless stream bound to a caller is still open (each has its
    /// response stored), or `within` passes. Shutdown uses it so that listens ended on
    /// purpose get their final result out before rmcp stops forwarding.
    pub async fn settle_sessionless(&self, within: Duration) {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            let open = self
                .lock()
                .streams
                .values()
                .any(|log| log.caller.is_some() && log.finished_at.is_none());
            if !open {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Gives up a sessionless stream whose client went away before its response: it ends
    /// now, is replayable by nobody, and is dropped after the TTL.
    pub fn abandon(&self, stream: u64) {
        let mut state = self.lock();
        if let Some(log) = state.streams.get_mut(&stream) {
            log.caller = None;
            log.finished_at.get_or_insert_with(Instant::now);
            let _ = log.changed.send(log.consumer);
        }
    }

    /// Remembers which stream answers a request, so a cancellation can end it.
    pub fn register_request(&self, session: &str, request_id: &str, stream: u64) {
        let mut state = self.lock();
        state
            .requests
            .insert((session.to_owned(), request_id.to_owned()), stream);
    }

    /// Ends the stream of a cancelled request: a cancelled request gets no response, so
    /// its stream would otherwise stay open.
    pub fn finish_request(&self, session: &str, request_id: &str) {
        let mut state = self.lock();
        let Some(stream) = state
            .requests
            .remove(&(session.to_owned(), request_id.to_owned()))
        else {
            return;
        };
        if let Some(log) = state.streams.get_mut(&stream) {
            log.finished_at.get_or_insert_with(Instant::now);
            let _ = log.changed.send(log.consumer);
        }
    }

    /// Ends the current consumer of a request's stream, leaving the stream open: that SSE
    /// response closes, and a `Last-Event-ID` resume continues it. `false` when the request
    /// has no registered stream.
    pub fn close_consumer(&self, session: &str, request_id: &str) -> bool {
        let mut state = self.lock();
        let key = (session.to_owned(), request_id.to_owned());
        let Some(&stream) = state.requests.get(&key) else {
            return false;
        };
        let Some(log) = state.streams.get_mut(&stream) else {
            return false;
        };
        log.consumer += 1;
        let _ = log.changed.send(log.consumer);
        true
    }

    /// The stream number of the session's standalone (GET) stream, created if needed.
    pub fn common_stream(&self, session: &str) -> u64 {
        let mut state = self.lock();
        let rmcp_id = common_id(session);
        stream_no(&mut state, &rmcp_id)
    }

    /// Which session a stream belongs to, if it is known.
    pub fn session_of(&self, stream: u64) -> Option<String> {
        self.lock().streams.get(&stream)?.session.clone()
    }

    /// A live stream of `stream`'s events, starting at `from`. Takes over from any earlier
    /// consumer of the same stream; ends when the stream finishes, is dropped, or is taken
    /// over again.
    pub fn tail(
        self: &Arc<Self>,
        stream: u64,
        from: From,
    ) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
        let (rx, generation, cursor) = {
            let mut state = self.lock();
            match state.streams.get_mut(&stream) {
                Some(log) => {
                    log.consumer += 1;
                    let cursor = match from {
                        From::Start => None,
                        From::After(seq) => Some(seq),
                        From::Undelivered => log.delivered,
                    };
                    let _ = log.changed.send(log.consumer);
                    (Some(log.changed.subscribe()), log.consumer, cursor)
                }
                None => (None, 0, None),
            }
        };
        self.open_tails
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tail = Tail {
            log: self.clone(),
            stream,
            generation,
            cursor,
            rx,
        };
        futures::stream::unfold(tail, |mut tail| async move {
            let next = tail.next().await?;
            Some((next, tail))
        })
    }

    /// Forgets every stream of a session that ended.
    pub fn drop_session(&self, session: &str) {
        let mut state = self.lock();
        let gone: Vec<u64> = state
            .streams
            .iter()
            .filter(|(_, s)| s.session.as_deref() == Some(session))
            .map(|(&n, _)| n)
            .collect();
        for n in gone {
            if let Some(log) = state.streams.remove(&n) {
                state.by_rmcp_id.remove(&log.rmcp_id);
            }
        }
        let common = common_id(session);
        if let Some(n) = state.by_rmcp_id.remove(&common) {
            state.streams.remove(&n);
        }
        state.requests.retain(|(s, _), _| s != session);
    }

    /// Drops finished streams older than the TTL, and streams bound to neither a session nor
    /// a caller for longer than the TTL (their request never reached a client).
    pub fn sweep(&self) {
        let ttl = self.limits.finished_ttl;
        let mut state = self.lock();
        let expired: Vec<u64> = state
            .streams
            .iter()
            .filter(|(_, s)| {
                let finished = s.finished_at.is_some_and(|at| at.elapsed() >= ttl);
                let orphan =
                    s.session.is_none() && s.caller.is_none() && s.created.elapsed() >= ttl;
                finished || orphan
            })
            .map(|(&n, _)| n)
            .collect();
        for n in expired {
            if let Some(log) = state.streams.remove(&n) {
                state.by_rmcp_id.remove(&log.rmcp_id);
            }
        }
    }

    /// SSE streams currently being served from the log.
    pub fn open_tails(&self) -> usize {
        self.open_tails.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Events of `stream` after `seq` that the log still holds (what a resume replays).
    pub fn count_after(&self, stream: u64, seq: u64) -> usize {
        self.lock()
            .streams
            .get(&stream)
            .map_or(0, |s| s.events.iter().filter(|(n, _)| *n > seq).count())
    }

    pub fn stats(&self) -> EventLogStats {
        let state = self.lock();
        EventLogStats {
            streams: state.streams.len(),
            events: state.streams.values().map(|s| s.events.len()).sum(),
            dropped: state.dropped,
        }
    }

    fn append(&self, rmcp_id: &str, event: &ServerSseMessage) -> String {
        let mut state = self.lock();
        let n = stream_no(&mut state, rmcp_id);
        let Some(log) = state.streams.get_mut(&n) else {
            unreachable!("stream_no inserts the stream");
        };
        let seq = log.next_seq;
        log.next_seq += 1;
        let id = EventRef { stream: n, seq }.format();
        let mut stored = event.clone();
        stored.event_id = Some(id.clone());
        let ended = ends_request(&stored) && !log.rmcp_id.ends_with(":common");
        if ended {
            log.finished_at = Some(Instant::now());
        }
        log.events.push_back((seq, stored));
        let mut dropped = 0;
        while log.events.len() > self.limits.per_stream {
            log.events.pop_front();
            dropped += 1;
        }
        let session = log.session.clone();
        let _ = log.changed.send(log.consumer);
        state.dropped += dropped;
        if ended {
            state.requests.retain(|_, stream| *stream != n);
        }
        if let Some(session) = session {
            enforce_session_cap(&mut state, &session, self.limits.per_session);
        }
        id
    }
}

fn common_id(session: &str) -> String {
    format!("{session}:common")
}

fn stream_no(state: &mut State, rmcp_id: &str) -> u64 {
    if let Some(&n) = state.by_rmcp_id.get(rmcp_id) {
        return n;
    }
    let n = state.next_stream;
    state.next_stream += 1;
    let session = rmcp_id.strip_suffix(":common").map(str::to_owned);
    state.by_rmcp_id.insert(rmcp_id.to_owned(), n);
    state.streams.insert(
        n,
        StreamLog {
            session,
            caller: None,
            created: Instant::now(),
            rmcp_id: rmcp_id.to_owned(),
            events: VecDeque::new(),
            next_seq: 0,
            delivered: None,
            finished_at: None,
            consumer: 0,
            changed: watch::channel(0).0,
        },
    );
    n
}

/// Evicts the session's oldest events, finished streams first, until it fits its cap.
fn enforce_session_cap(state: &mut State, session: &str, cap: usize) {
    loop {
        let mine: Vec<(u64, usize, Option<Instant>)> = state
            .streams
            .iter()
            .filter(|(_, s)| s.session.as_deref() == Some(session))
            .map(|(&n, s)| (n, s.events.len(), s.finished_at))
            .collect();
        let total: usize = mine.iter().map(|m| m.1).sum();
        if total <= cap {
            return;
        }
        let victim = mine
            .iter()
            .filter(|m| m.2.is_some())
            .min_by_key(|m| m.2)
            .or_else(|| mine.iter().filter(|m| m.1 > 0).max_by_key(|m| m.1));
        let Some(&(n, len, finished)) = victim else {
            return;
        };
        if finished.is_some() {
            if let Some(log) = state.streams.remove(&n) {
                state.by_rmcp_id.remove(&log.rmcp_id);
            }
            state.dropped += len as u64;
        } else if let Some(log) = state.streams.get_mut(&n) {
            log.events.pop_front();
            state.dropped += 1;
        }
    }
}

/// A response or error ends a request stream.
fn ends_request(event: &ServerSseMessage) -> bool {
    matches!(
        event.message.as_deref(),
        Some(ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_))
    )
}

struct Tail {
    log: Arc<EventLog>,
    stream: u64,
    generation: u64,
    cursor: Option<u64>,
    rx: Option<watch::Receiver<u64>>,
}

impl Drop for Tail {
    fn drop(&mut self) {
        self.log
            .open_tails
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Tail {
    async fn next(&mut self) -> Option<ServerSseMessage> {
        loop {
            let rx = self.rx.as_mut()?;
            rx.borrow_and_update();
            {
                let mut state = self.log.lock();
                let log = state.streams.get_mut(&self.stream)?;
                if log.consumer != self.generation {
                    return None;
                }
                let after = self.cursor;
                let next = log
                    .events
                    .iter()
                    .find(|(seq, _)| after.is_none_or(|c| *seq > c))
                    .cloned();
                if let Some((seq, event)) = next {
                    self.cursor = Some(seq);
                    log.delivered = Some(log.delivered.map_or(seq, |d| d.max(seq)));
                    return Some(event);
                }
                if log.finished_at.is_some() {
                    return None;
                }
            }
            self.rx.as_mut()?.changed().await.ok()?;
        }
    }
}

#[async_trait::async_trait]
impl EventStore for EventLog {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        Ok(self.append(stream_id, event))
    }

    /// rmcp's sessionless `GET` + `Last-Event-ID` replay, which checks neither session nor
    /// principal. The intake layer lets such a GET through only when
    /// [`EventLog::replayable_by`] holds for the asking caller; here, as a second line, only
    /// a stream bound to a caller is ever replayed — never a session's stream.
    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let sessionless = EventRef::parse(last_event_id).filter(|r| {
            self.lock()
                .streams
                .get(&r.stream)
                .is_some_and(|log| log.session.is_none() && log.caller.is_some())
        });
        let log = self.me.upgrade();
        let stream: EventStream = match (sessionless, log) {
            (Some(r), Some(log)) => Box::pin(log.tail(r.stream, From::After(r.seq))),
            _ => {
                let empty: Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>> =
                    Box::pin(futures::stream::empty());
                empty
            }
        };
        Ok(stream)
    }
}
