//! Authentication end to end, against a real OAuth 2.1 authorization server: `oidc-provider`
//! (tests/auth/oidc, installed by scripts/test-env) issues RS256 JWT access tokens through
//! the client_credentials grant with resource indicators; the tests fetch tokens from it over
//! HTTP and call an in-process axgate with them. Its signing keys are test-only RSA keys
//! generated per run (tests/auth/oidc/keys.mjs) and kept stable across provider restarts.
//!
//! Also: static bearer tokens and `axgate token new`, the route sweep (what answers without
//! credentials), tokens in the query string, and the network posture at start-up.

mod support;

use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axgate::ax::{Engine, EngineConfig};
use axgate::config::Config;
use axgate::http::auth::{metadata, tokens};
use axgate::metrics::Metrics;
use axgate::platform::demo::DemoBackend;
use axgate::server::AppState;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use support::{PROTOCOL, TestServer, client_with};

/// The resource URI axgate is configured with (the tokens' audience).
const AUD: &str = "https://mac-17.ci.example:8741/mcp";
const METADATA: &str = "https://mac-17.ci.example:8741/.well-known/oauth-protected-resource/mcp";

fn oidc_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/auth/oidc")
}

/// Fresh test-only RSA signing keys (private JWKs), one per kid.
async fn generate_keys(kids: &[&str]) -> Value {
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
struct Provider {
    child: Child,
    issuer: String,
    port: u16,
    stderr: std::fs::File,
    _config: tempfile::NamedTempFile,
}

impl Provider {
    /// Starts the provider with `keys`, signing with `sign_kid`, on `port` (0: any free one).
    async fn start(keys: Value, sign_kid: &str, port: u16) -> Provider {
        let dir = oidc_dir();
        assert!(
            dir.join("node_modules/oidc-provider/package.json").exists(),
            "oidc-provider is missing ({}): run scripts/test-env first",
            dir.join("node_modules").display()
        );
        let mut config = tempfile::NamedTempFile::new().expect("config file");
        let text = json!({ "port": port, "keys": keys, "signKid": sign_kid }).to_string();
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
            port: 0,
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
        provider.port = ready["port"].as_u64().expect("port") as u16;
        provider
    }

    fn stderr_text(&mut self) -> String {
        let mut text = String::new();
        let _ = self.stderr.rewind();
        let _ = self.stderr.read_to_string(&mut text);
        text
    }

    fn jwks_uri(&self) -> String {
        format!("{}/jwks", self.issuer)
    }

    /// Stops this provider and starts it again on the same port (same issuer) with other keys.
    async fn restart(mut self, keys: Value, sign_kid: &str) -> Provider {
        let port = self.port;
        self.stop();
        Provider::start(keys, sign_kid, port).await
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
async fn jwt_server(issuer: &str, jwks_uri: &str, extra: &str) -> TestServer {
    TestServer::with_config(support::config(&format!(
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jwt_access_tokens_from_a_real_authorization_server() {
    let keys = generate_keys(&["k1"]).await;
    let mut provider = Provider::start(keys, "k1", 0).await;
    let server = jwt_server(&provider.issuer, &provider.jwks_uri(), "").await;

    // The metadata documents, without credentials.
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let response = reqwest::get(format!("http://{}{path}", server.addr))
            .await
            .expect("metadata");
        assert_eq!(response.status(), 200, "{path}");
        let doc: Value = response.json().await.expect("json");
        assert_eq!(doc["resource"], AUD);
        assert_eq!(doc["authorization_servers"], json!([provider.issuer]));
        assert_eq!(
            doc["scopes_supported"],
            json!(["axgate:read", "axgate:act", "axgate:admin"])
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }

    // No token: the challenge that starts the OAuth flow.
    let response = post_initialize(&server, None).await;
    assert_eq!(response.status(), 401);
    assert_eq!(
        challenge(&response),
        format!("Bearer resource_metadata=\"{METADATA}\", scope=\"axgate:read axgate:act\"")
    );

    // A valid token works, for every request of the session.
    let valid = provider
        .token("axgate-ci", "axgate:read axgate:act", AUD)
        .await;
    works(&server, &valid).await;

    // A token minted for another resource (RFC 8707) is refused.
    let elsewhere = provider
        .token(
            "axgate-ci",
            "axgate:read axgate:act",
            "https://elsewhere.example/mcp",
        )
        .await;
    refused(&server, &elsewhere, "wrong_audience").await;

    // Tampering: claims changed under the issuer's signature, or the signature changed.
    let escalated = with_payload(&valid, |p| p["scope"] = json!("axgate:admin"));
    refused(&server, &escalated, "bad_signature").await;
    let retargeted = with_payload(&elsewhere, |p| p["aud"] = json!(AUD));
    refused(&server, &retargeted, "bad_signature").await;
    // (A character inside the signature: the last one also holds padding bits.)
    let mut flipped = valid.clone().into_bytes();
    let at = flipped.len() - 10;
    flipped[at] = if flipped[at] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).expect("ascii");
    refused(&server, &flipped, "bad_signature").await;

    // Algorithms other than RS256/ES256 never reach a key: `none`, and HS256 (key confusion).
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"at+jwt","kid":"k1"}"#);
    let payload = valid.split('.').nth(1).expect("payload");
    refused(&server, &format!("{header}.{payload}."), "bad_signature").await;
    let mut hs = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    hs.kid = Some("k1".into());
    let claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("b64")).expect("claims");
    let forged = jsonwebtoken::encode(
        &hs,
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(provider.jwks_uri().as_bytes()),
    )
    .expect("sign");
    refused(&server, &forged, "bad_signature").await;

    // Expired: the short-lived client's tokens live 1 s; leeway is 0 here.
    let short = provider.token("axgate-short", "axgate:read", AUD).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    refused(&server, &short, "expired").await;

    // A valid token without axgate:read: 403 insufficient_scope naming the scope needed.
    let unrelated = provider.token("axgate-ci", "unrelated:scope", AUD).await;
    let response = post_initialize(&server, Some(&format!("Bearer {unrelated}"))).await;
    assert_eq!(response.status(), 403);
    let c = challenge(&response);
    assert!(
        c.starts_with("Bearer error=\"insufficient_scope\", scope=\"axgate:read\""),
        "{c}"
    );
    assert!(
        c.contains(&format!("resource_metadata=\"{METADATA}\"")),
        "{c}"
    );
    assert_eq!(failures(&server, "insufficient_scope"), 1);

    // An axgate that trusts another issuer refuses the same, correctly signed token.
    let other = format!("{}/another-issuer", provider.issuer);
    let strict = jwt_server(&other, &provider.jwks_uri(), "").await;
    refused(&strict, &valid, "wrong_issuer").await;

    // When the issuer's keys cannot be fetched: 503 with Retry-After, not a 401.
    let unreachable = jwt_server(&provider.issuer, "http://127.0.0.1:1/jwks", "").await;
    let response = post_initialize(&unreachable, Some(&format!("Bearer {valid}"))).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    assert_eq!(failures(&unreachable, "jwks_unavailable"), 1);

    // The counters are on /metrics, labelled by reason only.
    let metrics = client_with(&server, &valid)
        .http
        .get(format!("http://{}/metrics", server.addr))
        .send()
        .await
        .expect("metrics");
    assert_eq!(metrics.status(), 200);
    let text = metrics.text().await.expect("text");
    assert!(
        text.contains("axgate_auth_failures_total{reason=\"bad_signature\"} 5"),
        "{text}"
    );
    assert!(!text.contains(&valid), "no token in metrics");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_key_rotation_and_unknown_keys() {
    let keys = generate_keys(&["k1", "k2", "k3"]).await;
    let mut provider = Provider::start(subset(&keys, &["k1"]), "k1", 0).await;
    let issuer = provider.issuer.clone();
    let jwks = provider.jwks_uri();
    // `eager` may fetch the JWKS every second; `lazy` once an hour.
    let eager = jwt_server(&issuer, &jwks, "jwks_refresh_min_secs = 1").await;
    let lazy = jwt_server(&issuer, &jwks, "jwks_refresh_min_secs = 3600").await;

    let t1 = provider.token("axgate-ci", "axgate:read", AUD).await;
    works(&eager, &t1).await;
    works(&lazy, &t1).await;

    // A key the issuer never published (another provider's), after a refresh: unknown_key.
    let mut stranger = Provider::start(subset(&keys, &["k3"]), "k3", 0).await;
    let t3 = stranger.token("axgate-ci", "axgate:read", AUD).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    refused(&eager, &t3, "unknown_key").await;

    // Rotation: the issuer restarts publishing k2 (new, signing) and k1 (old).
    let mut provider = provider.restart(subset(&keys, &["k2", "k1"]), "k2").await;
    assert_eq!(provider.issuer, issuer, "same issuer after the restart");
    let t2 = provider.token("axgate-ci", "axgate:read", AUD).await;
    assert!(
        t2.starts_with(&URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","typ":"at+jwt","kid":"k2"}"#))
    );

    // The hourly one may not fetch again yet: k2 stays unknown there.
    refused(&lazy, &t2, "unknown_key").await;
    // The eager one fetches on the unknown kid and accepts the new key; the old still works.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    works(&eager, &t2).await;
    works(&eager, &t1).await;
    drop(stranger);
}

#[tokio::test]
async fn static_tokens() {
    let ci = "axg_ci-token-for-tests-only-0123456789abcdefghij";
    let reader = "axg_reader-token-for-tests-only-0123456789abcdef";
    let entry = |name: &str, token: &str, scopes: &str| {
        format!(
            "{{ name = \"{name}\", sha256 = \"{}\", scopes = [{scopes}] }}",
            tokens::hex(&tokens::sha256(token))
        )
    };
    let server = TestServer::with_config(support::config(&format!(
        "[auth]\ntokens = [{}, {}]\n",
        entry("ci", ci, "\"axgate:read\", \"axgate:act\""),
        entry("reader", reader, "\"axgate:read\""),
    )))
    .await;
    works(&server, ci).await;
    works(&server, reader).await;

    // Near misses all take the same path: hash, compare with every entry, refuse.
    let mut near = vec![
        ci[..ci.len() - 1].to_owned(),
        format!("{ci}x"),
        ci.replace("axg_", "axh_"),
        ci.to_uppercase(),
        "axg_".to_owned(),
    ];
    let mut last = ci.to_owned();
    last.pop();
    last.push('k');
    near.push(last);
    for token in &near {
        refused(&server, token, "unknown_token").await;
    }
    assert_eq!(failures(&server, "unknown_token"), near.len() as u64);

    // Without a Bearer token: 401 with the plain challenge; a broken header: 400.
    for value in ["Basic Y2k6c2VjcmV0", "Token abc"] {
        let response = post_initialize(&server, Some(value)).await;
        assert_eq!(response.status(), 401, "{value}");
        assert!(!challenge(&response).contains("error="), "{value}");
    }
    for value in ["Bearer", "Bearer a b", "Bearer \"quoted\""] {
        let response = post_initialize(&server, Some(value)).await;
        assert_eq!(response.status(), 400, "{value}");
        assert!(
            challenge(&response).starts_with("Bearer error=\"invalid_request\""),
            "{value}"
        );
    }

    // Without an audience, the metadata names this server by its Host and lists no issuer.
    let doc: Value = reqwest::get(format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    ))
    .await
    .expect("metadata")
    .json()
    .await
    .expect("json");
    assert_eq!(doc["resource"], format!("http://{}/mcp", server.addr));
    assert!(doc.get("authorization_servers").is_none(), "{doc}");
    let response = post_initialize(&server, None).await;
    assert!(challenge(&response).contains(&format!(
        "resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\"",
        server.addr
    )));
}

#[tokio::test]
async fn token_new_prints_a_working_token_and_config() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_axgate"))
            .args(args)
            .env_remove("AXGATE_CONFIG")
            .output()
            .expect("run axgate")
    };
    let out = run(&[
        "token",
        "new",
        "--name",
        "ci",
        "--scopes",
        "axgate:read,axgate:act",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let (token, snippet) = stdout.split_once('\n').expect("token line, then config");
    let body = token.strip_prefix("axg_").expect("axg_ prefix");
    assert_eq!(URL_SAFE_NO_PAD.decode(body).expect("base64url").len(), 32);
    assert!(!snippet.contains(token), "the config holds only the hash");
    assert!(out.stderr.is_empty(), "nothing logged");

    let again = run(&["token", "new", "--name", "ci"]);
    let again = String::from_utf8(again.stdout).expect("utf-8");
    assert_ne!(again.lines().next(), Some(token), "every token is fresh");

    let server = TestServer::with_config(support::config(snippet)).await;
    works(&server, token).await;

    let bad = run(&["token", "new", "--name", "ci", "--scopes", "axgate:write"]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("axgate:read, axgate:act or axgate:admin")
    );
    let bad = run(&["token", "new", "--name", "two words"]);
    assert!(!bad.status.success());
}

#[tokio::test]
async fn route_sweep_without_credentials() {
    let token = "axg_sweep-token-for-tests-only-0123456789abcdefgh";
    let server = TestServer::with_config(support::config(&format!(
        "[auth]\ntokens = [{{ name = \"sweep\", sha256 = \"{}\", scopes = [\"axgate:read\"] }}]\n",
        tokens::hex(&tokens::sha256(token))
    )))
    .await;
    let http = reqwest::Client::new();
    let public = [
        "/healthz",
        "/readyz",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ];
    for path in public {
        let response = http
            .get(format!("http://{}{path}", server.addr))
            .send()
            .await
            .expect("get");
        assert_eq!(response.status(), 200, "{path} is public");
    }
    let protected = [
        "/mcp",
        "/metrics",
        "/",
        "/nope",
        "/mcp/extra",
        "/healthz/x",
        "/.well-known/oauth-protected-resource/other",
        "/.well-known/openid-configuration",
    ];
    for path in protected {
        for method in [
            reqwest::Method::GET,
            reqwest::Method::POST,
            reqwest::Method::DELETE,
        ] {
            let response = http
                .request(method.clone(), format!("http://{}{path}", server.addr))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body("{}")
                .send()
                .await
                .expect("send");
            assert_eq!(response.status(), 401, "{method} {path}");
            assert!(
                challenge(&response).contains("resource_metadata="),
                "{method} {path}"
            );
        }
    }
    // With a token the same routes answer normally.
    let response = http
        .get(format!("http://{}/metrics", server.addr))
        .bearer_auth(token)
        .send()
        .await
        .expect("metrics");
    assert_eq!(response.status(), 200);
    assert!(
        response
            .text()
            .await
            .expect("text")
            .contains("axgate_auth_failures_total{reason=\"missing\"}")
    );
}

#[tokio::test]
async fn tokens_in_the_query_string_are_refused() {
    let token = "axg_query-token-for-tests-only-0123456789abcdefgh";
    let server = TestServer::with_config(support::config(&format!(
        "[auth]\ntokens = [{{ name = \"q\", sha256 = \"{}\", scopes = [\"axgate:read\"] }}]\n",
        tokens::hex(&tokens::sha256(token))
    )))
    .await;
    let http = reqwest::Client::new();
    for (method, path) in [
        (reqwest::Method::POST, format!("/mcp?access_token={token}")),
        (
            reqwest::Method::GET,
            format!("/mcp?x=1&access_token={token}"),
        ),
        (
            reqwest::Method::GET,
            format!("/healthz?access%5Ftoken={token}"),
        ),
    ] {
        // Refused even alongside a valid header: the token has already leaked into a URL.
        let response = http
            .request(method.clone(), format!("http://{}{path}", server.addr))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .expect("send");
        assert_eq!(response.status(), 400, "{method} {path}");
        assert!(challenge(&response).contains("error=\"invalid_request\""));
        let body = response.text().await.expect("body");
        assert!(body.contains("Authorization: Bearer"), "{body}");
        assert!(!body.contains(token), "the token is not echoed");
    }
    assert_eq!(failures(&server, "query_token"), 3);
}

#[tokio::test]
async fn listening_beyond_loopback_needs_auth() {
    let state = |config: Config| {
        let metrics = Metrics::new(prometheus::Registry::new()).expect("metrics");
        let engine = Engine::new(
            std::sync::Arc::new(DemoBackend::new()),
            EngineConfig::default(),
            metrics.engine.clone(),
        );
        AppState::new(config, engine, metrics)
    };
    let errors = state(support::config("[server]\nbind = \"0.0.0.0:8741\"\n"))
        .err()
        .expect("refused");
    assert!(errors[0].contains("not a loopback address"), "{errors:?}");
    assert!(errors[0].contains("axgate token new"), "{errors:?}");
    let hash = tokens::hex(&tokens::sha256("axg_x"));
    let with_auth = support::config(&format!(
        "[server]\nbind = \"0.0.0.0:8741\"\n[auth]\ntokens = [{{ name = \"n\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]\n"
    ));
    assert!(state(with_auth).is_ok());
    assert!(state(support::config("[server]\nbind = \"127.0.0.1:8741\"\n")).is_ok());
}
