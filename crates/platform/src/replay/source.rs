//! The AX source over a recording: answers the macOS walk's batched reads from recorded
//! attributes, slot by slot, exactly as `AXUIElementCopyMultipleAttributeValues` would, so
//! the decoding, naming, role mapping and walk of the macOS backend run unchanged. One read
//! is one round trip, as on a Mac.

use axgate_engine::CallCtx;

use super::format::{Recorded, Recording};
use crate::mac_logic::decode::{AttrValue, LINK_ATTR};
use crate::mac_logic::naming::LABEL_ATTRS;
use crate::mac_logic::walk::{AxSource, FailureKind, Linked, NodeRead};

/// `kAXErrorInvalidUIElement` and `kAXErrorCannotComplete`, as a recorded `{"error": …}`
/// may carry them.
const INVALID_ELEMENT: i32 = -25202;
const CANNOT_COMPLETE: i32 = -25204;

/// Reads the nodes of one recording by arena index.
pub(crate) struct ReplaySource<'a> {
    pub(crate) recording: &'a Recording,
}

/// Why a read of a recorded node failed: the AX error code it recorded, or no such node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReplayFailure(pub(crate) i32);

impl ReplaySource<'_> {
    /// The slot of one attribute, as the Mac's batched read fills it.
    pub(crate) fn value(&self, node: usize, name: &str) -> AttrValue {
        let Some(recorded) = self
            .recording
            .nodes
            .get(node)
            .and_then(|n| n.attributes.get(name))
        else {
            return AttrValue::Missing;
        };
        // A slot tells only that a reference is there; `reference` gives its target.
        let slot = recorded.clone().map_refs(|_| Some(()), Some);
        slot.unwrap_or(AttrValue::Missing)
    }

    /// The element an attribute refers to (`AXTitleUIElement`, …).
    pub(crate) fn reference(&self, node: usize, name: &str) -> Option<usize> {
        match self.recording.nodes.get(node)?.attributes.get(name)? {
            Recorded::Element(target) => Some(*target),
            _ => None,
        }
    }

    /// One batched read of `names`, failing as a whole the way the adapter's does: when
    /// every slot carries the same "element gone" or "not answering" code.
    pub(crate) fn read_many(
        &self,
        node: usize,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> Result<Vec<AttrValue>, ReplayFailure> {
        ctx.trips(1);
        if node >= self.recording.nodes.len() {
            return Err(ReplayFailure(INVALID_ELEMENT));
        }
        let values: Vec<AttrValue> = names.iter().map(|n| self.value(node, n)).collect();
        match crate::mac_logic::decode::uniform_failure(&values) {
            Some(code) if code == INVALID_ELEMENT || code == CANNOT_COMPLETE => {
                Err(ReplayFailure(code))
            }
            _ => Ok(values),
        }
    }
}

impl AxSource for ReplaySource<'_> {
    type Element = usize;
    type Failure = ReplayFailure;

    fn read(&self, element: &usize, ctx: &mut CallCtx) -> Result<NodeRead<usize>, ReplayFailure> {
        let values = self.read_many(*element, crate::mac_logic::decode::NODE_ATTRS, ctx)?;
        Ok(NodeRead {
            values,
            children: self.recording.nodes[*element].children.clone(),
            linked: self.reference(*element, LINK_ATTR),
        })
    }

    fn read_label(
        &self,
        element: &usize,
        ctx: &mut CallCtx,
    ) -> Result<Vec<AttrValue>, ReplayFailure> {
        self.read_many(*element, LABEL_ATTRS, ctx)
    }

    fn read_attrs(
        &self,
        element: &usize,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> Result<Vec<AttrValue>, ReplayFailure> {
        self.read_many(*element, names, ctx)
    }

    /// One round trip, as on a Mac: the linked element comes in the batch.
    fn read_attrs_linked(
        &self,
        element: &usize,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> Result<Linked<usize>, ReplayFailure> {
        let values = self.read_many(*element, names, ctx)?;
        let linked = names
            .contains(&LINK_ATTR)
            .then(|| self.reference(*element, LINK_ATTR))
            .flatten();
        Ok((values, linked))
    }

    fn classify(&self, failure: ReplayFailure) -> FailureKind {
        match failure.0 {
            INVALID_ELEMENT => FailureKind::Gone,
            CANNOT_COMPLETE => FailureKind::Timeout,
            _ => FailureKind::Other,
        }
    }
}
