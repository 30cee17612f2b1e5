//! Policy: what an authenticated principal may do, beyond its scopes.
//!
//! - app allow/deny-lists ([`axgate_engine::app_rules`]): enforced by the engine wherever an
//!   app is named, built here from `[policy]`;
//! - [`limits`]: per-principal rate limits on calls and on writes;
//! - [`confirm`]: which presses are destructive and how they are confirmed;
//! - [`principal`]: what a token, an issuer or a claim rule sets for itself (its own
//!   `unconfirmed` and rate limits);
//! - [`claims`]: the claim rules of a JWT issuer (`[[auth.issuers.rules]]`): which rule
//!   admits a token's claims, and so its scopes and its policy;
//! - secrets ([`Policy::secrets_for`]): which secret names a principal may type
//!   (`crate::secrets`);
//! - read-only mode ([`Policy::read_only`]): write tools are hidden and refused.
//!
//! A [`Policy`] is immutable; a reload (SIGHUP) builds a new one and swaps it in whole
//! ([`SharedPolicy`]), so a call sees one consistent policy from start to end.

pub mod claims;
pub mod confirm;
pub mod limits;
pub mod principal;

use std::sync::Arc;

use arc_swap::ArcSwap;

use axgate_engine::app_rules::{self as apps, AppRules};
use confirm::{DestructiveWords, Unconfirmed};
use limits::RateLimits;
use principal::Override;

/// The `[policy]` and `[limits]` configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyConfig {
    pub read_only: bool,
    pub allow_apps: Vec<String>,
    pub deny_apps: Vec<String>,
    pub confirm_words: Vec<String>,
    pub unconfirmed: Unconfirmed,
    pub calls_per_second: u32,
    pub writes_per_second: u32,
    /// Most `subscriptions/listen` requests one principal runs at once.
    pub max_listens_per_principal: usize,
    /// Most tasks (running or kept) one principal holds (`mcp/tasks.rs`).
    pub max_tasks_per_principal: usize,
    /// Bytes of finished task results kept, over all principals.
    pub max_task_bytes: usize,
    /// How long a task is kept after it was created, in seconds.
    pub task_ttl_secs: u64,
    /// Where secret values come from (`[secrets]`, `crate::secrets`).
    pub secret_source: crate::secrets::Source,
    /// `policy.secrets`: the secret names every principal may use unless its own policy says.
    pub secrets: Vec<String>,
    /// `policy.secrets_into_plain_fields`: a secret may go into a field that is not secure.
    pub secrets_into_plain_fields: bool,
    /// Per-token, per-issuer and per-rule overrides (`[auth] tokens` fields, `auth.jwt_*`,
    /// `[[auth.issuers]]` and their rules), rules before their issuer.
    pub principals: Vec<Override>,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            read_only: false,
            allow_apps: Vec::new(),
            deny_apps: apps::DEFAULT_DENY.iter().map(|s| s.to_string()).collect(),
            confirm_words: confirm::DEFAULT_WORDS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            unconfirmed: Unconfirmed::Refuse,
            calls_per_second: 50,
            writes_per_second: 10,
            max_listens_per_principal: 16,
            max_tasks_per_principal: 16,
            max_task_bytes: 64 << 20,
            task_ttl_secs: 300,
            secret_source: crate::secrets::Source::None,
            secrets: Vec::new(),
            secrets_into_plain_fields: false,
            principals: Vec::new(),
        }
    }
}

/// One consistent policy.
pub struct Policy {
    pub read_only: bool,
    pub apps: AppRules,
    pub words: DestructiveWords,
    pub unconfirmed: Unconfirmed,
    pub limits: RateLimits,
    pub config: PolicyConfig,
}

impl Policy {
    pub fn new(config: &PolicyConfig) -> Policy {
        Policy {
            read_only: config.read_only,
            apps: AppRules::new(&config.allow_apps, &config.deny_apps),
            words: DestructiveWords::new(&config.confirm_words),
            unconfirmed: config.unconfirmed,
            limits: RateLimits::new(
                config.calls_per_second,
                config.writes_per_second,
                &config.principals,
            ),
            config: config.clone(),
        }
    }

    /// What a destructive act does when `who` cannot be asked: its own override (its
    /// rule's, its issuer's or its token's), else `policy.unconfirmed`.
    pub fn unconfirmed_for<'a>(&self, who: impl Into<principal::Subject<'a>>) -> Unconfirmed {
        principal::find(&self.config.principals, who.into())
            .and_then(|o| o.unconfirmed)
            .unwrap_or(self.unconfirmed)
    }

    /// Which secrets `who` may use, and where that was decided: the first override that
    /// sets each (its rule's, its issuer's or its token's), else `[policy]`.
    pub fn secrets_for<'a>(
        &self,
        who: impl Into<principal::Subject<'a>>,
    ) -> crate::secrets::Access {
        let who = who.into();
        let mine = || {
            self.config
                .principals
                .iter()
                .filter(move |o| o.who.matches(who))
        };
        let (names, rule) = mine()
            .find_map(|o| {
                o.secrets
                    .clone()
                    .map(|n| (n, format!("{}.secrets", o.path())))
            })
            .unwrap_or_else(|| (self.config.secrets.clone(), "policy.secrets".to_owned()));
        let (plain_fields, plain_rule) = mine()
            .find_map(|o| {
                o.secrets_into_plain_fields
                    .map(|p| (p, format!("{}.secrets_into_plain_fields", o.path())))
            })
            .unwrap_or_else(|| {
                (
                    self.config.secrets_into_plain_fields,
                    "policy.secrets_into_plain_fields".to_owned(),
                )
            });
        crate::secrets::Access {
            names,
            rule,
            plain_fields,
            plain_rule,
        }
    }
}

/// One call taken from a caller's allowance when its HTTP request arrived, before its body
/// was read (`http::arrival`); carried in the request's extensions, so the handler takes
/// only the write of a writing tool ([`limits::RateLimits::take`]) and a POST that is no
/// counted request gives it back ([`Prepaid::give_back`]). Holds the policy it was taken
/// from: a reload meanwhile gives it back where it was taken.
#[derive(Clone)]
pub struct Prepaid {
    policy: Arc<Policy>,
    key: String,
    rule: Option<String>,
}

impl Prepaid {
    /// Takes one call from `who`'s allowance in `policy`.
    pub fn take(
        policy: Arc<Policy>,
        who: principal::Subject<'_>,
    ) -> Result<Prepaid, limits::Limited> {
        policy.limits.take(who, limits::Limit::Calls)?;
        Ok(Prepaid {
            key: who.key.to_owned(),
            rule: who.rule.map(str::to_owned),
            policy,
        })
    }

    /// Gives the call back: the POST was a notification, a response or `initialize`, which
    /// the rate limit does not count.
    pub fn give_back(&self) {
        self.policy.limits.give_back(principal::Subject {
            key: &self.key,
            rule: self.rule.as_deref(),
        });
    }
}

/// The current policy, swapped whole on reload.
pub type SharedPolicy = Arc<ArcSwap<Policy>>;

/// A shared handle on `config`'s policy.
pub fn shared(config: &PolicyConfig) -> SharedPolicy {
    Arc::new(ArcSwap::from_pointee(Policy::new(config)))
}
