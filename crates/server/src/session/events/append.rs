//! Storing events and keeping the log within its bounds: the `EventStore` side of the log.
//! An append serializes the event once (outside any lock), then works under its stream's
//! group lock only; the budgets are enforced there, and the total budget afterwards from the
//! global queue of finished streams (oldest first).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use futures::Stream;
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::{
    EventStore, EventStoreError, EventStream, ServerSseMessage,
};

use super::{
    Budget, EVENT_OVERHEAD, EventLog, EventRef, From, Group, GroupState, Index, STREAM_OVERHEAD,
    Stored, StreamLog, Whose, finish, give_back, wire,
};

impl EventLog {
    /// The stream number of an rmcp stream id, creating the stream when it is new. A common
    /// stream is created in its session's group (`None` when the session is unknown); any
    /// other stream in a group of its own until it is bound.
    pub(super) fn resolve(&self, rmcp_id: &str) -> Option<u64> {
        if let Some(&n) = self.read().by_rmcp_id.get(rmcp_id) {
            return Some(n);
        }
        let common = rmcp_id.strip_suffix(":common");
        let group = match common {
            Some(session) => self.read().sessions.get(session).cloned()?,
            None => Group::new(None),
        };
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let mut state = group.lock();
        if state.retired {
            return None;
        }
        state
            .streams
            .insert(n, StreamLog::new(rmcp_id, common.is_some()));
        let mut index = self.write();
        if let Some(&won) = index.by_rmcp_id.get(rmcp_id) {
            // Created meanwhile by another caller: use that one.
            state.streams.remove(&n);
            return Some(won);
        }
        index.by_rmcp_id.insert(rmcp_id.to_owned(), n);
        index.groups.insert(n, group.clone());
        drop(index);
        drop(state);
        if common.is_none() {
            self.enqueue(true, n);
        }
        Some(n)
    }

    pub(super) fn append(&self, rmcp_id: &str, event: &ServerSseMessage) -> String {
        let message = event.message.as_deref();
        let json = message.map(wire::encode);
        let result = message.is_some_and(wire::is_result);
        let ends = message.is_some_and(ends_request);
        let weight = json.as_ref().map_or(0, Bytes::len) + EVENT_OVERHEAD;
        loop {
            let Some(n) = self.resolve(rmcp_id) else {
                // A late event of a session that ended: nobody can read it (no stream is 0).
                return EventRef { stream: 0, seq: 0 }.format();
            };
            let Some(group) = self.group_of(n) else {
                continue;
            };
            let mut state = group.lock();
            if state.retired {
                continue;
            }
            let cap = self.limits.stream_bytes.min(self.limits.total_bytes).min(
                if group.session.is_some() {
                    self.limits.session_bytes
                } else {
                    usize::MAX
                },
            );
            let per_stream = self.limits.per_stream;
            let stream_bytes = self.limits.stream_bytes;
            let Some(log) = state.streams.get_mut(&n) else {
                // Removed between the lookup and the lock: nothing will read it.
                return EventRef { stream: n, seq: 0 }.format();
            };
            let seq = log.next_seq;
            log.next_seq += 1;
            // The stream's own structures are weighed with its first event, in its bytes
            // until the whole stream goes (trimming an event never gives them back).
            let base = if seq == 0 { STREAM_OVERHEAD } else { 0 };
            log.bytes += base;
            if log.live.is_none()
                && log.has_reader()
                && let (Some(message), Some(json)) = (&event.message, &json)
            {
                log.live = self.live.keep(seq, message, json.len());
            }
            let stored = Stored {
                seq,
                json: json.clone(),
                result,
                retry: event.retry,
                weight,
            };
            let (mut added, mut removed, mut events_delta, mut trimmed) =
                (0usize, 0usize, 0isize, 0u64);
            let too_large = weight > cap;
            if too_large {
                if log.has_reader() {
                    log.passing.push_back(stored);
                    added += weight;
                } else {
                    log.lose(seq);
                }
            } else {
                log.events.push_back(stored);
                log.bytes += weight;
                added += weight;
                events_delta += 1;
                while log.events.len() > 1
                    && (log.events.len() > per_stream || log.bytes > stream_bytes)
                {
                    let Some(old) = log.events.pop_front() else {
                        break;
                    };
                    log.bytes -= old.weight;
                    log.lose(old.seq);
                    removed += old.weight;
                    events_delta -= 1;
                    trimmed += 1;
                }
            }
            let common = log.common;
            log.wake();
            let stored_bytes = (if too_large { 0 } else { added }) + base;
            added += base;
            state.bytes = state.bytes + stored_bytes - removed;
            state.events = state.events.saturating_add_signed(events_delta);
            let newly = ends && !common && finish(&mut state, n);
            if group.session.is_some() {
                self.enforce_session(&group, &mut state, n);
            }
            group.held.store(state.bytes, Ordering::Relaxed);
            drop(state);
            self.held.fetch_add(added, Ordering::Relaxed);
            self.release(removed);
            self.count_evicted(Budget::Stream, trimmed);
            if too_large {
                self.too_large.fetch_add(1, Ordering::Relaxed);
                if let Some(m) = &self.metrics {
                    m.sessions.events_too_large.inc();
                }
            }
            if newly {
                self.queue_finished(n);
            }
            self.enforce_total(n);
            return EventRef { stream: n, seq }.format();
        }
    }

    pub(super) fn queue_finished(&self, stream: u64) {
        self.enqueue(false, stream);
    }

    /// Gives back bytes no longer held.
    pub(super) fn release(&self, bytes: usize) {
        if bytes > 0 {
            self.held.fetch_sub(bytes, Ordering::Relaxed);
        }
        if let Some(m) = &self.metrics {
            m.sessions
                .event_log_bytes
                .set(self.held.load(Ordering::Relaxed) as i64);
        }
    }

    fn count_evicted(&self, budget: Budget, events: u64) {
        if events == 0 {
            return;
        }
        self.evicted.fetch_add(events, Ordering::Relaxed);
        if let Some(m) = &self.metrics {
            m.sessions
                .events_evicted
                .with_label_values(&[budget.label()])
                .inc_by(events);
        }
    }

    /// Removes a whole stream from its (locked) group; returns the events it held. A
    /// tombstone remembers whose it was, for a late resume.
    fn take_stream(&self, group: &Group, state: &mut GroupState, n: u64) -> u64 {
        let Some(log) = state.streams.remove(&n) else {
            return 0;
        };
        if let Some(request) = &log.request {
            state.requests.remove(request);
        }
        give_back(&mut state.streams);
        give_back(&mut state.requests);
        while let Some(&f) = state.finished.front()
            && !state.streams.contains_key(&f)
        {
            state.finished.pop_front();
        }
        if state.finished.capacity() > 64 && state.finished.len() * 4 < state.finished.capacity() {
            let keep = (state.finished.len() * 2).max(64);
            state.finished.shrink_to(keep);
        }
        state.bytes -= log.bytes.min(state.bytes);
        state.events -= log.events.len().min(state.events);
        group.held.store(state.bytes, Ordering::Relaxed);
        let whose = match (&group.session, &log.caller) {
            (Some(session), _) => Some(Whose::Session(session.clone())),
            (None, Some(caller)) => Some(Whose::Caller(caller.clone())),
            (None, None) => None,
        };
        self.write().forget(n, &log.rmcp_id, whose);
        let passing: usize = log.passing.iter().map(|e| e.weight).sum();
        self.release(log.bytes + passing);
        log.events.len() as u64
    }

    /// Removes a stream wherever it is (the TTL sweep, the total budget).
    pub(super) fn remove_stream(&self, n: u64, budget: Option<Budget>) -> bool {
        let taken = self.with_stream(n, |group, state| self.take_stream(group, state, n));
        if let (Some(events), Some(budget)) = (taken, budget) {
            self.count_evicted(budget, events);
        }
        taken.is_some()
    }

    /// Drops the oldest event of the open stream holding the most bytes in a (locked)
    /// group, never the only event of `keep`. False when there is nothing to drop.
    fn trim_largest(&self, group: &Group, state: &mut GroupState, keep: u64) -> bool {
        let victim = state
            .streams
            .iter()
            .filter(|(n, l)| l.events.len() > usize::from(**n == keep))
            .max_by_key(|(_, l)| l.bytes)
            .map(|(&n, _)| n);
        let Some(log) = victim.and_then(|n| state.streams.get_mut(&n)) else {
            return false;
        };
        let Some(old) = log.events.pop_front() else {
            return false;
        };
        log.bytes -= old.weight;
        log.lose(old.seq);
        log.wake();
        state.bytes -= old.weight.min(state.bytes);
        state.events = state.events.saturating_sub(1);
        group.held.store(state.bytes, Ordering::Relaxed);
        self.release(old.weight);
        true
    }

    /// Keeps a session within its budgets: its finished streams go first, oldest finished
    /// first (never `current`), then the oldest events of its largest open stream.
    pub(super) fn enforce_session(&self, group: &Group, state: &mut GroupState, current: u64) {
        let (bytes, count) = (self.limits.session_bytes, self.limits.per_session);
        let mut evicted = 0;
        while state.bytes > bytes || state.events > count {
            while let Some(&f) = state.finished.front()
                && !state.streams.contains_key(&f)
            {
                state.finished.pop_front();
            }
            let victim = state
                .finished
                .iter()
                .take(2)
                .copied()
                .find(|&f| f != current && state.streams.contains_key(&f));
            if let Some(v) = victim {
                evicted += self.take_stream(group, state, v);
            } else if self.trim_largest(group, state, current) {
                evicted += 1;
            } else {
                break;
            }
        }
        self.count_evicted(Budget::Session, evicted);
    }

    /// Keeps the whole log within its budget: the oldest finished stream anywhere goes
    /// first (never `current`); when none is left, the oldest events of the session holding
    /// the most (found from each session's byte count, no stream is visited).
    fn enforce_total(&self, current: u64) {
        while self.held.load(Ordering::Relaxed) > self.limits.total_bytes {
            if let Some(n) = self.finished.pop_oldest_but(current) {
                self.remove_stream(n, Some(Budget::Total));
                continue;
            }
            let biggest: Option<Arc<Group>> = {
                let index: std::sync::RwLockReadGuard<'_, Index> = self.read();
                index
                    .sessions
                    .values()
                    .max_by_key(|g| g.held.load(Ordering::Relaxed))
                    .cloned()
            };
            let Some(group) = biggest else { break };
            let trimmed = {
                let mut state = group.lock();
                !state.retired && self.trim_largest(&group, &mut state, current)
            };
            if !trimmed {
                break;
            }
            self.count_evicted(Budget::Total, 1);
        }
    }
}

/// A response or error ends a request stream.
fn ends_request(message: &ServerJsonRpcMessage) -> bool {
    matches!(
        message,
        ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)
    )
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
    /// [`EventLog::resume_by_caller`] holds for the asking caller; here, as a second line,
    /// only a stream bound to a caller is ever replayed — never a session's stream.
    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let sessionless = EventRef::parse(last_event_id).filter(|r| {
            self.with_stream(r.stream, |group, state| {
                group.session.is_none()
                    && state
                        .streams
                        .get(&r.stream)
                        .is_some_and(|log| log.caller.is_some())
            })
            .unwrap_or(false)
        });
        let log = self.me.upgrade();
        let stream: EventStream = match (sessionless, log) {
            (Some(r), Some(log)) => Box::pin(log.tail(r.stream, From::After(r.seq))),
            _ => {
                let empty: std::pin::Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>> =
                    Box::pin(futures::stream::empty());
                empty
            }
        };
        Ok(stream)
    }
}
