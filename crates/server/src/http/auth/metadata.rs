//! RFC 9728 Protected Resource Metadata, served without authentication at
//! `/.well-known/oauth-protected-resource` and the path-inserted
//! `/.well-known/oauth-protected-resource/mcp`: the resource URI (`auth.audience`), the
//! authorization servers (`auth.issuer`, then every `[[auth.issuers]]` issuer), the scopes,
//! and `bearer_methods_supported: ["header"]`.
//!
//! Without `auth.audience` (static tokens only) the resource URI is derived from the request's
//! `Host` (already checked by the Host guard): `http://<host>/mcp`.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::HeaderMap;
use serde::Serialize;

use super::Auth;
use crate::identity::ALL_SCOPES;

/// The metadata document's path for a resource at the server's root.
pub const ROOT_PATH: &str = "/.well-known/oauth-protected-resource";
/// The metadata document's path for the `/mcp` resource (RFC 9728 §3.1 path insertion).
pub const MCP_PATH: &str = "/.well-known/oauth-protected-resource/mcp";

#[derive(Serialize)]
struct Document {
    resource: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    authorization_servers: Vec<String>,
    scopes_supported: Vec<&'static str>,
    bearer_methods_supported: [&'static str; 1],
    resource_name: &'static str,
}

/// The two metadata routes.
pub fn routes(auth: Arc<Auth>) -> Router {
    Router::new()
        .route(ROOT_PATH, get(document))
        .route(MCP_PATH, get(document))
        .with_state(auth)
}

async fn document(State(auth): State<Arc<Auth>>, headers: HeaderMap) -> Response {
    let body = Document {
        resource: auth.resource(&headers),
        authorization_servers: auth.issuers(),
        scopes_supported: ALL_SCOPES.iter().map(|s| s.as_str()).collect(),
        bearer_methods_supported: ["header"],
        resource_name: "axgate",
    };
    ([(http::header::CACHE_CONTROL, "max-age=300")], Json(body)).into_response()
}

/// The resource URI when none is configured: `<scheme>://<Host>/mcp`, the scheme being
/// the listener's (`https` with TLS on).
pub fn derived_resource(scheme: &str, headers: &HeaderMap) -> String {
    let host = headers
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| !h.is_empty() && !h.contains(['/', '"', '\\', ' ']))
        .unwrap_or("localhost");
    format!("{scheme}://{host}/mcp")
}

/// The URL of the metadata document of `resource` (RFC 9728 §3.1): the well-known path
/// inserted between the authority and the resource's path,
/// `https://h:8741/mcp` → `https://h:8741/.well-known/oauth-protected-resource/mcp`.
pub fn metadata_url(resource: &str) -> String {
    let (scheme, rest) = resource.split_once("://").unwrap_or(("https", resource));
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let path = path.split('?').next().unwrap_or("").trim_end_matches('/');
    format!("{scheme}://{authority}{ROOT_PATH}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_path_is_inserted() {
        assert_eq!(
            metadata_url("https://mac-17.ci.example:8741/mcp"),
            "https://mac-17.ci.example:8741/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://h"),
            "https://h/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_url("https://h/"),
            "https://h/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_url("https://gw/mac17/mcp"),
            "https://gw/.well-known/oauth-protected-resource/mac17/mcp"
        );
    }

    #[test]
    fn resource_from_host() {
        let mut headers = HeaderMap::new();
        assert_eq!(derived_resource("http", &headers), "http://localhost/mcp");
        headers.insert(http::header::HOST, "127.0.0.1:8741".parse().expect("value"));
        assert_eq!(
            derived_resource("http", &headers),
            "http://127.0.0.1:8741/mcp"
        );
        assert_eq!(
            derived_resource("https", &headers),
            "https://127.0.0.1:8741/mcp"
        );
    }
}
