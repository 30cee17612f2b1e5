//! Streamable HTTP edge cases over raw HTTP against a real server on a port-0 listener:
//! every status code axgate adds in front of rmcp has a test here.

use std::time::Duration;

use crate::support::wait::until;
use crate::support::{Client, PROTOCOL, TestServer, config, parse_sse};
use serde_json::{Value, json};

fn init_body() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    })
}

async fn error_code(resp: reqwest::Response) -> i64 {
    let body: Value = resp.json().await.expect("json error body");
    body["error"]["code"].as_i64().expect("code")
}

#[tokio::test]
async fn foreign_origin_is_403_and_allowed_origin_passes() {
    let server = TestServer::start().await;
    let client = server.client();
    let resp = client
        .post(&init_body())
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    assert!(
        resp.text()
            .await
            .unwrap()
            .contains("server.allowed_origins")
    );
    let resp = client
        .post(&init_body())
        .header("origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // The guard covers every route, not only /mcp.
    let resp = client
        .http
        .get(format!("http://{}/healthz", server.addr))
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
}

#[tokio::test]
async fn foreign_host_is_403_and_configured_name_passes() {
    let server = TestServer::with_config(config(
        "[server]\nallowed_hosts = [\"localhost\", \"127.0.0.1\", \"mac-7.ci.example:8741\"]\n",
    ))
    .await;
    let client = server.client();
    let resp = client
        .post(&init_body())
        .header("host", "rebind.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let resp = client
        .post(&init_body())
        .header("host", "mac-7.ci.example:8741")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn invalid_json_is_400_with_parse_error() {
    let server = TestServer::start().await;
    let resp = server
        .client()
        .http
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    assert_eq!(error_code(resp).await, -32700);
}

#[tokio::test]
async fn batches_are_400() {
    let server = TestServer::start().await;
    let resp = server
        .client()
        .post(&json!([init_body()]))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    assert_eq!(error_code(resp).await, -32600);
}

#[tokio::test]
async fn oversized_body_is_413() {
    let server = TestServer::with_config(config("[server]\nmax_body_bytes = 2048\n")).await;
    let mut body = init_body();
    body["params"]["clientInfo"]["name"] = json!("x".repeat(4096));
    let resp = server.client().post(&body).send().await.unwrap();
    assert_eq!(resp.status(), 413);
    // A normal-sized request still works afterwards.
    let resp = server.client().post(&init_body()).send().await.unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn delete_ends_a_session_and_unknown_sessions_are_404() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let sid = client.session.clone().unwrap();
    let delete = |sid: &str| {
        client
            .http
            .delete(&client.url)
            .header("mcp-session-id", sid)
            .header("mcp-protocol-version", PROTOCOL)
            .send()
    };
    assert_eq!(
        delete("00000000-0000-4000-8000-000000000000")
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(delete(&sid).await.unwrap().status(), 200);
    assert_eq!(
        delete(&sid).await.unwrap().status(),
        404,
        "DELETE of an ended session"
    );
    let resp = client
        .post(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404, "POST to an ended session");
    let get = client
        .http
        .get(&client.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 404, "GET of an ended session");
}

#[tokio::test]
async fn protocol_version_header_rules() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let sid = client.session.clone().unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    let send = |version: Option<&str>| {
        let mut req = client
            .http
            .post(&client.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &sid)
            .body(list.to_string());
        if let Some(v) = version {
            req = req.header("mcp-protocol-version", v);
        }
        req.send()
    };
    let resp = send(Some("1999-01-01")).await.unwrap();
    assert_eq!(resp.status(), 400, "unsupported version");
    assert!(resp.text().await.unwrap().contains("2025-11-25"));
    // Another served revision is accepted; the session's negotiated one applies (the
    // official conformance suite sends 2025-03-26 inside a 2025-11-25 session).
    let resp = send(Some("2025-03-26")).await.unwrap();
    assert_eq!(
        resp.status(),
        200,
        "a served revision, not the negotiated one"
    );
    let events = parse_sse(&resp.text().await.unwrap());
    assert!(crate::support::response_of(&events, 7).is_some_and(|r| r.get("result").is_some()));
    // The sessionless revision's header without its `_meta`, inside a session: the
    // session's revision applies (a sessionless request carries its version in `_meta`).
    let resp = send(Some("2026-07-28")).await.unwrap();
    assert_eq!(resp.status(), 200, "inside a session, its revision applies");
    // Without the header, the session's negotiated version applies.
    let resp = send(None).await.unwrap();
    assert_eq!(resp.status(), 200);
    let events = parse_sse(&resp.text().await.unwrap());
    let tools = crate::support::response_of(&events, 7).expect("tools/list response");
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
}

#[tokio::test]
async fn older_revision_is_negotiated_and_then_governs_the_session() {
    let server = TestServer::start().await;
    let client = server.client();
    let mut body = init_body();
    body["params"]["protocolVersion"] = json!("2025-06-18");
    let resp = client.post(&body).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let sid = resp.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let events = parse_sse(&resp.text().await.unwrap());
    let result = crate::support::response_of(&events, 0).unwrap();
    assert_eq!(result["result"]["protocolVersion"], "2025-06-18");
    let resp = client
        .http
        .post(&client.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        200,
        "a served revision is accepted inside the session"
    );
    let events = parse_sse(&resp.text().await.unwrap());
    assert!(crate::support::response_of(&events, 1).is_some_and(|r| r.get("result").is_some()));
}

#[tokio::test]
async fn full_server_answers_503_with_retry_after() {
    let server = TestServer::with_config(config("[sessions]\nmax = 2\n")).await;
    let mut a = server.client();
    let mut b = server.client();
    a.initialize().await;
    b.initialize().await;
    // Both are listening on their GET streams: neither is idle enough to be evicted.
    let _a_stream = a.listen().await;
    let _b_stream = b.listen().await;
    let resp = server.client().post(&init_body()).send().await.unwrap();
    assert_eq!(resp.status(), 503);
    assert!(resp.headers().get("retry-after").is_some());
    // Ending a session makes room again.
    let resp = a
        .http
        .delete(&a.url)
        .header("mcp-session-id", a.session.as_ref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        server
            .client()
            .post(&init_body())
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    b.call("list_apps", json!({})).await;
}

#[tokio::test]
async fn idle_sessions_expire() {
    let server = TestServer::with_config(config("[sessions]\nidle_timeout_secs = 1\n")).await;
    let mut client = server.client();
    client.initialize().await;
    until("the idle session's expiry", || {
        server.state.sessions.registry().is_empty()
    })
    .await;
    let resp = client
        .post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn missing_session_id_is_400() {
    let server = TestServer::start().await;
    let resp = server
        .client()
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
}

#[tokio::test]
async fn healthz_is_public_liveness() {
    let server = TestServer::start().await;
    let resp = reqwest::get(format!("http://{}/healthz", server.addr))
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers().get("x-request-id").is_some(),
        "every response carries a request id"
    );
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body, json!({"status": "ok"}));
}

#[tokio::test]
async fn shutdown_closes_open_streams_cleanly() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let stream = client.get().send().await.unwrap();
    assert_eq!(stream.status(), 200);
    let reader = tokio::spawn(async move { stream.text().await });
    until("the GET stream open", || {
        server.state.metrics.http.get_streams.get() == 1
    })
    .await;
    server.shutdown().await.expect("run returns Ok");
    let body = tokio::time::timeout(Duration::from_secs(10), reader)
        .await
        .expect("stream ends at shutdown")
        .expect("reader task");
    assert!(body.is_ok(), "the stream ended cleanly: {body:?}");
}

/// A session that set a level gets the messages at or above it; one that never sent
/// `logging/setLevel` gets none (the Python SDK traced back at exit on an info message it
/// never asked for, arriving while it closed the session).
#[tokio::test]
async fn logging_level_filters_notifications_per_session_and_unasked_gets_none() {
    let server = TestServer::start().await;
    let mut quiet = server.client();
    let mut chatty = server.client();
    let mut unasked = server.client();
    for c in [&mut quiet, &mut chatty, &mut unasked] {
        c.initialize().await;
    }
    for (c, level) in [(&mut quiet, "warning"), (&mut chatty, "info")] {
        let set = c.request("logging/setLevel", json!({"level": level})).await;
        assert!(set.get("result").is_some(), "setLevel answers: {set}");
    }
    for c in [&mut quiet, &mut chatty, &mut unasked] {
        c.call("list_apps", json!({})).await; // logs at info
        let r = c.call("get_tree", json!({"app": "NoSuchApp"})).await; // logs at warning
        assert_eq!(r["isError"], true);
    }
    let levels = |c: &Client| {
        let http = c.http.clone();
        let url = c.url.clone();
        let sid = c.session.clone().unwrap();
        async move { log_levels(&http, &url, &sid).await }
    };
    assert_eq!(levels(&quiet).await, ["warning"]);
    assert_eq!(levels(&chatty).await, ["info", "warning"]);
    assert!(levels(&unasked).await.is_empty());
}

/// Opens the session's GET stream and collects the log levels delivered there.
async fn log_levels(http: &reqwest::Client, url: &str, sid: &str) -> Vec<String> {
    let mut resp = http
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", PROTOCOL)
        .send()
        .await
        .unwrap();
    let mut body = String::new();
    let mut levels = Vec::new();
    let until = tokio::time::Instant::now() + Duration::from_secs(2);
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(until, resp.chunk()).await {
        body.push_str(&String::from_utf8_lossy(&chunk));
        levels = parse_sse(&body)
            .iter()
            .filter_map(|e| e.json())
            .filter(|v| v["method"] == "notifications/message")
            .map(|v| v["params"]["level"].as_str().unwrap_or_default().to_owned())
            .collect();
    }
    levels
}

/// The status line's code of a raw HTTP/1.1 request written as is.
async fn raw_status(server: &TestServer, head: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    tcp.write_all(head.as_bytes()).await.expect("write");
    let mut answer = vec![0u8; 512];
    let read = tokio::time::timeout(std::time::Duration::from_secs(10), tcp.read(&mut answer))
        .await
        .expect("an answer within 10 s")
        .expect("read");
    let text = String::from_utf8_lossy(&answer[..read]);
    text.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_host_or_origin_header_is_refused() {
    let server = TestServer::start().await;
    let host = format!("127.0.0.1:{}", server.addr.port());
    let ok = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    assert_eq!(raw_status(&server, &ok).await, 200);
    // Two header lines: which one counts would depend on who reads them.
    for (first, second) in [
        (
            format!("Host: {host}"),
            "Host: rebind.attacker.example".to_owned(),
        ),
        (
            "Origin: http://127.0.0.1".to_owned(),
            "Origin: https://attacker.example".to_owned(),
        ),
    ] {
        let head = format!(
            "GET /healthz HTTP/1.1\r\nHost: {host}\r\n{first}\r\n{second}\r\nConnection: close\r\n\r\n"
        );
        let head = head.replacen(
            &format!("Host: {host}\r\nHost: {host}"),
            &format!("Host: {host}"),
            1,
        );
        assert_eq!(raw_status(&server, &head).await, 400, "{first} + {second}");
    }
}

/// Regression (conformance 0.2.0-alpha.12, `server-stateless`): an unsupported
/// `MCP-Protocol-Version` was answered with a null id and −32600; the answer is the
/// UnsupportedProtocolVersionError (−32022) for the request's id, echoing the revision asked
/// for and listing the served ones — exactly what `server/discover` lists.
#[tokio::test]
async fn an_unsupported_version_is_answered_for_the_request_with_the_served_versions() {
    let server = TestServer::start().await;
    let client = server.client();
    let meta = |version: &str| {
        json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    };
    let post = |id: u64, version: &str| {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
                          "params": {"_meta": meta(version)}});
        client
            .post(&body)
            .header("mcp-protocol-version", version)
            .header("mcp-method", "server/discover")
            .send()
    };
    let discovered: Value = {
        let resp = post(300, "2026-07-28").await.unwrap();
        assert_eq!(resp.status(), 200);
        let text = resp.text().await.unwrap();
        serde_json::from_str(&text).unwrap_or_else(|_| {
            crate::support::response_of(&parse_sse(&text), 300).expect("discover result")
        })
    };
    let served = &discovered["result"]["supportedVersions"];
    assert!(
        served.as_array().is_some_and(|v| !v.is_empty()),
        "{discovered}"
    );

    let resp = post(301, "v999.0.0").await.unwrap();
    assert_eq!(resp.status(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["id"], 301, "{body}");
    assert_eq!(body["error"]["code"], -32022, "{body}");
    assert_eq!(body["error"]["data"]["requested"], "v999.0.0", "{body}");
    assert_eq!(&body["error"]["data"]["supported"], served, "{body}");

    // The same in a 2025-11-25 session, and for a notification (no id to answer).
    let mut client = server.client();
    client.initialize().await;
    let sid = client.session.clone().expect("session");
    let in_session = |body: &Value| {
        client
            .http
            .post(&client.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", "1999-01-01")
            .body(body.to_string())
            .send()
    };
    let list = json!({"jsonrpc": "2.0", "id": "list-1", "method": "tools/list"});
    let resp = in_session(&list).await.unwrap();
    assert_eq!(resp.status(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["id"], "list-1", "{body}");
    assert_eq!(body["error"]["data"]["requested"], "1999-01-01", "{body}");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let resp = in_session(&note).await.unwrap();
    assert_eq!(resp.status(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["id"], Value::Null, "{body}");
    assert_eq!(body["error"]["code"], -32022, "{body}");
}

/// Regression: the 404 of a POST naming an unknown session carried a null id although the
/// request's id was known.
#[tokio::test]
async fn an_unknown_session_is_answered_for_the_request_id() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.session = Some("00000000-0000-4000-8000-000000000000".into());
    let resp = client
        .post(&json!({"jsonrpc": "2.0", "id": 77, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["id"], 77, "{body}");
    assert_eq!(body["error"]["code"], -32001, "{body}");
}
