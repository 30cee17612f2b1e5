//! The log's two time-ordered queues of stream numbers: finished streams (the first to go
//! over the total budget, and the TTL sweep) and streams created outside any session (swept
//! when never bound). An entry is pushed when its stream finishes or is created, and popped
//! from the front when it is old enough.
//!
//! Streams also leave the log out of that order: a session over its own budget drops its
//! oldest finished streams, a request stream moves into its session when it is bound. Their
//! entries would then wait in the queue until the TTL (5 minutes by default), and at
//! thousands of calls a second that was 24 bytes × calls × TTL per queue: tens of MiB that
//! no budget weighed. So a queue is *compacted* — entries whose stream is gone are dropped —
//! once it has doubled since the last compaction (and holds at least [`SLACK`] entries). Its
//! length then stays within twice the number of live streams, or [`SLACK`], which the byte
//! budgets bound (every live stream holds at least its priming event); the cost is amortised
//! O(1) per push. `axgate_event_log_queue_bytes` shows both queues' allocations.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Below this many entries a queue is never compacted.
pub(super) const SLACK: usize = 1024;

/// One entry: when, and which stream.
type Entry = (Instant, u64);

/// A queue of streams in time order.
pub(super) struct Queue {
    inner: Mutex<Inner>,
    /// Bytes of the queue's allocation, readable without its lock.
    bytes: AtomicUsize,
}

struct Inner {
    entries: VecDeque<Entry>,
    /// The length at which the next push asks for a compaction.
    compact_at: usize,
}

impl Default for Queue {
    fn default() -> Self {
        Queue {
            inner: Mutex::new(Inner {
                entries: VecDeque::new(),
                compact_at: SLACK,
            }),
            bytes: AtomicUsize::new(0),
        }
    }
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn weigh(&self, inner: &Inner) {
        self.bytes.store(
            inner.entries.capacity() * size_of::<Entry>(),
            Ordering::Relaxed,
        );
    }

    /// Appends `stream` now. True when the queue should be compacted
    /// ([`Queue::compact`]): the caller does it, because compaction needs the log's index,
    /// which is never taken while a queue is held.
    pub(super) fn push(&self, stream: u64) -> bool {
        let mut inner = self.lock();
        inner.entries.push_back((Instant::now(), stream));
        self.weigh(&inner);
        inner.entries.len() >= inner.compact_at
    }

    /// Keeps only the entries whose stream is `live`, and gives back the room of the others.
    pub(super) fn compact(&self, live: impl Fn(u64) -> bool) {
        let mut inner = self.lock();
        inner.entries.retain(|&(_, n)| live(n));
        let len = inner.entries.len();
        inner.compact_at = (2 * len).max(SLACK);
        if inner.entries.capacity() > 2 * inner.compact_at {
            let keep = inner.compact_at;
            inner.entries.shrink_to(keep);
        }
        self.weigh(&inner);
    }

    /// The front entry's stream, when it is older than `ttl`.
    pub(super) fn pop_expired(&self, ttl: Duration) -> Option<u64> {
        let mut inner = self.lock();
        match inner.entries.front() {
            Some((at, _)) if at.elapsed() >= ttl => inner.entries.pop_front().map(|(_, n)| n),
            _ => None,
        }
    }

    /// Removes and returns the first of the two front entries that is not `keep`.
    pub(super) fn pop_oldest_but(&self, keep: u64) -> Option<u64> {
        let mut inner = self.lock();
        let at = inner.entries.iter().take(2).position(|&(_, n)| n != keep)?;
        inner.entries.remove(at).map(|(_, n)| n)
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().entries.len()
    }

    pub(super) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}
