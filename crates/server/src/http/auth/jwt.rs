//! JWT access tokens of one trusted issuer, verified in the steps of
//! `axgate_parse::credentials::jwt` (which holds the rules: RS256/ES256, `iss`, `aud`, `exp`,
//! `nbf`, scopes) around the one step that is not pure: finding the issuer's keys in the
//! fetched, cached JWK set ([`Jwks`]).

use std::sync::Arc;

use axgate_parse::credentials::jwt::{self, ClaimSet, JwtRules};

pub use axgate_parse::credentials::jwt::{ALGORITHMS, looks_like_jwt};

use super::failure::Failure;
use super::jwks::{Jwks, Lookup};
use crate::config::JwtConfig;

/// Checks JWT access tokens of one issuer.
pub struct JwtVerifier {
    rules: JwtRules,
    jwks: Arc<Jwks>,
}

impl JwtVerifier {
    pub fn new(config: &JwtConfig) -> Result<JwtVerifier, String> {
        let jwks = Jwks::new(&config.jwks_uri, config.jwks_refresh_min)?;
        Ok(JwtVerifier::with_jwks(config, jwks))
    }

    /// A verifier over a given key set (`Jwks::fixed` for generated keys).
    pub fn with_jwks(config: &JwtConfig, jwks: Jwks) -> JwtVerifier {
        JwtVerifier {
            rules: JwtRules {
                issuer: config.issuer.clone(),
                audience: config.audience.clone(),
                leeway: config.leeway.as_secs(),
                accepted_typ: config.accepted_typ.clone(),
            },
            jwks: Arc::new(jwks),
        }
    }

    pub fn issuer(&self) -> &str {
        &self.rules.issuer
    }

    /// The claims of a valid token, or why it is refused: the header's algorithm, `kid` and
    /// `typ`, then the keys from the cache (fetched when needed), then signature and claims.
    pub async fn verify(&self, token: &str) -> Result<ClaimSet, Failure> {
        let (kid, alg) = self.rules.header(token)?;
        let keys = match self.jwks.keys_for(kid.as_deref(), alg).await {
            Lookup::Found(keys) => keys,
            Lookup::Unknown => return Err(jwt::unknown_key()),
            Lookup::Unavailable(why) => {
                tracing::warn!(error = %why, "cannot check a JWT: the issuer's keys are unavailable");
                return Err(Failure::unavailable(
                    "the authorization server's signing keys cannot be fetched; try again shortly",
                ));
            }
        };
        self.rules.verify_claims(token, alg, &keys)
    }

    /// Whether the issuer still publishes a key `kid` for `alg` (from the cached key set).
    pub async fn publishes(&self, kid: &str, alg: jsonwebtoken::Algorithm) -> bool {
        matches!(self.jwks.keys_for(Some(kid), alg).await, Lookup::Found(_))
    }
}
