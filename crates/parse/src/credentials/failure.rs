//! Why a request was refused, and the answer it gets: the status, the RFC 6750
//! `WWW-Authenticate: Bearer …` challenge (with the RFC 9728 `resource_metadata`), a small
//! JSON body, and the bounded `reason` label of `axgate_auth_failures_total`.
//!
//! | reason | status | `error` |
//! |---|---|---|
//! | missing (or a scheme other than Bearer) | 401 | — |
//! | malformed `Authorization`, query_token | 400 | `invalid_request` |
//! | unknown_token, bad_signature, expired, wrong_issuer, wrong_audience, unknown_key, malformed token | 401 | `invalid_token` |
//! | insufficient_scope | 403 | `insufficient_scope` |
//! | no_rule (a valid JWT of an issuer with claim rules that no rule admits) | 403 | `insufficient_scope` (for `axgate:read`) |
//! | jwks_unavailable | 503 + `Retry-After` | — |
//!
//! [`Failure::answer`] is the whole answer as status, headers and body; the product turns it
//! into an HTTP response (`axgate::http::auth::failure::FailureResponse`).

use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::json;

use crate::identity::Scope;

/// The scopes a 401 challenge asks for: what an MCP client needs to read and act.
pub const CHALLENGE_SCOPES: &str = "axgate:read axgate:act";

/// The bounded label values of `axgate_auth_failures_total{reason}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Missing,
    Malformed,
    UnknownToken,
    BadSignature,
    Expired,
    WrongIssuer,
    WrongAudience,
    UnknownKey,
    InsufficientScope,
    /// A valid JWT of an issuer with claim rules, none of which admits it.
    NoRule,
    QueryToken,
    JwksUnavailable,
}

impl Reason {
    pub fn label(self) -> &'static str {
        match self {
            Reason::Missing => "missing",
            Reason::Malformed => "malformed",
            Reason::UnknownToken => "unknown_token",
            Reason::BadSignature => "bad_signature",
            Reason::Expired => "expired",
            Reason::WrongIssuer => "wrong_issuer",
            Reason::WrongAudience => "wrong_audience",
            Reason::UnknownKey => "unknown_key",
            Reason::InsufficientScope => "insufficient_scope",
            Reason::NoRule => "no_rule",
            Reason::QueryToken => "query_token",
            Reason::JwksUnavailable => "jwks_unavailable",
        }
    }
}

/// How the refusal is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// 401 without an error code: no (Bearer) credentials were offered.
    Challenge,
    /// 400 `invalid_request`.
    BadRequest,
    /// 401 `invalid_token`.
    InvalidToken,
    /// 403 `insufficient_scope` naming the needed scope.
    Insufficient(Scope),
    /// 503: the issuer's keys cannot be fetched.
    Unavailable,
}

/// A refused request. `detail` is fixed text or configuration (never anything the client
/// sent, never a token): it becomes the `error_description`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub reason: Reason,
    pub detail: String,
    answer: Answer,
}

impl Failure {
    pub fn missing() -> Failure {
        Failure {
            reason: Reason::Missing,
            detail: "this server requires an access token: send Authorization: Bearer <token>"
                .into(),
            answer: Answer::Challenge,
        }
    }

    /// An `Authorization` header with another scheme (Basic, …): challenged like a missing one.
    pub fn other_scheme() -> Failure {
        Failure {
            reason: Reason::Malformed,
            detail: "only the Bearer scheme is accepted: send Authorization: Bearer <token>".into(),
            answer: Answer::Challenge,
        }
    }

    pub fn bad_request(reason: Reason, detail: impl Into<String>) -> Failure {
        Failure {
            reason,
            detail: detail.into(),
            answer: Answer::BadRequest,
        }
    }

    pub fn invalid_token(reason: Reason, detail: impl Into<String>) -> Failure {
        Failure {
            reason,
            detail: detail.into(),
            answer: Answer::InvalidToken,
        }
    }

    pub fn insufficient(needed: Scope) -> Failure {
        Failure {
            reason: Reason::InsufficientScope,
            detail: format!("this endpoint needs the {needed} scope"),
            answer: Answer::Insufficient(needed),
        }
    }

    /// A valid token that no claim rule of its issuer admits: 403 `insufficient_scope` for
    /// `axgate:read` (it holds no scope at all), `detail` naming the rules' claims.
    pub fn not_admitted(detail: impl Into<String>) -> Failure {
        Failure {
            reason: Reason::NoRule,
            detail: detail.into(),
            answer: Answer::Insufficient(Scope::Read),
        }
    }

    pub fn unavailable(detail: impl Into<String>) -> Failure {
        Failure {
            reason: Reason::JwksUnavailable,
            detail: detail.into(),
            answer: Answer::Unavailable,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self.answer {
            Answer::Challenge | Answer::InvalidToken => StatusCode::UNAUTHORIZED,
            Answer::BadRequest => StatusCode::BAD_REQUEST,
            Answer::Insufficient(_) => StatusCode::FORBIDDEN,
            Answer::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The `WWW-Authenticate` value, `None` for 503.
    pub fn challenge(&self, resource_metadata: &str) -> Option<String> {
        self.challenge_for(resource_metadata, CHALLENGE_SCOPES)
    }

    /// The `WWW-Authenticate` value of a route that asks for `scopes` (`/metrics`:
    /// `axgate:metrics`), `None` for 503.
    pub fn challenge_for(&self, resource_metadata: &str, scopes: &str) -> Option<String> {
        let description = quotable(&self.detail);
        let metadata = quotable(resource_metadata);
        Some(match self.answer {
            Answer::Challenge => {
                format!("Bearer resource_metadata=\"{metadata}\", scope=\"{scopes}\"")
            }
            Answer::BadRequest => format!(
                "Bearer error=\"invalid_request\", error_description=\"{description}\", resource_metadata=\"{metadata}\""
            ),
            Answer::InvalidToken => format!(
                "Bearer error=\"invalid_token\", error_description=\"{description}\", resource_metadata=\"{metadata}\", scope=\"{scopes}\""
            ),
            Answer::Insufficient(needed) => format!(
                "Bearer error=\"insufficient_scope\", scope=\"{needed}\", resource_metadata=\"{metadata}\", error_description=\"{description}\""
            ),
            Answer::Unavailable => return None,
        })
    }

    /// The whole answer: the status, the headers (`Content-Type`, the challenge when there
    /// is one, `Retry-After` for 503) and the JSON body.
    pub fn answer(&self, resource_metadata: &str) -> (StatusCode, HeaderMap, String) {
        self.answer_for(resource_metadata, CHALLENGE_SCOPES)
    }

    /// [`Failure::answer`] for a route whose challenge asks for `scopes`.
    pub fn answer_for(
        &self,
        resource_metadata: &str,
        scopes: &str,
    ) -> (StatusCode, HeaderMap, String) {
        let error = match self.answer {
            Answer::Challenge => "unauthorized",
            Answer::BadRequest => "invalid_request",
            Answer::InvalidToken => "invalid_token",
            Answer::Insufficient(_) => "insufficient_scope",
            Answer::Unavailable => "temporarily_unavailable",
        };
        let body = json!({ "error": error, "error_description": self.detail });
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Some(value) = self
            .challenge_for(resource_metadata, scopes)
            .and_then(|c| HeaderValue::from_str(&c).ok())
        {
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        if self.answer == Answer::Unavailable {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        (self.status(), headers, body.to_string())
    }
}

/// Text safe inside an RFC 6750 quoted string (%x20-21 / %x23-5B / %x5D-7E).
fn quotable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = "https://h:1/.well-known/oauth-protected-resource/mcp";

    #[test]
    fn challenges_follow_rfc6750() {
        let missing = Failure::missing();
        assert_eq!(missing.status(), 401);
        assert_eq!(
            missing.challenge(META).as_deref(),
            Some(
                "Bearer resource_metadata=\"https://h:1/.well-known/oauth-protected-resource/mcp\", scope=\"axgate:read axgate:act\""
            )
        );
        let expired = Failure::invalid_token(Reason::Expired, "the \"token\" expired");
        let c = expired.challenge(META).expect("challenge");
        assert!(c.starts_with("Bearer error=\"invalid_token\""), "{c}");
        assert!(
            c.contains("error_description=\"the 'token' expired\""),
            "{c}"
        );
        let scope = Failure::insufficient(Scope::Act);
        assert_eq!(scope.status(), 403);
        let c = scope.challenge(META).expect("challenge");
        assert!(
            c.contains("error=\"insufficient_scope\", scope=\"axgate:act\""),
            "{c}"
        );
        assert!(Failure::unavailable("down").challenge(META).is_none());
        let none = Failure::not_admitted("no claim rule admits this token");
        assert_eq!(none.status(), 403);
        let c = none.challenge(META).expect("challenge");
        assert!(
            c.contains("error=\"insufficient_scope\", scope=\"axgate:read\""),
            "{c}"
        );
        assert!(c.contains("no claim rule admits"), "{c}");
        assert_eq!(none.reason.label(), "no_rule");
        assert_eq!(
            Failure::bad_request(Reason::QueryToken, "x").status(),
            StatusCode::BAD_REQUEST
        );
    }

    #[test]
    fn answers_carry_the_challenge() {
        let (status, headers, body) = Failure::missing().answer(META);
        assert_eq!(status, 401);
        assert!(headers.contains_key(header::WWW_AUTHENTICATE));
        let body: serde_json::Value = serde_json::from_str(&body).expect("JSON body");
        assert_eq!(body["error"], "unauthorized");
        let (status, headers, _) = Failure::unavailable("down").answer(META);
        assert_eq!(status, 503);
        assert_eq!(headers[header::RETRY_AFTER], "5");
        assert!(!headers.contains_key(header::WWW_AUTHENTICATE));
    }
}
