//! Authentication end to end, against a real OAuth 2.1 authorization server: `oidc-provider`
//! (tests/auth/oidc, installed by scripts/test-env) issues RS256 JWT access tokens through
//! the client_credentials grant with resource indicators; the tests fetch tokens from it over
//! HTTP and call an in-process axgate with them. Its signing keys are test-only RSA keys
//! generated per run (tests/auth/oidc/keys.mjs) and kept stable across provider restarts.
//!
//! `auth/issuers.rs`: several issuers and claim rules, against a local GitHub-shaped issuer.
//!
//! Also: static bearer tokens and `axgate token new`, the route sweep (what answers without
//! credentials), tokens in the query string, and the network posture at start-up.

use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{PROTOCOL, TestServer, client_with};
use axgate::ax::{Engine, EngineConfig};
use axgate::config::Config;
use axgate::http::auth::{metadata, tokens};
use axgate::metrics::Metrics;
use axgate::platform::demo::DemoBackend;
use axgate::server::AppState;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

/// The resource URI axgate is configured with (the tokens' audience).
pub(crate) const AUD: &str = "https://mac-17.ci.example:8741/mcp";
const METADATA: &str = "https://mac-17.ci.example:8741/.well-known/oauth-protected-resource/mcp";

fn oidc_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/auth/oidc")
}

/// Fresh test-only RSA signing keys (private JWKs), one per kid.
pub(crate) async fn generate_keys(kids: &[&str]) -> Value {
    let dir = oidc_dir();
    let kids: Vec<String> = kids.iter().map(|k| k.to_string()).collect();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(dir.join("keys.mjs"))
            .args(&kids)
            .output()
            .expect("run node (scripts/test-env checks it is installed)")
    })
    .await
    .expect("keys task");
    assert!(
        out.status.success(),
        "keys.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JWK set")
}

/// The keys of `set` with these kids, in this order (the provider publishes them all).
fn subset(set: &Value, kids: &[&str]) -> Value {
    let keys: Vec<Value> = kids
        .iter()
        .map(|kid| {
            set["keys"]
                .as_array()
                .and_then(|keys| keys.iter().find(|k| k["kid"] == *kid))
                .cloned()
                .unwrap_or_else(|| panic!("no key {kid}"))
        })
        .collect();
    json!({ "keys": keys })
}

/// A running oidc-provider; killed when dropped.
pub(crate) struct Provider {
    child: Child,
    pub(crate) issuer: String,
    stderr: std::fs::File,
    _config: tempfile::NamedTempFile,
}

impl Provider {
    /// Starts the provider with `keys`, signing with `sign_kid`, on a free port.
    pub(crate) async fn start(keys: Value, sign_kid: &str) -> Provider {
        let dir = oidc_dir();
        assert!(
            dir.join("node_modules/oidc-provider/package.json").exists(),
            "oidc-provider is missing ({}): run scripts/test-env first",
            dir.join("node_modules").display()
        );
        let mut config = tempfile::NamedTempFile::new().expect("config file");
        let text = json!({ "port": 0, "keys": keys, "signKid": sign_kid }).to_string();
        config.write_all(text.as_bytes()).expect("write config");
        let stderr = tempfile::tempfile().expect("stderr file");
        let mut child = Command::new("node")
            .arg(dir.join("provider.mjs"))
            .arg(config.path())
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr.try_clone().expect("clone stderr"))
            .spawn()
            .expect("start node provider.mjs (scripts/test-env installs it)");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            let mut line = String::new();
            let _ = stdout.read_line(&mut line);
            let _ = tx.send(line);
            // Keep draining, so a later write never meets a closed pipe.
            let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        });
        let started = Instant::now();
        let line = loop {
            if let Ok(line) = rx.try_recv() {
                break line;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the provider did not start within 60 s"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let mut provider = Provider {
            child,
            issuer: String::new(),
            stderr,
            _config: config,
        };
        let ready: Value = serde_json::from_str(&line).unwrap_or_else(|_| {
            panic!(
                "the provider did not start: {line:?}\n{}",
                provider.stderr_text()
            )
        });
        provider.issuer = ready["issuer"].as_str().expect("issuer").to_owned();
        provider
    }

    fn stderr_text(&mut self) -> String {
        let mut text = String::new();
        let _ = self.stderr.rewind();
        let _ = self.stderr.read_to_string(&mut text);
        text
    }

    pub(crate) fn jwks_uri(&self) -> String {
        format!("{}/jwks", self.issuer)
    }

    /// Rotates the keys in place: the same provider (same port, same issuer) publishes
    /// `keys` from now on and signs with `sign_kid` (`POST /test-only/keys`).
    async fn rotate(&mut self, keys: Value, sign_kid: &str) {
        let response = reqwest::Client::new()
            .post(format!("{}/test-only/keys", self.issuer))
            .json(&json!({ "keys": keys, "signKid": sign_kid }))
            .send()
            .await
            .expect("key rotation request");
        assert_eq!(response.status(), 204, "{}", self.stderr_text());
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// An access token from the token endpoint (client_credentials, RFC 8707 `resource`).
    async fn token(&mut self, client: &str, scope: &str, resource: &str) -> String {
        let mut form = vec![("grant_type", "client_credentials"), ("resource", resource)];
        if !scope.is_empty() {
            form.push(("scope", scope));
        }
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client, Some(format!("{client}-secret")))
            .form(&form)
            .send()
            .await
            .expect("token request");
        let status = response.status();
        let body: Value = response.json().await.expect("token response");
        if !status.is_success() {
            panic!("token endpoint: {status} {body}\n{}", self.stderr_text());
        }
        body["access_token"]
            .as_str()
            .expect("access_token")
            .to_owned()
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.stop();
    }
}

/// axgate accepting the provider's JWTs for [`AUD`], with `extra` lines in `[auth]`.
pub(crate) async fn jwt_server(issuer: &str, jwks_uri: &str, extra: &str) -> TestServer {
    TestServer::with_config(crate::support::config(&format!(
        "[auth]\nissuer = \"{issuer}\"\njwks_uri = \"{jwks_uri}\"\naudience = \"{AUD}\"\n\
         leeway_secs = 0\n{extra}"
    )))
    .await
}

/// initialize + tools/list with `token` succeed.
async fn works(server: &TestServer, token: &str) {
    let mut client = client_with(server, token);
    client.initialize().await;
    let tools = client.request("tools/list", json!({})).await;
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{tools}"
    );
}

/// A POST of `initialize` to /mcp with an optional raw `Authorization` value.
async fn post_initialize(server: &TestServer, authorization: Option<&str>) -> reqwest::Response {
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    });
    let mut request = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    request.send().await.expect("send")
}

/// The `WWW-Authenticate` value of a response.
fn challenge(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no WWW-Authenticate on {}", response.status()))
        .to_owned()
}

/// `token` is refused with 401 `invalid_token` and the full challenge.
async fn refused(server: &TestServer, token: &str, reason: &str) {
    let before = failures(server, reason);
    let response = post_initialize(server, Some(&format!("Bearer {token}"))).await;
    assert_eq!(response.status(), 401, "{reason}");
    let c = challenge(&response);
    assert!(
        c.starts_with("Bearer error=\"invalid_token\""),
        "{reason}: {c}"
    );
    let metadata = metadata_of(server);
    assert!(
        c.contains(&format!("resource_metadata=\"{metadata}\"")),
        "{c}"
    );
    assert!(c.contains("scope=\"axgate:read axgate:act\""), "{c}");
    let body: Value = response.json().await.expect("json body");
    assert_eq!(body["error"], "invalid_token", "{body}");
    assert_eq!(failures(server, reason), before + 1, "counted as {reason}");
}

/// The metadata URL a server's challenges name: from `auth.audience`, else from its address.
fn metadata_of(server: &TestServer) -> String {
    let resource = server.state.config.auth.resource.clone();
    metadata::metadata_url(&resource.unwrap_or_else(|| format!("http://{}/mcp", server.addr)))
}

fn failures(server: &TestServer, reason: &str) -> u64 {
    server
        .state
        .metrics
        .http
        .auth_failures
        .with_label_values(&[reason])
        .get()
}

/// `token` with its payload replaced by `edit(payload)`, signature kept.
fn with_payload(token: &str, edit: impl FnOnce(&mut Value)) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    let mut payload: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).expect("base64")).expect("json");
    edit(&mut payload);
    let payload = URL_SAFE_NO_PAD.encode(payload.to_string());
    format!("{}.{payload}.{}", parts[0], parts[2])
}

mod bearer;
pub(crate) mod github;
mod issuer;
mod issuers;
mod jwt;
mod own_policy;
