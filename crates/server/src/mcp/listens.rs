//! The server's running `subscriptions/listen` requests (2026-07-28), counted per principal:
//! at most `limits.max_listens_per_principal` run at once for one principal (past it a new
//! one is refused, naming the limit); a reload that removes a principal's credential ends
//! its listens ([`Listens::revoke`]); shutdown ends them all gracefully — the revision asks
//! for a final `subscriptions/listen` result before the stream closes, and rmcp stops
//! forwarding once the server's cancellation fires.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio_util::sync::CancellationToken;

/// The running listens; cheap to clone (one shared table).
#[derive(Clone, Default)]
pub struct Listens {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Cancelled at shutdown.
    closing: CancellationToken,
    /// Per principal key: how many run, and the token that ends them on revocation.
    held: Mutex<HashMap<String, Held>>,
}

struct Held {
    running: usize,
    revoked: CancellationToken,
}

/// Held by a running listen: counts it against its principal until dropped.
pub struct ListenGuard {
    inner: Arc<Inner>,
    key: String,
    revoked: CancellationToken,
}

/// A listen refused because its principal already runs its limit of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyListens {
    pub limit: usize,
}

impl std::fmt::Display for TooManyListens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "this principal already runs {} subscriptions/listen requests, its limit \
             (limits.max_listens_per_principal); close one of its streams first",
            self.limit
        )
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Listens {
    /// Counts a listen of the principal `key` until the guard is dropped, unless it already
    /// runs `limit` of them.
    pub fn enter(&self, key: &str, limit: usize) -> Result<ListenGuard, TooManyListens> {
        let mut held = self.inner.lock();
        let entry = held.entry(key.to_owned()).or_insert_with(|| Held {
            running: 0,
            revoked: CancellationToken::new(),
        });
        if entry.running >= limit {
            return Err(TooManyListens { limit });
        }
        entry.running += 1;
        Ok(ListenGuard {
            inner: self.inner.clone(),
            key: key.to_owned(),
            revoked: entry.revoked.clone(),
        })
    }

    /// Resolves when shutdown asks every listen to end.
    pub async fn closing(&self) {
        self.inner.closing.cancelled().await;
    }

    /// Running listens, over all principals.
    pub fn active(&self) -> usize {
        self.inner.lock().values().map(|h| h.running).sum()
    }

    /// The principals with a running listen.
    pub fn principals(&self) -> Vec<String> {
        self.inner.lock().keys().cloned().collect()
    }

    /// Ends every running listen of the principal `key` (its credential was removed).
    pub fn revoke(&self, key: &str) {
        if let Some(held) = self.inner.lock().remove(key) {
            held.revoked.cancel();
        }
    }

    /// Asks every listen to end. Each then returns its final result, which the caller waits
    /// for in the event log (`EventLog::settle_sessionless`).
    pub fn close(&self) {
        self.inner.closing.cancel();
    }
}

impl ListenGuard {
    /// Resolves when the listen's principal is revoked.
    pub async fn revoked(&self) {
        self.revoked.cancelled().await;
    }
}

impl Drop for ListenGuard {
    fn drop(&mut self) {
        let mut held = self.inner.lock();
        // After a revocation the entry may be a new one (of listens started since): only
        // this listen's own generation is counted down.
        if let Some(entry) = held.get_mut(&self.key)
            && !self.revoked.is_cancelled()
        {
            entry.running = entry.running.saturating_sub(1);
            if entry.running == 0 {
                held.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listens_are_capped_per_principal_and_revoked_per_principal() {
        let listens = Listens::default();
        let a1 = listens.enter("token:a", 2).expect("first");
        let a2 = listens.enter("token:a", 2).expect("second");
        let refused = listens.enter("token:a", 2).err().expect("third refused");
        assert!(
            refused
                .to_string()
                .contains("limits.max_listens_per_principal")
        );
        let b = listens.enter("token:b", 2).expect("another principal");
        assert_eq!(listens.active(), 3);
        drop(a1);
        assert_eq!(listens.active(), 2);
        listens.revoke("token:a");
        assert!(!b.revoked.is_cancelled());
        assert_eq!(listens.active(), 1);
        // A new listen after the revocation counts afresh; the old guard's drop does not
        // count it down.
        let _a3 = listens.enter("token:a", 2).expect("after revocation");
        drop(a2);
        assert_eq!(listens.active(), 2);
    }
}
