//! OAuth 2.1 JWT access tokens (RFC 9068): RS256 or ES256 signature against the issuer's
//! JWKS, `iss` equal to `auth.issuer`, `exp` (and `nbf` when present) with `auth.leeway_secs`,
//! and `aud` including this server's resource URI (RFC 8707) — a token minted for another
//! resource is refused even when everything else is right. Scopes come from `scope`
//! (space-separated) or `scp` (a list, or a string); names other than axgate's are ignored.
//!
//! Synchronous steps around the key lookup: [`JwtRules::header`] reads the `kid`, refuses
//! any algorithm but RS256 and ES256, any `crit` header (RFC 7515 §4.1.11: axgate
//! understands no extension, so it must refuse every one named critical) and a `typ` other
//! than the issuer's accepted ones (`at+jwt` by default, RFC 9068 §2.1; `application/at+jwt`
//! is the same type) before a key is looked up; the caller finds the candidate
//! keys (the product's JWKS cache, or a fixed set and [`super::jwks::select`]); then
//! [`JwtRules::verify`] checks the signature and claims and makes the [`Principal`]
//! ([`JwtRules::verify_claims`] gives the verified claims instead, for an issuer whose claim
//! rules decide the scopes). With several trusted issuers, [`issuer_of`] reads the unverified
//! `iss` that selects whose rules and keys apply.

use std::collections::BTreeSet;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation, decode, decode_header};
use serde::Deserialize;

use super::failure::{Failure, Reason};
use super::jwks::Key;
use crate::identity::{Principal, Scope};

/// The algorithms accepted; anything else (`none`, HS*, …) is refused before any key is used.
pub const ALGORITHMS: [Algorithm; 2] = [Algorithm::RS256, Algorithm::ES256];

/// What the tokens of one issuer must satisfy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JwtRules {
    /// Compared exactly with the `iss` claim.
    pub issuer: String,
    /// This server's resource URI, which `aud` must include.
    pub audience: String,
    /// Seconds of tolerance on `exp` and `nbf`.
    pub leeway: u64,
    /// The `typ` header values accepted, compared as media types (case-insensitive, an
    /// `application/` prefix ignored); RFC 9068 access tokens say `at+jwt`
    /// ([`DEFAULT_TYP`]). A token without `typ` is refused.
    pub accepted_typ: Vec<String>,
}

/// The `typ` accepted by default: RFC 9068 JWT access tokens.
pub const DEFAULT_TYP: &str = "at+jwt";

/// A `typ` value as a media type to compare: lowercase, without `application/`.
fn media_type(typ: &str) -> String {
    let lower = typ.trim().to_ascii_lowercase();
    match lower.strip_prefix("application/") {
        Some(rest) => rest.to_owned(),
        None => lower,
    }
}

/// A verified token's claims, as `jsonwebtoken` decoded them.
pub type ClaimSet = serde_json::Map<String, serde_json::Value>;

/// The claims axgate reads beyond those `jsonwebtoken` validates.
#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    client_id: Option<String>,
    scope: Option<Names>,
    scp: Option<Names>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Names {
    Text(String),
    List(Vec<String>),
}

impl Names {
    fn scopes(&self) -> impl Iterator<Item = Scope> + '_ {
        let names: Vec<&str> = match self {
            Names::Text(text) => text.split_ascii_whitespace().collect(),
            Names::List(list) => list.iter().map(String::as_str).collect(),
        };
        names.into_iter().filter_map(Scope::parse)
    }
}

/// Whether a bearer token has the shape of a JWS (three base64url parts).
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

/// Whether the token's header is JSON naming some `alg` (for headers `decode_header` refuses).
fn names_an_algorithm(token: &str) -> bool {
    use base64::Engine as _;
    let header = token.split('.').next().unwrap_or("");
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|h| h.get("alg").is_some_and(serde_json::Value::is_string))
}

/// Step one: the token's `kid` (if any) and its algorithm, which must be one of
/// [`ALGORITHMS`]. Refuses malformed headers and other algorithms before any key is used.
pub fn header(token: &str) -> Result<(Option<String>, Algorithm), Failure> {
    let refused_alg = || {
        Failure::invalid_token(
            Reason::BadSignature,
            "the token's signature algorithm is not accepted (RS256 or ES256 only)",
        )
    };
    let header = decode_header(token).map_err(|_| {
        if names_an_algorithm(token) {
            // `none` and names jsonwebtoken does not know: unsigned or unverifiable.
            refused_alg()
        } else {
            Failure::invalid_token(Reason::Malformed, "the token is not a well-formed JWT")
        }
    })?;
    if !ALGORITHMS.contains(&header.alg) {
        return Err(refused_alg());
    }
    if let Some(crit) = &header.crit {
        return Err(Failure::invalid_token(
            Reason::Malformed,
            format!(
                "the token's header marks {} as critical (crit), an extension this server \
                 does not understand",
                if crit.is_empty() {
                    "nothing (an empty list)".to_owned()
                } else {
                    format!("{crit:?}")
                }
            ),
        ));
    }
    Ok((header.kid, header.alg))
}

/// The token's `iss` claim, read without verifying anything: it selects which trusted
/// issuer's keys and rules verify the token (the selected issuer's rules then check `iss`
/// again). `Ok(None)` when the payload has no string `iss`.
pub fn issuer_of(token: &str) -> Result<Option<String>, Failure> {
    use base64::Engine as _;
    let malformed =
        || Failure::invalid_token(Reason::Malformed, "the token is not a well-formed JWT");
    let payload = token.split('.').nth(1).ok_or_else(malformed)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| malformed())?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| malformed())?;
    Ok(claims
        .get("iss")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned))
}

/// The refusal of a token whose `iss` names no trusted issuer (`trusted`: what to call the
/// trusted ones, e.g. `https://idp.example` or "a trusted issuer (auth.issuers)").
pub fn untrusted_issuer(trusted: &str, has_iss: bool) -> Failure {
    if has_iss {
        Failure::invalid_token(
            Reason::WrongIssuer,
            format!("the token was not issued by {trusted}"),
        )
    } else {
        Failure::invalid_token(Reason::WrongIssuer, "the token has no iss claim")
    }
}

/// The refusal when no key of the issuer matches the token's header.
pub fn unknown_key() -> Failure {
    Failure::invalid_token(
        Reason::UnknownKey,
        "the token is signed with a key the issuer does not publish",
    )
}

impl JwtRules {
    /// Step one: [`header`] (the `kid`, an accepted algorithm, no `crit`), and the token's
    /// `typ` must be one of [`JwtRules::accepted_typ`].
    pub fn header(&self, token: &str) -> Result<(Option<String>, Algorithm), Failure> {
        let found = header(token)?;
        let typ = decode_header(token).ok().and_then(|h| h.typ);
        let accepted = typ.as_deref().is_some_and(|typ| {
            self.accepted_typ
                .iter()
                .any(|a| media_type(a) == media_type(typ))
        });
        if !accepted {
            return Err(Failure::invalid_token(
                Reason::Malformed,
                format!(
                    "the token's typ header is {}; this server accepts {} (an RFC 9068 access \
                     token says at+jwt; auth.accepted_typ lists the accepted types)",
                    typ.map_or("missing".to_owned(), |t| format!("{t:?}")),
                    self.accepted_typ.join(", ")
                ),
            ));
        }
        Ok(found)
    }

    /// The last step: the principal of a token whose header named `alg` (from [`header`]),
    /// checked against the candidate `keys` (those of another algorithm are skipped), or why
    /// it is refused.
    pub fn verify(&self, token: &str, alg: Algorithm, keys: &[Key]) -> Result<Principal, Failure> {
        let claims = self.verify_claims(token, alg, keys)?;
        scope_principal(&self.issuer, &claims)
    }

    /// [`JwtRules::verify`] without making the principal: the verified claims.
    pub fn verify_claims(
        &self,
        token: &str,
        alg: Algorithm,
        keys: &[Key],
    ) -> Result<ClaimSet, Failure> {
        let mut validation = Validation::new(alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        let mut last = ErrorKind::InvalidSignature;
        for key in keys.iter().filter(|k| k.alg == alg) {
            match decode::<ClaimSet>(token, &key.key, &validation) {
                Ok(data) => return Ok(data.claims),
                // Without a kid several keys may be candidates: try the next one.
                Err(e) if matches!(e.kind(), ErrorKind::InvalidSignature) => {}
                Err(e) => {
                    last = e.into_kind();
                    break;
                }
            }
        }
        Err(self.refusal(&last))
    }

    fn refusal(&self, kind: &ErrorKind) -> Failure {
        let (reason, detail) = match kind {
            ErrorKind::InvalidSignature | ErrorKind::InvalidAlgorithm => (
                Reason::BadSignature,
                "the token's signature does not verify".to_owned(),
            ),
            ErrorKind::ExpiredSignature => (Reason::Expired, "the token has expired".to_owned()),
            ErrorKind::ImmatureSignature => (
                Reason::Expired,
                "the token is not valid yet (nbf)".to_owned(),
            ),
            ErrorKind::InvalidIssuer => (
                Reason::WrongIssuer,
                format!("the token was not issued by {}", self.issuer),
            ),
            ErrorKind::MissingRequiredClaim(claim) if claim == "iss" => {
                (Reason::WrongIssuer, "the token has no iss claim".to_owned())
            }
            ErrorKind::InvalidAudience => (
                Reason::WrongAudience,
                format!(
                    "the token was not issued for this server: its aud does not include {}",
                    self.audience
                ),
            ),
            ErrorKind::MissingRequiredClaim(claim) if claim == "aud" => (
                Reason::WrongAudience,
                format!(
                    "the token has no aud claim; it must include {}",
                    self.audience
                ),
            ),
            _ => (
                Reason::Malformed,
                "the token's claims are malformed".to_owned(),
            ),
        };
        Failure::invalid_token(reason, detail)
    }
}

/// The principal of verified claims from `issuer` with the scopes of its `scope`/`scp`
/// claims: namespaced by the issuer, so a subject named like a static token is not that
/// token ([`Principal::jwt`]). A `sub`, `client_id`, `scope` or `scp` of the wrong type
/// makes the claims malformed.
pub fn scope_principal(issuer: &str, claims: &ClaimSet) -> Result<Principal, Failure> {
    let claims = serde_json::from_value::<Claims>(serde_json::Value::Object(claims.clone()))
        .map_err(|_| {
            Failure::invalid_token(Reason::Malformed, "the token's claims are malformed")
        })?;
    Ok(principal(issuer, claims))
}

/// Who a verified token names: `sub`, else `client_id`, else `unnamed`.
pub fn subject(claims: &ClaimSet) -> &str {
    ["sub", "client_id"]
        .iter()
        .find_map(|name| claims.get(*name).and_then(serde_json::Value::as_str))
        .unwrap_or("unnamed")
}

fn principal(issuer: &str, claims: Claims) -> Principal {
    let scopes: BTreeSet<Scope> = claims
        .scope
        .iter()
        .chain(claims.scp.iter())
        .flat_map(Names::scopes)
        .collect();
    let subject = claims.sub.or(claims.client_id);
    Principal::jwt(issuer, subject.as_deref().unwrap_or("unnamed"), scopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_from_scope_and_scp() {
        let claims: Claims = serde_json::from_str(
            r#"{"sub": "s", "scope": "openid axgate:read", "scp": ["axgate:act", "x"]}"#,
        )
        .expect("claims");
        let p = principal("https://i", claims);
        assert_eq!(p.name, "s");
        assert_eq!(p.key(), "jwt:https://i#s");
        assert_eq!(
            p.scopes.into_iter().collect::<Vec<_>>(),
            [Scope::Read, Scope::Act]
        );
        let claims: Claims =
            serde_json::from_str(r#"{"client_id": "c", "scp": "axgate:admin"}"#).expect("claims");
        let p = principal("https://i", claims);
        assert_eq!(p.name, "c");
        assert!(p.allows(Scope::Act));
    }

    #[test]
    fn jwt_shape() {
        assert!(looks_like_jwt("a.b.c"));
        assert!(!looks_like_jwt("axg_abc"));
        assert!(!looks_like_jwt("a.b"));
        // {"alg":"none"} and {"typ":"JWT"}
        assert!(names_an_algorithm("eyJhbGciOiJub25lIn0.e30."));
        assert!(!names_an_algorithm("eyJ0eXAiOiJKV1QifQ.e30."));
        assert!(!names_an_algorithm("!!.e30."));
    }

    #[test]
    fn headers_name_an_accepted_algorithm() {
        // {"alg":"ES256","kid":"k"}
        assert_eq!(
            header("eyJhbGciOiJFUzI1NiIsImtpZCI6ImsifQ.e30.x"),
            Ok((Some("k".to_owned()), Algorithm::ES256))
        );
        // {"alg":"HS256"}
        let refused = header("eyJhbGciOiJIUzI1NiJ9.e30.x").unwrap_err();
        assert_eq!(refused.reason, Reason::BadSignature);
        assert_eq!(header("!!.e30.x").unwrap_err().reason, Reason::Malformed);
    }

    /// A token of `header` (JSON) with empty claims and signature: enough for the header step.
    fn with_header(header: &str) -> String {
        use base64::Engine as _;
        let encode = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        format!("{}.{}.c2ln", encode(header), encode("{}"))
    }

    fn rules(accepted: &[&str]) -> JwtRules {
        JwtRules {
            issuer: "https://i".into(),
            audience: "https://a/mcp".into(),
            leeway: 30,
            accepted_typ: accepted.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn typ_must_be_an_access_token_unless_the_issuer_accepts_others() {
        let strict = rules(&[DEFAULT_TYP]);
        for ok in ["at+jwt", "AT+JWT", "application/at+jwt"] {
            let token = with_header(&format!(r#"{{"alg":"ES256","typ":"{ok}"}}"#));
            assert!(strict.header(&token).is_ok(), "{ok}");
        }
        for (bad, says) in [
            (r#"{"alg":"ES256","typ":"JWT"}"#, "\"JWT\""),
            (r#"{"alg":"ES256"}"#, "missing"),
            (r#"{"alg":"ES256","typ":"id+jwt"}"#, "id+jwt"),
        ] {
            let refused = strict.header(&with_header(bad)).unwrap_err();
            assert!(refused.detail.contains(says), "{}", refused.detail);
            assert!(
                refused.detail.contains("auth.accepted_typ"),
                "{}",
                refused.detail
            );
        }
        let github = rules(&["at+jwt", "JWT"]);
        assert!(
            github
                .header(&with_header(r#"{"alg":"RS256","typ":"JWT"}"#))
                .is_ok()
        );
    }

    #[test]
    fn any_critical_extension_is_refused() {
        let strict = rules(&[DEFAULT_TYP]);
        for crit in [r#"["exp"]"#, r#"["b64"]"#, "[]"] {
            let token = with_header(&format!(
                r#"{{"alg":"ES256","typ":"at+jwt","crit":{crit}}}"#
            ));
            let refused = strict.header(&token).unwrap_err();
            assert!(refused.detail.contains("crit"), "{}", refused.detail);
        }
    }
}
