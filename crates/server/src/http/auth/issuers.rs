//! The trusted JWT issuers (`auth.issuer` and `[[auth.issuers]]`): the token's unverified
//! `iss` selects one ([`Issuers::select`]), whose own keys (its JWK set, fetched and cached
//! per issuer), audience and `typ` verify it — so a `kid` of one issuer never finds another
//! issuer's key. Then its scopes: from the `scope`/`scp` claim for an issuer without claim
//! rules, else from the first rule that admits the claims (`crate::policy::claims`); no rule
//! admitting them is 403 naming the claims the rules check.
//!
//! [`Admissions`] remembers the claims each rule-admitted principal last showed, so a reload
//! that changes an issuer's rules can tell which principals they still admit.

use std::sync::Arc;

use axgate_parse::credentials::jwt::{self, issuer_of, scope_principal, subject};
use quick_cache::Weighter;
use quick_cache::sync::Cache;

use super::failure::Failure;
use super::jwt::JwtVerifier;
use crate::config::IssuerConfig;
use crate::identity::{Principal, jwt_key_prefix};
use crate::policy::claims::{ClaimText, Rules, claim_text};

/// One trusted issuer: its settings, its verifier (keys) and its compiled rules.
pub struct TrustedIssuer {
    pub config: IssuerConfig,
    verifier: Arc<JwtVerifier>,
    rules: Rules,
}

/// A verified token's principal, with the claims its rule compared (rule-admitted only).
pub struct Admitted {
    pub principal: Principal,
    pub claims: Option<ClaimText>,
}

impl TrustedIssuer {
    /// Keeps `previous`'s verifier (and its JWKS cache) when the JWT settings are the same.
    fn new(
        config: &IssuerConfig,
        previous: Option<&TrustedIssuer>,
    ) -> Result<TrustedIssuer, String> {
        let verifier = match previous {
            Some(prev) if prev.config.jwt == config.jwt => prev.verifier.clone(),
            _ => Arc::new(JwtVerifier::new(&config.jwt)?),
        };
        Ok(TrustedIssuer {
            config: config.clone(),
            verifier,
            rules: Rules::new(&config.rules),
        })
    }

    /// Its exact `iss`.
    pub fn issuer(&self) -> &str {
        &self.config.jwt.issuer
    }

    /// Whether it still publishes a key `kid` for `alg`.
    pub async fn publishes(&self, kid: &str, alg: jsonwebtoken::Algorithm) -> bool {
        self.verifier.publishes(kid, alg).await
    }

    /// Verifies `token` with this issuer's keys and rules.
    pub async fn verify(&self, token: &str) -> Result<Admitted, Failure> {
        let claims = self.verifier.verify(token).await?;
        if self.rules.is_empty() {
            let principal = scope_principal(self.issuer(), &claims)?;
            return Ok(Admitted {
                principal,
                claims: None,
            });
        }
        let text = claim_text(&claims);
        match self.rules.admit(&text) {
            Some(rule) => {
                let principal =
                    Principal::jwt(self.issuer(), subject(&claims), rule.scopes.clone())
                        .admitted_by(&rule.path);
                Ok(Admitted {
                    principal,
                    claims: Some(text),
                })
            }
            None => Err(Failure::not_admitted(format!(
                "no claim rule of {} ({}) admits this token; the rules check the claims {}",
                self.config.path,
                self.issuer(),
                self.rules.claim_names().join(", ")
            ))),
        }
    }

    /// Whether a rule admits `claims` (an issuer without rules admits every valid token).
    pub fn admits(&self, claims: &ClaimText) -> bool {
        self.rules.is_empty() || self.rules.admit(claims).is_some()
    }
}

/// Every trusted issuer, each `iss` once.
#[derive(Default)]
pub struct Issuers {
    list: Vec<Arc<TrustedIssuer>>,
}

impl Issuers {
    /// The issuers of `configs`, reusing `previous`'s verifiers where the settings match.
    pub fn new(configs: &[IssuerConfig], previous: Option<&Issuers>) -> Result<Issuers, String> {
        let list = configs
            .iter()
            .map(|config| {
                let prev = previous
                    .and_then(|p| p.by_issuer(&config.jwt.issuer))
                    .map(Arc::as_ref);
                TrustedIssuer::new(config, prev).map(Arc::new)
            })
            .collect::<Result<_, _>>()?;
        Ok(Issuers { list })
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Their `iss` values, in configuration order.
    pub fn names(&self) -> Vec<String> {
        self.list.iter().map(|i| i.issuer().to_owned()).collect()
    }

    pub fn by_issuer(&self, issuer: &str) -> Option<&Arc<TrustedIssuer>> {
        self.list.iter().find(|i| i.issuer() == issuer)
    }

    /// The issuer of the JWT principal whose identity key is `key`.
    pub fn for_key(&self, key: &str) -> Option<&Arc<TrustedIssuer>> {
        self.list
            .iter()
            .find(|i| key.starts_with(&jwt_key_prefix(i.issuer())))
    }

    /// The issuer that must verify `token`: its header is checked first (algorithm, no
    /// `crit`), then its unverified `iss` must name a trusted issuer exactly.
    pub fn select(&self, token: &str) -> Result<&Arc<TrustedIssuer>, Failure> {
        jwt::header(token)?;
        let iss = issuer_of(token)?;
        if let Some(found) = iss.as_deref().and_then(|iss| self.by_issuer(iss)) {
            return Ok(found);
        }
        let trusted = match self.list.as_slice() {
            [one] => one.issuer().to_owned(),
            _ => "a trusted issuer (auth.issuer, auth.issuers)".to_owned(),
        };
        Err(jwt::untrusted_issuer(&trusted, iss.is_some()))
    }

    /// The `iss` values whose rules differ from `previous`'s (rules added, changed or
    /// removed; an issuer new to this list has none of its principals yet).
    pub fn rules_changed(&self, previous: &Issuers) -> Vec<String> {
        self.list
            .iter()
            .filter(|i| {
                previous
                    .by_issuer(i.issuer())
                    .is_some_and(|p| p.config.rules != i.config.rules)
            })
            .map(|i| i.issuer().to_owned())
            .collect()
    }
}

/// Most principals whose claims are remembered, and the bytes they may take.
const ADMISSIONS: usize = 4096;
const ADMISSION_BYTES: u64 = 4 << 20;

#[derive(Clone)]
struct ClaimBytes;

impl Weighter<String, Arc<ClaimText>> for ClaimBytes {
    fn weight(&self, key: &String, claims: &Arc<ClaimText>) -> u64 {
        let text: usize = claims.iter().map(|(k, v)| k.len() + v.len() + 48).sum();
        (key.len() + text + 64) as u64
    }
}

/// The claims each rule-admitted principal showed last, by principal key (bounded: a
/// principal forgotten here counts as no longer admitted when its issuer's rules change).
pub struct Admissions {
    cache: Cache<String, Arc<ClaimText>, ClaimBytes>,
}

impl Default for Admissions {
    fn default() -> Self {
        Admissions {
            cache: Cache::with_weighter(ADMISSIONS, ADMISSION_BYTES, ClaimBytes),
        }
    }
}

impl Admissions {
    pub fn record(&self, key: &str, claims: ClaimText) {
        self.cache.insert(key.to_owned(), Arc::new(claims));
    }

    pub fn get(&self, key: &str) -> Option<Arc<ClaimText>> {
        self.cache.get(key)
    }
}
