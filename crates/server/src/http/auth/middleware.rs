//! The auth layer. Runs on every route after the Host/Origin guard:
//! 1. any `access_token` query parameter → 400 (tokens never belong in URLs), on every route;
//! 2. `/healthz`, `/readyz` and the metadata documents pass without credentials;
//! 3. everything else needs a valid bearer token whose principal holds the route's scope
//!    ([`route_scope`]: `axgate:metrics` for `/metrics`, `axgate:read` for `/mcp` and
//!    unknown paths) → else 401 / 403 with a `WWW-Authenticate` challenge;
//! 4. the `Principal` goes into the request extensions and the `Authorization` header is
//!    removed, so what runs behind (rmcp, tools) knows who called but never holds the token;
//!    the connection is told (`http::conn::Connection`): it no longer counts against its
//!    source address's share of unauthenticated connections.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::HeaderMap;
use http::header::AUTHORIZATION;

use super::Auth;
use super::failure::{CHALLENGE_SCOPES, Failure, FailureResponse, Reason};
use super::metadata::{MCP_PATH, ROOT_PATH};
use crate::http::conn::Connection;
use crate::identity::Scope;

pub use axgate_parse::credentials::query_has_token;

/// Paths served without credentials.
pub const PUBLIC_PATHS: [&str; 4] = ["/healthz", "/readyz", ROOT_PATH, MCP_PATH];

/// The scope every authenticated route but `/metrics` needs. Per-tool checks
/// (`required_scope`) are the MCP layer's.
pub const ROUTE_SCOPE: Scope = Scope::Read;

/// The scope a route needs: `/metrics` is read with `axgate:metrics` (held by scrape tokens
/// and admins, not by `axgate:read` or `axgate:act`), every other route with [`ROUTE_SCOPE`].
pub fn route_scope(path: &str) -> Scope {
    if path == "/metrics" {
        Scope::Metrics
    } else {
        ROUTE_SCOPE
    }
}

pub async fn layer(State(auth): State<Arc<Auth>>, mut request: Request, next: Next) -> Response {
    if query_has_token(request.uri().query()) {
        let failure = Failure::bad_request(
            Reason::QueryToken,
            "access tokens in the URL query are refused (URLs end up in logs and histories); \
             send Authorization: Bearer <token> instead",
        );
        return refuse(&auth, failure, request.headers(), CHALLENGE_SCOPES);
    }
    if PUBLIC_PATHS.contains(&request.uri().path()) {
        return next.run(request).await;
    }
    let needed = route_scope(request.uri().path());
    // What a 401 challenge asks for: on `/metrics` the scope that reads it, so a scraper
    // is not told to get `axgate:read axgate:act`, which would not let it in.
    let asks = if needed == Scope::Metrics {
        Scope::Metrics.as_str()
    } else {
        CHALLENGE_SCOPES
    };
    match auth.authenticate(request.headers()).await {
        Ok(principal) if principal.allows(needed) => {
            tracing::debug!(principal = %principal.key(), "authenticated");
            request.headers_mut().remove(AUTHORIZATION);
            if let Some(connection) = request.extensions().get::<Connection>() {
                connection.authenticated();
            }
            request.extensions_mut().insert(principal);
            next.run(request).await
        }
        Ok(principal) => {
            tracing::warn!(principal = %principal.key(), %needed, "request refused: insufficient scope");
            auth.count(Reason::InsufficientScope);
            Failure::insufficient(needed).response(&auth.metadata_url(request.headers()))
        }
        Err(failure) => refuse(&auth, failure, request.headers(), asks),
    }
}

/// Counts, logs (reason and description only, never the token) and answers a refusal whose
/// challenge asks for `scopes`.
fn refuse(auth: &Auth, failure: Failure, headers: &HeaderMap, scopes: &str) -> Response {
    auth.count(failure.reason);
    let reason = failure.reason.label();
    if failure.reason == Reason::Missing {
        tracing::debug!(reason, "request refused: no credentials");
    } else {
        tracing::warn!(reason, detail = %failure.detail, "request refused");
    }
    failure.response_for(&auth.metadata_url(headers), scopes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{AuthConfig, StaticTokenConfig};
    use crate::http::auth::tokens::sha256;
    use crate::identity::Principal;
    use crate::metrics::Metrics;
    use axum::Router;
    use axum::body::Body;
    use axum::routing::get;
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn handlers_get_the_principal_and_never_the_token() {
        let config = AuthConfig {
            tokens: vec![StaticTokenConfig {
                name: "ci".into(),
                sha256: sha256("axg_t"),
                scopes: [Scope::Read].into_iter().collect(),
            }],
            ..AuthConfig::default()
        };
        let metrics = Metrics::new(prometheus::Registry::new()).expect("metrics");
        let auth = Arc::new(Auth::new(&config, &metrics).expect("auth").expect("on"));
        let app = Router::new()
            .route(
                "/mcp",
                get(|request: Request| async move {
                    let who = request
                        .extensions()
                        .get::<Principal>()
                        .map(|p| p.name.clone());
                    let token = request.headers().contains_key(AUTHORIZATION);
                    format!("{who:?} {token}")
                }),
            )
            .layer(axum::middleware::from_fn_with_state(auth, layer));
        let request = http::Request::get("/mcp")
            .header(AUTHORIZATION, "Bearer axg_t")
            .body(Body::empty())
            .expect("request");
        let response = app.oneshot(request).await.expect("response");
        assert_eq!(response.status(), 200);
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .expect("body");
        assert_eq!(&body[..], b"Some(\"ci\") false");
    }
}
