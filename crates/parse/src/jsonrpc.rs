//! The JSON-RPC checks on a POST body to `/mcp`, before rmcp reads it ([`inspect`]), and the
//! JSON-RPC error body ([`error_body`]). Pure: the product's intake layer
//! (`axgate::http::intake`) counts the method, decides about sessions and answers over HTTP.

use serde_json::{Value, json};

/// The `_meta` key of a request's protocol version (the sessionless 2026-07-28 revision).
pub const META_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The body of a JSON-RPC error response; a missing `id` is `null`.
pub fn error_body(id: Option<Value>, code: i64, message: String) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code, "message": message },
    })
    .to_string()
}

/// The JSON-RPC error code of a `tools/call` beyond the caller's scope (answered with HTTP
/// 403 and an `insufficient_scope` challenge; an implementation-defined server error).
pub const INSUFFICIENT_SCOPE: i64 = -32003;

/// The body of the 403 for a `tools/call` of `tool` beyond the caller's scope: a JSON-RPC
/// error whose message and `data` name the scope needed, the scopes held and how to get the
/// scope, so a client that shows JSON-RPC errors (rather than the challenge header) tells its
/// user what to fix. `static_token`: the caller used a static token (`[auth] tokens`), else a
/// JWT from the OAuth issuer.
pub fn scope_error_body(
    id: Option<Value>,
    tool: &str,
    needed: &str,
    held: &str,
    granted_by: GrantedBy<'_>,
) -> String {
    let how = match granted_by {
        GrantedBy::StaticToken => format!(
            "use a token whose `scopes` in the server's [auth] tokens include {needed} (an admin \
             adds it to this token's entry and reloads, or makes a new one with `axgate token new \
             --name NAME --scopes {needed}`)"
        ),
        GrantedBy::ClaimRule(rule) => format!(
            "this token's scopes come from the claim rule {rule} of the server's configuration, \
             not from the token: asking the authorization server for {needed} changes nothing. \
             Run the acting job where a rule that grants {needed} admits it (rules that grant it \
             pin `ref` and `event_name`, so a pull request's job stays read-only by design), or \
             an admin adds {needed} to that rule's `scopes` and reloads"
        ),
        GrantedBy::Issuer => format!(
            "get an access token with the scope {needed} from the authorization server (ask for \
             scope={needed}; the WWW-Authenticate header of this 403 names it)"
        ),
    };
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {
            "code": INSUFFICIENT_SCOPE,
            "message": format!(
                "insufficient scope: the tool {tool} needs the {needed} scope, and this token \
                 grants {held}; {how}"
            ),
            "data": {
                "error": "insufficient_scope",
                "tool": tool,
                "required_scope": needed,
                "granted_scopes": held,
                "how_to_get_it": how,
            },
        },
    })
    .to_string()
}

/// What decided the scopes a refused caller holds, so the advice names what to change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrantedBy<'a> {
    /// A static token's entry in `[auth] tokens`.
    StaticToken,
    /// An issuer's claim rule (its key path, `auth.issuers[0].rules[1]`), whatever the
    /// token itself says.
    ClaimRule(&'a str),
    /// The access token's own `scope` claim, as its authorization server issued it.
    Issuer,
}

/// A POST body that passed [`inspect`]: one JSON-RPC message object.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspected {
    /// The message's `id`, echoed in any error answered for it.
    pub id: Option<Value>,
    /// The `method` when it is a string, else empty (a response, or no method at all).
    pub method: String,
    /// The `params`, when present.
    pub params: Option<Value>,
    /// A request of the sessionless 2026-07-28 revision: `server/discover`, or a protocol
    /// version in its `_meta` — except `initialize`, which always makes a session (bound to
    /// its principal), whatever its `_meta` says.
    pub sessionless: bool,
}

/// Why [`inspect`] refused a POST body; every refusal is a 400.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum IntakeError {
    /// Not JSON (JSON-RPC −32700).
    #[error("Parse error: {0}")]
    Parse(String),
    /// A JSON array: a batch, which MCP no longer has.
    #[error("JSON-RPC batches are not supported; send one message per request")]
    Batch,
    /// JSON, but neither an object nor an array.
    #[error("the body must be one JSON-RPC message object")]
    NotAnObject,
}

impl IntakeError {
    /// The JSON-RPC error code: −32700 for a parse error, else −32600 (invalid request).
    pub fn code(&self) -> i64 {
        match self {
            IntakeError::Parse(_) => -32700,
            _ => -32600,
        }
    }
}

/// The checks on a POST body with a JSON content type, before rmcp reads it: one JSON
/// object (not a batch); and whether it is a request of the sessionless revision. Pure: the
/// layer counts the method and decides about sessions.
pub fn inspect(body: &[u8]) -> Result<Inspected, IntakeError> {
    let message: Value =
        serde_json::from_slice(body).map_err(|e| IntakeError::Parse(e.to_string()))?;
    let Some(object) = message.as_object() else {
        return Err(if message.is_array() {
            IntakeError::Batch
        } else {
            IntakeError::NotAnObject
        });
    };
    let id = object.get("id").cloned();
    let method = object
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let meta_version = object
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION_KEY));
    // rmcp makes a session for every `initialize`; served as sessionless, that session would
    // belong to nobody: its creator could not end it, and it would hold a slot until it idled.
    let sessionless =
        method == "server/discover" || (meta_version.is_some() && method != "initialize");
    let params = object.get("params").cloned();
    Ok(Inspected {
        id,
        method,
        params,
        sessionless,
    })
}
