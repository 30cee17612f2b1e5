//! Each app's own timing of effects, learned from the acts on it: how long after an act its
//! first visible effect came (its latency) and the longest pause inside one burst of effect
//! events (its rhythm). Acting waits by these instead of fixed windows: a fast app is looked at
//! as soon as its burst is over, a slow app gets a longer (bounded) window before an act is
//! reported without a visible effect. Plain logic, no I/O.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::model::Pid;

/// The quiet after the last effect event that ends a burst, for an app not yet measured.
pub const SETTLE_QUIET: Duration = Duration::from_millis(30);
/// The shortest such quiet, however regular the app: events of one burst travel through
/// the bus and a worker, which adds a few milliseconds of jitter.
pub const SETTLE_QUIET_MIN: Duration = Duration::from_millis(6);
/// How long an app that shows no effect must also stay quiet (no effect events) before an act
/// is reported unverified, for an app not measured slow. An effect that is invisible to the
/// picture (typing into a secure field) still sends events while the app works; once they
/// stop, the app has settled and waiting longer would show nothing new.
pub const UNVERIFIED_QUIET: Duration = Duration::from_millis(400);
/// The shortest such quiet, for an app measured fast: its slowest effect came well inside
/// it (a quarter of it at most), so waiting the unmeasured 400 ms would only cost time.
pub const UNVERIFIED_FAST: Duration = Duration::from_millis(200);
/// Acts remembered per app.
const KEEP: usize = 8;
/// Apps remembered (oldest measured forgotten first).
const APPS: usize = 256;

/// What one act showed of the app's timing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// From the act to the first effect event or visible change.
    pub latency: Duration,
    /// The longest gap between two effect events of the burst that followed.
    pub gap: Duration,
}

/// Each app's recent samples, and the apps in the order they were first measured.
type Learned = (HashMap<Pid, VecDeque<Sample>>, VecDeque<Pid>);

/// The learned timings of every app acted on.
#[derive(Default)]
pub struct Rhythms {
    apps: Mutex<Learned>,
}

/// How long to wait, for one app, right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Windows {
    /// The quiet that ends a burst of effect events.
    pub settle: Duration,
    /// The quiet after which an act without a visible effect is reported unverified.
    pub unverified: Duration,
}

impl Rhythms {
    /// Records what an act with a visible effect showed.
    pub fn record(&self, pid: Pid, sample: Sample) {
        let mut guard = self.apps.lock().unwrap_or_else(PoisonError::into_inner);
        let (map, order) = &mut *guard;
        if !map.contains_key(&pid) {
            if order.len() >= APPS
                && let Some(old) = order.pop_front()
            {
                map.remove(&old);
            }
            order.push_back(pid);
        }
        let list = map.entry(pid).or_default();
        if list.len() >= KEEP {
            list.pop_front();
        }
        list.push_back(sample);
    }

    /// The windows for `pid`, never past `wait` (the caller's bound).
    pub fn windows(&self, pid: Pid, wait: Duration) -> Windows {
        let guard = self.apps.lock().unwrap_or_else(PoisonError::into_inner);
        windows(guard.0.get(&pid).map(|l| l.iter().copied()), wait)
    }

    /// Forgets an app (it exited).
    pub fn forget(&self, pid: Pid) {
        let mut guard = self.apps.lock().unwrap_or_else(PoisonError::into_inner);
        guard.0.remove(&pid);
        guard.1.retain(|p| *p != pid);
    }
}

/// The windows that recent samples call for. The settle quiet is twice the longest pause
/// seen inside a burst, plus the jitter floor, capped at [`SETTLE_QUIET`]; the unverified
/// quiet is four times the slowest latency seen between [`UNVERIFIED_FAST`] and
/// [`UNVERIFIED_QUIET`], and never less than twice it (a slow app waits longer), capped at
/// `wait`.
fn windows(samples: Option<impl Iterator<Item = Sample>>, wait: Duration) -> Windows {
    let Some(samples) = samples else {
        return Windows {
            settle: SETTLE_QUIET,
            unverified: UNVERIFIED_QUIET.min(wait),
        };
    };
    let (gap, latency) = samples.fold((Duration::ZERO, Duration::ZERO), |(g, l), s| {
        (g.max(s.gap), l.max(s.latency))
    });
    Windows {
        settle: (gap * 2 + SETTLE_QUIET_MIN).min(SETTLE_QUIET),
        unverified: (latency * 4)
            .clamp(UNVERIFIED_FAST, UNVERIFIED_QUIET)
            .max(latency * 2)
            .min(wait),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_millis(1500);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn an_unmeasured_app_gets_the_default_windows() {
        let r = Rhythms::default();
        let w = r.windows(1, WAIT);
        assert_eq!(w.settle, SETTLE_QUIET);
        assert_eq!(w.unverified, UNVERIFIED_QUIET);
        assert_eq!(
            r.windows(1, ms(100)).unverified,
            ms(100),
            "bounded by the wait"
        );
    }

    #[test]
    fn a_regular_fast_app_settles_sooner_and_a_slow_one_waits_longer_bounded() {
        let r = Rhythms::default();
        r.record(
            1,
            Sample {
                latency: ms(3),
                gap: ms(2),
            },
        );
        assert_eq!(r.windows(1, WAIT).settle, ms(10));
        assert_eq!(
            r.windows(1, WAIT).unverified,
            UNVERIFIED_FAST,
            "measured fast"
        );
        r.record(
            1,
            Sample {
                latency: ms(80),
                gap: ms(2),
            },
        );
        assert_eq!(
            r.windows(1, WAIT).unverified,
            ms(320),
            "four times its slowest"
        );
        r.record(
            1,
            Sample {
                latency: ms(150),
                gap: ms(2),
            },
        );
        assert_eq!(r.windows(1, WAIT).unverified, UNVERIFIED_QUIET);
        r.record(
            2,
            Sample {
                latency: ms(600),
                gap: ms(40),
            },
        );
        let slow = r.windows(2, WAIT);
        assert_eq!(slow.settle, SETTLE_QUIET, "capped");
        assert_eq!(slow.unverified, ms(1200));
        r.record(
            2,
            Sample {
                latency: ms(5000),
                gap: ms(1),
            },
        );
        assert_eq!(r.windows(2, WAIT).unverified, WAIT, "never past the wait");
        assert_eq!(r.windows(1, WAIT).settle, ms(10), "apps are apart");
    }

    #[test]
    fn old_samples_age_out_and_exited_apps_are_forgotten() {
        let r = Rhythms::default();
        r.record(
            1,
            Sample {
                latency: ms(900),
                gap: ms(0),
            },
        );
        for _ in 0..KEEP {
            r.record(
                1,
                Sample {
                    latency: ms(1),
                    gap: ms(0),
                },
            );
        }
        assert_eq!(r.windows(1, WAIT).unverified, UNVERIFIED_FAST);
        assert_eq!(r.windows(1, WAIT).settle, SETTLE_QUIET_MIN);
        r.forget(1);
        assert_eq!(r.windows(1, WAIT).settle, SETTLE_QUIET);
    }
}
