//! The issuer's signing keys: fetched from `auth.jwks_uri` with reqwest (rustls), kept in
//! memory, fetched again when a token names a `kid` the cache lacks — at most once per
//! `auth.jwks_refresh_min_secs` — and in the background once the cache is older than
//! [`MAX_AGE`]. Only RS256 (RSA) and ES256 (P-256) signature keys are kept. A failed fetch
//! keeps the keys already known. [`Jwks::fixed`] holds a given key set and never fetches
//! (fuzzing and tests verify against generated keys without an issuer).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

/// Keys older than this are fetched again in the background (revoked keys disappear).
pub const MAX_AGE: Duration = Duration::from_secs(15 * 60);
/// While no key set was ever fetched, failed fetches are retried this often at most.
const FIRST_RETRY: Duration = Duration::from_secs(2);
/// A JWK set larger than this is refused.
const MAX_BYTES: usize = 1 << 20;

/// One usable verification key.
#[derive(Clone)]
pub struct Key {
    pub kid: Option<String>,
    pub alg: Algorithm,
    pub key: DecodingKey,
}

/// The keys that may have signed a token.
pub enum Lookup {
    Found(Vec<Key>),
    /// No key with that `kid` (or, without a `kid`, none for the algorithm), even after a
    /// fetch when one was allowed.
    Unknown,
    /// No key set could be fetched yet.
    Unavailable(String),
}

#[derive(Default)]
struct Cache {
    keys: Vec<Key>,
    fetched: Option<Instant>,
    attempted: Option<Instant>,
    last_error: Option<String>,
}

/// The cached JWK set of one issuer.
pub struct Jwks {
    uri: String,
    /// `None` for a fixed key set, which is never fetched.
    client: Option<reqwest::Client>,
    min_refresh: Duration,
    cache: RwLock<Cache>,
    fetching: tokio::sync::Mutex<()>,
    background: AtomicBool,
}

enum Refresh {
    Done,
    RateLimited,
}

impl Jwks {
    pub fn new(uri: &str, min_refresh: Duration) -> Result<Jwks, String> {
        let client = reqwest::Client::builder()
            .user_agent(concat!("axgate/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(10))
            // A JWKS URL is configured exactly; never follow it elsewhere (or to plain http).
            .redirect(reqwest::redirect::Policy::none())
            // Fetches are rare: no idle connection outlives an issuer's restart.
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| format!("cannot build the JWKS client: {e}"))?;
        Ok(Jwks {
            uri: uri.to_owned(),
            client: Some(client),
            min_refresh,
            cache: RwLock::new(Cache::default()),
            fetching: tokio::sync::Mutex::new(()),
            background: AtomicBool::new(false),
        })
    }

    /// A key set that is exactly `keys`: never fetched, never refreshed.
    pub fn fixed(keys: Vec<Key>) -> Jwks {
        Jwks {
            uri: String::new(),
            client: None,
            min_refresh: Duration::MAX,
            cache: RwLock::new(Cache {
                keys,
                fetched: Some(Instant::now()),
                attempted: Some(Instant::now()),
                last_error: None,
            }),
            fetching: tokio::sync::Mutex::new(()),
            background: AtomicBool::new(false),
        }
    }

    /// The candidate keys for a token header's `kid` and `alg`, fetching when needed.
    pub async fn keys_for(self: &Arc<Self>, kid: Option<&str>, alg: Algorithm) -> Lookup {
        let (found, stale) = self.cached(kid, alg);
        if !found.is_empty() {
            if stale {
                self.refresh_in_background();
            }
            return Lookup::Found(found);
        }
        let _ = self.refresh().await;
        let (found, _) = self.cached(kid, alg);
        if !found.is_empty() {
            return Lookup::Found(found);
        }
        let cache = self.read();
        if cache.fetched.is_none() {
            let why = cache
                .last_error
                .clone()
                .unwrap_or_else(|| "the issuer's keys have not been fetched yet".into());
            return Lookup::Unavailable(why);
        }
        Lookup::Unknown
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Cache> {
        self.cache.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Cache> {
        self.cache.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Matching keys, and whether the set is due for a refresh.
    fn cached(&self, kid: Option<&str>, alg: Algorithm) -> (Vec<Key>, bool) {
        let cache = self.read();
        let found = cache
            .keys
            .iter()
            .filter(|k| match kid {
                // A named key is returned whatever its algorithm: the verifier refuses a
                // mismatch as a bad signature rather than as an unknown key.
                Some(kid) => k.kid.as_deref() == Some(kid),
                None => k.alg == alg,
            })
            .cloned()
            .collect();
        let stale = cache.fetched.is_some_and(|t| t.elapsed() >= MAX_AGE);
        (found, stale)
    }

    fn refresh_in_background(self: &Arc<Self>) {
        if self.client.is_none() || self.background.swap(true, Ordering::AcqRel) {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let _ = this.refresh().await;
            this.background.store(false, Ordering::Release);
        });
    }

    /// Fetches the set unless another task just did or the rate limit forbids it.
    async fn refresh(&self) -> Refresh {
        let Some(client) = &self.client else {
            return Refresh::RateLimited;
        };
        let asked = Instant::now();
        let _one_at_a_time = self.fetching.lock().await;
        {
            let cache = self.read();
            if cache.attempted.is_some_and(|t| t >= asked) {
                // Someone fetched while this task waited: use their result.
                return Refresh::Done;
            }
            let have_keys = cache.fetched.is_some();
            if !may_fetch(Instant::now(), cache.attempted, have_keys, self.min_refresh) {
                return Refresh::RateLimited;
            }
        }
        self.write().attempted = Some(Instant::now());
        match self.fetch(client).await {
            Ok(keys) => {
                tracing::info!(keys = keys.len(), uri = %self.uri, "fetched the issuer's signing keys");
                let mut cache = self.write();
                cache.keys = keys;
                cache.fetched = Some(Instant::now());
                cache.last_error = None;
            }
            Err(why) => {
                tracing::warn!(error = %why, "cannot refresh the issuer's signing keys; keeping those known");
                self.write().last_error = Some(why);
            }
        }
        Refresh::Done
    }

    async fn fetch(&self, client: &reqwest::Client) -> Result<Vec<Key>, String> {
        let uri = &self.uri;
        let mut response = client
            .get(uri)
            .header(
                http::header::ACCEPT,
                "application/jwk-set+json, application/json",
            )
            .send()
            .await
            .map_err(|e| format!("cannot fetch the JWKS from {uri}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("the JWKS at {uri} answered {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("cannot read the JWKS from {uri}: {e}"))?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_BYTES {
                return Err(format!(
                    "the JWKS at {uri} is larger than {MAX_BYTES} bytes"
                ));
            }
        }
        parse(&body).map_err(|why| format!("{why} (from {uri})"))
    }
}

/// Whether a fetch may start now: always the first time; then at most once per
/// `min_refresh`, or per [`FIRST_RETRY`] while no set was ever fetched.
fn may_fetch(
    now: Instant,
    attempted: Option<Instant>,
    have_keys: bool,
    min_refresh: Duration,
) -> bool {
    let Some(attempted) = attempted else {
        return true;
    };
    let spacing = if have_keys {
        min_refresh
    } else {
        min_refresh.min(FIRST_RETRY)
    };
    now.saturating_duration_since(attempted) >= spacing
}

/// The usable keys of a JWK set document.
pub fn parse(body: &[u8]) -> Result<Vec<Key>, String> {
    #[derive(Deserialize)]
    struct Set {
        keys: Vec<serde_json::Value>,
    }
    let set: Set =
        serde_json::from_slice(body).map_err(|e| format!("the JWKS is not a JWK set: {e}"))?;
    let keys: Vec<Key> = set.keys.into_iter().filter_map(usable).collect();
    if keys.is_empty() {
        return Err("the JWKS has no RS256 or ES256 signature key".into());
    }
    Ok(keys)
}

/// An RSA key (RS256) or P-256 key (ES256) for signatures; anything else is skipped.
fn usable(value: serde_json::Value) -> Option<Key> {
    let jwk: Jwk = serde_json::from_value(value).ok()?;
    if jwk
        .common
        .public_key_use
        .as_ref()
        .is_some_and(|u| *u != PublicKeyUse::Signature)
    {
        return None;
    }
    let (alg, key_alg) = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => (Algorithm::RS256, KeyAlgorithm::RS256),
        AlgorithmParameters::EllipticCurve(p) if p.curve == EllipticCurve::P256 => {
            (Algorithm::ES256, KeyAlgorithm::ES256)
        }
        _ => return None,
    };
    if jwk.common.key_algorithm.is_some_and(|a| a != key_alg) {
        return None;
    }
    let key = DecodingKey::from_jwk(&jwk).ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        alg,
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RSA_N: &str = "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw";

    #[test]
    fn keeps_only_signature_keys_it_can_use() {
        let body = serde_json::json!({"keys": [
            {"kty": "RSA", "kid": "r1", "use": "sig", "alg": "RS256", "n": RSA_N, "e": "AQAB"},
            {"kty": "RSA", "kid": "r2", "n": RSA_N, "e": "AQAB"},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": RSA_N, "e": "AQAB"},
            {"kty": "RSA", "kid": "ps", "alg": "PS256", "n": RSA_N, "e": "AQAB"},
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "weird", "kid": "w"},
            {"kty": "EC", "kid": "e1", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
        ]});
        let keys = parse(body.to_string().as_bytes()).expect("usable keys");
        let kids: Vec<_> = keys
            .iter()
            .map(|k| k.kid.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(kids, ["r1", "r2", "e1"]);
        assert_eq!(keys[2].alg, Algorithm::ES256);
        assert!(parse(b"{\"keys\": []}").is_err());
        assert!(parse(b"not json").is_err());
    }

    #[test]
    fn fetches_are_rate_limited() {
        let t0 = Instant::now();
        let min = Duration::from_secs(30);
        assert!(may_fetch(t0, None, false, min));
        assert!(!may_fetch(
            t0 + Duration::from_secs(29),
            Some(t0),
            true,
            min
        ));
        assert!(may_fetch(t0 + Duration::from_secs(30), Some(t0), true, min));
        // Without any key yet, a failed first fetch is retried sooner.
        assert!(!may_fetch(
            t0 + Duration::from_secs(1),
            Some(t0),
            false,
            min
        ));
        assert!(may_fetch(t0 + FIRST_RETRY, Some(t0), false, min));
    }
}
