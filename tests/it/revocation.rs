//! What a removed credential keeps, and what listens and reads cost: a reload
//! (`AppState::reload`, what SIGHUP runs) that removes a static token ends that principal's
//! sessions, their GET streams and their `subscriptions/listen`s; `resources/read`,
//! `prompts/get`, `completion/complete` and `subscriptions/listen` count against the
//! principal's rate limit; listens are capped per principal.

use std::time::Duration;

use axgate::http::auth::tokens;
use serde_json::{Value, json};

use crate::support::{Client, SseReader, TestServer, client_with, config};

const MODERN: &str = "2026-07-28";

fn entry(name: &str, token: &str) -> String {
    format!(
        "{{ name = \"{name}\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}",
        tokens::hex(&tokens::sha256(token))
    )
}

/// A sessionless (2026-07-28) request as `token`.
fn modern(
    server: &TestServer,
    token: &str,
    id: u64,
    method: &str,
    mut params: Value,
) -> reqwest::RequestBuilder {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "revocation-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method)
        .bearer_auth(token)
        .body(body.to_string())
}

fn listen_filter() -> Value {
    json!({"notifications": {"resourceSubscriptions": ["axgate://app/Form/state"]}})
}

/// Reads `response` until its body contains `needle`; returns the text read.
async fn read_until(response: &mut reqwest::Response, needle: &str, within: Duration) -> String {
    let deadline = tokio::time::Instant::now() + within;
    let mut text = String::new();
    while !text.contains(needle) {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => text.push_str(&String::from_utf8_lossy(&chunk)),
            _ => break,
        }
    }
    text
}

/// Whether `response`'s body ends within `within` (keep-alive comments and events may
/// still arrive before).
async fn ends_within(response: &mut reqwest::Response, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(_))) => {}
            Ok(Ok(None) | Err(_)) => return true,
            Err(_) => return false,
        }
    }
}

const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_that_removes_a_token_ends_its_sessions_streams_and_listens() {
    let (alice, bob) = (tokens::generate().unwrap(), tokens::generate().unwrap());
    let both = format!(
        "[auth]\ntokens = [{}, {}]\n",
        entry("alice", &alice),
        entry("bob", &bob)
    );
    let server = TestServer::with_config(config(&both)).await;
    let mut kept = client_with(&server, &alice);
    kept.initialize().await;
    let mut revoked = client_with(&server, &bob);
    revoked.initialize().await;
    let mut stream = revoked.listen().await;
    let mut listen = modern(&server, &bob, 5, "subscriptions/listen", listen_filter())
        .send()
        .await
        .expect("listen");
    assert_eq!(listen.status(), 200);
    let acked = read_until(&mut listen, ACKNOWLEDGED, Duration::from_secs(10)).await;
    assert!(acked.contains(ACKNOWLEDGED), "{acked}");

    // bob's entry is removed from the configuration; the reload applies it.
    let only_alice = config(&format!("[auth]\ntokens = [{}]\n", entry("alice", &alice)));
    let changed = server.state.reload(&only_alice).expect("reload");
    assert!(changed.contains(&"auth"), "{changed:?}");

    assert!(
        ends_within(&mut stream, Duration::from_secs(10)).await,
        "bob's GET stream ends"
    );
    assert!(
        ends_within(&mut listen, Duration::from_secs(10)).await,
        "bob's listen ends"
    );
    // The session is gone (bob's token now gets 401; the id itself is unknown: 404).
    let id = revoked.session.clone().expect("bob's session");
    assert!(
        !server.state.sessions.registry().contains(&id),
        "bob's session ended"
    );
    let mut probe = client_with(&server, &alice);
    probe.session = Some(id);
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
    assert_eq!(probe.post(&body).send().await.unwrap().status(), 404);
    assert_eq!(
        server.state.sessions.registry().len(),
        1,
        "alice's session only"
    );
    // alice keeps hers.
    let listed = kept.request("tools/list", json!({})).await;
    assert!(listed.get("result").is_some(), "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listens_are_capped_per_principal() {
    let (alice, bob) = (tokens::generate().unwrap(), tokens::generate().unwrap());
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{}, {}]\n[limits]\nmax_listens_per_principal = 2\n",
        entry("alice", &alice),
        entry("bob", &bob)
    )))
    .await;
    let mut open = Vec::new();
    for id in 1..=2 {
        let response = modern(&server, &alice, id, "subscriptions/listen", listen_filter())
            .send()
            .await
            .expect("listen");
        assert_eq!(response.status(), 200);
        let mut reader = SseReader::new(response);
        reader
            .until(Duration::from_secs(10), |e| {
                e.json().is_some_and(|m| m["method"] == ACKNOWLEDGED)
            })
            .await;
        open.push(reader);
    }
    let third = modern(&server, &alice, 3, "subscriptions/listen", listen_filter())
        .send()
        .await
        .expect("listen");
    let text = third.text().await.unwrap_or_default();
    assert!(text.contains("limits.max_listens_per_principal"), "{text}");
    // Another principal has its own allowance.
    let other = modern(&server, &bob, 4, "subscriptions/listen", listen_filter())
        .send()
        .await
        .expect("listen");
    let mut other = SseReader::new(other);
    let acked = other
        .until(Duration::from_secs(10), |e| {
            e.json().is_some_and(|m| m["method"] == ACKNOWLEDGED)
        })
        .await;
    assert!(!acked.is_empty(), "bob's listen is acknowledged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_reads_prompts_and_completions_count_against_the_rate_limit() {
    let (_server, mut c) = one_call_a_second().await;
    let requests = [
        ("resources/read", json!({"uri": "axgate://apps"})),
        (
            "prompts/get",
            json!({"name": "ui-test", "arguments": {"app": "Form", "goal": "the form submits"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "ui-test"},
                   "argument": {"name": "app", "value": "F"}}),
        ),
    ];
    one_per_second_each(&mut c, requests).await;
}

/// A server whose token `alice` may make one call a second, and her initialized client.
async fn one_call_a_second() -> (TestServer, Client) {
    let alice = tokens::generate().unwrap();
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{}]\n[limits]\ncalls_per_second = 1\n",
        entry("alice", &alice)
    )))
    .await;
    let mut c = client_with(&server, &alice);
    c.initialize().await;
    (server, c)
}

/// For each request: at one call a second, the first passes and the next at once is refused
/// with the limit named and a retry time.
async fn one_per_second_each(c: &mut Client, requests: impl IntoIterator<Item = (&str, Value)>) {
    for (method, params) in requests {
        // The limit's bucket refills (one call a second) before each pair.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let first = c.request(method, params.clone()).await;
        assert!(first.get("result").is_some(), "{method}: {first}");
        let second = c.rate_limited(method, params).await;
        let message = second["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("limits.calls_per_second"),
            "{method}: {second}"
        );
        assert!(
            second["error"]["data"]["retry_after_ms"].as_u64().is_some(),
            "{second}"
        );
    }
}

/// Issue 33, finding 10: lists and `ping` were not rate-limited (a 2-per-second token made
/// 1,311 a second). Each takes one call from the caller's allowance like any request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_and_ping_count_against_the_rate_limit() {
    let (_server, mut c) = one_call_a_second().await;
    let methods = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "ping",
    ];
    one_per_second_each(&mut c, methods.map(|m| (m, json!({})))).await;
}
