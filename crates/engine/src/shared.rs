//! One backend read shared by the callers that want it at the same time, never older than
//! their own request.
//!
//! Every tool that names an app first reads the list of running apps (`Engine::all_apps`:
//! a job on the Global AX worker and back). Under load many such reads are queued at once,
//! each paying the hand-off to the worker thread, the wake-up back and the backend's own
//! enumeration, for the same answer. Here a caller that arrives while a read is running
//! waits for the *next* read, which one of the waiting callers starts as soon as the running
//! one ends, and every caller waiting then gets its result. A read that started before a
//! caller arrived is never that caller's answer: an app launched just before a request is
//! always in the list the request gets, exactly as if each caller read alone.
//!
//! The reader that leads a read may be dropped (its request cancelled): another waiting
//! caller then starts the read. An error is every waiter's error, as a timeout of the Global
//! worker would be. A caller waits no longer than its own deadline: a hung read ends each
//! waiter with a timeout when that waiter's time is up, as its own job would have. The last
//! result stays until the next read (one app list).

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use tokio::sync::Notify;

use super::error::AxError;

/// Reads of one kind (`T`: the running apps), shared between concurrent callers.
pub struct Shared<T> {
    /// Who makes the reads, as a timeout names it ("backend").
    what: &'static str,
    state: Mutex<State<T>>,
    /// Rung when a read ends or its leader leaves.
    ended: Notify,
}

struct State<T> {
    /// The number of the last read started (reads are numbered from 1).
    started: u64,
    /// Whether read number `started` is running.
    running: bool,
    /// The newest read that ended: its number and result.
    last: Option<(u64, Result<Arc<T>, AxError>)>,
}

/// How a caller got its result ([`Shared::get`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Got {
    /// It made the read itself.
    Read,
    /// A read another caller started after this caller arrived.
    Shared,
}

impl<T> Shared<T> {
    /// No read yet; `what` names the reader in a timeout ("backend").
    pub fn new(what: &'static str) -> Self {
        Shared {
            what,
            state: Mutex::new(State {
                started: 0,
                running: false,
                last: None,
            }),
            ended: Notify::new(),
        }
    }

    /// The result of a read that started after this call did: made by `read` when no read
    /// is running (or when the one this caller waited for was abandoned), else the next
    /// read another caller makes, waited for until `until` (then a timeout). `read` keeps
    /// its own deadline.
    pub async fn get<F, Fut>(&self, until: Instant, read: F) -> (Result<Arc<T>, AxError>, Got)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, AxError>>,
    {
        let mut need = None;
        let arrived = Instant::now();
        let number = loop {
            let ended = self.ended.notified();
            let mut ended = std::pin::pin!(ended);
            // Registered before the state is looked at: an end in between is not missed.
            ended.as_mut().enable();
            {
                let mut state = self.lock();
                // The first read to start from now on: the next one if one is running.
                let need = *need.get_or_insert(state.started + 1);
                if let Some((number, result)) = &state.last
                    && *number >= need
                {
                    return (result.clone(), Got::Shared);
                }
                if !state.running {
                    state.started += 1;
                    state.running = true;
                    break state.started;
                }
            }
            if tokio::time::timeout_at(until.into(), ended).await.is_err() {
                let timeout = AxError::Timeout {
                    app: self.what.to_owned(),
                    after: arrived.elapsed(),
                };
                return (Err(timeout), Got::Shared);
            }
        };
        let mut lead = Lead {
            shared: self,
            number,
            ended: false,
        };
        let result = read().await.map(Arc::new);
        lead.end(result.clone());
        (result, Got::Read)
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The running read's leader: publishes its result, or, dropped before (its caller
/// cancelled), lets a waiting caller start the read instead.
struct Lead<'a, T> {
    shared: &'a Shared<T>,
    number: u64,
    ended: bool,
}

impl<T> Lead<'_, T> {
    fn end(&mut self, result: Result<Arc<T>, AxError>) {
        let mut state = self.shared.lock();
        state.running = false;
        state.last = Some((self.number, result));
        drop(state);
        self.ended = true;
        self.shared.ended.notify_waiters();
    }
}

impl<T> Drop for Lead<'_, T> {
    fn drop(&mut self) {
        if !self.ended {
            self.shared.lock().running = false;
            self.shared.ended.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;
    use tokio::sync::oneshot;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    /// A read that returns its own number once `go` fires, counting reads.
    async fn read(reads: &AtomicU64, go: oneshot::Receiver<()>) -> Result<u64, AxError> {
        let number = reads.fetch_add(1, Ordering::SeqCst) + 1;
        let _ = go.await;
        Ok(number)
    }

    type Leader = tokio::task::JoinHandle<(Result<Arc<u64>, AxError>, Got)>;

    /// A shared read whose leader is running read 1 and stays there until the returned
    /// sender fires (or is dropped).
    async fn stuck_leader() -> (
        Arc<Shared<u64>>,
        Arc<AtomicU64>,
        Leader,
        oneshot::Sender<()>,
    ) {
        let shared = Arc::new(Shared::<u64>::new("backend"));
        let reads = Arc::new(AtomicU64::new(0));
        let (release, stuck) = oneshot::channel::<()>();
        let leader = {
            let (shared, reads) = (shared.clone(), reads.clone());
            tokio::spawn(async move { shared.get(far(), || read(&reads, stuck)).await })
        };
        while reads.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        (shared, reads, leader, release)
    }

    #[tokio::test]
    async fn callers_that_arrive_during_a_read_share_the_next_one_not_that_one() {
        let shared = Arc::new(Shared::<u64>::new("backend"));
        let reads = Arc::new(AtomicU64::new(0));
        let (first_go, first_wait) = oneshot::channel();
        let first = {
            let (shared, reads) = (shared.clone(), reads.clone());
            tokio::spawn(async move { shared.get(far(), || read(&reads, first_wait)).await })
        };
        while reads.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        // Five callers arrive while read 1 runs; each would start a read that waits for
        // nothing, but only one of them may.
        let mut later = Vec::new();
        for _ in 0..5 {
            let (shared, reads) = (shared.clone(), reads.clone());
            later.push(tokio::spawn(async move {
                let (go, wait) = oneshot::channel();
                go.send(()).unwrap();
                shared.get(far(), || read(&reads, wait)).await
            }));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            reads.load(Ordering::SeqCst),
            1,
            "they wait for read 1 to end"
        );
        first_go.send(()).unwrap();
        let (first, got) = first.await.unwrap();
        assert_eq!((*first.unwrap(), got), (1, Got::Read));
        let mut shared_count = 0;
        for caller in later {
            let (result, got) = caller.await.unwrap();
            // Never read 1, which started before they arrived.
            assert_eq!(*result.unwrap(), 2);
            shared_count += usize::from(got == Got::Shared);
        }
        assert_eq!(reads.load(Ordering::SeqCst), 2);
        assert_eq!(shared_count, 4, "one of them made read 2, four shared it");
    }

    #[tokio::test]
    async fn a_caller_alone_reads_every_time() {
        let shared = Shared::<u64>::new("backend");
        let reads = AtomicU64::new(0);
        for expected in 1..=3 {
            let (go, wait) = oneshot::channel();
            go.send(()).unwrap();
            let (result, got) = shared.get(far(), || read(&reads, wait)).await;
            assert_eq!((*result.unwrap(), got), (expected, Got::Read));
        }
    }

    #[tokio::test]
    async fn a_leader_that_leaves_hands_the_read_to_a_waiting_caller() {
        let (shared, reads, leader, _never) = stuck_leader().await;
        let waiter = {
            let (shared, reads) = (shared.clone(), reads.clone());
            tokio::spawn(async move {
                let (go, wait) = oneshot::channel();
                go.send(()).unwrap();
                shared.get(far(), || read(&reads, wait)).await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        leader.abort();
        let (result, got) = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the waiter is not stranded")
            .unwrap();
        assert_eq!((*result.unwrap(), got), (2, Got::Read));
    }

    #[tokio::test]
    async fn an_error_is_every_waiters_error() {
        let shared = Arc::new(Shared::<u64>::new("backend"));
        let (go, wait) = oneshot::channel::<()>();
        let started = Arc::new(Notify::new());
        let first = {
            let (shared, started) = (shared.clone(), started.clone());
            tokio::spawn(async move {
                shared
                    .get(far(), || async move {
                        started.notify_one();
                        let _ = wait.await;
                        Ok(1)
                    })
                    .await
            })
        };
        started.notified().await;
        let failing = || async { Err(AxError::Backend("the worker stopped".into())) };
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let shared = shared.clone();
                tokio::spawn(async move { shared.get(far(), failing).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(20)).await;
        go.send(()).unwrap();
        assert_eq!(*first.await.unwrap().0.unwrap(), 1);
        for waiter in waiters {
            let (result, _) = waiter.await.unwrap();
            assert_eq!(
                result.unwrap_err(),
                AxError::Backend("the worker stopped".into())
            );
        }
    }

    #[tokio::test]
    async fn a_waiter_ends_at_its_own_deadline_when_the_read_hangs() {
        let (shared, reads, _leader, _never) = stuck_leader().await;
        let started = Instant::now();
        let until = started + Duration::from_millis(100);
        let waiting = shared.get(until, || read(&reads, stuck_read()));
        let (result, got) = tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("the waiter ends at its deadline, not with the hung read");
        assert!(matches!(result, Err(AxError::Timeout { .. })), "{result:?}");
        assert_eq!(got, Got::Shared);
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(reads.load(Ordering::SeqCst), 1, "it never read itself");
    }

    /// A read's `go` for a read that never runs (the caller only ever waits).
    fn stuck_read() -> oneshot::Receiver<()> {
        oneshot::channel().1
    }
}
