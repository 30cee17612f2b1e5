//! One axgate in this process: exclusive mode, draining and the agent-check word, through
//! HTTP on a port-0 listener and the agent port (also port 0); the drain signals through the
//! built binary.

use std::time::Duration;

use axgate::audit::session_tag;
use serde_json::{Value, json};

use super::{Tokens, agent_says, agent_word};
use crate::spawned::Axgate;
use crate::support::wait::until;
use crate::support::{Client, PROTOCOL, TestServer, client_with, config};

fn initialize_body() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "fleet-test", "version": "1"}}
    })
}

/// An `initialize` that must be refused: its 503, Retry-After and JSON-RPC message.
async fn refused_initialize(client: &Client) -> String {
    let resp = client.post(&initialize_body()).send().await.unwrap();
    assert_eq!(resp.status(), 503, "initialize refused");
    assert_eq!(
        resp.headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("5"),
        "with Retry-After (fleet.retry_after_secs)"
    );
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32000, "{body}");
    body["error"]["message"].as_str().unwrap().to_owned()
}

/// The HTTP status of a `tools/list` in the client's session.
async fn status(client: &Client) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"});
    client.post(&body).send().await.unwrap().status().as_u16()
}

/// A sample of `/metrics` (scraped with `token`: auth is on); panics when absent.
/// `axgate_capacity_state{state="…"}` of `server`.
async fn capacity(server: &TestServer, token: &str, state: &str) -> f64 {
    let series = format!("axgate_capacity_state{{state=\"{state}\"}}");
    metric_as(server, token, &series).await
}

async fn metric_as(server: &TestServer, token: &str, series: &str) -> f64 {
    let text = crate::support::scrape(server.addr, Some(token)).await;
    crate::support::sample_of(&text, series)
        .unwrap_or_else(|| panic!("{series} missing from /metrics:\n{text}"))
}

async fn agent(server: &TestServer) -> std::net::SocketAddr {
    for _ in 0..100 {
        if let Some(addr) = server.state.fleet.agent_addr() {
            return addr;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the agent-check port was not bound within 2 s");
}

const FLEET: &str = "[fleet]\nexclusive = true\nagent_listen = \"127.0.0.1:0\"\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exclusive_mode_refuses_other_sessions_naming_the_holder_until_it_ends() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!("{FLEET}{}", tokens.section()))).await;
    let agent = agent(&server).await;
    assert_eq!(agent_word(agent).await, "ready");
    let mut holder = client_with(&server, &tokens.ci);
    holder.initialize().await;
    let id = holder.session.clone().unwrap();
    let tag = session_tag(&id);

    for token in [&tokens.other, &tokens.ci] {
        let message = refused_initialize(&client_with(&server, token)).await;
        assert!(message.contains(&tag), "names the holder's tag: {message}");
        assert!(message.contains("fleet.exclusive"), "{message}");
        assert!(!message.contains(&id), "never the session id: {message}");
    }
    assert_eq!(agent_word(agent).await, "drain", "busy: HAProxy's drain");
    assert_eq!(capacity(&server, &tokens.admin, "busy").await, 1.0);
    assert!(
        metric_as(
            &server,
            &tokens.admin,
            "axgate_exclusive_held_since_seconds"
        )
        .await
            > 1.7e9
    );
    assert_eq!(
        metric_as(
            &server,
            &tokens.admin,
            "axgate_busy_refusals_total{reason=\"exclusive\"}"
        )
        .await,
        2.0
    );
    // The holder works on; its DELETE frees the machine.
    assert_eq!(status(&holder).await, 200);
    let deleted = holder
        .http
        .delete(&holder.url)
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    assert_eq!(agent_word(agent).await, "ready");
    assert_eq!(
        metric_as(
            &server,
            &tokens.admin,
            "axgate_exclusive_held_since_seconds"
        )
        .await,
        0.0
    );
    let mut next = client_with(&server, &tokens.other);
    next.initialize().await;
    assert_eq!(agent_word(agent).await, "drain");
}

/// At `sessions.max = 1` an idle session of the same principal is evicted to make room —
/// except the one holding the machine; its idle expiry frees the machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_holder_is_never_evicted_at_the_cap_and_its_idle_expiry_frees_the_machine() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!(
        "{FLEET}[sessions]\nmax = 1\nevict_others_after_secs = 0\nidle_without_stream_secs = 2\n{}",
        tokens.section()
    )))
    .await;
    let mut holder = client_with(&server, &tokens.ci);
    holder.initialize().await;
    let tag = session_tag(holder.session.as_deref().unwrap());
    let message = refused_initialize(&client_with(&server, &tokens.ci)).await;
    assert!(message.contains(&tag), "{message}");
    assert_eq!(status(&holder).await, 200, "the holder was not evicted");
    // Idle past sessions.idle_without_stream_secs: the holder expires, the machine is free.
    let expired = server
        .state
        .metrics
        .sessions
        .evictions
        .with_label_values(&["idle_without_stream"]);
    until("the idle holder's expiry", || expired.get() >= 1).await;
    assert_eq!(status(&holder).await, 404, "the idle holder expired");
    let mut next = client_with(&server, &tokens.other);
    next.initialize().await;
}

/// A 2026-07-28 sessionless `tools/call` as `token`; its HTTP status and body.
async fn sessionless_call(server: &TestServer, token: &str) -> (u16, String) {
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "list_apps", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "fleet-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let resp = reqwest::Client::new()
        .post(&server.url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "list_apps")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessionless_requests_pass_for_the_holders_principal_only() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!("{FLEET}{}", tokens.section()))).await;
    assert_eq!(
        sessionless_call(&server, &tokens.other).await.0,
        200,
        "free"
    );
    let mut holder = client_with(&server, &tokens.ci);
    holder.initialize().await;
    let tag = session_tag(holder.session.as_deref().unwrap());
    let (code, body) = sessionless_call(&server, &tokens.ci).await;
    assert_eq!(code, 200, "the holder's principal: {body}");
    assert!(body.contains("Form"), "{body}");
    let (code, body) = sessionless_call(&server, &tokens.other).await;
    assert_eq!(code, 503, "another principal: {body}");
    assert!(body.contains(&tag), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draining_serves_current_sessions_and_refuses_new_ones() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!(
        "[fleet]\nagent_listen = \"127.0.0.1:0\"\n[sessions]\nmax = 3\n{}",
        tokens.section()
    )))
    .await;
    let agent = agent(&server).await;
    let mut working = client_with(&server, &tokens.ci);
    working.initialize().await;
    let mut admin = client_with(&server, &tokens.admin);
    admin.initialize().await;
    assert_eq!(agent_word(agent).await, "ready");
    let result = admin.call("set_draining", json!({"draining": true})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["state"], "drain", "{result}");
    assert_eq!(result["structuredContent"]["sessions"], 2, "{result}");
    assert_eq!(agent_word(agent).await, "drain");
    let message = refused_initialize(&client_with(&server, &tokens.other)).await;
    assert!(message.contains("draining"), "{message}");
    assert_eq!(
        sessionless_call(&server, &tokens.other).await.0,
        503,
        "no new sessionless work either"
    );
    let apps = working.call("list_apps", json!({})).await;
    assert_eq!(
        apps["isError"], false,
        "the current session goes on: {apps}"
    );
    assert_eq!(
        metric_as(&server, &tokens.admin, "axgate_draining").await,
        1.0
    );
    assert_eq!(capacity(&server, &tokens.admin, "drain").await, 1.0);
    assert_eq!(
        metric_as(
            &server,
            &tokens.admin,
            "axgate_busy_refusals_total{reason=\"draining\"}"
        )
        .await,
        2.0
    );
    // Only an admin may drain.
    let denied = working
        .post(&json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
                      "params": {"name": "set_draining", "arguments": {"draining": false}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 403, "set_draining needs axgate:admin");
    admin.call("set_draining", json!({"draining": false})).await;
    assert_eq!(agent_word(agent).await, "ready");
    // At sessions.max the machine is busy: it serves, and takes no new session.
    let mut third = client_with(&server, &tokens.other);
    third.initialize().await;
    assert_eq!(agent_word(agent).await, "drain");
    assert_eq!(capacity(&server, &tokens.admin, "busy").await, 1.0);
}

/// The agent address in a spawned axgate's start-up log.
pub(crate) fn agent_in_log(axgate: &Axgate) -> std::net::SocketAddr {
    for _ in 0..200 {
        let log = axgate.log();
        if let Some(at) = log.find("agent-check listening on ") {
            let rest = &log[at + "agent-check listening on ".len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
                .unwrap_or(rest.len());
            return rest[..end].parse().expect("an address");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("no agent-check address in the log:\n{}", axgate.log());
}

/// Sends `signal` (USR1, USR2) to the process.
pub(crate) fn signal(axgate: &Axgate, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([format!("-{signal}"), axgate.pid().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -{signal}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigusr1_drains_and_sigusr2_ends_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("axgate.toml");
    std::fs::write(
        &file,
        "[fleet]\nagent_listen = \"127.0.0.1:0\"\ndrain = true\n",
    )
    .unwrap();
    let axgate = Axgate::serve(&["--backend", "demo", "--config", file.to_str().unwrap()]);
    let agent = agent_in_log(&axgate);
    assert_eq!(agent_word(agent).await, "drain", "fleet.drain at start");
    signal(&axgate, "USR2");
    agent_says(agent, "ready").await;
    signal(&axgate, "USR1");
    agent_says(agent, "drain").await;
    let client = Client {
        http: reqwest::Client::new(),
        url: axgate.url.clone(),
        session: None,
        next_id: 1,
    };
    let message = refused_initialize(&client).await;
    assert!(message.contains("draining"), "{message}");
}
