//! Authentication and authorization of the HTTP surface: axgate is an OAuth 2.1 resource
//! server (MCP authorization, RFC 9728, RFC 8707, RFC 6750) that also accepts static bearer
//! tokens.
//!
//! The parsers of credentials (the `Authorization` header, the static-token table, the JWT
//! rules, JWK sets, the refusals) are `axgate_parse::credentials`, a crate of few
//! dependencies that is fuzzed on its own; this module composes them with what is not pure:
//!
//! - `Principal` (name, scopes, kind) and `Scope` (`axgate:read|act|admin`): `crate::identity`;
//! - [`tokens`]: static tokens, stored as SHA-256, compared in constant time, minted by
//!   `axgate token new`;
//! - [`jwt`] and [`jwks`]: JWT access tokens checked against the issuer's cached JWKS;
//! - [`issuers`]: the trusted issuers (`auth.issuer`, `[[auth.issuers]]`), selected by the
//!   token's `iss`, each with its own keys, audience, `typ` and claim rules;
//! - [`verified`]: JWTs already verified, by token digest (bounded, short-lived, re-checked
//!   against the published key ids);
//! - [`middleware`]: the layer on every route but `/healthz`, `/readyz` and the metadata
//!   documents — 401/400/403 with challenges, `Principal` into the request extensions;
//! - [`metadata`]: the Protected Resource Metadata documents;
//! - [`failure`]: refusals as HTTP responses (challenges, bounded metric reasons);
//! - [`posture`]: refusing to listen beyond loopback without authentication.
//!
//! Auth is on when `[auth]` configures at least one static token or issuer. A token is
//! never logged, never stored (only hashes), and never passed on: the `Authorization` header
//! is removed once checked, so nothing behind the layer (rmcp, tools) sees it.

pub mod failure;
pub mod issuers;
pub mod jwks;
pub mod jwt;
pub mod metadata;
pub mod middleware;
pub mod posture;
pub mod tokens;
pub mod verified;

use std::sync::Arc;

use arc_swap::ArcSwap;
use http::HeaderMap;
use prometheus::IntCounterVec;

pub use crate::identity::{Principal, PrincipalKind, Scope, required_scope};
pub use axgate_parse::credentials::{MAX_TOKEN_BYTES, bearer, unknown_token};
pub use failure::{Failure, FailureResponse, Reason};

use crate::config::AuthConfig;
use crate::identity::token_key;
use crate::metrics::Metrics;
use issuers::{Admissions, Issuers};
use jwt::looks_like_jwt;
use tokens::StaticTokens;
use verified::VerifiedTokens;

/// The credentials accepted at one time; replaced whole on reload.
struct Credentials {
    config: AuthConfig,
    statics: StaticTokens,
    issuers: Issuers,
    /// The issuers whose claim rules the last reload changed.
    rules_changed: Vec<String>,
}

/// The credentials axgate accepts and where refusals are counted.
pub struct Auth {
    current: ArcSwap<Credentials>,
    failures: IntCounterVec,
    /// JWTs already verified (emptied when the JWT settings change).
    verified: VerifiedTokens,
    /// The claims rule-admitted principals showed last (for reloads that change rules).
    admissions: Admissions,
}

impl Auth {
    /// `None` when the configuration turns auth off (no tokens, no issuer).
    pub fn new(config: &AuthConfig, metrics: &Metrics) -> Result<Option<Auth>, String> {
        if !config.enabled() {
            return Ok(None);
        }
        Ok(Some(Auth {
            current: ArcSwap::from_pointee(Credentials::new(config, None)?),
            failures: metrics.http.auth_failures.clone(),
            verified: VerifiedTokens::new(metrics.http.jwt_cache_bytes.clone()),
            admissions: Admissions::default(),
        }))
    }

    /// Replaces the accepted credentials (SIGHUP): a removed token stops working for the
    /// next request. The JWKS cache is kept when the issuer settings did not change. Auth
    /// cannot be turned off by a reload; that needs a restart. `Ok(true)` when anything
    /// changed.
    pub fn reload(&self, config: &AuthConfig) -> Result<bool, String> {
        if !config.enabled() {
            return Err(
                "the new configuration has no [auth] tokens or issuer; turning \
                        authentication off needs a restart"
                    .into(),
            );
        }
        let current = self.current.load();
        if current.config == *config {
            return Ok(false);
        }
        let next = Credentials::new(config, Some(&current))?;
        if current.config.issuers != config.issuers {
            self.verified.clear();
        }
        self.current.store(Arc::new(next));
        Ok(true)
    }

    /// The issuers whose JWTs are accepted, in configuration order.
    pub fn issuers(&self) -> Vec<String> {
        self.current.load().issuers.names()
    }

    /// This server's resource URI: `auth.audience`, else derived from the request's Host
    /// (`https://` when the listener serves TLS).
    pub fn resource(&self, headers: &HeaderMap) -> String {
        let current = self.current.load();
        match &current.config.resource {
            Some(resource) => resource.clone(),
            None if current.config.https => metadata::derived_resource("https", headers),
            None => metadata::derived_resource("http", headers),
        }
    }

    /// The URL of the metadata document, for `resource_metadata` in challenges.
    pub fn metadata_url(&self, headers: &HeaderMap) -> String {
        metadata::metadata_url(&self.resource(headers))
    }

    /// Who sent the request, from its `Authorization: Bearer` header.
    pub async fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, Failure> {
        let token = bearer(headers)?;
        let current = self.current.load_full();
        if let Some(principal) = current.statics.find(token) {
            return Ok(principal);
        }
        if current.issuers.is_empty() || !looks_like_jwt(token) {
            return Err(unknown_token());
        }
        let issuer = current.issuers.select(token)?;
        let (principal, claims) = self.verified.verify(issuer, token).await?;
        if let Some(claims) = claims {
            self.admissions.record(principal.key(), claims);
        }
        Ok(principal)
    }

    /// Whether the principal whose [`Principal::key`] is `key` still has a credential (after
    /// a reload): a static token of that name; a JWT of a trusted issuer — and, when the
    /// reload changed that issuer's claim rules, one whose last claims a rule still admits.
    /// A reload that removes a principal's credential ends what it holds
    /// (`AppState::reload`).
    pub fn still_accepted(&self, key: &str) -> bool {
        let current = self.current.load();
        if current
            .config
            .tokens
            .iter()
            .any(|t| token_key(&t.name) == key)
        {
            return true;
        }
        let Some(issuer) = current.issuers.for_key(key) else {
            return false;
        };
        if !current.rules_changed.iter().any(|i| i == issuer.issuer()) {
            return true;
        }
        self.admissions
            .get(key)
            .is_some_and(|claims| issuer.admits(&claims))
    }

    /// Counts a refusal.
    pub fn count(&self, reason: Reason) {
        self.failures.with_label_values(&[reason.label()]).inc();
    }
}

impl Credentials {
    /// Builds from `config`, keeping `previous`'s verifiers (and their JWKS caches) for
    /// issuers whose settings are the same.
    fn new(config: &AuthConfig, previous: Option<&Credentials>) -> Result<Credentials, String> {
        let issuers = Issuers::new(&config.issuers, previous.map(|p| &p.issuers))?;
        let rules_changed = previous.map_or_else(Vec::new, |p| issuers.rules_changed(&p.issuers));
        Ok(Credentials {
            config: config.clone(),
            statics: StaticTokens::new(&config.tokens),
            issuers,
            rules_changed,
        })
    }
}
