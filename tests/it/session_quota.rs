//! Who holds the session slots: every `initialize` makes a session bound to its principal
//! (even one carrying a 2026-07-28 `_meta` protocol version, which once made a session that
//! belonged to nobody); a principal holds at most `sessions.max_per_principal` sessions and
//! never pushes out another principal's to get more; a full server answers 503 with
//! `Retry-After` and a JSON-RPC error naming the limit, never 500.

use axgate::http::auth::tokens;
use serde_json::{Value, json};

use crate::support::{Client, PROTOCOL, TestServer, client_with, config, text_of};

/// Tokens for alice, bob and carol (axgate:act) and ops (axgate:admin), and their `[auth]`.
struct Team {
    alice: String,
    bob: String,
    carol: String,
    ops: String,
}

impl Team {
    fn new() -> Team {
        let t = || tokens::generate().expect("token");
        Team {
            alice: t(),
            bob: t(),
            carol: t(),
            ops: t(),
        }
    }

    fn section(&self) -> String {
        let entry = |name: &str, token: &str, scope: &str| {
            format!(
                "{{ name = \"{name}\", sha256 = \"{}\", scopes = [\"{scope}\"] }}",
                tokens::hex(&tokens::sha256(token))
            )
        };
        format!(
            "[auth]\ntokens = [{}, {}, {}, {}]\n",
            entry("alice", &self.alice, "axgate:act"),
            entry("bob", &self.bob, "axgate:act"),
            entry("carol", &self.carol, "axgate:act"),
            entry("ops", &self.ops, "axgate:admin"),
        )
    }
}

/// An `initialize` that also carries the 2026-07-28 per-request protocol version.
fn initialize_with_meta() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"},
                   "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    })
}

async fn signed_in(server: &TestServer, token: &str) -> Client {
    let mut c = client_with(server, token);
    c.initialize().await;
    c
}

/// The status of a `tools/list` in the client's session.
async fn status(client: &Client) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"});
    client.post(&body).send().await.unwrap().status().as_u16()
}

/// A refused `initialize`: 503, `Retry-After`, and a JSON-RPC error naming `key`.
async fn assert_503_naming(response: reqwest::Response, key: &str) {
    assert_eq!(response.status(), 503);
    assert!(
        response.headers().contains_key("retry-after"),
        "Retry-After"
    );
    let body: Value = response.json().await.expect("a JSON-RPC error body");
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["id"], 0, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(key), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_with_a_meta_version_makes_a_session_its_principal_owns() {
    let team = Team::new();
    let server = TestServer::with_config(config(&team.section())).await;
    let alice = client_with(&server, &team.alice);
    let response = alice.post(&initialize_with_meta()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let mut ops = signed_in(&server, &team.ops).await;
    let listed = text_of(&ops.call("list_sessions", json!({})).await);
    assert!(listed.contains("principal=token:alice"), "{listed}");
    assert!(
        !listed.contains("principal=-"),
        "an ownerless session: {listed}"
    );
    // Its creator can end it.
    let deleted = alice
        .http
        .delete(&server.url)
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", PROTOCOL)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200, "the creator's DELETE");
    let listed = text_of(&ops.call("list_sessions", json!({})).await);
    assert!(!listed.contains("alice"), "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_answers_503_with_retry_after_never_500() {
    let team = Team::new();
    let server =
        TestServer::with_config(config(&format!("{}[sessions]\nmax = 1\n", team.section()))).await;
    let alice = signed_in(&server, &team.alice).await;
    let _stream = alice.listen().await;
    let bob = client_with(&server, &team.bob);
    for body in [initialize_with_meta(), {
        let mut plain = initialize_with_meta();
        plain["params"]
            .as_object_mut()
            .expect("params")
            .remove("_meta");
        plain
    }] {
        let response = bob.post(&body).send().await.unwrap();
        assert_503_naming(response, "sessions.max").await;
    }
    assert_eq!(status(&alice).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_its_quota_a_principal_gets_503_and_pushes_out_nobody() {
    let team = Team::new();
    // evict_others_after_secs = 0: at the cap anyone's idle session could be taken.
    let server = TestServer::with_config(config(&format!(
        "{}[sessions]\nmax = 4\nmax_per_principal = 2\nevict_others_after_secs = 0\n",
        team.section()
    )))
    .await;
    let bob = signed_in(&server, &team.bob).await;
    let carol = signed_in(&server, &team.carol).await;
    let first = signed_in(&server, &team.alice).await;
    let second = signed_in(&server, &team.alice).await;
    let _streams = (first.listen().await, second.listen().await);
    // Alice holds her two (busy) sessions; the server is full with bob's and carol's idle
    // ones. Her third initialize is refused; it takes nobody's place.
    for body in [
        initialize_with_meta(),
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                          "clientInfo": {"name": "t", "version": "1"}}}),
    ] {
        let third = client_with(&server, &team.alice)
            .post(&body)
            .send()
            .await
            .unwrap();
        assert_503_naming(third, "sessions.max_per_principal").await;
    }
    assert_eq!(status(&bob).await, 200, "bob's session stays");
    assert_eq!(status(&carol).await, 200, "carol's session stays");
    // Under the quota a principal still gets in, evicting an idle session at the cap.
    drop(bob);
    let ops = signed_in(&server, &team.ops).await;
    assert_eq!(status(&ops).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_initializes_never_pass_the_quota() {
    let team = Team::new();
    let server = TestServer::with_config(config(&format!(
        "{}[sessions]\nmax = 64\nmax_per_principal = 2\n",
        team.section()
    )))
    .await;
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                                 "clientInfo": {"name": "t", "version": "1"}}});
    // Sixteen initializes of one principal at once: a check made before any of them holds a
    // session would let several through at the same time.
    let attempts = (0..16).map(|_| {
        let mut client = client_with(&server, &team.alice);
        let body = body.clone();
        async move {
            let response = client.post(&body).send().await.unwrap();
            let status = response.status().as_u16();
            client.session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let _ = response.text().await;
            (status, client)
        }
    });
    let answers = futures::future::join_all(attempts).await;
    // Each is admitted (an own idle session giving way) or refused with 503; never more.
    assert!(answers.iter().all(|(s, _)| *s == 200 || *s == 503));
    let mut live = 0;
    for (_, client) in answers.iter().filter(|(s, _)| *s == 200) {
        if status(client).await == 200 {
            live += 1;
        }
    }
    assert!(
        live <= 2,
        "alice holds {live} live sessions; the quota is 2"
    );
}
