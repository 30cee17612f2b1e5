//! Per-principal rate limits on tool calls (`limits.calls_per_second`) and, separately, on
//! writes (`limits.writes_per_second`, default 10/s), with `governor`'s keyed GCRA limiters.
//! A limited call is refused before it runs, with how long to wait.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Which limit refused a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Calls,
    Writes,
}

impl Limit {
    /// The metric label and config key stem.
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Calls => "calls",
            Limit::Writes => "writes",
        }
    }
}

/// A refusal: the limit and when to retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limited {
    pub limit: Limit,
    pub per_second: u32,
    pub retry_after: Duration,
}

impl std::fmt::Display for Limited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rate limited: at most {} {} per second for this principal (limits.{}_per_second); retry after {} ms",
            self.per_second,
            match self.limit {
                Limit::Calls => "tool calls",
                Limit::Writes => "writes",
            },
            self.limit.as_str(),
            self.retry_after.as_millis().max(1)
        )
    }
}

/// Both limiters, keyed by principal.
pub struct RateLimits {
    calls: DefaultKeyedRateLimiter<String>,
    writes: DefaultKeyedRateLimiter<String>,
    calls_per_second: u32,
    writes_per_second: u32,
}

fn quota(per_second: u32) -> Quota {
    Quota::per_second(NonZeroU32::new(per_second.max(1)).unwrap_or(NonZeroU32::MIN))
}

impl RateLimits {
    pub fn new(calls_per_second: u32, writes_per_second: u32) -> RateLimits {
        RateLimits {
            calls: RateLimiter::keyed(quota(calls_per_second)),
            writes: RateLimiter::keyed(quota(writes_per_second)),
            calls_per_second,
            writes_per_second,
        }
    }

    /// Takes one call (and one write when `write`) from `principal`'s allowance. A write
    /// refused by the write limit still counts as a call.
    pub fn check(&self, principal: &str, write: bool) -> Result<(), Limited> {
        // The limiter's own clock: building a clock calibrates it (CPUID), which profiled at
        // 8 % of a loaded server's CPU when it was done on every call.
        let key = principal.to_owned();
        self.calls.check_key(&key).map_err(|nu| Limited {
            limit: Limit::Calls,
            per_second: self.calls_per_second,
            retry_after: nu.wait_time_from(self.calls.clock().now()),
        })?;
        if write {
            self.writes.check_key(&key).map_err(|nu| Limited {
                limit: Limit::Writes,
                per_second: self.writes_per_second,
                retry_after: nu.wait_time_from(self.writes.clock().now()),
            })?;
        }
        Ok(())
    }

    /// Forgets principals whose allowance is full again (bounded memory).
    pub fn forget_idle(&self) {
        self.calls.retain_recent();
        self.writes.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_limited_separately_and_per_principal() {
        let limits = RateLimits::new(1000, 3);
        for _ in 0..3 {
            assert_eq!(limits.check("ci", true), Ok(()));
        }
        let refused = limits.check("ci", true).unwrap_err();
        assert_eq!(refused.limit, Limit::Writes);
        assert!(refused.retry_after > Duration::ZERO);
        assert!(
            refused.retry_after <= Duration::from_millis(400),
            "{refused:?}"
        );
        assert!(refused.to_string().contains("limits.writes_per_second"));
        // Reads still pass, and another principal has its own allowance.
        assert_eq!(limits.check("ci", false), Ok(()));
        assert_eq!(limits.check("agent", true), Ok(()));
    }

    #[test]
    fn calls_are_limited_too() {
        let limits = RateLimits::new(2, 100);
        assert!(limits.check("a", false).is_ok());
        assert!(limits.check("a", false).is_ok());
        let refused = limits.check("a", false).unwrap_err();
        assert_eq!(refused.limit, Limit::Calls);
        assert!(refused.to_string().contains("retry after"));
    }
}
