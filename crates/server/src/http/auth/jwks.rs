//! The issuer's signing keys: fetched from `auth.jwks_uri` with reqwest (rustls), kept in
//! memory, fetched again when a token names a `kid` the cache lacks — at most once per
//! `auth.jwks_refresh_min_secs` — and in the background once the cache is older than
//! [`MAX_AGE`]. Only RS256 (RSA) and ES256 (P-256) signature keys are kept (the pure JWK-set
//! parse and key selection are `axgate_parse::credentials::jwks`). A failed fetch
//! keeps the keys already known. [`Jwks::fixed`] holds a given key set and never fetches
//! (tests verify against generated keys without an issuer).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::Algorithm;

pub use axgate_parse::credentials::jwks::{Key, parse, select};

/// Keys older than this are fetched again in the background (revoked keys disappear).
pub const MAX_AGE: Duration = Duration::from_secs(15 * 60);
/// While no key set was ever fetched, failed fetches are retried this often at most.
const FIRST_RETRY: Duration = Duration::from_secs(2);
/// A JWK set larger than this is refused.
const MAX_BYTES: usize = 1 << 20;

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
        let found = select(&cache.keys, kid, alg);
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

#[cfg(test)]
mod tests {
    use super::*;

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
