//! Credentials as they arrive: the one `Authorization: Bearer <token>` header ([`bearer`]),
//! the `access_token` query parameter that is refused ([`query_has_token`]), static tokens
//! ([`tokens`]), JWT access tokens ([`jwt`], [`jwks`]) and the refusals ([`failure`]).
//!
//! Verifying a JWT takes three steps, two of them here: [`jwt::header`] reads the token's
//! `kid` and algorithm, the product's JWKS cache (`axgate::http::auth::jwks`, which fetches)
//! finds the candidate keys, and [`jwt::JwtRules::verify`] checks the signature and claims.
//! `axgate::http::auth::Auth::authenticate` composes them; so does the token fuzz target.

pub mod failure;
pub mod jwks;
pub mod jwt;
pub mod tokens;

use http::HeaderMap;
use http::header::AUTHORIZATION;

pub use failure::{Failure, Reason};

/// Longest bearer token considered; longer is malformed.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The token of the one `Authorization: Bearer <token>` header.
pub fn bearer(headers: &HeaderMap) -> Result<&str, Failure> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Failure::missing());
    };
    if values.next().is_some() {
        return Err(Failure::bad_request(
            Reason::Malformed,
            "send exactly one Authorization header",
        ));
    }
    let text = value.to_str().map_err(|_| {
        Failure::bad_request(Reason::Malformed, "the Authorization header is not ASCII")
    })?;
    let text = text.trim();
    let (scheme, token) = text.split_once(' ').unwrap_or((text, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Failure::other_scheme());
    }
    let token = token.trim();
    if token.is_empty() || token.len() > MAX_TOKEN_BYTES || !is_token68(token) {
        return Err(Failure::bad_request(
            Reason::Malformed,
            "the bearer token is empty, too long, or has characters a token cannot have",
        ));
    }
    Ok(token)
}

/// The refusal of a bearer token that is neither a configured static token nor (when an
/// issuer is configured) a JWT.
pub fn unknown_token() -> Failure {
    Failure::invalid_token(
        Reason::UnknownToken,
        "the token is not one this server accepts",
    )
}

/// RFC 7235 token68: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_token68(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        })
}

/// Whether the query has an `access_token` parameter (name percent-decoded, any case).
pub fn query_has_token(query: Option<&str>) -> bool {
    query.is_some_and(|q| {
        q.split(['&', ';']).any(|pair| {
            let name = pair.split('=').next().unwrap_or("");
            percent_decode(name).eq_ignore_ascii_case("access_token")
        })
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let hex = |b: u8| (b as char).to_digit(16);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(AUTHORIZATION, v.parse().expect("header value"));
        }
        h
    }

    #[test]
    fn bearer_header_parsing() {
        let reason = |v: &[&str]| {
            bearer(&headers(v))
                .map(str::to_owned)
                .map_err(|f| (f.reason, f.status()))
        };
        assert_eq!(reason(&["Bearer axg_abc"]).ok().as_deref(), Some("axg_abc"));
        assert_eq!(reason(&["bearer  a.b.c "]).ok().as_deref(), Some("a.b.c"));
        assert_eq!(reason(&["BEARER x=="]).ok().as_deref(), Some("x=="));
        assert_eq!(
            reason(&[]),
            Err((Reason::Missing, http::StatusCode::UNAUTHORIZED))
        );
        assert_eq!(
            reason(&["Basic dXNlcjpwYXNz"]),
            Err((Reason::Malformed, http::StatusCode::UNAUTHORIZED))
        );
        for bad in [
            &["Bearer"][..],
            &["Bearer "],
            &["Bearer a b"],
            &["Bearer =="],
            &["Bearer a", "Bearer b"],
        ] {
            assert_eq!(
                reason(bad),
                Err((Reason::Malformed, http::StatusCode::BAD_REQUEST)),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn query_tokens_are_found() {
        for q in [
            "access_token=x",
            "a=1&access_token=x",
            "access_token",
            "ACCESS_TOKEN=x",
            "access%5Ftoken=x",
            "a=1;access_token=",
        ] {
            assert!(query_has_token(Some(q)), "{q}");
        }
        for q in ["", "token=x", "a=access_token", "access_tokens=1", "x%5=1"] {
            assert!(!query_has_token(Some(q)), "{q}");
        }
        assert!(!query_has_token(None));
    }
}
