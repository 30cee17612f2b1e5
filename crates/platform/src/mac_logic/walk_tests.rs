//! Tests of the walk (`walk.rs`) over the fake AX source: order, budgets, cycles, vanished
//! and slow elements, ranged reads at the root, and linked labels.

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
