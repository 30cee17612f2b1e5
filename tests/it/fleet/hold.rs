//! Exclusive mode's hold (issue 33, finding 1): taking it needs `axgate:act`, an admin
//! reaches the admin tools while another holds it, a hold no act renewed ends after
//! `fleet.max_hold_secs` (pings do not keep it), and the holder and the time left are on
//! `/metrics` and in the 503's message.

use std::time::Duration;

use axgate::audit::session_tag;
use serde_json::{Value, json};

use super::Tokens;
use crate::support::wait::eventually;
use crate::support::{Client, PROTOCOL, TestServer, client_with, config};

fn initialize_body() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "hold-test", "version": "1"}}
    })
}

/// An `initialize` as `client`: its status and JSON-RPC error message (empty when none).
async fn initialize(client: &Client) -> (u16, String) {
    let resp = client.post(&initialize_body()).send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let message = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_default();
    (status, message)
}

/// The status of a `tools/call` of `tool` in the client's session.
async fn call_status(client: &Client, tool: &str, args: Value) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
                      "params": {"name": tool, "arguments": args}});
    client.post(&body).send().await.unwrap().status().as_u16()
}

async fn metric(server: &TestServer, token: &str, series: &str) -> Option<f64> {
    let text = crate::support::scrape(server.addr, Some(token)).await;
    crate::support::sample_of(&text, series)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_token_cannot_take_the_machine_and_an_admin_reaches_its_tools_while_held() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!(
        "[fleet]\nexclusive = true\n{}",
        tokens.section()
    )))
    .await;
    let (status, message) = initialize(&client_with(&server, &tokens.reader)).await;
    assert_eq!(status, 403, "a read-only token takes nothing: {message}");
    assert!(message.contains("axgate:act"), "{message}");

    let mut holder = client_with(&server, &tokens.ci);
    holder.initialize().await;
    let tag = session_tag(holder.session.as_deref().unwrap());
    let (status, message) = initialize(&client_with(&server, &tokens.other)).await;
    assert_eq!(status, 503, "{message}");
    assert!(
        message.contains(&tag) && message.contains("fleet.max_hold_secs"),
        "{message}"
    );

    // The admin gets a session that does not hold the machine: admin tools only.
    let mut admin = client_with(&server, &tokens.admin);
    admin.initialize().await;
    assert_eq!(
        call_status(&admin, "list_apps", json!({})).await,
        503,
        "no app work beside the holder"
    );
    let sessions = admin.call("list_sessions", json!({})).await;
    assert!(sessions.to_string().contains(&tag), "{sessions}");
    let ended = admin.call("end_session", json!({"tag": tag})).await;
    assert_ne!(ended["isError"], json!(true), "{ended}");
    let mut next = client_with(&server, &tokens.other);
    next.initialize().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hold_no_act_renewed_ends_after_max_hold_secs_and_metrics_name_the_holder() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!(
        "[fleet]\nexclusive = true\nmax_hold_secs = 3\n{}",
        tokens.section()
    )))
    .await;
    let mut holder = client_with(&server, &tokens.ci);
    holder.initialize().await;
    let tag = session_tag(holder.session.as_deref().unwrap());
    let holder_series = format!("axgate_exclusive_holder{{session=\"{tag}\"}}");
    assert_eq!(
        metric(&server, &tokens.admin, &holder_series).await,
        Some(1.0)
    );
    let left = metric(&server, &tokens.admin, "axgate_exclusive_hold_left_seconds")
        .await
        .expect("hold left on /metrics");
    assert!(left > 0.0 && left <= 3.0, "{left}");

    // An act renews the hold: past the first 3 s it still holds.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    call_status(&holder, "launch_app", json!({"app": "Notes"})).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (status, message) = initialize(&client_with(&server, &tokens.other)).await;
    assert_eq!(status, 503, "renewed by the act: {message}");

    // Pings do not: 3 s without an act and the machine is free for another principal.
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    let next = client_with(&server, &tokens.other);
    let what = "the machine free for another principal, the holder only pinging";
    eventually(Duration::from_secs(10), what, async || {
        assert_eq!(holder.post(&ping).send().await.unwrap().status(), 200);
        initialize(&next).await.0 == 200
    })
    .await;
    assert_eq!(metric(&server, &tokens.admin, &holder_series).await, None);
    // The first holder's session lives on, without the machine: it may not act beside
    // the new holder.
    assert_eq!(call_status(&holder, "list_apps", json!({})).await, 503);
}
