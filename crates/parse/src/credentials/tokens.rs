//! Static bearer tokens: configured as SHA-256 hashes (`[auth] tokens`, [`StaticToken`]),
//! looked up in constant time, and minted by `axgate token new` ([`generate`]: 256 bits from
//! the OS CSPRNG, URL-safe base64 with an `axg_` prefix). A token itself is never stored,
//! logged or passed on. The config snippet `axgate token new` prints is the product's
//! (`axgate::http::auth::tokens`).

use std::collections::BTreeSet;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use crate::identity::{Principal, Scope};

/// The prefix of tokens minted by `axgate token new` (lets secret scanners find leaks).
pub const PREFIX: &str = "axg_";

/// A static bearer token of `[auth] tokens` (the product's `config::StaticTokenConfig`); only
/// its SHA-256 is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticToken {
    pub name: String,
    pub sha256: [u8; 32],
    pub scopes: BTreeSet<Scope>,
}

/// The configured static tokens.
pub struct StaticTokens {
    entries: Vec<StaticToken>,
}

impl StaticTokens {
    pub fn new(entries: &[StaticToken]) -> StaticTokens {
        StaticTokens {
            entries: entries.to_vec(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The principal of `token`, if it is a configured one. Hashes the token, then compares
    /// the digest with *every* configured hash in constant time, so the time taken does not
    /// depend on which entry (or how much of one) matched.
    pub fn find(&self, token: &str) -> Option<Principal> {
        let digest = sha256(token);
        let mut found = Choice::from(0);
        let mut index = 0u32;
        for (i, entry) in self.entries.iter().enumerate() {
            let hit = entry.sha256.ct_eq(&digest);
            index.conditional_assign(&(i as u32), hit);
            found |= hit;
        }
        if !bool::from(found) {
            return None;
        }
        let entry = &self.entries[index as usize];
        Some(Principal::static_token(&entry.name, entry.scopes.clone()))
    }
}

/// SHA-256 of the token's UTF-8 bytes.
pub fn sha256(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Lowercase hex of a digest.
pub fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh token: `axg_` + 32 random bytes from the OS CSPRNG, URL-safe base64.
pub fn generate() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, token: &str, scopes: &[Scope]) -> StaticToken {
        StaticToken {
            name: name.into(),
            sha256: sha256(token),
            scopes: scopes.iter().copied().collect(),
        }
    }

    #[test]
    fn finds_only_configured_tokens() {
        let tokens = StaticTokens::new(&[
            entry("a", "axg_aaa", &[Scope::Read]),
            entry("b", "axg_bbb", &[Scope::Read, Scope::Act]),
        ]);
        let b = tokens.find("axg_bbb").expect("b");
        assert_eq!(b.name, "b");
        assert_eq!(b.kind, crate::identity::PrincipalKind::Static);
        assert!(b.scopes.contains(&Scope::Act));
        assert_eq!(tokens.find("axg_aaa").expect("a").name, "a");
        for wrong in ["", "axg_bb", "axg_bbbb", "AXG_BBB", "axg_ccc"] {
            assert!(tokens.find(wrong).is_none(), "{wrong}");
        }
        assert!(StaticTokens::new(&[]).find("axg_aaa").is_none());
    }

    #[test]
    fn generated_tokens_are_fresh_and_long() {
        let a = generate().expect("rng");
        let b = generate().expect("rng");
        assert_ne!(a, b);
        let body = a.strip_prefix(PREFIX).expect("prefix");
        assert_eq!(URL_SAFE_NO_PAD.decode(body).expect("base64").len(), 32);
    }

    #[test]
    fn hashes_round_trip_through_hex() {
        let d = sha256("axg_x");
        assert_eq!(crate::identity::parse_sha256(&hex(&d)), Ok(d));
        assert_eq!(
            crate::identity::parse_sha256(&hex(&d).to_uppercase()),
            Ok(d)
        );
        // The SHA-256 of the empty string, as any tool prints it.
        assert_eq!(
            hex(&sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
