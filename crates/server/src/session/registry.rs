//! The session registry: what axgate knows about each live MCP session beyond rmcp's
//! worker — the principal it belongs to, the negotiated protocol version, activity times for
//! idle expiry, and the cap on live sessions. The HTTP intake layer consults it before a
//! request reaches rmcp: a session id presented by anyone but its owner is unknown (404).
//!
//! Clients that never say goodbye (a CLI opening a session per run, never sending `DELETE`)
//! would fill the cap: a session that never opened a GET stream expires sooner
//! (`sessions.idle_without_stream_secs`), and at the cap the longest-idle session may be
//! evicted ([`SessionRegistry::eviction_candidates`]; the manager skips busy and leased ones).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::identity::Principal;

/// Who a session belongs to: the principal's namespaced identity ([`Principal::key`], e.g.
/// `token:ci` or `jwt:<issuer>#<sub>`). Scopes are not part of it, so a token re-scoped on
/// reload keeps its sessions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub key: String,
}

impl Owner {
    /// The owner of a request: `None` without authentication.
    pub fn of(principal: Option<&Principal>) -> Option<Owner> {
        principal.map(|p| Owner {
            key: p.key().to_owned(),
        })
    }
}

/// Session limits, from configuration.
#[derive(Clone, Debug)]
pub struct SessionLimits {
    pub max_sessions: usize,
    pub idle_timeout: Duration,
    /// The idle timeout of a session that never opened a GET stream.
    pub idle_without_stream: Duration,
    /// At the cap, another principal's session may be evicted once idle this long.
    pub evict_others_after: Duration,
    /// Most live sessions of one authenticated principal (`sessions.max_per_principal`).
    pub max_per_principal: usize,
}

/// Why the reaper ends a session (the bounded `reason` label of the eviction metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    Idle,
    IdleWithoutStream,
}

impl Expiry {
    pub fn label(self) -> &'static str {
        match self {
            Expiry::Idle => "idle",
            Expiry::IdleWithoutStream => "idle_without_stream",
        }
    }
}

#[derive(Clone, Debug)]
pub struct SessionEntry {
    /// Set when the session's `initialize` is answered; `None` without authentication.
    pub owner: Option<Owner>,
    pub protocol_version: Option<String>,
    pub created: Instant,
    pub last_seen: Instant,
    /// The session opened its GET stream at least once.
    pub opened_stream: bool,
}

pub struct SessionRegistry {
    limits: SessionLimits,
    sessions: Mutex<HashMap<String, SessionEntry>>,
    /// Sessions being made, per principal key: an `initialize` admitted but not yet bound to
    /// its owner ([`QuotaHold`]). Locked after `sessions`, never before.
    pending: Mutex<HashMap<String, usize>>,
}

/// A principal's place for a session being made, counted against its quota from admission
/// until the session is bound to it (or the attempt fails): concurrent `initialize`s of one
/// principal cannot all pass a check made before any of them holds a session.
pub struct QuotaHold {
    registry: Arc<SessionRegistry>,
    key: String,
}

impl Drop for QuotaHold {
    fn drop(&mut self) {
        let mut pending = self.registry.pending_lock();
        if let Some(n) = pending.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                pending.remove(&self.key);
            }
        }
    }
}

impl SessionRegistry {
    pub fn new(limits: SessionLimits) -> Self {
        SessionRegistry {
            limits,
            sessions: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
        }
    }

    fn pending_lock(&self) -> MutexGuard<'_, HashMap<String, usize>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a place in `asking`'s quota for a session about to be made, when it has one
    /// (counting its live sessions and the places already taken); `None` past the quota.
    /// Without authentication there is no quota: `Some` with nothing held.
    pub fn reserve(self: &Arc<Self>, asking: &Option<Owner>) -> Option<Option<QuotaHold>> {
        let Some(owner) = asking else {
            return Some(None);
        };
        let sessions = self.lock();
        let held = sessions.values().filter(|e| e.owner == *asking).count();
        let mut pending = self.pending_lock();
        let taken = pending.get(&owner.key).copied().unwrap_or(0);
        if held + taken >= self.limits.max_per_principal {
            return None;
        }
        *pending.entry(owner.key.clone()).or_insert(0) += 1;
        Some(Some(QuotaHold {
            registry: self.clone(),
            key: owner.key.clone(),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, SessionEntry>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn limits(&self) -> &SessionLimits {
        &self.limits
    }

    pub fn insert(&self, id: &str) {
        let now = Instant::now();
        self.lock().insert(
            id.to_owned(),
            SessionEntry {
                owner: None,
                protocol_version: None,
                created: now,
                last_seen: now,
                opened_stream: false,
            },
        );
    }

    pub fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    pub fn get(&self, id: &str) -> Option<SessionEntry> {
        self.lock().get(id).cloned()
    }

    /// Binds a new session to the principal that initialized it.
    pub fn set_owner(&self, id: &str, owner: Option<Owner>) {
        if let Some(entry) = self.lock().get_mut(id) {
            entry.owner = owner;
        }
    }

    /// Every live session, for administration.
    pub fn entries(&self) -> Vec<(String, SessionEntry)> {
        self.lock()
            .iter()
            .map(|(id, entry)| (id.clone(), entry.clone()))
            .collect()
    }

    pub fn set_protocol_version(&self, id: &str, version: &str) {
        if let Some(entry) = self.lock().get_mut(id) {
            entry.protocol_version = Some(version.to_owned());
        }
    }

    /// Marks activity; returns false for an unknown session.
    pub fn touch(&self, id: &str) -> bool {
        match self.lock().get_mut(id) {
            Some(entry) => {
                entry.last_seen = Instant::now();
                true
            }
            None => false,
        }
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Whether another session may be created now.
    pub fn has_room(&self) -> bool {
        self.len() < self.limits.max_sessions
    }

    /// Marks that the session opened its GET stream (it then gets the full idle timeout).
    pub fn opened_stream(&self, id: &str) {
        if let Some(entry) = self.lock().get_mut(id) {
            entry.opened_stream = true;
        }
    }

    /// Sessions idle for longer than their timeout, and which timeout.
    pub fn idle(&self) -> Vec<(String, Expiry)> {
        let long = self.limits.idle_timeout;
        let short = self.limits.idle_without_stream.min(long);
        self.lock()
            .iter()
            .filter_map(|(id, e)| {
                let idle = e.last_seen.elapsed();
                if idle >= long {
                    Some((id.clone(), Expiry::Idle))
                } else if !e.opened_stream && idle >= short {
                    Some((id.clone(), Expiry::IdleWithoutStream))
                } else {
                    None
                }
            })
            .collect()
    }

    /// Whether `asking` may open one more session: it holds fewer than
    /// `sessions.max_per_principal`. Asked before any session is evicted to make room, so a
    /// principal at its quota never pushes out another's session. Without authentication
    /// there is one caller, the cap is its only bound.
    pub fn within_quota(&self, asking: &Option<Owner>) -> bool {
        let Some(owner) = asking else {
            return true;
        };
        let held = self.held_by(asking);
        let taken = self.pending_lock().get(&owner.key).copied().unwrap_or(0);
        held + taken < self.limits.max_per_principal
    }

    /// How many live sessions `owner` holds.
    pub fn held_by(&self, owner: &Option<Owner>) -> usize {
        self.lock().values().filter(|e| e.owner == *owner).count()
    }

    /// Sessions `asking` may evict to make room at the cap, longest idle first, each with
    /// whether it is `asking`'s own: its own sessions at any idle time, another principal's
    /// only once idle for `sessions.evict_others_after_secs`. Whether a session is busy
    /// (open stream, running request) or leased is the manager's to check.
    pub fn eviction_candidates(&self, asking: &Option<Owner>) -> Vec<(String, bool)> {
        let others_after = self.limits.evict_others_after;
        let mut found: Vec<(Instant, String, bool)> = self
            .lock()
            .iter()
            .filter_map(|(id, e)| {
                let own = e.owner == *asking;
                (own || e.last_seen.elapsed() >= others_after)
                    .then(|| (e.last_seen, id.clone(), own))
            })
            .collect();
        found.sort_by_key(|(seen, _, _)| *seen);
        found.into_iter().map(|(_, id, own)| (id, own)).collect()
    }

    pub fn ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(name: &str) -> Option<Owner> {
        Some(Owner {
            key: format!("token:{name}"),
        })
    }

    fn registry(others_after: Duration) -> SessionRegistry {
        SessionRegistry::new(SessionLimits {
            max_sessions: 3,
            idle_timeout: Duration::from_secs(3600),
            idle_without_stream: Duration::from_secs(60),
            evict_others_after: others_after,
            max_per_principal: 2,
        })
    }

    #[test]
    fn own_sessions_are_candidates_longest_idle_first_and_others_only_when_long_idle() {
        let r = registry(Duration::from_secs(3600));
        for (id, who) in [("a1", "alice"), ("b1", "bob"), ("a2", "alice")] {
            r.insert(id);
            r.set_owner(id, owner(who));
            std::thread::sleep(Duration::from_millis(5));
        }
        r.touch("a1");
        let ids: Vec<(String, bool)> = r.eviction_candidates(&owner("alice"));
        assert_eq!(ids, vec![("a2".to_owned(), true), ("a1".to_owned(), true)]);
        let r = registry(Duration::ZERO);
        r.insert("b1");
        r.set_owner("b1", owner("bob"));
        assert_eq!(
            r.eviction_candidates(&owner("alice")),
            vec![("b1".to_owned(), false)]
        );
    }

    #[test]
    fn the_quota_counts_a_principals_own_sessions_and_spares_the_unauthenticated() {
        let r = registry(Duration::ZERO);
        for id in ["a1", "a2", "b1"] {
            r.insert(id);
        }
        r.set_owner("a1", owner("alice"));
        assert!(r.within_quota(&owner("alice")));
        r.set_owner("a2", owner("alice"));
        r.set_owner("b1", owner("bob"));
        assert_eq!(r.held_by(&owner("alice")), 2);
        assert!(!r.within_quota(&owner("alice")), "alice holds her 2");
        assert!(r.within_quota(&owner("bob")));
        assert!(r.within_quota(&None), "no principal: only the cap applies");
    }

    #[test]
    fn a_session_without_a_get_stream_expires_sooner() {
        let r = SessionRegistry::new(SessionLimits {
            max_sessions: 3,
            idle_timeout: Duration::from_secs(3600),
            idle_without_stream: Duration::ZERO,
            evict_others_after: Duration::ZERO,
            max_per_principal: 3,
        });
        r.insert("quiet");
        r.insert("listening");
        r.opened_stream("listening");
        assert_eq!(
            r.idle(),
            vec![("quiet".to_owned(), Expiry::IdleWithoutStream)]
        );
    }
}
