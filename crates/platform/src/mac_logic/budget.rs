//! Time and size budgets of the macOS backend: the messaging-timeout slice re-armed before
//! every AX call, how many children one walk takes from a listing, and how much text one
//! value may carry. Plain arithmetic, no Apple types.
//!
//! The slice is derived from the call's remaining deadline rather than fixed: a fixed
//! 250 ms slice cut slow-but-healthy reads short (a big table in a busy app) and made them
//! look like a hung app. Each AX call may take a share of what is left ([`DEADLINE_SHARE`],
//! at most [`MAX_SLICE`]), never less than a configurable floor and never more than what is
//! left, so a hung app still ends the call before its deadline and a walk still has time
//! after one slow node.

use std::time::Duration;

/// The process-wide AX messaging timeout, set once on the system-wide element. The system
/// default (about 6 s) would let one hung app hold a worker far past any deadline.
pub(crate) const GLOBAL_TIMEOUT: Duration = Duration::from_millis(1500);

/// The default floor of a slice: no AX call is given less unless the deadline is closer.
pub(crate) const DEFAULT_FLOOR: Duration = Duration::from_millis(250);

/// One AX call may wait for at most this fraction (1/n) of the remaining deadline, unless
/// the floor is larger.
pub(crate) const DEADLINE_SHARE: u32 = 4;

/// No AX call waits longer than this, however long the deadline: the system's own default
/// messaging timeout, past which macOS itself treats an app as not answering.
pub(crate) const MAX_SLICE: Duration = Duration::from_secs(6);

/// The most children one `AXChildren` listing contributes to a walk, whatever the node
/// budget says.
pub(crate) const MAX_CHILDREN: usize = 1000;

/// The most characters of one text value a snapshot keeps (a text area may hold a whole
/// document).
pub(crate) const MAX_VALUE_CHARS: usize = 16 * 1024;

/// The smallest timeout worth arming: below this a call cannot complete anyway.
const MIN_SLICE: Duration = Duration::from_millis(1);

/// How AX calls are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slicing {
    /// No call is given less than this, unless the deadline is closer.
    pub(crate) floor: Duration,
}

impl Default for Slicing {
    fn default() -> Self {
        Slicing {
            floor: DEFAULT_FLOOR,
        }
    }
}

impl Slicing {
    /// The messaging timeout for the next AX call when `remaining` is left before the
    /// call's deadline: `min(remaining, max(floor, min(remaining / DEADLINE_SHARE,
    /// MAX_SLICE)))`, or `None` when the deadline leaves no time for a call.
    pub(crate) fn slice(self, remaining: Duration) -> Option<Duration> {
        (remaining >= MIN_SLICE).then(|| {
            let share = (remaining / DEADLINE_SHARE).min(MAX_SLICE);
            remaining.min(share.max(self.floor)).max(MIN_SLICE)
        })
    }
}

/// How many children to take from a listing when `nodes_left` more nodes fit in the
/// snapshot.
pub(crate) fn child_cap(nodes_left: usize) -> usize {
    nodes_left.min(MAX_CHILDREN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_slice_is_a_share_of_the_remaining_deadline() {
        let slicing = Slicing::default();
        assert_eq!(slicing.slice(Duration::from_secs(10)), Some(ms(2500)));
        assert_eq!(slicing.slice(Duration::from_secs(2)), Some(ms(500)));
    }

    #[test]
    fn a_long_deadline_is_not_one_calls_to_wait_out() {
        let slicing = Slicing::default();
        assert_eq!(slicing.slice(Duration::from_secs(600)), Some(MAX_SLICE));
        let generous = Slicing {
            floor: Duration::from_secs(10),
        };
        assert_eq!(
            generous.slice(Duration::from_secs(600)),
            Some(Duration::from_secs(10)),
            "a configured floor wins"
        );
    }

    #[test]
    fn the_floor_holds_until_the_deadline_is_closer() {
        let slicing = Slicing::default();
        assert_eq!(slicing.slice(ms(800)), Some(DEFAULT_FLOOR));
        assert_eq!(slicing.slice(ms(40)), Some(ms(40)));
        assert_eq!(slicing.slice(Duration::ZERO), None);
        assert_eq!(slicing.slice(Duration::from_micros(10)), None);
    }

    #[test]
    fn the_floor_is_configurable() {
        let slicing = Slicing { floor: ms(1000) };
        assert_eq!(slicing.slice(ms(1600)), Some(ms(1000)));
        assert_eq!(slicing.slice(ms(600)), Some(ms(600)));
        assert_eq!(slicing.slice(Duration::from_secs(8)), Some(ms(2000)));
    }

    #[test]
    fn a_slow_but_healthy_read_fits_where_the_fixed_slice_cut_it() {
        // A 400 ms read of a big table, in a 5 s call: the old fixed 250 ms slice timed it
        // out (and counted it as a strike).
        let slice = Slicing::default().slice(Duration::from_secs(5)).unwrap();
        assert!(slice > ms(400), "{slice:?}");
    }

    #[test]
    fn child_cap_follows_the_node_budget() {
        assert_eq!(child_cap(0), 0);
        assert_eq!(child_cap(7), 7);
        assert_eq!(child_cap(1_000_000), MAX_CHILDREN);
    }
}
