//! Tests of `get_tree`'s pages: the frontier cursor and where a page is cut.

use super::*;
use axgate_engine::{NodeId, RawNode};

fn node(depth: u32, child_count: usize, children: Vec<usize>) -> IndexedNode {
    let mut raw = RawNode::new(NodeId(0), Role::Group, "native");
    raw.child_count = child_count;
    IndexedNode {
        node: raw,
        path: ElementPath::default(),
        depth,
        children,
    }
}

#[test]
fn a_snapshot_with_a_gap_is_cut_after_the_short_subtree() {
    // root(2 children) → a(3 children, only 1 read) → a0; then b follows a's subtree.
    let gap = vec![
        node(0, 2, vec![1, 3]),
        node(1, 3, vec![2]),
        node(2, 0, vec![]),
        node(1, 0, vec![]),
    ];
    assert_eq!(
        prefix_len(&gap, 8, 0),
        3,
        "b is dropped: a's other children come first"
    );
    // The same short list at the end (the node budget ran out there) is a prefix.
    assert_eq!(prefix_len(&gap[..3], 8, 0), 3);
    // At the depth limit children are not read: no gap.
    assert_eq!(prefix_len(&gap, 1, 0), 4);
    // The root's skipped children count as read.
    assert_eq!(prefix_len(&[node(0, 5, vec![])], 8, 5), 1);
}

#[test]
fn a_cursor_round_trips_and_refuses_another_version() {
    let frontier = Frontier {
        v: VERSION,
        pid: 7,
        d: 4,
        levels: vec![Level {
            p: "window[0]".into(),
            h: Some("e3".into()),
            n: 2,
            r: BTreeMap::from([("button".to_owned(), 2)]),
        }],
    };
    assert_eq!(Frontier::decode(&frontier.encode()).unwrap(), frontier);
    let old = Frontier { v: 1, ..frontier };
    assert!(Frontier::decode(&old.encode()).is_err());
}

#[test]
fn what_a_snapshot_skipped_is_said_by_path() {
    use axgate_engine::{Skipped, SkippedPart};
    let mut table = node(0, 50_000, vec![]);
    table.path = ElementPath::parse("window[0]/table[0]").unwrap();
    let nodes = vec![table];
    let child = Skipped {
        node: 0,
        part: SkippedPart::Child(2),
        timed_out: true,
    };
    assert_eq!(
        describe_skipped(&child, &nodes).as_deref(),
        Some("child 2 of window[0]/table[0] (no answer in time)")
    );
    let value = Skipped {
        part: SkippedPart::Value,
        timed_out: false,
        ..child
    };
    assert_eq!(
        describe_skipped(&value, &nodes).as_deref(),
        Some("the value of window[0]/table[0] (an error)")
    );
    let elsewhere = Skipped { node: 7, ..child };
    assert_eq!(describe_skipped(&elsewhere, &nodes), None);
}
