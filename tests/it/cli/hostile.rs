//! `axgate call` against a hostile MCP server (an axum stand-in on a port-0 loopback
//! listener): the server's escape sequences (window title, clear screen, an OSC 52
//! clipboard write, C1 controls, a bidirectional override) reach the terminal escaped in
//! `--format text`, JSON and `--list` (issue 33, finding 8), and a stream that sends only
//! keep-alives is given up within `--retry-for` (finding 9).

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::run;

/// What the hostile server says: a window title, a screen clear, a clipboard write (OSC 52),
/// an 8-bit CSI, a bell, a carriage return and a right-to-left override.
const NASTY: &str =
    "ok\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}\u{9b}31m\r\u{202e}done";

/// The bytes that must never reach the terminal raw.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t') || ('\u{202a}'..='\u{202e}').contains(&c)
        })
        .collect()
}

async fn mcp(headers: HeaderMap, body: String) -> Response {
    let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let id = message["id"].clone();
    let json_answer = |result: Value| {
        (
            StatusCode::OK,
            [
                ("content-type", "application/json"),
                ("mcp-session-id", "hostile-1"),
            ],
            json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        )
            .into_response()
    };
    let _ = headers;
    match message["method"].as_str().unwrap_or_default() {
        "initialize" => json_answer(json!({
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"}
        })),
        "tools/list" => json_answer(json!({"tools": [{
            "name": format!("evil{NASTY}"),
            "description": NASTY,
            "inputSchema": {"type": "object"}
        }]})),
        "tools/call" if message["params"]["name"] == "stall" => {
            // The priming event, then keep-alive comments forever.
            let stream = futures::stream::unfold(0u32, |n| async move {
                if n > 0 {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                let chunk = if n == 0 {
                    "id: 1\ndata: \n\n".to_owned()
                } else {
                    ": keep-alive\n\n".to_owned()
                };
                Some((Ok::<_, std::io::Error>(chunk), n + 1))
            });
            (
                StatusCode::OK,
                [("content-type", "text/event-stream")],
                Body::from_stream(stream),
            )
                .into_response()
        }
        "tools/call" => json_answer(json!({
            "content": [{"type": "text", "text": NASTY}],
            "structuredContent": {"title": NASTY}
        })),
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

/// The hostile server's `/mcp` URL.
async fn hostile() -> String {
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(mcp).delete(|| async { StatusCode::OK }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/mcp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_escape_sequences_reach_the_terminal_escaped() {
    let url = hostile().await;
    for args in [
        vec!["call", "--url", &url, "evil", "--format", "text"],
        vec!["call", "--url", &url, "evil"],
        vec!["call", "--url", &url, "--list"],
        vec!["call", "--url", &url, "--list", "--format", "json"],
    ] {
        let ran = run(&args, &[]).await;
        ran.expect_code(0);
        assert_eq!(
            raw_controls(&ran.stdout),
            Vec::<char>::new(),
            "{args:?}: {ran:?}"
        );
        assert_eq!(
            raw_controls(&ran.stderr),
            Vec::<char>::new(),
            "{args:?}: {ran:?}"
        );
        assert!(
            ran.stdout.contains("pwned") && ran.stdout.contains("done"),
            "the text is still shown: {ran:?}"
        );
    }
    // JSON stays JSON and means the same.
    let ran = run(&["call", "--url", &url, "evil"], &[]).await;
    assert_eq!(ran.json()["title"], NASTY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_of_keep_alives_only_is_given_up_within_retry_for() {
    let url = hostile().await;
    let started = Instant::now();
    let ran = run(&["call", "--url", &url, "--retry-for", "2", "stall"], &[]).await;
    let took = started.elapsed();
    assert_eq!(ran.code, Some(3), "a connection failure: {ran:?}");
    assert!(ran.stderr.contains("keep-alives"), "{ran:?}");
    assert!(took < Duration::from_secs(20), "gave up in {took:?}");
}
