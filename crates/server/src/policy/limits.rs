//! Per-principal rate limits on calls (`limits.calls_per_second`) and, separately, on
//! writes (`limits.writes_per_second`, default 10/s), as keyed GCRA allowances (a burst of
//! one second's worth, then one per interval). A limited call is refused before it runs,
//! with how long to wait. A token or an issuer with its own rates
//! ([`super::principal::Override`]) has its own pair of allowances, keyed by principal too,
//! so every JWT subject of an issuer still has an allowance of its own.
//!
//! Over HTTP a call is taken when the request arrives, before its body is read
//! ([`super::Prepaid`], `http::arrival`), so a caller over its rate is refused at once
//! however slowly it sends; what turns out not to be a request (a notification, a
//! response, `initialize`) is given back ([`RateLimits::give_back`]), which `governor`'s
//! limiters cannot do, hence the few lines of GCRA here.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

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

/// One keyed GCRA allowance: `per_second` a second, in a burst of at most `per_second`.
struct Allowance {
    per_second: u32,
    /// The time between two calls at the full rate.
    interval: Duration,
    /// How far ahead of now a key's theoretical arrival time may run (the burst).
    tolerance: Duration,
    /// Each key's theoretical arrival time; a key whose time has passed holds its full
    /// burst and is forgotten by [`Allowance::forget_idle`].
    due: Mutex<HashMap<String, Instant>>,
}

impl Allowance {
    fn new(per_second: u32) -> Allowance {
        let per_second = per_second.max(1);
        let interval = Duration::from_secs(1) / per_second;
        Allowance {
            per_second,
            interval,
            tolerance: interval * (per_second - 1),
            due: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.due.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes one from `key`'s allowance, or says how long until one is there.
    fn take(&self, key: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let mut due = self.lock();
        let at = due.get(key).map_or(now, |&at| at.max(now));
        let ahead = at - now;
        if ahead > self.tolerance {
            return Err(ahead - self.tolerance);
        }
        match due.get_mut(key) {
            Some(slot) => *slot = at + self.interval,
            None => {
                due.insert(key.to_owned(), at + self.interval);
            }
        }
        Ok(())
    }

    /// Gives one back to `key`'s allowance (never more than its full burst).
    fn give_back(&self, key: &str) {
        let now = Instant::now();
        let mut due = self.lock();
        if let Some(at) = due.get_mut(key) {
            match at.checked_sub(self.interval) {
                Some(earlier) if earlier > now => *at = earlier,
                _ => {
                    due.remove(key);
                }
            }
        }
    }

    fn forget_idle(&self) {
        let now = Instant::now();
        self.lock().retain(|_, at| *at > now);
    }
}

/// The calls and writes allowances of one rate class, keyed by principal.
struct Pair {
    calls: Allowance,
    writes: Allowance,
}

impl Pair {
    fn new(calls_per_second: u32, writes_per_second: u32) -> Pair {
        Pair {
            calls: Allowance::new(calls_per_second),
            writes: Allowance::new(writes_per_second),
        }
    }
}

/// The default limiters and those of the tokens and issuers with rates of their own.
pub struct RateLimits {
    default: Pair,
    own: Vec<(Who, Pair)>,
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
        let principal = principal.into();
        self.take(principal, Limit::Calls)?;
        if write {
            self.take(principal, Limit::Writes)?;
        }
        Ok(())
    }

    /// Takes one from `principal`'s allowance of `limit` alone (a call whose request was
    /// counted when it arrived takes only its write here).
    pub fn take<'a>(&self, principal: impl Into<Subject<'a>>, limit: Limit) -> Result<(), Limited> {
        let principal = principal.into();
        let pair = self.pair_of(principal);
        let allowance = match limit {
            Limit::Calls => &pair.calls,
            Limit::Writes => &pair.writes,
        };
        allowance
            .take(principal.key)
            .map_err(|retry_after| Limited {
                limit,
                per_second: allowance.per_second,
                retry_after,
            })
    }

    /// Gives back one call taken for a POST that turned out to be no counted request.
    pub fn give_back<'a>(&self, principal: impl Into<Subject<'a>>) {
        let principal = principal.into();
        self.pair_of(principal).calls.give_back(principal.key);
    }

    /// Forgets principals whose allowance is full again (bounded memory).
    pub fn forget_idle(&self) {
        for pair in std::iter::once(&self.default).chain(self.own.iter().map(|(_, p)| p)) {
            pair.calls.forget_idle();
            pair.writes.forget_idle();
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
                secrets: None,
                secrets_into_plain_fields: None,
            },
            Override {
                who: Who::Issuer("https://idp".into()),
                unconfirmed: None,
                calls_per_second: Some(1),
                writes_per_second: None,
                secrets: None,
                secrets_into_plain_fields: None,
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

    #[test]
    fn a_call_given_back_is_there_again_but_never_beyond_the_burst() {
        let limits = RateLimits::new(2, 100, &[]);
        // Nothing taken: giving back adds nothing.
        limits.give_back("a");
        assert!(limits.check("a", false).is_ok());
        assert!(limits.check("a", false).is_ok());
        assert!(limits.check("a", false).is_err());
        limits.give_back("a");
        assert!(limits.check("a", false).is_ok());
        assert_eq!(
            limits.check("a", false).unwrap_err().limit,
            Limit::Calls,
            "one given back, one taken"
        );
    }

    #[test]
    fn a_prepaid_call_takes_only_its_write() {
        let limits = RateLimits::new(1, 2, &[]);
        assert!(limits.take("a", Limit::Calls).is_ok());
        // The call was taken at arrival: the write allowance alone decides.
        assert!(limits.take("a", Limit::Writes).is_ok());
        assert!(limits.take("a", Limit::Writes).is_ok());
        assert_eq!(
            limits.take("a", Limit::Writes).unwrap_err().limit,
            Limit::Writes
        );
    }
}
