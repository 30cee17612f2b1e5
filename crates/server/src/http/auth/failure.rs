//! Refusals as HTTP responses. [`Failure`] and [`Reason`] (the status, the RFC 6750
//! challenge, the body and the bounded metric label of each refusal) are the pure
//! `axgate_parse::credentials::failure`; [`FailureResponse`] turns one into an axum response.

use axum::response::{IntoResponse, Response};

pub use axgate_parse::credentials::failure::{CHALLENGE_SCOPES, Failure, Reason};

/// The HTTP answer of a refusal.
pub trait FailureResponse {
    /// The full response: status, `WWW-Authenticate` challenge (with `resource_metadata`),
    /// `Retry-After` for 503, and the JSON body.
    fn response(&self, resource_metadata: &str) -> Response;

    /// [`FailureResponse::response`] for a route whose challenge asks for `scopes`.
    fn response_for(&self, resource_metadata: &str, scopes: &str) -> Response;
}

impl FailureResponse for Failure {
    fn response(&self, resource_metadata: &str) -> Response {
        self.answer(resource_metadata).into_response()
    }

    fn response_for(&self, resource_metadata: &str, scopes: &str) -> Response {
        self.answer_for(resource_metadata, scopes).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::header;

    const META: &str = "https://h:1/.well-known/oauth-protected-resource/mcp";

    #[test]
    fn responses_carry_the_challenge() {
        let r = Failure::missing().response(META);
        assert_eq!(r.status(), 401);
        assert!(r.headers().contains_key(header::WWW_AUTHENTICATE));
        assert_eq!(r.headers()[header::CONTENT_TYPE], "application/json");
        let r = Failure::unavailable("down").response(META);
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()[header::RETRY_AFTER], "5");
    }
}
