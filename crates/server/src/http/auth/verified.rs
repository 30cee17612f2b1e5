//! JWTs already verified, by the SHA-256 of their issuer and the token: a client sends the same token on
//! every request, and checking its ES256/RS256 signature each time cost ~300 µs of CPU per
//! request in the load harness, half of a JWT request's cost.
//!
//! An entry is kept at most [`MAX_AGE`] and never past the token's own `exp`, only for tokens
//! that name their key (`kid`), and it is used only while the issuer still publishes a key
//! of that id and algorithm: a key the issuer withdraws stops its tokens at the next request.
//! The key includes the issuer that verified the token, and the entry is re-checked against
//! that issuer's keys only, so one issuer's entry never serves another's.
//! The cache is bounded in bytes ([`MAX_BYTES`], `axgate_jwt_cache_bytes`) and emptied when
//! the JWT settings change on reload.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axgate_parse::credentials::jwt::header;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use prometheus::IntGauge;
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use sha2::{Digest, Sha256};

use super::failure::Failure;
use super::issuers::TrustedIssuer;
use crate::identity::Principal;
use crate::policy::claims::ClaimText;

/// The longest an entry is trusted without verifying the signature again.
pub const MAX_AGE: Duration = Duration::from_secs(60);
/// The bytes the cache may hold (its entries' estimated size).
pub const MAX_BYTES: u64 = 1 << 20;

#[derive(Clone)]
struct Entry {
    principal: Principal,
    kid: String,
    alg: jsonwebtoken::Algorithm,
    /// Unix seconds after which the entry is not used.
    until: u64,
}

#[derive(Clone)]
struct Bytes;

impl Weighter<[u8; 32], Entry> for Bytes {
    fn weight(&self, _key: &[u8; 32], entry: &Entry) -> u64 {
        let scopes = entry.principal.scopes.len() * 8;
        let rule = entry.principal.rule.as_ref().map_or(0, String::len);
        (128 + entry.principal.name.len()
            + entry.principal.key().len()
            + entry.kid.len()
            + rule
            + scopes) as u64
    }
}

/// The verified-token cache of one server.
pub struct VerifiedTokens {
    cache: Cache<[u8; 32], Entry, Bytes>,
    bytes: IntGauge,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The `exp` claim of a token whose signature and claims were just verified.
fn expiry(token: &str) -> Option<u64> {
    let payload = token.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload).ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    claims.get("exp")?.as_u64()
}

impl VerifiedTokens {
    pub fn new(bytes: IntGauge) -> VerifiedTokens {
        VerifiedTokens {
            cache: Cache::with_weighter(1024, MAX_BYTES, Bytes),
            bytes,
        }
    }

    /// The principal of `token`, which `issuer` verifies: from the cache while its entry
    /// holds, else verified (and then kept), with the claims its rule compared.
    pub async fn verify(
        &self,
        issuer: &Arc<TrustedIssuer>,
        token: &str,
    ) -> Result<(Principal, Option<ClaimText>), Failure> {
        let mut hash = Sha256::new();
        hash.update(issuer.issuer().as_bytes());
        hash.update([0]);
        hash.update(token.as_bytes());
        let digest: [u8; 32] = hash.finalize().into();
        if let Some(entry) = self.cache.get(&digest) {
            if now() < entry.until && issuer.publishes(&entry.kid, entry.alg).await {
                return Ok((entry.principal, None));
            }
            self.cache.remove(&digest);
        }
        let admitted = issuer.verify(token).await?;
        let principal = admitted.principal;
        if let (Ok((Some(kid), alg)), Some(exp)) = (header(token), expiry(token)) {
            let until = exp.min(now() + MAX_AGE.as_secs());
            let entry = Entry {
                principal: principal.clone(),
                kid,
                alg,
                until,
            };
            self.cache.insert(digest, entry);
            self.bytes.set(self.cache.weight() as i64);
        }
        Ok((principal, admitted.claims))
    }

    /// Forgets every entry (the JWT settings changed).
    pub fn clear(&self) {
        self.cache.clear();
        self.bytes.set(0);
    }
}
