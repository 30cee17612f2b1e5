//! The handle table behind `NodeId`s: id ↔ element, per pid. The same element (by the
//! element type's equality: `CFEqual` on macOS) always gets the same id, so snapshots of one
//! app can be diffed. Each app's table remembers the process start time it was filled under:
//! when the pid now belongs to a relaunched process, the old handles are dropped rather than
//! pointed at the new app. Tables are bounded: ids not seen in recent mint batches are
//! evicted, and the engine re-resolves them by path. Generic over the element type, so it is
//! tested here with plain values; the macOS adapter supplies `AXUIElement`s and start times.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use axgate_engine::{NodeId, Pid};

/// Handles kept per app before old ones are evicted.
pub(crate) const MAX_PER_APP: usize = 50_000;

/// Mint batches (snapshots) a handle survives without being seen, once the table is full.
pub(crate) const KEEP_EPOCHS: u64 = 8;

/// Every app's handles. Locked only briefly; never while an app is messaged.
pub(crate) struct HandleTable<E> {
    apps: Mutex<HashMap<Pid, AppHandles<E>>>,
    next_id: AtomicU64,
    max_per_app: usize,
}

struct AppHandles<E> {
    /// Start time of the process the handles belong to (`None` if it could not be read).
    started_at: Option<u64>,
    entries: HashMap<NodeId, Entry<E>>,
    ids: HashMap<E, NodeId>,
    /// Mint batches so far; entries remember the last one that saw them.
    epoch: u64,
    /// Whether the backend has already prepared this process (see `first_contact`).
    contacted: bool,
}

struct Entry<E> {
    element: E,
    seen: u64,
}

impl<E: Clone + Eq + Hash> AppHandles<E> {
    fn new(started_at: Option<u64>) -> Self {
        AppHandles {
            started_at,
            entries: HashMap::new(),
            ids: HashMap::new(),
            epoch: 0,
            contacted: false,
        }
    }

    /// Drops the least recently seen handles while the table is over `max`, keeping at
    /// least those seen in the last [`KEEP_EPOCHS`] batches where possible.
    fn evict(&mut self, max: usize) {
        if self.entries.len() <= max {
            return;
        }
        let epoch = self.epoch;
        let mut keep_from = epoch.saturating_sub(KEEP_EPOCHS);
        loop {
            self.entries.retain(|_, e| e.seen >= keep_from);
            if self.entries.len() <= max || keep_from >= epoch {
                break;
            }
            keep_from += 1;
        }
        let entries = &self.entries;
        self.ids.retain(|_, id| entries.contains_key(id));
    }
}

impl<E: Clone + Eq + Hash> HandleTable<E> {
    pub(crate) fn new() -> Self {
        HandleTable::with_limit(MAX_PER_APP)
    }

    /// A table keeping at most `max_per_app` handles per app (after each mint batch).
    pub(crate) fn with_limit(max_per_app: usize) -> Self {
        HandleTable {
            apps: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            max_per_app,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Pid, AppHandles<E>>> {
        self.apps.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The table of `pid`, reset when the pid now belongs to another process.
    fn table(
        apps: &mut HashMap<Pid, AppHandles<E>>,
        pid: Pid,
        started_at: Option<u64>,
    ) -> &mut AppHandles<E> {
        let table = apps
            .entry(pid)
            .or_insert_with(|| AppHandles::new(started_at));
        if table.started_at != started_at {
            *table = AppHandles::new(started_at);
        }
        table
    }

    /// The element behind a handle of the process `pid` started at `started_at`.
    pub(crate) fn element(&self, pid: Pid, started_at: Option<u64>, node: NodeId) -> Option<E> {
        let mut apps = self.lock();
        let table = HandleTable::table(&mut apps, pid, started_at);
        table.entries.get(&node).map(|e| e.element.clone())
    }

    /// Ids for the elements of one snapshot or listing, minting new ones as needed; one
    /// mint batch for eviction.
    pub(crate) fn mint(&self, pid: Pid, started_at: Option<u64>, elements: Vec<E>) -> Vec<NodeId> {
        let mut apps = self.lock();
        let table = HandleTable::table(&mut apps, pid, started_at);
        table.epoch += 1;
        let epoch = table.epoch;
        let ids = elements
            .into_iter()
            .map(|element| {
                let id = match table.ids.get(&element) {
                    Some(id) => *id,
                    None => {
                        let id = NodeId(self.next_id.fetch_add(1, Ordering::Relaxed));
                        table.ids.insert(element.clone(), id);
                        id
                    }
                };
                table.entries.insert(
                    id,
                    Entry {
                        element,
                        seen: epoch,
                    },
                );
                id
            })
            .collect();
        table.evict(self.max_per_app);
        ids
    }

    /// The id already minted for an element, without minting (used by event callbacks).
    pub(crate) fn lookup(&self, pid: Pid, element: &E) -> Option<NodeId> {
        self.lock().get(&pid)?.ids.get(element).copied()
    }

    /// True exactly once per process: the first time the backend touches it.
    pub(crate) fn first_contact(&self, pid: Pid, started_at: Option<u64>) -> bool {
        let mut apps = self.lock();
        let table = HandleTable::table(&mut apps, pid, started_at);
        !std::mem::replace(&mut table.contacted, true)
    }

    /// Drops every handle of an app (it exited).
    pub(crate) fn forget(&self, pid: Pid) {
        self.lock().remove(&pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PID: Pid = 42;
    const STARTED: Option<u64> = Some(1_000);

    #[test]
    fn the_same_element_keeps_its_id() {
        let table = HandleTable::new();
        let first = table.mint(PID, STARTED, vec!["window", "button"]);
        let again = table.mint(PID, STARTED, vec!["button", "window", "field"]);
        assert_eq!(again[0], first[1]);
        assert_eq!(again[1], first[0]);
        assert!(!first.contains(&again[2]));
        assert_eq!(table.element(PID, STARTED, first[1]), Some("button"));
        assert_eq!(table.lookup(PID, &"field"), Some(again[2]));
        assert_eq!(table.lookup(PID, &"menu"), None);
    }

    #[test]
    fn ids_are_unique_across_apps() {
        let table = HandleTable::new();
        let a = table.mint(1, STARTED, vec!["x"]);
        let b = table.mint(2, STARTED, vec!["x"]);
        assert_ne!(a, b);
        assert_eq!(
            table.element(1, STARTED, b[0]),
            None,
            "a handle belongs to its app"
        );
    }

    #[test]
    fn a_relaunched_pid_starts_a_fresh_table() {
        let table = HandleTable::new();
        let old = table.mint(PID, STARTED, vec!["window"]);
        assert!(table.first_contact(PID, STARTED));
        assert!(!table.first_contact(PID, STARTED));
        let relaunched = Some(2_000);
        assert_eq!(table.element(PID, relaunched, old[0]), None);
        assert!(
            table.first_contact(PID, relaunched),
            "a new process is prepared again"
        );
        let new = table.mint(PID, relaunched, vec!["window"]);
        assert_ne!(new, old);
    }

    #[test]
    fn old_handles_are_evicted_recent_ones_kept() {
        let table = HandleTable::with_limit(10);
        let old = table.mint(PID, STARTED, (0..10).collect());
        for batch in 0..KEEP_EPOCHS {
            table.mint(PID, STARTED, vec![100 + batch as i32]);
        }
        // Over the limit now: the first batch is the least recently seen.
        let recent = table.mint(PID, STARTED, vec![500]);
        assert_eq!(table.element(PID, STARTED, old[0]), None);
        assert_eq!(table.element(PID, STARTED, recent[0]), Some(500));
        assert_eq!(table.lookup(PID, &0), None, "evicted both ways");
    }

    #[test]
    fn forgetting_an_app_drops_its_handles() {
        let table = HandleTable::new();
        let ids = table.mint(PID, STARTED, vec!["window"]);
        table.forget(PID);
        assert_eq!(table.element(PID, STARTED, ids[0]), None);
        assert!(table.first_contact(PID, STARTED));
    }
}
