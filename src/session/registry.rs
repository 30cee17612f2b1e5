//! The session registry: what axgate knows about each live MCP session beyond rmcp's
//! worker — the principal it belongs to, the negotiated protocol version, activity times for
//! idle expiry, and the cap on live sessions. The HTTP intake layer consults it before a
//! request reaches rmcp: a session id presented by anyone but its owner is unknown (404).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::identity::{Principal, PrincipalKind};

/// Who a session belongs to: how the principal authenticated and its name. Scopes are not
/// part of it, so a token re-scoped on reload keeps its sessions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub kind: PrincipalKind,
    pub name: String,
}

impl Owner {
    /// The owner of a request: `None` without authentication.
    pub fn of(principal: Option<&Principal>) -> Option<Owner> {
        principal.map(|p| Owner {
            kind: p.kind,
            name: p.name.clone(),
        })
    }
}

/// Session limits, from configuration.
#[derive(Clone, Debug)]
pub struct SessionLimits {
    pub max_sessions: usize,
    pub idle_timeout: Duration,
}

#[derive(Clone, Debug)]
pub struct SessionEntry {
    /// Set when the session's `initialize` is answered; `None` without authentication.
    pub owner: Option<Owner>,
    pub protocol_version: Option<String>,
    pub created: Instant,
    pub last_seen: Instant,
}

pub struct SessionRegistry {
    limits: SessionLimits,
    sessions: Mutex<HashMap<String, SessionEntry>>,
}

impl SessionRegistry {
    pub fn new(limits: SessionLimits) -> Self {
        SessionRegistry {
            limits,
            sessions: Mutex::new(HashMap::new()),
        }
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

    /// Sessions idle for longer than the timeout.
    pub fn idle(&self) -> Vec<String> {
        let timeout = self.limits.idle_timeout;
        self.lock()
            .iter()
            .filter(|(_, e)| e.last_seen.elapsed() >= timeout)
            .map(|(id, _)| id.clone())
            .collect()
    }

    pub fn ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }
}
