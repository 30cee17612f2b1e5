//! The bounded pre-order walk behind the macOS `Backend::snapshot`, written against
//! [`AxSource`], a small trait over the AX calls it needs, so the walk runs (and is tested)
//! on any host with a fake source.
//!
//! One round trip per ordinary node: the source reads every attribute of
//! [`decode::NODE_ATTRS`] and `AXChildren` in one batched call. Elements that may be big (the
//! walk's root and the content of scroll areas: tables, outlines, lists, text areas, web
//! areas) are read in ranges instead (`ranges`): their children up to the node budget, their
//! text up to the value cap, never whole. Action names are read only where acting needs them
//! (`action_names::reads_real`: a shallow walk, for roles that imply no press); elsewhere
//! the snapshot reports the role's implied actions. A cycle guard skips any element already
//! met in this walk, so a child that lists an ancestor (seen in broken apps) cannot loop the
//! walk. Elements that vanish mid-walk are left out; one that does not answer (or answers
//! with an error) is skipped and reported in [`Walked::skipped`], and the walk goes on; a
//! second failure in a row means the app stopped answering and ends the walk with
//! `truncated` set, as do the budgets and the deadline. The walk fails only when not even
//! the root could be read.

use std::collections::HashSet;
use std::hash::Hash;

use axgate_engine::{CallCtx, RawNode, Skipped, SkippedPart};

use super::action_names;
use super::budget;
use super::decode::{self, AttrValue, NODE_ATTRS};
use super::ranges::{self, Window};
use super::{naming, roles};

/// What a failed AX call means to the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FailureKind {
    /// The element no longer exists (`kAXErrorInvalidUIElement`): skip it.
    Gone,
    /// The app did not answer in time, or the deadline left no time to ask.
    Timeout,
    /// Any other failure.
    Other,
}

/// One node as read in one round trip: the attribute slots of [`decode::NODE_ATTRS`], in
/// order, and the element's children in order.
#[derive(Clone, Debug)]
pub(crate) struct NodeRead<E> {
    pub(crate) values: Vec<AttrValue>,
    pub(crate) children: Vec<E>,
    /// The element in the `AXTitleUIElement` slot, when there is one.
    pub(crate) linked: Option<E>,
}

/// Attribute slots, and the element in the `AXTitleUIElement` slot
/// ([`AxSource::read_attrs_linked`]).
pub(crate) type Linked<E> = (Vec<AttrValue>, Option<E>);

/// The AX calls the walk makes. The macOS adapter implements it over `AXUIElement`s; tests
/// implement it over an in-memory tree. Every method is one round trip, counted in `ctx`.
/// The methods with a default answer from one [`AxSource::read`], which is right for a
/// source that holds its tree in memory; the macOS adapter overrides them all.
pub(crate) trait AxSource {
    /// An element reference. Equality and hashing identify the element itself, not the
    /// reference (`CFEqual`/`CFHash` on macOS): the cycle guard relies on it.
    type Element: Clone + Eq + Hash;
    /// Why a call failed.
    type Failure: Copy;

    /// Reads [`decode::NODE_ATTRS`] and `AXChildren` of `element` in one round trip,
    /// counted in `ctx`.
    fn read(
        &self,
        element: &Self::Element,
        ctx: &mut CallCtx,
    ) -> Result<NodeRead<Self::Element>, Self::Failure>;

    /// Reads `naming::LABEL_ATTRS` of a linked label element in one round trip, counted in
    /// `ctx`. Called only for nodes whose name depends on it.
    fn read_label(
        &self,
        element: &Self::Element,
        ctx: &mut CallCtx,
    ) -> Result<Vec<AttrValue>, Self::Failure> {
        self.read_attrs(element, naming::LABEL_ATTRS, ctx)
    }

    /// What a failure means to the walk.
    fn classify(&self, failure: Self::Failure) -> FailureKind;

    /// Reads the attributes `names` of `element` in one batched round trip (no children):
    /// one slot per name, missing where the element has no such attribute.
    fn read_attrs(
        &self,
        element: &Self::Element,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> Result<Vec<AttrValue>, Self::Failure> {
        let read = self.read(element, ctx)?;
        Ok(names
            .iter()
            .map(|name| {
                NODE_ATTRS
                    .iter()
                    .position(|n| n == name)
                    .and_then(|i| read.values.get(i).cloned())
                    .unwrap_or(AttrValue::Missing)
            })
            .collect())
    }

    /// [`AxSource::read_attrs`], and the element in the `AXTitleUIElement` slot when `names`
    /// holds it and it holds an element: the macOS adapter takes it from the same batch. The
    /// default asks [`AxSource::read`] for it (a second round trip, only where it is linked).
    fn read_attrs_linked(
        &self,
        element: &Self::Element,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> Result<Linked<Self::Element>, Self::Failure> {
        let values = self.read_attrs(element, names, ctx)?;
        let links = names
            .iter()
            .position(|n| *n == decode::LINK_ATTR)
            .and_then(|i| values.get(i))
            == Some(&AttrValue::Element(()));
        let linked = if links {
            self.read(element, ctx)?.linked
        } else {
            None
        };
        Ok((values, linked))
    }

    /// At most `count` of the element's children from position `start`
    /// (`AXUIElementCopyAttributeValues` of `AXChildren` with index and count); none past
    /// the end.
    fn read_children(
        &self,
        element: &Self::Element,
        start: usize,
        count: usize,
        ctx: &mut CallCtx,
    ) -> Result<Vec<Self::Element>, Self::Failure> {
        let read = self.read(element, ctx)?;
        Ok(read.children.into_iter().skip(start).take(count).collect())
    }

    /// How many children the element has (`AXUIElementGetAttributeValueCount`).
    fn count_children(
        &self,
        element: &Self::Element,
        ctx: &mut CallCtx,
    ) -> Result<usize, Self::Failure> {
        Ok(self.read(element, ctx)?.children.len())
    }

    /// The first `max_units` UTF-16 units of the element's text (`AXStringForRange`).
    fn read_text(
        &self,
        element: &Self::Element,
        max_units: usize,
        ctx: &mut CallCtx,
    ) -> Result<String, Self::Failure> {
        let values = self.read_attrs(element, &["AXValue"], ctx)?;
        Ok(match values.first() {
            Some(AttrValue::Text(t)) => {
                let units: Vec<u16> = t.encode_utf16().take(max_units).collect();
                String::from_utf16_lossy(&units)
            }
            _ => String::new(),
        })
    }

    /// The element's native action names as it reports them now
    /// (`AXUIElementCopyActionNames`). A source that knows none answers none.
    fn action_names(
        &self,
        element: &Self::Element,
        ctx: &mut CallCtx,
    ) -> Result<Vec<String>, Self::Failure> {
        let _ = (element, ctx);
        Ok(Vec::new())
    }
}

/// The limits of one walk.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Levels below the root to descend (0 = the root only).
    pub(crate) max_depth: u32,
    /// The most nodes to return (the root counts; at least 1).
    pub(crate) max_nodes: usize,
    /// The root's first this-many children are left out (a paged read's continuation).
    pub(crate) skip_children: usize,
}

/// The walked nodes in pre-order, with the element each was read from (same index). Ids
/// are left for the caller to mint.
#[derive(Debug)]
pub(crate) struct Walked<E> {
    pub(crate) nodes: Vec<RawNode>,
    pub(crate) elements: Vec<E>,
    pub(crate) truncated: bool,
    /// What was left out because the app did not answer for it (indices into `nodes`).
    pub(crate) skipped: Vec<Skipped>,
}

/// A node waiting to be read.
struct Pending<E> {
    element: E,
    parent: Option<usize>,
    /// Its position among its parent's children.
    position: usize,
    depth: u32,
    /// Read in ranges (`ranges`): the root, and the content of a scroll area.
    ranged: bool,
}

/// A node as read, before it joins the walk.
struct Read<E> {
    values: Vec<AttrValue>,
    children: Vec<(usize, E)>,
    child_count: usize,
    skipped: Vec<(SkippedPart, FailureKind)>,
    /// The element in the `AXTitleUIElement` slot, ranged reads included.
    linked: Option<E>,
}

/// Consecutive failed reads after which the app counts as no longer answering.
const FAILURES_IN_A_ROW: u32 = 2;

/// Walks the subtree of `root` in pre-order within `limits` and the deadline of `ctx`.
/// Fails only when the root itself cannot be read.
pub(crate) fn walk<S: AxSource>(
    source: &S,
    root: S::Element,
    limits: Limits,
    ctx: &mut CallCtx,
) -> Result<Walked<S::Element>, S::Failure> {
    let max_nodes = limits.max_nodes.max(1);
    let mut seen: HashSet<S::Element> = HashSet::new();
    seen.insert(root.clone());
    let mut stack = vec![Pending {
        element: root,
        parent: None,
        position: 0,
        depth: 0,
        ranged: true,
    }];
    let mut walked = Walked {
        nodes: Vec::new(),
        elements: Vec::new(),
        truncated: false,
        skipped: Vec::new(),
    };
    let mut failures_in_a_row = 0;
    while let Some(item) = stack.pop() {
        if walked.nodes.len() >= max_nodes || ctx.expired() {
            walked.truncated = true;
            break;
        }
        let index = walked.nodes.len();
        let list = item.depth < limits.max_depth;
        // What the node budget still takes below this node.
        let cap = budget::child_cap(max_nodes - index - 1);
        let skip = if item.parent.is_none() {
            limits.skip_children
        } else {
            0
        };
        let read = match read_node(source, &item, list, skip, cap, ctx) {
            Ok(read) => read,
            Err(f) if walked.nodes.is_empty() => return Err(f),
            // The element went away between listing and reading: not part of the tree now.
            Err(f) if source.classify(f) == FailureKind::Gone => continue,
            Err(_) if ctx.expired() => {
                walked.truncated = true;
                break;
            }
            Err(f) => {
                failures_in_a_row += 1;
                if failures_in_a_row >= FAILURES_IN_A_ROW {
                    walked.truncated = true;
                    break;
                }
                if let Some(parent) = item.parent {
                    walked.skipped.push(Skipped {
                        node: parent,
                        part: SkippedPart::Child(item.position),
                        timed_out: source.classify(f) == FailureKind::Timeout,
                    });
                }
                continue;
            }
        };
        failures_in_a_row = 0;
        let mut node = node_from(&read.values);
        let linked = NodeRead {
            values: Vec::new(),
            children: Vec::new(),
            linked: read.linked.clone(),
        };
        if linked.linked.is_some() {
            name_from_link_values(source, &mut node, &linked, &read.values, ctx);
        }
        if action_names::reads_real(node.role, limits.max_depth) {
            // On failure the role's implied actions stand (acting reads them again anyway).
            if let Ok(natives) = source.action_names(&item.element, ctx) {
                node.actions = action_names::normalise_all(natives.iter().map(String::as_str));
                decode::finish_states(&mut node);
            }
        }
        node.parent = item.parent;
        node.child_count = read.child_count;
        walked
            .skipped
            .extend(read.skipped.iter().map(|(part, kind)| Skipped {
                node: index,
                part: *part,
                timed_out: *kind == FailureKind::Timeout,
            }));
        if list {
            let taken = read.children.len();
            if read.child_count.saturating_sub(skip) > taken.min(cap) {
                walked.truncated = true;
            }
            let host = ranges::in_ranges(&node.native_role);
            let fresh: Vec<(usize, S::Element)> = read
                .children
                .into_iter()
                .take(cap)
                // The cycle guard: an element met before (an ancestor listed as a child, or a
                // child listed by two parents) is read once.
                .filter(|(_, child)| seen.insert(child.clone()))
                .collect();
            stack.extend(fresh.into_iter().rev().map(|(position, element)| Pending {
                element,
                parent: Some(index),
                position,
                depth: item.depth + 1,
                ranged: host,
            }));
        }
        walked.nodes.push(node);
        walked.elements.push(item.element);
    }
    Ok(walked)
}

/// Reads one node: in ranges, or in one batched round trip with its whole listing (the
/// root's first `skip` children left out).
fn read_node<S: AxSource>(
    source: &S,
    item: &Pending<S::Element>,
    list: bool,
    skip: usize,
    cap: usize,
    ctx: &mut CallCtx,
) -> Result<Read<S::Element>, S::Failure> {
    if item.ranged {
        let window = Window {
            list,
            start: skip,
            count: cap,
        };
        let r = ranges::read(source, &item.element, window, ctx)?;
        return Ok(Read {
            values: r.values,
            children: r.children,
            child_count: r.child_count,
            skipped: r.skipped,
            linked: r.linked,
        });
    }
    let r = source.read(&item.element, ctx)?;
    Ok(Read {
        values: r.values,
        child_count: r.children.len(),
        children: r.children.into_iter().enumerate().skip(skip).collect(),
        skipped: Vec::new(),
        linked: r.linked,
    })
}

/// One element read alone, as operations that re-read their target read it (acting, a
/// window operation): its attributes in one batch with the linked label's element, its value
/// as a range like every element read in ranges (a document's text is never read whole), its
/// linked label when it names it; no children. The id, parent and child count are left for
/// the caller.
pub(crate) fn read_one<S: AxSource>(
    source: &S,
    element: &S::Element,
    ctx: &mut CallCtx,
) -> Result<RawNode, S::Failure> {
    let read = ranges::read_values(source, element, ctx)?;
    let mut node = node_from(&read.values);
    let linked = NodeRead {
        values: Vec::new(),
        children: Vec::new(),
        linked: read.linked,
    };
    name_from_link_values(source, &mut node, &linked, &read.values, ctx);
    Ok(node)
}

/// Names `node` by its linked label when nothing it carries ranks above it (`values` are
/// its slots of [`NODE_ATTRS`]): one more batched read, of the linked element only. A label
/// that cannot be read leaves the name as it is.
fn name_from_link_values<S: AxSource>(
    source: &S,
    node: &mut RawNode,
    read: &NodeRead<S::Element>,
    values: &[AttrValue],
    ctx: &mut CallCtx,
) {
    if let Some(link) = &read.linked
        && decode::wants_linked_label(node, values)
        && let Ok(label) = source.read_label(link, ctx)
    {
        naming::apply_linked_label(node, &label);
    }
}

/// A snapshot node from one batched read: decoded slots, the role's implied actions, and
/// the states that follow from them. Id, parent and child count are left for the caller.
pub(crate) fn node_from(values: &[AttrValue]) -> RawNode {
    let mut node = decode::decode_node(values);
    node.actions = roles::implied_actions(node.role)
        .iter()
        .map(|a| (*a).to_owned())
        .collect();
    decode::finish_states(&mut node);
    node
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
