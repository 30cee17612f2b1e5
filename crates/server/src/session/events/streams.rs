//! Binding streams to their session or caller, the answers a resume gets, and the ends of a
//! request's stream (finished, cancelled, abandoned, its consumer closed).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;

use super::{Caller, EventLog, EventRef, Group, Resume, StreamLog, Whose, finish, gap_after};

/// The stream number of a request id claimed before its stream exists (stream numbers
/// count up from 1 and never reach it).
const CLAIMED: u64 = u64::MAX;

impl EventLog {
    /// Binds the stream of `event_id` to `session` (request streams are named by rmcp with a
    /// bare UUID, so the session is learned from the first event the wrapper sees): the
    /// stream moves into the session's group.
    pub fn bind(&self, event_id: &str, session: &str) -> Option<u64> {
        let n = EventRef::parse(event_id)?.stream;
        let target = self.read().sessions.get(session).cloned()?;
        loop {
            let group = self.group_of(n)?;
            if Arc::ptr_eq(&group, &target) {
                return Some(n);
            }
            if group.session.is_some() {
                return None;
            }
            let mut from = group.lock();
            if from.retired {
                continue;
            }
            let log = from.streams.get(&n)?;
            if log.caller.is_some() || log.abandoned {
                return None;
            }
            let mut to = target.lock();
            if to.retired {
                return None;
            }
            let log = from.streams.remove(&n)?;
            from.retired = true;
            from.bytes = 0;
            from.events = 0;
            group.held.store(0, Ordering::Relaxed);
            to.bytes += log.bytes;
            to.events += log.events.len();
            target.held.store(to.bytes, Ordering::Relaxed);
            if log.finished_at.is_some() {
                to.finished.push_back(n);
            }
            to.streams.insert(n, log);
            self.write().groups.insert(n, target.clone());
            self.enforce_session(&target, &mut to, n);
            return Some(n);
        }
    }

    /// Binds the sessionless stream of `event_id` to the caller whose request it answers.
    /// Only a stream with neither session nor caller is bound; returns its number. rmcp
    /// delivers such a stream itself: events too large to keep are dropped from here.
    pub fn bind_caller(&self, event_id: &str, caller: Caller) -> Option<u64> {
        let n = EventRef::parse(event_id)?.stream;
        self.with_stream(n, |group, state| {
            if group.session.is_some() {
                return None;
            }
            let log = state.streams.get_mut(&n)?;
            if log.caller.is_some() || log.abandoned {
                return None;
            }
            log.caller = Some(caller);
            // rmcp delivers it: nothing here waits for a consumer.
            log.live = None;
            let dropped: usize = log.passing.drain(..).map(|e| e.weight).sum();
            self.release(dropped);
            Some(n)
        })
        .flatten()
    }

    /// Whether `caller` may replay after `event_id`: it names a sessionless stream bound to
    /// this very caller, and every event after it is still held.
    pub fn resume_by_caller(&self, event_id: &str, caller: &Caller) -> Resume {
        let Some(r) = EventRef::parse(event_id) else {
            return Resume::Unknown;
        };
        let held = self.with_stream(r.stream, |group, state| {
            let log = state.streams.get(&r.stream)?;
            (group.session.is_none() && log.caller.as_ref() == Some(caller))
                .then(|| gap_after(log, r.seq))
        });
        match held {
            Some(Some(resume)) => resume,
            Some(None) => Resume::Unknown,
            None => self.tombstone(r.stream, &Whose::Caller(caller.clone())),
        }
    }

    /// Whether `session` may resume after `event_id`: a stream of this session that still
    /// holds every event after it.
    pub fn resume_in_session(&self, event_id: &str, session: &str) -> Resume {
        let Some(r) = EventRef::parse(event_id) else {
            return Resume::Unknown;
        };
        let held = self.with_stream(r.stream, |group, state| {
            let log = state.streams.get(&r.stream)?;
            (group.session.as_deref() == Some(session)).then(|| gap_after(log, r.seq))
        });
        match held {
            Some(Some(resume)) => resume,
            Some(None) => Resume::Unknown,
            None => self.tombstone(r.stream, &Whose::Session(session.to_owned())),
        }
    }

    fn tombstone(&self, stream: u64, whose: &Whose) -> Resume {
        if self.read().tombstones.get(&stream) == Some(whose) {
            Resume::Evicted
        } else {
            Resume::Unknown
        }
    }

    /// Whether the stream's request has ended (its response or error is stored).
    pub fn is_finished(&self, stream: u64) -> bool {
        self.with_stream(stream, |_, state| {
            state.streams.get(&stream).map(|l| l.finished_at.is_some())
        })
        .flatten()
        .unwrap_or(true)
    }

    /// Waits until no sessionless stream bound to a caller is still open (each has its
    /// response stored), or `within` passes. Shutdown uses it so that listens ended on
    /// purpose get their final result out before rmcp stops forwarding.
    pub async fn settle_sessionless(&self, within: Duration) {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            let loose: Vec<Arc<Group>> = self
                .read()
                .groups
                .values()
                .filter(|g| g.session.is_none())
                .cloned()
                .collect();
            let open = loose.iter().any(|g| {
                g.lock()
                    .streams
                    .values()
                    .any(|log| log.caller.is_some() && log.finished_at.is_none())
            });
            if !open {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Gives up a sessionless stream whose client went away before its response: it ends
    /// now, is replayable by nobody, holds nothing, and is dropped after the TTL.
    pub fn abandon(&self, stream: u64) {
        let newly = self.with_stream(stream, |group, state| {
            let log = state.streams.get_mut(&stream)?;
            log.caller = None;
            log.abandoned = true;
            let count = log.events.len();
            let kept = log.bytes;
            let freed: usize = kept + log.passing.drain(..).map(|e| e.weight).sum::<usize>();
            log.events.clear();
            log.bytes = 0;
            log.wake();
            let newly = finish(state, stream);
            state.bytes -= kept.min(state.bytes);
            state.events -= count.min(state.events);
            group.held.store(state.bytes, Ordering::Relaxed);
            self.release(freed);
            Some(newly)
        });
        if newly == Some(Some(true)) {
            self.queue_finished(stream);
        }
    }

    /// Reserves `request_id` in `session` for a request about to start: false when a request
    /// with that id is still running there. Responses are routed by id, so a second request
    /// with a running one's id would leave one of the two without an answer, its stream open
    /// for as long as the session lives. [`EventLog::register_request`] takes the place over;
    /// [`EventLog::release_claim`] gives it back when the request never started.
    pub fn claim_request(&self, session: &str, request_id: &str) -> bool {
        let Some(group) = self.session_group(session) else {
            return true;
        };
        let mut state = group.lock();
        if state.requests.contains_key(request_id) {
            return false;
        }
        state.requests.insert(request_id.to_owned(), CLAIMED);
        true
    }

    /// Gives back a [`EventLog::claim_request`] place that no stream took.
    pub fn release_claim(&self, session: &str, request_id: &str) {
        if let Some(group) = self.session_group(session) {
            let mut state = group.lock();
            if state.requests.get(request_id) == Some(&CLAIMED) {
                state.requests.remove(request_id);
            }
        }
    }

    /// Remembers which stream answers a request, so a cancellation can end it.
    pub fn register_request(&self, session: &str, request_id: &str, stream: u64) {
        self.with_stream(stream, |group, state| {
            if group.session.as_deref() != Some(session) {
                return;
            }
            if let Some(log) = state.streams.get_mut(&stream)
                && log.finished_at.is_none()
            {
                log.request = Some(request_id.to_owned());
                state.requests.insert(request_id.to_owned(), stream);
            }
        });
    }

    /// Opens the stream of request `request_id` in `session` for a request the server
    /// answers itself (`http::direct`), ending as rmcp's worker and [`EventLog::bind`] leave
    /// one: a priming event carrying `retry`, the stream in the session's group and
    /// registered for the request. It is created there at once — no group of its own, no
    /// move, no entry in the queue of unbound streams — under one index write. Returns the
    /// stream's name for [`EventLog::deliver`] and its number; `None` when the session is
    /// gone.
    pub fn open_request(
        &self,
        session: &str,
        request_id: &str,
        retry: Duration,
    ) -> Option<(String, u64)> {
        let group = self.session_group(session)?;
        let name = format!(
            "direct:{}",
            self.next_direct.fetch_add(1, Ordering::Relaxed)
        );
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed);
        {
            let mut state = group.lock();
            if state.retired {
                return None;
            }
            let mut log = StreamLog::new(&name, false);
            log.request = Some(request_id.to_owned());
            state.streams.insert(n, log);
            state.requests.insert(request_id.to_owned(), n);
            // Indexed before the group's lock is let go, as `drop_session` expects.
            let mut index = self.write();
            index.by_rmcp_id.insert(name.clone(), n);
            index.groups.insert(n, group.clone());
        }
        self.append(&name, &ServerSseMessage::retry(retry));
        Some((name, n))
    }

    /// Stores `message` on the stream `name` from [`EventLog::open_request`]; a response
    /// finishes it.
    pub fn deliver(&self, name: &str, message: ServerJsonRpcMessage) {
        let mut event = ServerSseMessage::default();
        event.message = Some(Arc::new(message));
        self.append(name, &event);
    }

    fn session_group(&self, session: &str) -> Option<Arc<Group>> {
        self.read().sessions.get(session).cloned()
    }

    /// Ends the stream of a cancelled request: a cancelled request gets no response, so
    /// its stream would otherwise stay open.
    pub fn finish_request(&self, session: &str, request_id: &str) {
        let Some(group) = self.session_group(session) else {
            return;
        };
        let ended = {
            let mut state = group.lock();
            let Some(stream) = state.requests.get(request_id).copied() else {
                return;
            };
            if let Some(log) = state.streams.get(&stream) {
                log.wake();
            }
            finish(&mut state, stream).then_some(stream)
        };
        if let Some(stream) = ended {
            self.queue_finished(stream);
        }
    }

    /// Ends the current consumer of a request's stream, leaving the stream open: that SSE
    /// response closes, and a `Last-Event-ID` resume continues it. `false` when the request
    /// has no registered stream.
    pub fn close_consumer(&self, session: &str, request_id: &str) -> bool {
        let Some(group) = self.session_group(session) else {
            return false;
        };
        let mut state = group.lock();
        let Some(stream) = state.requests.get(request_id).copied() else {
            return false;
        };
        let Some(log) = state.streams.get_mut(&stream) else {
            return false;
        };
        log.consumer += 1;
        log.wake();
        true
    }
}
