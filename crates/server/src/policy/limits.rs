//! Per-principal rate limits on tool calls (`limits.calls_per_second`) and, separately, on
//! writes (`limits.writes_per_second`, default 10/s), with `governor`'s keyed GCRA limiters.
//! A limited call is refused before it runs, with how long to wait. A token or an issuer
//! with its own rates ([`super::principal::Override`]) has its own pair of limiters, keyed
//! by principal too, so every JWT subject of an issuer still has an allowance of its own.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::principal::{Override, Subject, Who};

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

/// The calls and writes limiters of one rate class, keyed by principal.
struct Pair {
    calls: DefaultKeyedRateLimiter<String>,
    writes: DefaultKeyedRateLimiter<String>,
    calls_per_second: u32,
    writes_per_second: u32,
}

impl Pair {
    fn new(calls_per_second: u32, writes_per_second: u32) -> Pair {
        Pair {
            calls: RateLimiter::keyed(quota(calls_per_second)),
            writes: RateLimiter::keyed(quota(writes_per_second)),
            calls_per_second,
            writes_per_second,
        }
    }
}

/// The default limiters and those of the tokens and issuers with rates of their own.
pub struct RateLimits {
    default: Pair,
    own: Vec<(Who, Pair)>,
}

fn quota(per_second: u32) -> Quota {
    Quota::per_second(NonZeroU32::new(per_second.max(1)).unwrap_or(NonZeroU32::MIN))
}

impl RateLimits {
    /// The `[limits]` rates, and the own rates of `overrides` that set any (what one of them
    /// leaves unset is the default).
    pub fn new(
        calls_per_second: u32,
        writes_per_second: u32,
        overrides: &[Override],
    ) -> RateLimits {
        let own = overrides
            .iter()
            .filter(|o| o.calls_per_second.is_some() || o.writes_per_second.is_some())
            .map(|o| {
                let pair = Pair::new(
                    o.calls_per_second.unwrap_or(calls_per_second),
                    o.writes_per_second.unwrap_or(writes_per_second),
                );
                (o.who.clone(), pair)
            })
            .collect();
        RateLimits {
            default: Pair::new(calls_per_second, writes_per_second),
            own,
        }
    }

    fn pair_of(&self, principal: Subject<'_>) -> &Pair {
        self.own
            .iter()
            .find(|(who, _)| who.matches(principal))
            .map_or(&self.default, |(_, pair)| pair)
    }

    /// Takes one call (and one write when `write`) from `principal`'s allowance (keyed by
    /// its identity key; its rates are those of its rule, issuer or token, if any). A write
    /// refused by the write limit still counts as a call.
    pub fn check<'a>(&self, principal: impl Into<Subject<'a>>, write: bool) -> Result<(), Limited> {
        // The limiter's own clock: building a clock calibrates it (CPUID), which profiled at
        // 8 % of a loaded server's CPU when it was done on every call.
        let principal = principal.into();
        let pair = self.pair_of(principal);
        let key = principal.key.to_owned();
        pair.calls.check_key(&key).map_err(|nu| Limited {
            limit: Limit::Calls,
            per_second: pair.calls_per_second,
            retry_after: nu.wait_time_from(pair.calls.clock().now()),
        })?;
        if write {
            pair.writes.check_key(&key).map_err(|nu| Limited {
                limit: Limit::Writes,
                per_second: pair.writes_per_second,
                retry_after: nu.wait_time_from(pair.writes.clock().now()),
            })?;
        }
        Ok(())
    }

    /// Forgets principals whose allowance is full again (bounded memory).
    pub fn forget_idle(&self) {
        for pair in std::iter::once(&self.default).chain(self.own.iter().map(|(_, p)| p)) {
            pair.calls.retain_recent();
            pair.writes.retain_recent();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_limited_separately_and_per_principal() {
        let limits = RateLimits::new(1000, 3, &[]);
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
        let limits = RateLimits::new(2, 100, &[]);
        assert!(limits.check("a", false).is_ok());
        assert!(limits.check("a", false).is_ok());
        let refused = limits.check("a", false).unwrap_err();
        assert_eq!(refused.limit, Limit::Calls);
        assert!(refused.to_string().contains("retry after"));
    }

    #[test]
    fn a_token_or_an_issuer_may_have_rates_of_its_own() {
        let overrides = [
            Override {
                who: Who::Token("ci".into()),
                unconfirmed: None,
                calls_per_second: None,
                writes_per_second: Some(5),
            },
            Override {
                who: Who::Issuer("https://idp".into()),
                unconfirmed: None,
                calls_per_second: Some(1),
                writes_per_second: None,
            },
        ];
        let limits = RateLimits::new(100, 1, &overrides);
        for _ in 0..5 {
            assert_eq!(limits.check("token:ci", true), Ok(()));
        }
        let refused = limits.check("token:ci", true).unwrap_err();
        assert_eq!((refused.limit, refused.per_second), (Limit::Writes, 5));
        // Another token keeps the default: one write.
        assert_eq!(limits.check("token:agent", true), Ok(()));
        assert_eq!(limits.check("token:agent", true).unwrap_err().per_second, 1);
        // Each subject of the issuer has its own allowance at the issuer's rate.
        assert_eq!(limits.check("jwt:https://idp#a", false), Ok(()));
        let refused = limits.check("jwt:https://idp#a", false).unwrap_err();
        assert_eq!((refused.limit, refused.per_second), (Limit::Calls, 1));
        assert_eq!(limits.check("jwt:https://idp#b", false), Ok(()));
    }
}
