//! The `axgate://` resource URIs: `axgate://apps`, `axgate://session/audit` and
//! `axgate://app/{app}/{view}` with a
//! percent-encoded app name, bundle id or pid; parsing (errors name the valid URIs), the
//! concrete URI of an app's view, and the JSON-RPC error of an engine failure on one. Shared
//! by resource reads (`resources`) and subscriptions (`subscriptions`).

use rmcp::ErrorData as McpError;
use serde_json::json;

use axgate_engine::AxError;

pub const APPS_URI: &str = "axgate://apps";
/// The calling session's own audit lines (`mcp/own_audit.rs`); read, never subscribed.
pub const SESSION_AUDIT_URI: &str = "axgate://session/audit";
pub(super) const APP_PREFIX: &str = "axgate://app/";

/// One of the three per-app resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Tree,
    State,
    Events,
}

impl View {
    pub const ALL: [View; 3] = [View::Tree, View::State, View::Events];

    pub fn as_str(self) -> &'static str {
        match self {
            View::Tree => "tree",
            View::State => "state",
            View::Events => "events",
        }
    }

    /// The RFC 6570 template, such as `axgate://app/{app}/tree`.
    pub fn template(self) -> String {
        format!("{APP_PREFIX}{{app}}/{}", self.as_str())
    }
}

/// A parsed resource URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceUri {
    Apps,
    /// The calling session's own audit lines.
    SessionAudit,
    /// `app` is percent-decoded: a name, bundle id or pid.
    App {
        app: String,
        view: View,
    },
}

impl ResourceUri {
    pub fn parse(uri: &str) -> Result<ResourceUri, McpError> {
        if uri == APPS_URI {
            return Ok(ResourceUri::Apps);
        }
        if uri == SESSION_AUDIT_URI {
            return Ok(ResourceUri::SessionAudit);
        }
        let parsed = uri.strip_prefix(APP_PREFIX).and_then(|rest| {
            let (app, view) = rest.split_once('/')?;
            let view = View::ALL.into_iter().find(|v| v.as_str() == view)?;
            Some((app, view))
        });
        let Some((app, view)) = parsed.filter(|(app, _)| !app.is_empty()) else {
            return Err(McpError::resource_not_found(
                format!(
                    "unknown resource {uri:?}; resources are {APPS_URI}, {SESSION_AUDIT_URI} and \
                     {}, where {{app}} is an app name, bundle id or pid from {APPS_URI}",
                    View::ALL.map(View::template).join(", ")
                ),
                Some(json!({ "uri": uri })),
            ));
        };
        let app = percent_decode(app).ok_or_else(|| {
            McpError::invalid_params(
                format!(
                    "{uri:?}: the app part is not valid percent-encoded UTF-8; encode it again"
                ),
                Some(json!({ "uri": uri })),
            )
        })?;
        Ok(ResourceUri::App { app, view })
    }

    /// The concrete URI of an app's view; `app` is percent-encoded.
    pub fn app_uri(app: &str, view: View) -> String {
        format!("{APP_PREFIX}{}/{}", percent_encode(app), view.as_str())
    }
}

/// Decodes `%XX` escapes; `None` for a malformed escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Escapes everything but RFC 3986 unreserved characters.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The engine error of a read or subscription as a JSON-RPC error: an app that is not
/// running is −32002 (resource not found) with the running apps in the message. An app the
/// policy denies is answered exactly as the absent app it pretends to be — code, message
/// and `kind` — so `resources/read`, `resources/subscribe` and `subscriptions/listen` tell
/// nobody that a denied app runs.
pub fn app_error(uri: &str, error: AxError) -> McpError {
    let error = match error {
        AxError::AppDenied { denial, shown } => {
            tracing::debug!(%uri, rule = ?denial, "resource refused by the app policy; answered as not found");
            *shown
        }
        other => other,
    };
    let data = Some(json!({ "uri": uri, "kind": error.kind() }));
    match error {
        AxError::AppNotFound { .. } | AxError::AppExited { .. } => {
            McpError::resource_not_found(error.to_string(), data)
        }
        AxError::AppAmbiguous { .. } => McpError::invalid_params(error.to_string(), data),
        other => McpError::internal_error(other.to_string(), data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_uris_round_trip_through_percent_encoding() {
        let uri = ResourceUri::app_uri("Editor Pro/2", View::State);
        assert_eq!(uri, "axgate://app/Editor%20Pro%2F2/state");
        let app = "Editor Pro/2".to_owned();
        let parsed = ResourceUri::parse(&uri).ok();
        assert_eq!(
            parsed,
            Some(ResourceUri::App {
                app,
                view: View::State
            })
        );
        for bad in ["axgate://app//tree", "axgate://app/Form", "file:///etc"] {
            assert_eq!(ResourceUri::parse(bad).unwrap_err().code.0, -32002, "{bad}");
        }
        let err = ResourceUri::parse("axgate://app/%ZZ/tree").unwrap_err();
        assert_eq!(err.code.0, -32602);
        assert_eq!(percent_decode("%C3%A9t%C3%A9").as_deref(), Some("été"));
        assert_eq!(percent_decode("%C3"), None);
    }
}
