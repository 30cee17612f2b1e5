//! JWK sets: the usable keys of an issuer's JWK set document ([`parse`]: RS256 (RSA) and
//! ES256 (P-256) signature keys only), and the candidates among them for a token's header
//! ([`select`]). Fetching and caching the set is the product's (`axgate::http::auth::jwks`).

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

/// One usable verification key.
#[derive(Clone)]
pub struct Key {
    pub kid: Option<String>,
    pub alg: Algorithm,
    pub key: DecodingKey,
}

/// The keys of `keys` that may have signed a token whose header names `kid` and `alg`: the
/// keys with that `kid`, or without a `kid` those for the algorithm.
pub fn select(keys: &[Key], kid: Option<&str>, alg: Algorithm) -> Vec<Key> {
    keys.iter()
        .filter(|k| match kid {
            // A named key is returned whatever its algorithm: the verifier refuses a
            // mismatch as a bad signature rather than as an unknown key.
            Some(kid) => k.kid.as_deref() == Some(kid),
            None => k.alg == alg,
        })
        .cloned()
        .collect()
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
    fn selects_by_kid_else_by_algorithm() {
        let body = serde_json::json!({"keys": [
            {"kty": "RSA", "kid": "r1", "n": RSA_N, "e": "AQAB"},
            {"kty": "RSA", "n": RSA_N, "e": "AQAB"},
            {"kty": "EC", "kid": "e1", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
        ]});
        let keys = parse(body.to_string().as_bytes()).expect("usable keys");
        let kids =
            |found: Vec<Key>| -> Vec<Option<String>> { found.into_iter().map(|k| k.kid).collect() };
        assert_eq!(
            kids(select(&keys, Some("e1"), Algorithm::RS256)),
            [Some("e1".to_owned())]
        );
        assert_eq!(
            kids(select(&keys, None, Algorithm::RS256)),
            [Some("r1".to_owned()), None]
        );
        assert!(select(&keys, Some("nope"), Algorithm::ES256).is_empty());
    }
}
