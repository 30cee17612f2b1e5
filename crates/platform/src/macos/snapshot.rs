//! `Backend::snapshot` on macOS: the AX source behind the platform-neutral walk
//! (`mac_logic::walk`). One round trip per ordinary node: every attribute of `NODE_ATTRS`
//! and `AXChildren` in one `AXUIElementCopyMultipleAttributeValues`; for elements read in
//! ranges (`mac_logic::ranges`) a batch without them, a range of children, a child count and
//! a text range, one call each. The walk decides the order, the budgets, the ranges, what
//! is skipped and the cycle guard; this file only makes the calls and says what an error
//! code means.

use std::time::Instant;

use accessibility_sys::kAXErrorInvalidUIElement;
use core_foundation::array::CFArray;
use core_foundation::string::CFString;

use crate::mac_logic::decode::{AttrValue, LINK_ATTR, NODE_ATTRS};
use crate::mac_logic::naming::LABEL_ATTRS;
use crate::mac_logic::walk::{self, AxSource, FailureKind, Limits, Linked, NodeRead};
use axgate_engine::{AxError, CallCtx, Pid, RawNode, Snapshot, SnapshotRequest};

use super::apps;
use super::attrs::{self, CHILDREN};
use super::element::AxElement;
use super::errors::{AxCall, AxFailure, to_ax_error};
use super::handles::Handles;

/// Reads nodes of one app through batched attribute reads.
pub(super) struct MacSource {
    /// `NODE_ATTRS` followed by `AXChildren`, built once per snapshot.
    names: CFArray<CFString>,
    /// `naming::LABEL_ATTRS`, for linked labels.
    label_names: CFArray<CFString>,
}

/// The slot of `AXTitleUIElement` in `NODE_ATTRS`.
fn link_slot() -> usize {
    NODE_ATTRS
        .iter()
        .position(|n| *n == LINK_ATTR)
        .unwrap_or(usize::MAX)
}

impl MacSource {
    pub(super) fn new() -> Self {
        let mut names: Vec<&str> = NODE_ATTRS.to_vec();
        names.push(CHILDREN);
        MacSource {
            names: attrs::names(&names),
            label_names: attrs::names(LABEL_ATTRS),
        }
    }
}

impl AxSource for MacSource {
    type Element = AxElement;
    type Failure = AxFailure;

    fn read(&self, element: &AxElement, ctx: &mut CallCtx) -> AxCall<NodeRead<AxElement>> {
        let slots = attrs::read_node_slots(element, &self.names, link_slot(), ctx)?;
        Ok(NodeRead {
            values: slots.values,
            children: slots.children,
            linked: slots.linked,
        })
    }

    fn read_label(&self, element: &AxElement, ctx: &mut CallCtx) -> AxCall<Vec<AttrValue>> {
        attrs::read_many(element, &self.label_names, ctx)
    }

    fn read_attrs(
        &self,
        element: &AxElement,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> AxCall<Vec<AttrValue>> {
        attrs::read_many(element, &attrs::names(names), ctx)
    }

    /// The linked element comes in the same batch (`attrs::read_linked`).
    fn read_attrs_linked(
        &self,
        element: &AxElement,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> AxCall<Linked<AxElement>> {
        let link = names
            .iter()
            .position(|n| *n == LINK_ATTR)
            .unwrap_or(usize::MAX);
        attrs::read_linked(element, &attrs::names(names), link, ctx)
    }

    fn read_children(
        &self,
        element: &AxElement,
        start: usize,
        count: usize,
        ctx: &mut CallCtx,
    ) -> AxCall<Vec<AxElement>> {
        attrs::read_elements_range(element, CHILDREN, start, count, ctx)
    }

    fn count_children(&self, element: &AxElement, ctx: &mut CallCtx) -> AxCall<usize> {
        attrs::count(element, CHILDREN, ctx)
    }

    fn read_text(
        &self,
        element: &AxElement,
        max_units: usize,
        ctx: &mut CallCtx,
    ) -> AxCall<String> {
        attrs::string_for_range(element, max_units, ctx)
    }

    fn action_names(&self, element: &AxElement, ctx: &mut CallCtx) -> AxCall<Vec<String>> {
        attrs::action_names(element, ctx)
    }

    fn classify(&self, failure: AxFailure) -> FailureKind {
        if failure.is(kAXErrorInvalidUIElement) {
            FailureKind::Gone
        } else if failure.is_timeout() {
            FailureKind::Timeout
        } else {
            FailureKind::Other
        }
    }
}

pub(super) fn snapshot(
    handles: &Handles,
    pid: Pid,
    request: &SnapshotRequest,
    ctx: &mut CallCtx,
) -> Result<Snapshot, AxError> {
    let started = Instant::now();
    let root = match request.root {
        None => apps::app_element(pid)?,
        Some(node) => handles.element(pid, node)?,
    };
    let limits = Limits {
        max_depth: request.max_depth,
        max_nodes: request.max_nodes,
        skip_children: request.skip_children,
    };
    let walked = walk::walk(&MacSource::new(), root, limits, ctx)
        .map_err(|f| to_ax_error(f, pid, request.root, started))?;
    let mut nodes = walked.nodes;
    let ids = handles.mint(pid, walked.elements);
    for (node, id) in nodes.iter_mut().zip(ids) {
        node.id = id;
    }
    Ok(Snapshot {
        nodes,
        truncated: walked.truncated,
        skipped: walked.skipped,
    })
}

/// One element read alone (`walk::read_one`), for operations that re-read their target: its
/// attributes and linked label's element in one batch, its value as a capped range
/// (`AXStringForRange`), never a document whole; its linked label when it names it. The id,
/// parent and child count are left for the caller.
pub(super) fn read_node(element: &AxElement, ctx: &mut CallCtx) -> AxCall<RawNode> {
    walk::read_one(&MacSource::new(), element, ctx)
}
