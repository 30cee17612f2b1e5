//! Destructive-action confirmation over HTTP: a click on an element whose label is one of
//! `policy.confirm_words` asks the user through MCP form elicitation when the client
//! declared it (accept → pressed, decline → not pressed); when the client cannot be asked,
//! `policy.unconfirmed` refuses or allows. The app's own state shows whether the press
//! happened, and the audit line records how it was settled.

use std::path::Path;
use std::time::Duration;

use crate::support::{
    Client, PROTOCOL, TestServer, app_value, audit_lines, check, config, parse_sse, session,
};
use axgate::ax::AxValue;
use futures::StreamExt;
use serde_json::{Value, json};

const RESET: &str = r#"window[0]/tab_group[0]/group["Advanced"]/button["Reset"]"#;
const PROXY: &str = r#"window[0]/tab_group[0]/group["Advanced"]/text_field["Proxy"]"#;

/// Opens Settings' Advanced panel and types a proxy, so that a Reset shows.
async fn prepare(c: &mut Client) {
    check(
        c,
        "select_option",
        json!({"app": "Settings", "target": "window[0]/tab_group[0]", "option": "Advanced"}),
        false,
        &[],
    )
    .await;
    check(
        c,
        "set_value",
        json!({"app": "Settings", "target": PROXY, "value": "proxy.example:3128"}),
        false,
        &[],
    )
    .await;
}

fn hint(server: &TestServer) -> Option<AxValue> {
    app_value(server, "Settings", "proxy_hint")
}

fn was_reset(server: &TestServer) -> bool {
    hint(server) == Some(AxValue::Text("No proxy".into()))
}

/// A fresh session on `server` clicks the Settings app's Reset button (a successful call).
async fn click_reset(server: &TestServer) {
    let mut c = session(server).await;
    prepare(&mut c).await;
    let target = json!({"app": "Settings", "target": RESET});
    check(&mut c, "click", target, false, &[]).await;
}

/// A demo server writing its audit trail to `audit`, with `extra` configuration.
pub(crate) async fn server_with(extra: &str, audit: &Path) -> TestServer {
    TestServer::with_config(config(&format!(
        "[audit]\npath = {:?}\n{extra}",
        audit.display().to_string()
    )))
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_elicitation_the_policy_refuses_or_allows() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("refuse.jsonl");
    let server = server_with("", &audit).await;
    let mut c = session(&server).await;
    prepare(&mut c).await;
    check(
        &mut c,
        "click",
        json!({"app": "Settings", "target": RESET}),
        true,
        &[
            "looks destructive (\"reset\"",
            "cannot ask the user",
            "policy.unconfirmed",
        ],
    )
    .await;
    assert!(
        !was_reset(&server),
        "refused: not pressed ({:?})",
        hint(&server)
    );
    let last = audit_lines(&audit).pop().expect("a line");
    assert_eq!(last["tool"], "click");
    assert_eq!(last["outcome"], "denied");
    assert_eq!(last["confirmation"], "refused_without_elicitation");
    assert_eq!(last["reason"], "policy.confirm_words");

    let audit = dir.path().join("allow.jsonl");
    let server = server_with("[policy]\nunconfirmed = \"allow\"\n", &audit).await;
    click_reset(&server).await;
    assert!(was_reset(&server), "allowed by configuration: pressed");
    let last = audit_lines(&audit).pop().expect("a line");
    assert_eq!(last["outcome"], "ok");
    assert_eq!(last["confirmation"], "allowed_without_elicitation");

    // Words are configurable: with another list, Reset is an ordinary button.
    let server = server_with("[policy]\nconfirm_words = [\"format\"]\n", &audit).await;
    click_reset(&server).await;
    assert!(was_reset(&server));
}

/// A session whose client declares form elicitation.
async fn eliciting_session(server: &TestServer) -> Client {
    let mut c = server.client();
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL,
                   "capabilities": {"elicitation": {"form": {}}},
                   "clientInfo": {"name": "confirming-test", "version": "1"}}
    });
    let resp = c.post(&body).send().await.expect("initialize");
    assert_eq!(resp.status(), 200);
    c.session = Some(
        resp.headers()["mcp-session-id"]
            .to_str()
            .expect("ascii")
            .to_owned(),
    );
    let _ = resp.text().await;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        c.post(&note).send().await.expect("initialized").status(),
        202
    );
    c
}

/// Clicks Reset, answers the elicitation that arrives on the call's stream with `answer`,
/// and returns the elicitation request and the call's result.
async fn click_and_answer(c: &mut Client, answer: Value) -> (Value, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
                      "params": {"name": "click", "arguments": {"app": "Settings", "target": RESET}}});
    let resp = c.post(&body).send().await.expect("click");
    assert_eq!(resp.status(), 200);
    let mut stream = resp.bytes_stream();
    let mut text = String::new();
    let mut asked: Option<Value> = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let chunk = tokio::time::timeout_at(deadline, stream.next())
            .await
            .expect("the call ends within 30 s")
            .expect("the stream stays open until the result")
            .expect("chunk");
        text.push_str(&String::from_utf8_lossy(&chunk));
        for event in parse_sse(&text) {
            let Some(message) = event.json() else {
                continue;
            };
            if message["method"] == "elicitation/create" && asked.is_none() {
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": answer});
                let resp = c.post(&reply).send().await.expect("answer");
                assert_eq!(resp.status(), 202, "the answer is accepted");
                asked = Some(message.clone());
            }
            if message["id"] == 41 && message.get("result").is_some() {
                return (
                    asked.expect("asked before the result"),
                    message["result"].clone(),
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_elicitation_asks_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let server = server_with("", &audit).await;
    let mut c = eliciting_session(&server).await;
    prepare(&mut c).await;

    let (asked, result) = click_and_answer(&mut c, json!({"action": "decline"})).await;
    let message = asked["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Reset") && message.contains("Settings"),
        "{message}"
    );
    assert_eq!(asked["params"]["mode"], "form", "{asked}");
    assert!(
        asked["params"]["requestedSchema"]["properties"]["confirm"].is_object(),
        "{asked}"
    );
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        crate::support::text_of(&result).contains("did not confirm"),
        "{result}"
    );
    assert!(!was_reset(&server), "declined: not pressed");
    let last = audit_lines(&audit).pop().expect("a line");
    assert_eq!(last["confirmation"], "declined_by_user");
    assert_eq!(last["outcome"], "denied");

    let (_, result) = click_and_answer(
        &mut c,
        json!({"action": "accept", "content": {"confirm": true}}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(was_reset(&server), "accepted: pressed");
    let last = audit_lines(&audit).pop().expect("a line");
    assert_eq!(last["confirmation"], "accepted_by_user");
    assert_eq!(last["outcome"], "ok");
    assert_eq!(last["rung"], "press");
}
