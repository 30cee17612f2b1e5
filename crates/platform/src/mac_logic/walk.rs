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
    /// The element in the `AXTitleUIElement` slot; a ranged read (a snapshot's root, a
    /// scroll area's content) does not resolve it.
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
            linked: None,
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

/// Names `node` by its linked label when nothing it carries ranks above it: one more batched
/// read, of the linked element only. A label that cannot be read leaves the name as it is.
pub(crate) fn name_from_link<S: AxSource>(
    source: &S,
    node: &mut RawNode,
    read: &NodeRead<S::Element>,
    ctx: &mut CallCtx,
) {
    name_from_link_values(source, node, read, &read.values, ctx);
}

/// [`name_from_link`] with the node's values given apart from its read.
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
mod tests {
    use std::collections::HashMap;
    use std::time::{Duration, Instant};

    use axgate_engine::Role;

    use super::*;
    use crate::mac_logic::fake_ax::FakeAx;

    /// An app with a window holding a toolbar of 5 buttons and a list of 40 rows of 2 cells.
    fn app() -> FakeAx {
        let mut s = FakeAx::default();
        s.add(0, "AXApplication", &[1]);
        s.add(1, "AXWindow", &[2, 3]);
        let buttons: Vec<u32> = (10..15).collect();
        s.add(2, "AXToolbar", &buttons);
        for b in &buttons {
            s.add(*b, "AXButton", &[]);
        }
        let rows: Vec<u32> = (100..140).collect();
        s.add(3, "AXList", &rows);
        for r in &rows {
            s.add(*r, "AXRow", &[r * 10, r * 10 + 1]);
            s.add(r * 10, "AXCell", &[]);
            s.add(r * 10 + 1, "AXCell", &[]);
        }
        s
    }

    fn ctx() -> CallCtx {
        CallCtx::new(Instant::now() + Duration::from_secs(60))
    }

    fn limits(max_depth: u32, max_nodes: usize) -> Limits {
        Limits {
            max_depth,
            max_nodes,
            skip_children: 0,
        }
    }

    fn order(walked: &Walked<u32>) -> Vec<u32> {
        walked.elements.clone()
    }

    #[test]
    fn a_known_tree_costs_one_round_trip_per_node() {
        let source = app();
        let mut ctx = ctx();
        let walked = walk(&source, 0, limits(10, 10_000), &mut ctx).unwrap();
        assert_eq!(walked.nodes.len(), 1 + 1 + 1 + 5 + 1 + 40 + 80);
        assert!(!walked.truncated);
        let per_node = ctx.round_trips() as f64 / walked.nodes.len() as f64;
        assert!(per_node <= 1.2, "{per_node} round trips per node");
        // The root is read in ranges: its attributes, then its children.
        assert_eq!(ctx.round_trips(), walked.nodes.len() as u64 + 1);
    }

    #[test]
    fn pre_order_with_parents_and_child_counts() {
        let walked = walk(&app(), 0, limits(10, 10_000), &mut ctx()).unwrap();
        assert_eq!(&order(&walked)[..5], [0, 1, 2, 10, 11]);
        assert_eq!(walked.nodes[0].parent, None);
        assert_eq!(walked.nodes[1].parent, Some(0));
        assert_eq!(walked.nodes[3].parent, Some(2));
        assert_eq!(walked.nodes[2].child_count, 5);
        assert_eq!(walked.nodes[2].role, Role::Toolbar);
        assert_eq!(walked.nodes[3].actions, ["press"]);
        assert!(walked.nodes[2].actions.is_empty());
    }

    #[test]
    fn leaves_at_the_depth_limit_keep_their_child_count_for_free() {
        let mut ctx = ctx();
        let walked = walk(&app(), 0, limits(2, 10_000), &mut ctx).unwrap();
        assert_eq!(order(&walked), [0, 1, 2, 3]);
        assert_eq!(walked.nodes[3].child_count, 40);
        assert!(!walked.truncated, "the depth limit is not truncation");
        assert_eq!(ctx.round_trips(), 4 + 1);
    }

    #[test]
    fn the_node_budget_truncates() {
        let mut ctx = ctx();
        let walked = walk(&app(), 0, limits(10, 20), &mut ctx).unwrap();
        assert_eq!(walked.nodes.len(), 20);
        assert!(walked.truncated);
        assert!(ctx.round_trips() <= 20 + 1);
    }

    #[test]
    fn a_huge_listing_contributes_at_most_the_child_cap() {
        let mut s = FakeAx::default();
        let rows: Vec<u32> = (10..10 + 3 * budget::MAX_CHILDREN as u32).collect();
        s.add(0, "AXApplication", &[1]);
        s.add(1, "AXTable", &rows);
        for r in &rows {
            s.add(*r, "AXRow", &[]);
        }
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(5, 100_000), &mut ctx).unwrap();
        assert_eq!(
            walked.nodes[1].child_count,
            rows.len(),
            "the true count is kept"
        );
        assert_eq!(walked.nodes.len(), 2 + budget::MAX_CHILDREN);
        assert!(walked.truncated);
        assert_eq!(ctx.round_trips(), walked.nodes.len() as u64 + 1);
    }

    #[test]
    fn editable_nodes_are_settable_without_a_round_trip() {
        let mut s = FakeAx::default();
        s.add(0, "AXWindow", &[1, 2]);
        s.add(1, "AXTextField", &[]);
        s.add(2, "AXCheckBox", &[]);
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(5, 100), &mut ctx).unwrap();
        assert!(walked.nodes[1].states.value_settable);
        assert!(walked.nodes[2].states.value_settable, "pressable toggles");
        assert_eq!(walked.nodes[2].actions, ["press"]);
        assert_eq!(walked.nodes[0].actions, ["raise"]);
        assert_eq!(ctx.round_trips(), 3 + 1);
    }

    #[test]
    fn a_cycle_is_walked_once() {
        let mut s = FakeAx::default();
        // 2's child is its grandparent; 3 is listed twice by 1.
        s.add(0, "AXApplication", &[1]);
        s.add(1, "AXWindow", &[2, 3, 3]);
        s.add(2, "AXGroup", &[0, 3]);
        s.add(3, "AXButton", &[1]);
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(50, 10_000), &mut ctx).unwrap();
        assert_eq!(order(&walked), [0, 1, 2, 3]);
        assert_eq!(walked.nodes[3].parent, Some(1));
        assert_eq!(ctx.round_trips(), 4 + 1);
    }

    #[test]
    fn vanished_elements_are_skipped() {
        let mut s = app();
        s.gone = [11, 3].into();
        let walked = walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap();
        assert_eq!(order(&walked), [0, 1, 2, 10, 12, 13, 14]);
        assert!(!walked.truncated);
    }

    #[test]
    fn one_slow_element_is_skipped_and_reported_not_the_end_of_the_walk() {
        let mut s = app();
        s.slow = [12].into();
        let walked = walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap();
        assert_eq!(&order(&walked)[..7], [0, 1, 2, 10, 11, 13, 14]);
        assert_eq!(walked.nodes.len(), 1 + 1 + 1 + 4 + 1 + 40 + 80);
        assert!(!walked.truncated);
        // The toolbar (node 2) keeps its true child count; its third child is the gap.
        assert_eq!(walked.nodes[2].child_count, 5);
        assert_eq!(
            walked.skipped,
            [Skipped {
                node: 2,
                part: SkippedPart::Child(2),
                timed_out: true,
            }]
        );
        s.slow = [12, 14].into();
        let walked = walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap();
        assert_eq!(walked.skipped.len(), 2, "slow apart, skipped apart");
        assert_eq!(walked.skipped[1].part, SkippedPart::Child(4));
        assert!(!walked.truncated);
    }

    #[test]
    fn two_failures_in_a_row_end_the_walk_and_an_unreadable_root_fails() {
        let mut s = app();
        s.slow = [12, 13].into();
        let walked = walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap();
        assert_eq!(order(&walked), [0, 1, 2, 10, 11]);
        assert!(walked.truncated, "an app that stopped answering");
        assert_eq!(walked.skipped.len(), 1);
        s.slow = [0].into();
        assert_eq!(
            walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap_err(),
            FailureKind::Timeout
        );
    }

    #[test]
    fn linked_labels_name_untitled_nodes_for_one_read_each() {
        // The app (a ranged root) holds a window; the window, an untitled field and a
        // titled button link the static text 1. Only the untitled ones read it.
        let mut s = FakeAx::default();
        s.add(9, "AXApplication", &[0]);
        s.add(0, "AXWindow", &[1, 2, 3]);
        s.add(1, "AXStaticText", &[]);
        s.set(1, "AXValue", AttrValue::Text("Account".into()));
        s.add(2, "AXTextField", &[]);
        s.add(3, "AXButton", &[]);
        s.set(3, "AXTitle", AttrValue::Text("n3".into()));
        s.links = HashMap::from([(0, 1), (2, 1), (3, 1)]);
        let mut ctx = ctx();
        let walked = walk(&s, 9, limits(5, 100), &mut ctx).unwrap();
        let trips_without_labels = {
            let mut plain = CallCtx::new(Instant::now() + Duration::from_secs(60));
            s.links.clear();
            walk(&s, 9, limits(5, 100), &mut plain).unwrap();
            plain.round_trips()
        };
        assert_eq!(walked.nodes[1].name.as_deref(), Some("Account"));
        assert_eq!(walked.nodes[3].name.as_deref(), Some("Account"));
        assert_eq!(walked.nodes[4].name.as_deref(), Some("n3"));
        assert_eq!(
            ctx.round_trips(),
            trips_without_labels + 2,
            "one label read per untitled linking node"
        );
    }

    #[test]
    fn an_expired_deadline_returns_what_was_read() {
        let mut ctx = CallCtx::new(Instant::now());
        let walked = walk(&app(), 0, limits(10, 10_000), &mut ctx).unwrap();
        assert!(walked.nodes.is_empty());
        assert!(walked.truncated);
    }
}
