//! The token-parsing fuzz target: arbitrary bytes against the credential checks of a server
//! that accepts one generated static token and JWTs signed by one generated P-256 key (a
//! fixed key set, so nothing is fetched), composed as `axgate::http::auth::Auth::authenticate`
//! composes them. Both secrets are made fresh by each process and never leave it.

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderValue};
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};

use crate::credentials::jwks::{self, Key};
use crate::credentials::jwt::{self, JwtRules, looks_like_jwt};
use crate::credentials::tokens::{self, StaticToken, StaticTokens};
use crate::credentials::{Failure, MAX_TOKEN_BYTES, bearer, query_has_token, unknown_token};
use crate::identity::{ALL_SCOPES, Principal, PrincipalKind, Scope};

const ISSUER: &str = "https://issuer.fuzz.test";
const AUDIENCE: &str = "https://axgate.fuzz.test/mcp";
const KID: &str = "fuzz-key";
const LEEWAY: Duration = Duration::from_secs(30);
const METADATA_URL: &str = "https://axgate.fuzz.test/.well-known/oauth-protected-resource/mcp";

/// What every input is checked against, made once per process.
struct Fixture {
    statics: StaticTokens,
    rules: JwtRules,
    /// The fixed key set: the generated key's JWK, parsed.
    keys: Vec<Key>,
    static_token: String,
    signing_key: SigningKey,
}

impl Fixture {
    /// Who sent the request: the steps of the product's `Auth::authenticate` with a fixed key
    /// set in place of the fetched, cached one.
    fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, Failure> {
        let token = bearer(headers)?;
        if let Some(principal) = self.statics.find(token) {
            return Ok(principal);
        }
        if !looks_like_jwt(token) {
            return Err(unknown_token());
        }
        let (kid, alg) = self.rules.header(token)?;
        let keys = jwks::select(&self.keys, kid.as_deref(), alg);
        if keys.is_empty() {
            return Err(jwt::unknown_key());
        }
        self.rules.verify(token, alg, &keys)
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let static_token = tokens::generate().expect("OS random numbers for the static token");
        let signing_key = generate_key();
        let point = signing_key.verifying_key().to_encoded_point(false);
        let coordinate = |c: Option<&p256::FieldBytes>| {
            URL_SAFE_NO_PAD.encode(c.expect("an uncompressed point has both coordinates"))
        };
        let jwk_set = json!({"keys": [{
            "kty": "EC", "crv": "P-256", "kid": KID, "use": "sig", "alg": "ES256",
            "x": coordinate(point.x()), "y": coordinate(point.y()),
        }]});
        let keys = jwks::parse(jwk_set.to_string().as_bytes()).expect("the generated JWK");
        let fixture = Fixture {
            statics: StaticTokens::new(&[StaticToken {
                name: "fuzz".into(),
                sha256: tokens::sha256(&static_token),
                scopes: ALL_SCOPES.into_iter().collect(),
            }]),
            rules: JwtRules {
                issuer: ISSUER.into(),
                audience: AUDIENCE.into(),
                leeway: LEEWAY.as_secs(),
                accepted_typ: vec![jwt::DEFAULT_TYP.into()],
            },
            keys,
            static_token,
            signing_key,
        };
        // The fixture accepts its own credentials, so "never accepts" below is not vacuous.
        let accepted = |token: &str| fixture.authenticate(&bearer_header(token));
        assert!(
            accepted(&fixture.static_token).is_ok(),
            "static token refused"
        );
        let valid = format!(
            "{{\"iss\":\"{ISSUER}\",\"aud\":\"{AUDIENCE}\",\"exp\":{},\"sub\":\"fuzz\"}}",
            now() + 600.0
        );
        let jwt = sign(
            &fixture.signing_key,
            br#"{"alg":"ES256","typ":"at+jwt"}"#,
            valid.as_bytes(),
        );
        assert!(accepted(&jwt).is_ok(), "valid JWT refused");
        fixture
    })
}

/// A P-256 signing key from 32 bytes of the OS CSPRNG.
fn generate_key() -> SigningKey {
    for _ in 0..8 {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).expect("OS random numbers for the signing key");
        // Fails only for zero or values beyond the group order (probability ~2^-32).
        if let Ok(key) = SigningKey::from_slice(&bytes) {
            return key;
        }
    }
    panic!("no valid P-256 scalar in 8 draws from the OS random number generator")
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

fn bearer_header(token: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}")) {
        headers.insert(AUTHORIZATION, value);
    }
    headers
}

/// A compact JWS of `header` and `claims` (any bytes) with an ES256 signature.
fn sign(key: &SigningKey, header: &[u8], claims: &[u8]) -> String {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header),
        URL_SAFE_NO_PAD.encode(claims)
    );
    let signature: Signature = key.sign(input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
}

/// Two modes, by the first byte:
/// - `{`: the input is a JOSE header, a newline, and claims; they are signed with the
///   generated key and verified. A token accepted must be ES256, name the key or none, and
///   have this issuer, this audience, a live `exp` and (if any) a passed `nbf`; the principal
///   must be the `sub`/`client_id` with the axgate scopes of `scope`/`scp`.
/// - anything else: the input is the `Authorization` header value (and also a URL query for
///   the `access_token` check). Nothing may be accepted but the generated static token.
pub fn token(data: &[u8]) {
    let fixture = fixture();
    if data.first() == Some(&b'{') {
        signed(fixture, data);
    } else {
        raw(fixture, data);
    }
}

fn raw(fixture: &Fixture, data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = query_has_token(Some(text));
    }
    let Ok(value) = HeaderValue::from_bytes(data) else {
        return;
    };
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, value);
    let token = match bearer(&headers) {
        Ok(token) => {
            check_bearer(&headers, token);
            Some(token)
        }
        Err(failure) => {
            let _ = failure.answer(METADATA_URL);
            None
        }
    };
    match fixture.authenticate(&headers) {
        Ok(principal) => assert!(
            token == Some(fixture.static_token.as_str()) && principal.kind == PrincipalKind::Static,
            "accepted a credential that is neither the static token nor signed by the key"
        ),
        Err(failure) => {
            let _ = failure.answer(METADATA_URL);
        }
    }
}

/// What `bearer` returned is a token68 from a `Bearer` header.
fn check_bearer(headers: &HeaderMap, token: &str) {
    let text = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .expect("a parsed header is ASCII")
        .trim_start();
    assert!(
        text.get(..6)
            .is_some_and(|s| s.eq_ignore_ascii_case("bearer")),
        "a token from a header whose scheme is not Bearer"
    );
    assert!(text.contains(token), "the token is not part of the header");
    assert!(
        !token.is_empty() && token.len() <= MAX_TOKEN_BYTES,
        "token length"
    );
    let body = token.trim_end_matches('=');
    assert!(
        !body.is_empty()
            && body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)),
        "the token has characters outside token68"
    );
}

fn signed(fixture: &Fixture, data: &[u8]) {
    let (header, claims) = match data.iter().position(|&b| b == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let jwt = sign(&fixture.signing_key, header, claims);
    match fixture.authenticate(&bearer_header(&jwt)) {
        Ok(principal) => check_accepted(header, claims, &principal),
        Err(failure) => {
            let _ = failure.answer(METADATA_URL);
        }
    }
}

/// An accepted JWT was valid: header, issuer, audience, times, principal.
fn check_accepted(header: &[u8], claims: &[u8], principal: &Principal) {
    let header: Value = serde_json::from_slice(header).expect("accepted: header is JSON");
    assert_eq!(
        header["alg"], "ES256",
        "accepted an algorithm other than ES256"
    );
    assert!(
        header.get("kid").is_none_or(|kid| kid == KID),
        "accepted a kid the key set lacks"
    );
    let typ = header["typ"].as_str().map(str::to_ascii_lowercase);
    assert!(
        matches!(typ.as_deref(), Some("at+jwt" | "application/at+jwt")),
        "accepted a typ other than at+jwt"
    );
    assert!(header.get("crit").is_none(), "accepted a crit header");
    let claims: Value = serde_json::from_slice(claims).expect("accepted: claims are JSON");
    assert_eq!(claims["iss"], ISSUER, "accepted another issuer");
    let audience_ok = match &claims["aud"] {
        Value::String(aud) => aud == AUDIENCE,
        Value::Array(list) => list.iter().any(|a| a == AUDIENCE),
        _ => false,
    };
    assert!(audience_ok, "accepted a token for another audience");
    let (now, leeway) = (now(), LEEWAY.as_secs_f64());
    let exp = claims["exp"]
        .as_f64()
        .expect("accepted without a numeric exp");
    assert!(exp + leeway + 2.0 >= now, "accepted an expired token");
    if let Some(nbf) = claims.get("nbf").and_then(Value::as_f64) {
        assert!(nbf <= now + leeway + 2.0, "accepted a token before its nbf");
    }
    assert_eq!(principal.kind, PrincipalKind::Jwt);
    let name = [&claims["sub"], &claims["client_id"]]
        .into_iter()
        .find_map(Value::as_str)
        .unwrap_or("unnamed");
    assert_eq!(
        principal.name,
        crate::identity::printable(name),
        "principal name"
    );
    assert!(
        principal.key().starts_with("jwt:") && !principal.key().chars().any(char::is_control),
        "principal key"
    );
    let mut scopes = BTreeSet::new();
    for claim in [&claims["scope"], &claims["scp"]] {
        let names: Vec<&str> = match claim {
            Value::String(text) => text.split_ascii_whitespace().collect(),
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        scopes.extend(names.into_iter().filter_map(Scope::parse));
    }
    assert_eq!(principal.scopes, scopes, "principal scopes");
}
