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
//! Layout and cost. Streams live in *groups*: one per session (all its streams) and one per
//! stream outside any session (a request stream before it is bound, a sessionless stream).
//! Each group has its own lock; the global [`Index`] (event id and rmcp stream id → group) is
//! only looked up, and written when a stream is created, bound or removed. Appending,
//! finishing, replaying and dropping a session touch one group: never another session's
//! streams. Events are stored once, as their JSON (`wire`), and *weighed*: budgets per stream,
//! per session and in total (bytes), beside the older event counts. Over a budget, finished
//! streams go first, oldest finished first, then the oldest events of open streams. An event
//! larger than a budget is handed to the stream's live consumer and never kept. What is no
//! longer held is remembered (per stream, the highest seq lost; per removed stream, a
//! tombstone), so a resume that asks for it is told so ([`Resume::Evicted`]), never given a
//! silent gap; a live consumer that would skip a lost event ends instead.

mod append;
mod live;
mod queue;
mod streams;
mod tail;
#[cfg(test)]
mod tests;
mod wire;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::watch;

use super::registry::Owner;
use crate::metrics::Metrics;

use queue::Queue;
pub use tail::{From, Wire};

/// Who may replay a sessionless stream: the principal whose request it answers (`None`
/// when authentication is off).
pub type Caller = Option<Owner>;

/// Bounds of the log, from configuration.
#[derive(Clone, Debug)]
pub struct EventLimits {
    /// Events kept per stream.
    pub per_stream: usize,
    /// Events kept per session, over all its streams.
    pub per_session: usize,
    /// Bytes (JSON plus a fixed overhead per event) kept per stream.
    pub stream_bytes: usize,
    /// Bytes kept per session, over all its streams.
    pub session_bytes: usize,
    /// Bytes kept over every stream of every session.
    pub total_bytes: usize,
    /// How long a finished request stream stays replayable.
    pub finished_ttl: Duration,
}

/// What one stored event costs beside its JSON (its place in the log, its id).
pub const EVENT_OVERHEAD: usize = 64;
/// What one stream holds beside its events, weighed with its first event: its `StreamLog`
/// in its group's map, its watch channel, its event queue's buffer, its id in the index and
/// its request's map, its queue entries, and what the allocator holds for them once streams
/// come and go (rounding, partly used pages). Calibrated on resident memory, not on the live
/// heap: after 233,000 `list_apps` calls (one stream of about 1 KiB of events each) the log
/// at its budget held about 3.3 KiB of RSS per stream (docs/PERFORMANCE.md, "Memory after
/// load"), so a stream weighs 2.5 KiB beside its events and the budget bounds what stays
/// resident.
pub const STREAM_OVERHEAD: usize = 2560;
/// Removed streams remembered for a clear answer to a late resume.
const TOMBSTONES: usize = 8192;

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

/// What a `Last-Event-ID` can be resumed as, for the one asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Every event after it is still held.
    Replayable,
    /// It names a stream of the one asking, but events after it are no longer held
    /// (evicted to stay within a budget, too large to keep, or expired).
    Evicted,
    /// Not a stream of the one asking (or never one).
    Unknown,
}

/// Why events were evicted (the bounded `reason` label of the metric).
#[derive(Clone, Copy, Debug)]
enum Budget {
    Stream,
    Session,
    Total,
}

impl Budget {
    fn label(self) -> &'static str {
        match self {
            Budget::Stream => "stream_budget",
            Budget::Session => "session_budget",
            Budget::Total => "total_budget",
        }
    }
}

/// One stored event: its JSON (`None`: a priming event) and how to send it.
#[derive(Clone)]
struct Stored {
    seq: u64,
    json: Option<Bytes>,
    /// The message is a response with a result (see `wire::decode`).
    result: bool,
    retry: Option<Duration>,
    weight: usize,
}

struct StreamLog {
    /// Set for a sessionless stream: the only caller that may replay it.
    caller: Option<Caller>,
    abandoned: bool,
    common: bool,
    rmcp_id: String,
    events: VecDeque<Stored>,
    bytes: usize,
    /// Events too large to keep, waiting for the live consumer (taken once, never replayed).
    passing: VecDeque<Stored>,
    next_seq: u64,
    /// Highest seq handed to a consumer, so a fresh GET does not resend it.
    delivered: Option<u64>,
    /// Highest seq no longer held: a resume from before it would have a gap.
    lost: Option<u64>,
    finished_at: Option<Instant>,
    /// The request this stream answers, as registered (to forget it when it finishes).
    request: Option<String>,
    consumer: u64,
    /// Live tails of this stream.
    attached: usize,
    changed: watch::Sender<u64>,
    /// The newest message, kept for its live consumer (`live.rs`).
    live: Option<live::Live>,
}

impl StreamLog {
    fn new(rmcp_id: &str, common: bool) -> StreamLog {
        StreamLog {
            caller: None,
            abandoned: false,
            common,
            rmcp_id: rmcp_id.to_owned(),
            events: VecDeque::new(),
            bytes: 0,
            passing: VecDeque::new(),
            next_seq: 0,
            delivered: None,
            lost: None,
            finished_at: None,
            request: None,
            consumer: 0,
            attached: 0,
            changed: watch::channel(0).0,
            live: None,
        }
    }

    fn lose(&mut self, seq: u64) {
        self.lost = Some(self.lost.map_or(seq, |l| l.max(seq)));
    }

    fn wake(&self) {
        let _ = self.changed.send(self.consumer);
    }

    /// Whether a too-large event may wait for a consumer: one is reading, or this is a
    /// request stream whose first consumer is still to come.
    fn has_reader(&self) -> bool {
        self.attached > 0
            || (self.consumer == 0 && !self.common && self.caller.is_none() && !self.abandoned)
    }
}

/// The streams of one session, or one stream outside any session, behind one lock.
struct Group {
    session: Option<String>,
    /// Bytes held by the group (mirror of `GroupState::bytes`, read without the lock).
    held: AtomicUsize,
    state: Mutex<GroupState>,
}

#[derive(Default)]
struct GroupState {
    streams: HashMap<u64, StreamLog>,
    bytes: usize,
    events: usize,
    /// Finished streams in the order they finished (may name streams already removed).
    finished: VecDeque<u64>,
    /// JSON-RPC request id (as text) → the stream that answers it.
    requests: HashMap<String, u64>,
    /// The session ended, or the group's one stream moved into its session: look again.
    retired: bool,
}

impl Group {
    fn new(session: Option<String>) -> Arc<Group> {
        Arc::new(Group {
            session,
            held: AtomicUsize::new(0),
            state: Mutex::new(GroupState::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, GroupState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whose a removed stream was, for a late resume.
#[derive(Clone, Debug, PartialEq)]
enum Whose {
    Session(String),
    Caller(Caller),
}

/// Lookup only. Locking order: a group's lock may be held while taking this one, never the
/// reverse; the queues below are leaves.
#[derive(Default)]
struct Index {
    by_rmcp_id: HashMap<String, u64>,
    groups: HashMap<u64, Arc<Group>>,
    sessions: HashMap<String, Arc<Group>>,
    tombstones: HashMap<u64, Whose>,
    tombstone_order: VecDeque<u64>,
}

/// Gives back a map's room once it holds under a quarter of what it has room for: a hash map
/// keeps the table of its fullest moment, so a session's map of streams, emptied by eviction
/// after a burst of calls, would otherwise hold that burst's table for as long as it lives.
fn give_back<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, V>) {
    const FLOOR: usize = 32;
    if map.capacity() > FLOOR && map.len() * 4 < map.capacity() {
        map.shrink_to((map.len() * 2).max(FLOOR));
    }
}

impl Index {
    fn forget(&mut self, stream: u64, rmcp_id: &str, whose: Option<Whose>) {
        self.groups.remove(&stream);
        self.by_rmcp_id.remove(rmcp_id);
        give_back(&mut self.groups);
        give_back(&mut self.by_rmcp_id);
        if let Some(whose) = whose {
            self.tombstones.insert(stream, whose);
            self.tombstone_order.push_back(stream);
            while self.tombstone_order.len() > TOMBSTONES {
                if let Some(old) = self.tombstone_order.pop_front() {
                    self.tombstones.remove(&old);
                }
            }
        }
    }
}

/// Counters for tests and administration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventLogStats {
    pub streams: usize,
    pub events: usize,
    /// Bytes held (stored events and events waiting for their live consumer).
    pub bytes: usize,
    /// Events evicted to stay within a bound.
    pub evicted: u64,
    /// Events too large to keep.
    pub too_large: u64,
}

pub struct EventLog {
    /// This log itself, for the tails `replay_events_after` (called through `&self`) opens.
    me: Weak<EventLog>,
    limits: EventLimits,
    index: RwLock<Index>,
    next_stream: AtomicU64,
    /// Names the streams of requests the server answers itself (`open_request`).
    next_direct: AtomicU64,
    /// Bytes held in total.
    held: AtomicUsize,
    /// Finished streams, oldest first: the first to go over the total budget, and the TTL.
    finished: Queue,
    /// Streams created outside any session, oldest first: swept when never bound.
    unbound: Queue,
    evicted: AtomicU64,
    too_large: AtomicU64,
    metrics: Option<Metrics>,
    open_tails: Arc<AtomicUsize>,
    /// Messages kept for their live consumer (`live.rs`), bounded apart.
    live: live::LiveHeld,
}

impl EventLog {
    pub fn new(limits: EventLimits, metrics: Option<Metrics>) -> Arc<EventLog> {
        Arc::new_cyclic(|me| EventLog {
            me: me.clone(),
            limits,
            index: RwLock::default(),
            next_stream: AtomicU64::new(1),
            next_direct: AtomicU64::new(1),
            held: AtomicUsize::new(0),
            finished: Queue::default(),
            unbound: Queue::default(),
            evicted: AtomicU64::new(0),
            too_large: AtomicU64::new(0),
            live: live::LiveHeld::new(
                metrics
                    .as_ref()
                    .map(|m| m.sessions.event_live_bytes.clone()),
            ),
            metrics,
            open_tails: Arc::default(),
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Index> {
        self.index.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Index> {
        self.index.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn group_of(&self, stream: u64) -> Option<Arc<Group>> {
        self.read().groups.get(&stream).cloned()
    }

    /// Runs `f` on a stream under its group's lock, following a stream that moved.
    fn with_stream<T>(
        &self,
        stream: u64,
        f: impl FnOnce(&Group, &mut GroupState) -> T,
    ) -> Option<T> {
        loop {
            let group = self.group_of(stream)?;
            let mut state = group.lock();
            if state.retired {
                continue;
            }
            state.streams.contains_key(&stream).then_some(())?;
            return Some(f(&group, &mut state));
        }
    }

    /// Makes room for a session's streams (called when the session is created).
    pub fn open_session(&self, session: &str) {
        self.write()
            .sessions
            .entry(session.to_owned())
            .or_insert_with(|| Group::new(Some(session.to_owned())));
    }

    /// The stream number of the session's standalone (GET) stream, created if needed;
    /// `None` for a session the log does not know.
    pub fn common_stream(&self, session: &str) -> Option<u64> {
        self.resolve(&common_id(session))
    }

    /// Which session a stream belongs to, if it is known.
    pub fn session_of(&self, stream: u64) -> Option<String> {
        self.group_of(stream)?.session.clone()
    }

    /// Forgets every stream of a session that ended.
    pub fn drop_session(&self, session: &str) {
        let Some(group) = self.write().sessions.remove(session) else {
            return;
        };
        let mut state = group.lock();
        state.retired = true;
        state.requests.clear();
        state.finished.clear();
        state.bytes = 0;
        state.events = 0;
        group.held.store(0, Ordering::Relaxed);
        let gone: Vec<(u64, StreamLog)> = state.streams.drain().collect();
        // The index is cleared before the group's lock is let go, so nobody finds a retired
        // group there.
        let mut index = self.write();
        let mut freed = 0;
        for (n, log) in &gone {
            freed += log.bytes + log.passing.iter().map(|e| e.weight).sum::<usize>();
            index.forget(*n, &log.rmcp_id, None);
        }
        drop(index);
        drop(state);
        self.release(freed);
    }

    /// Drops finished streams older than the TTL, and streams bound to neither a session nor
    /// a caller for longer than the TTL (their request never reached a client). Costs what
    /// it drops, plus the entries of streams already gone.
    pub fn sweep(&self) {
        let ttl = self.limits.finished_ttl;
        while let Some(n) = self.finished.pop_expired(ttl) {
            self.remove_stream(n, None);
        }
        while let Some(n) = self.unbound.pop_expired(ttl) {
            let orphan = self
                .with_stream(n, |group, state| {
                    group.session.is_none()
                        && state
                            .streams
                            .get(&n)
                            .is_some_and(|l| l.caller.is_none() && l.finished_at.is_none())
                })
                .unwrap_or(false);
            if orphan {
                self.remove_stream(n, None);
            }
        }
    }

    /// Queues a stream that finished (`finished`) or was created outside any session
    /// (`unbound`), compacting the queue when it asks: an entry stays while its stream is
    /// in the log (and, for `unbound`, still outside any session).
    fn enqueue(&self, unbound: bool, stream: u64) {
        let queue = if unbound {
            &self.unbound
        } else {
            &self.finished
        };
        if queue.push(stream) {
            let index = self.read();
            queue.compact(|n| {
                index
                    .groups
                    .get(&n)
                    .is_some_and(|g| !unbound || g.session.is_none())
            });
        }
        if let Some(m) = &self.metrics {
            m.sessions
                .event_log_queue_bytes
                .set((self.finished.bytes() + self.unbound.bytes()) as i64);
        }
    }

    /// Whether a session is working: a stream of it is being read, or a request of it has
    /// not finished. Walks that one session's streams.
    pub fn busy(&self, session: &str) -> bool {
        let Some(group) = self.read().sessions.get(session).cloned() else {
            return false;
        };
        let state = group.lock();
        state
            .streams
            .values()
            .any(|log| log.attached > 0 || (!log.common && log.finished_at.is_none()))
    }

    /// SSE streams currently being served from the log.
    pub fn open_tails(&self) -> usize {
        self.open_tails.load(Ordering::Relaxed)
    }

    /// Bytes held (stored events and events waiting for their live consumer).
    pub fn bytes_held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Events of `stream` after `seq` that the log still holds (what a resume replays).
    pub fn count_after(&self, stream: u64, seq: u64) -> usize {
        self.with_stream(stream, |_, state| {
            state.streams.get(&stream).map_or(0, |log| {
                log.events.len() - log.events.partition_point(|e| e.seq <= seq)
            })
        })
        .unwrap_or(0)
    }

    /// Counts over the whole log (walks every group: for tests and administration).
    pub fn stats(&self) -> EventLogStats {
        let groups: Vec<Arc<Group>> = {
            let index = self.read();
            let mut seen: Vec<Arc<Group>> = Vec::new();
            for group in index.groups.values() {
                if !seen.iter().any(|g| Arc::ptr_eq(g, group)) {
                    seen.push(group.clone());
                }
            }
            seen
        };
        let (mut streams, mut events) = (0, 0);
        for group in groups {
            let state = group.lock();
            streams += state.streams.len();
            events += state.events;
        }
        EventLogStats {
            streams,
            events,
            bytes: self.bytes_held(),
            evicted: self.evicted.load(Ordering::Relaxed),
            too_large: self.too_large.load(Ordering::Relaxed),
        }
    }
}

/// Where a resume after `seq` stands on a stream the asker may read.
fn gap_after(log: &StreamLog, seq: u64) -> Resume {
    if log.lost.is_some_and(|lost| lost > seq) {
        Resume::Evicted
    } else {
        Resume::Replayable
    }
}

fn common_id(session: &str) -> String {
    format!("{session}:common")
}

/// Marks a stream finished (once) and forgets its request; true when it was not before.
fn finish(state: &mut GroupState, stream: u64) -> bool {
    let Some(log) = state.streams.get_mut(&stream) else {
        return false;
    };
    if log.finished_at.is_some() {
        return false;
    }
    log.finished_at = Some(Instant::now());
    if let Some(request) = log.request.take() {
        state.requests.remove(&request);
    }
    state.finished.push_back(stream);
    true
}
