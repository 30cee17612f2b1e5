//! The macOS handle table: `mac_logic::handle_table` over retained `AXUIElement`s (compared
//! with `CFEqual`), keyed by the process start time the kernel reports, so a relaunched app
//! never inherits the handles of the process that had its pid.

use crate::mac_logic::handle_table::HandleTable;
use axgate_engine::{AxError, NodeId, Pid};

use super::element::AxElement;
use super::process;

pub(super) struct Handles(HandleTable<AxElement>);

impl Handles {
    pub(super) fn new() -> Self {
        Handles(HandleTable::new())
    }

    /// The live element behind a handle.
    pub(super) fn element(&self, pid: Pid, node: NodeId) -> Result<AxElement, AxError> {
        let started_at = process::start_time(pid);
        if started_at.is_none() && !process::is_running(pid) {
            self.forget(pid);
            return Err(AxError::AppExited { pid });
        }
        self.0
            .element(pid, started_at, node)
            .ok_or_else(|| AxError::UnknownHandle {
                handle: format!("node {} of pid {pid}", node.0),
            })
    }

    /// Ids for elements of one snapshot or listing, minting new ones as needed.
    pub(super) fn mint(&self, pid: Pid, elements: Vec<AxElement>) -> Vec<NodeId> {
        self.0.mint(pid, process::start_time(pid), elements)
    }

    /// The id already minted for an element, without minting (used by event callbacks).
    pub(super) fn lookup(&self, pid: Pid, element: &AxElement) -> Option<NodeId> {
        self.0.lookup(pid, element)
    }

    /// True exactly once per process: the first time the backend touches it.
    pub(super) fn first_contact(&self, pid: Pid) -> bool {
        self.0.first_contact(pid, process::start_time(pid))
    }

    /// Drops every handle of an app (it exited).
    pub(super) fn forget(&self, pid: Pid) {
        self.0.forget(pid);
    }
}
