//! Time and size budgets of the macOS backend: the messaging-timeout slice re-armed before
//! every AX call, and how many children one listing may fetch. Plain arithmetic, no Apple types.

use std::time::Duration;

/// The process-wide AX messaging timeout, set once on the system-wide element. The system
/// default (about 6 s) would let one hung app hold a worker far past any deadline.
pub(super) const GLOBAL_TIMEOUT: Duration = Duration::from_millis(1500);

/// The longest one AX call may wait for an app before it counts as a timeout.
pub(super) const CALL_SLICE: Duration = Duration::from_millis(250);

/// The most children one `AXChildren` listing fetches, whatever the node budget says.
pub(super) const MAX_CHILDREN: usize = 1000;

/// The smallest timeout worth arming: below this a call cannot complete anyway.
const MIN_SLICE: Duration = Duration::from_millis(1);

/// The messaging timeout for the next AX call: `min(remaining, CALL_SLICE)`, or `None` when
/// the deadline leaves no time for a call.
pub(super) fn call_slice(remaining: Duration) -> Option<Duration> {
    (remaining >= MIN_SLICE).then(|| remaining.min(CALL_SLICE))
}

/// How many children to fetch for a node when `nodes_left` more nodes fit in the snapshot.
pub(super) fn child_cap(nodes_left: usize) -> usize {
    nodes_left.min(MAX_CHILDREN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_is_capped_by_the_deadline() {
        assert_eq!(call_slice(Duration::from_secs(5)), Some(CALL_SLICE));
        assert_eq!(
            call_slice(Duration::from_millis(40)),
            Some(Duration::from_millis(40))
        );
        assert_eq!(call_slice(Duration::ZERO), None);
        assert_eq!(call_slice(Duration::from_micros(10)), None);
    }

    #[test]
    fn slice_is_shorter_than_the_global_timeout() {
        assert!(CALL_SLICE < GLOBAL_TIMEOUT);
    }

    #[test]
    fn child_cap_follows_the_node_budget() {
        assert_eq!(child_cap(0), 0);
        assert_eq!(child_cap(7), 7);
        assert_eq!(child_cap(1_000_000), MAX_CHILDREN);
    }
}
