//! The handle table: `NodeId` ↔ retained element, per pid. The same element (by `CFEqual`)
//! always gets the same id, so snapshots of one app can be diffed. Each app's table remembers
//! the process start time it was filled under: when the pid now belongs to a relaunched
//! process, the old handles are dropped rather than pointed at the new app. Tables are
//! bounded: ids not seen in recent snapshots are evicted, and the engine re-resolves them by
//! path. No lock is held while messaging an app.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::ax::{AxError, NodeId, Pid};

use super::element::AxElement;
use super::process;

/// Handles kept per app before old ones are evicted.
const MAX_PER_APP: usize = 50_000;

/// Snapshots (mint batches) a handle survives without being seen, once the table is full.
const KEEP_EPOCHS: u64 = 8;

pub(super) struct Handles {
    apps: Mutex<HashMap<Pid, AppHandles>>,
    next_id: AtomicU64,
}

struct AppHandles {
    /// Start time of the process the handles belong to (`None` if it could not be read).
    started_at: Option<u64>,
    entries: HashMap<NodeId, Entry>,
    ids: HashMap<AxElement, NodeId>,
    /// Mint batches so far; entries remember the last one that saw them.
    epoch: u64,
    /// Whether the backend has already prepared this process (see [`Handles::first_contact`]).
    contacted: bool,
}

struct Entry {
    element: AxElement,
    seen: u64,
}

impl AppHandles {
    fn new(started_at: Option<u64>) -> Self {
        AppHandles {
            started_at,
            entries: HashMap::new(),
            ids: HashMap::new(),
            epoch: 0,
            contacted: false,
        }
    }

    fn evict(&mut self) {
        if self.entries.len() <= MAX_PER_APP {
            return;
        }
        let epoch = self.epoch;
        let mut keep_from = epoch.saturating_sub(KEEP_EPOCHS);
        loop {
            self.entries.retain(|_, e| e.seen >= keep_from);
            if self.entries.len() <= MAX_PER_APP || keep_from >= epoch {
                break;
            }
            keep_from += 1;
        }
        let entries = &self.entries;
        self.ids.retain(|_, id| entries.contains_key(id));
    }
}

impl Handles {
    pub(super) fn new() -> Self {
        Handles {
            apps: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Pid, AppHandles>> {
        self.apps.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The table of `pid`, reset when the pid now belongs to another process.
    fn table(
        apps: &mut HashMap<Pid, AppHandles>,
        pid: Pid,
        started_at: Option<u64>,
    ) -> &mut AppHandles {
        let table = apps
            .entry(pid)
            .or_insert_with(|| AppHandles::new(started_at));
        if table.started_at != started_at {
            *table = AppHandles::new(started_at);
        }
        table
    }

    /// The live element behind a handle.
    pub(super) fn element(&self, pid: Pid, node: NodeId) -> Result<AxElement, AxError> {
        let started_at = process::start_time(pid);
        if started_at.is_none() && !process::is_running(pid) {
            self.forget(pid);
            return Err(AxError::AppExited { pid });
        }
        let mut apps = self.lock();
        let table = Handles::table(&mut apps, pid, started_at);
        table
            .entries
            .get(&node)
            .map(|e| e.element.clone())
            .ok_or_else(|| AxError::UnknownHandle {
                handle: format!("node {} of pid {pid}", node.0),
            })
    }

    /// Ids for elements of one snapshot or listing, minting new ones as needed.
    pub(super) fn mint(&self, pid: Pid, elements: Vec<AxElement>) -> Vec<NodeId> {
        let started_at = process::start_time(pid);
        let mut apps = self.lock();
        let table = Handles::table(&mut apps, pid, started_at);
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
        table.evict();
        ids
    }

    /// The id already minted for an element, without minting (used by event callbacks).
    pub(super) fn lookup(&self, pid: Pid, element: &AxElement) -> Option<NodeId> {
        self.lock().get(&pid)?.ids.get(element).copied()
    }

    /// True exactly once per process: the first time the backend touches it.
    pub(super) fn first_contact(&self, pid: Pid) -> bool {
        let started_at = process::start_time(pid);
        let mut apps = self.lock();
        let table = Handles::table(&mut apps, pid, started_at);
        !std::mem::replace(&mut table.contacted, true)
    }

    /// Drops every handle of an app (it exited).
    pub(super) fn forget(&self, pid: Pid) {
        self.lock().remove(&pid);
    }
}
