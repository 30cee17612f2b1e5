//! The bounded pre-order walk behind the macOS `Backend::snapshot`, written against
//! [`AxSource`], a small trait over the AX calls it needs, so the walk runs (and is tested)
//! on any host with a fake source.
//!
//! One round trip per node: the source reads every attribute of [`decode::NODE_ATTRS`] and
//! `AXChildren` in one batched call. Action names are not read (the snapshot reports the
//! role's implied actions; acting re-reads the real ones), nor is the settable flag (checked
//! at write time), nor a separate child count (the batched listing has it, leaves at the
//! depth limit included). A cycle guard skips any element already met in this walk, so a
//! child that lists an ancestor (seen in broken apps) cannot loop the walk. Elements that
//! vanish mid-walk are skipped; the deadline or a slow app ends the walk early with
//! `truncated` set, never an error, unless not even the root could be read.

use std::collections::HashSet;
use std::hash::Hash;

use axgate_engine::{CallCtx, RawNode};

use super::budget;
use super::decode::{self, AttrValue};
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
/// implement it over an in-memory tree.
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
    ) -> Result<Vec<AttrValue>, Self::Failure>;

    /// What a failure means to the walk.
    fn classify(&self, failure: Self::Failure) -> FailureKind;
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
}

/// A node waiting to be read.
struct Pending<E> {
    element: E,
    parent: Option<usize>,
    depth: u32,
}

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
        depth: 0,
    }];
    let mut walked = Walked {
        nodes: Vec::new(),
        elements: Vec::new(),
        truncated: false,
    };
    while let Some(item) = stack.pop() {
        if walked.nodes.len() >= max_nodes || ctx.expired() {
            walked.truncated = true;
            break;
        }
        let read = match source.read(&item.element, ctx) {
            Ok(read) => read,
            Err(f) if walked.nodes.is_empty() => return Err(f),
            // The element went away between listing and reading: not part of the tree now.
            Err(f) if source.classify(f) == FailureKind::Gone => continue,
            Err(_) => {
                walked.truncated = true;
                break;
            }
        };
        let mut node = node_from(&read.values);
        name_from_link(source, &mut node, &read, ctx);
        node.parent = item.parent;
        node.child_count = read.children.len();
        let index = walked.nodes.len();
        if item.depth < limits.max_depth {
            let nodes_left = max_nodes - index - 1;
            let cap = budget::child_cap(nodes_left);
            let skipped = if item.parent.is_none() {
                limits.skip_children
            } else {
                0
            };
            if read.children.len().saturating_sub(skipped) > cap {
                walked.truncated = true;
            }
            let fresh: Vec<S::Element> = read
                .children
                .into_iter()
                .skip(skipped)
                .take(cap)
                // The cycle guard: an element met before (an ancestor listed as a child, or a
                // child listed by two parents) is read once.
                .filter(|child| seen.insert(child.clone()))
                .collect();
            stack.extend(fresh.into_iter().rev().map(|element| Pending {
                element,
                parent: Some(index),
                depth: item.depth + 1,
            }));
        }
        walked.nodes.push(node);
        walked.elements.push(item.element);
    }
    Ok(walked)
}

/// Names `node` by its linked label when nothing it carries ranks above it: one more batched
/// read, of the linked element only. A label that cannot be read leaves the name as it is.
pub(crate) fn name_from_link<S: AxSource>(
    source: &S,
    node: &mut RawNode,
    read: &NodeRead<S::Element>,
    ctx: &mut CallCtx,
) {
    if let Some(link) = &read.linked
        && decode::wants_linked_label(node, &read.values)
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
    use crate::mac_logic::decode::NODE_ATTRS;

    /// An in-memory app: element id → (role, title, children). Every read is one round trip.
    #[derive(Default)]
    struct FakeSource {
        nodes: HashMap<u32, (&'static str, String, Vec<u32>)>,
        /// Element → the label element its `AXTitleUIElement` links.
        links: HashMap<u32, u32>,
        /// Elements that fail as "gone" or "timeout" when read.
        gone: Vec<u32>,
        slow: Vec<u32>,
    }

    impl FakeSource {
        fn add(&mut self, id: u32, role: &'static str, children: &[u32]) {
            self.nodes
                .insert(id, (role, format!("n{id}"), children.to_vec()));
        }
    }

    impl AxSource for FakeSource {
        type Element = u32;
        type Failure = FailureKind;

        fn read(&self, element: &u32, ctx: &mut CallCtx) -> Result<NodeRead<u32>, FailureKind> {
            ctx.trips(1);
            if self.gone.contains(element) {
                return Err(FailureKind::Gone);
            }
            if self.slow.contains(element) {
                return Err(FailureKind::Timeout);
            }
            let (role, title, children) = self.nodes.get(element).ok_or(FailureKind::Gone)?;
            let linked = self.links.get(element).copied();
            let values = NODE_ATTRS
                .iter()
                .map(|name| match *name {
                    "AXRole" => AttrValue::Text((*role).to_owned()),
                    "AXTitle" => AttrValue::Text(title.clone()),
                    "AXTitleUIElement" if linked.is_some() => AttrValue::Element,
                    _ => AttrValue::Missing,
                })
                .collect();
            Ok(NodeRead {
                values,
                children: children.clone(),
                linked,
            })
        }

        fn read_label(
            &self,
            element: &u32,
            ctx: &mut CallCtx,
        ) -> Result<Vec<AttrValue>, FailureKind> {
            ctx.trips(1);
            let (_, title, _) = self.nodes.get(element).ok_or(FailureKind::Gone)?;
            Ok(vec![AttrValue::Missing, AttrValue::Text(title.clone())])
        }

        fn classify(&self, failure: FailureKind) -> FailureKind {
            failure
        }
    }

    /// An app with a window holding a toolbar of 5 buttons and a list of 40 rows of 2 cells.
    fn app() -> FakeSource {
        let mut s = FakeSource::default();
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
        assert_eq!(ctx.round_trips(), walked.nodes.len() as u64);
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
        assert_eq!(ctx.round_trips(), 4);
    }

    #[test]
    fn the_node_budget_truncates() {
        let mut ctx = ctx();
        let walked = walk(&app(), 0, limits(10, 20), &mut ctx).unwrap();
        assert_eq!(walked.nodes.len(), 20);
        assert!(walked.truncated);
        assert!(ctx.round_trips() <= 20);
    }

    #[test]
    fn a_huge_listing_contributes_at_most_the_child_cap() {
        let mut s = FakeSource::default();
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
        assert_eq!(ctx.round_trips(), walked.nodes.len() as u64);
    }

    #[test]
    fn editable_nodes_are_settable_without_a_round_trip() {
        let mut s = FakeSource::default();
        s.add(0, "AXWindow", &[1, 2]);
        s.add(1, "AXTextField", &[]);
        s.add(2, "AXCheckBox", &[]);
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(5, 100), &mut ctx).unwrap();
        assert!(walked.nodes[1].states.value_settable);
        assert!(walked.nodes[2].states.value_settable, "pressable toggles");
        assert_eq!(walked.nodes[2].actions, ["press"]);
        assert_eq!(walked.nodes[0].actions, ["raise"]);
        assert_eq!(ctx.round_trips(), 3);
    }

    #[test]
    fn a_cycle_is_walked_once() {
        let mut s = FakeSource::default();
        // 2's child is its grandparent; 3 is listed twice by 1.
        s.add(0, "AXApplication", &[1]);
        s.add(1, "AXWindow", &[2, 3, 3]);
        s.add(2, "AXGroup", &[0, 3]);
        s.add(3, "AXButton", &[1]);
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(50, 10_000), &mut ctx).unwrap();
        assert_eq!(order(&walked), [0, 1, 2, 3]);
        assert_eq!(walked.nodes[3].parent, Some(1));
        assert_eq!(ctx.round_trips(), 4);
    }

    #[test]
    fn vanished_elements_are_skipped() {
        let mut s = app();
        s.gone = vec![11, 3];
        let walked = walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap();
        assert_eq!(order(&walked), [0, 1, 2, 10, 12, 13, 14]);
        assert!(!walked.truncated);
    }

    #[test]
    fn a_slow_element_truncates_and_an_unreadable_root_fails() {
        let mut s = app();
        s.slow = vec![12];
        let walked = walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap();
        assert_eq!(order(&walked), [0, 1, 2, 10, 11]);
        assert!(walked.truncated);
        s.slow = vec![0];
        assert_eq!(
            walk(&s, 0, limits(10, 10_000), &mut ctx()).unwrap_err(),
            FailureKind::Timeout
        );
    }

    #[test]
    fn linked_labels_name_untitled_nodes_for_one_read_each() {
        let mut s = FakeSource::default();
        s.add(0, "AXWindow", &[1, 2, 3]);
        s.add(1, "AXStaticText", &[]);
        s.add(2, "AXTextField", &[]);
        s.add(3, "AXButton", &[]);
        // Untitled: the label's value names them. Node 3 links too but has a title.
        s.nodes.get_mut(&0).unwrap().1 = String::new();
        s.nodes.get_mut(&2).unwrap().1 = String::new();
        s.links = HashMap::from([(0, 1), (2, 1), (3, 1)]);
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(5, 100), &mut ctx).unwrap();
        assert_eq!(walked.nodes[0].name.as_deref(), Some("n1"));
        assert_eq!(walked.nodes[2].name.as_deref(), Some("n1"));
        assert_eq!(walked.nodes[3].name.as_deref(), Some("n3"));
        assert_eq!(
            ctx.round_trips(),
            4 + 2,
            "one label read per untitled linking node"
        );
    }

    #[test]
    fn nodes_without_a_link_cost_no_label_read() {
        let mut ctx = ctx();
        let walked = walk(&app(), 0, limits(10, 10_000), &mut ctx).unwrap();
        assert_eq!(ctx.round_trips(), walked.nodes.len() as u64);
        assert_eq!(walked.nodes[3].name.as_deref(), Some("n10"));
    }

    #[test]
    fn an_expired_deadline_returns_what_was_read() {
        let mut ctx = CallCtx::new(Instant::now());
        let walked = walk(&app(), 0, limits(10, 10_000), &mut ctx).unwrap();
        assert!(walked.nodes.is_empty());
        assert!(walked.truncated);
    }
}
