//! Back-pressure: a full app queue refuses the next call at once as busy, with a retry delay
//! (`backend.max_queued_calls`), while other apps answer; past `server.max_in_flight` MCP
//! POSTs the next gets 503 with `Retry-After` before its body is read. Both bounds free up
//! when the calls holding them end, and each refusal is counted by reason. A request id
//! still running in its session is refused (its answer would go to one of the two only).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Client, TestServer, config, metric, session, text_of};

/// The Hung app holds its worker for the call's deadline plus the demo's hang (0.5 s).
fn hung_config(extra: &str) -> axgate::config::Config {
    config(&format!(
        "[backend]\ncall_timeout_ms = 1500\nunresponsive_after = 100\n{extra}"
    ))
}

/// `n` sessions, each with a `get_tree` of the Hung app running in the background.
async fn hold_hung(server: &TestServer, n: usize) -> Vec<tokio::task::JoinHandle<Value>> {
    // Every session first: initialize is a POST that needs a place in the bound too.
    let mut clients = Vec::new();
    for _ in 0..n {
        clients.push(session(server).await);
    }
    let held = clients
        .into_iter()
        .map(|mut c| tokio::spawn(async move { c.call("get_tree", json!({"app": "Hung"})).await }))
        .collect();
    // Until every call has reached the worker queue.
    let deadline = Instant::now() + Duration::from_secs(5);
    while metric(server, "axgate_worker_queue_depth").await < n as f64 {
        assert!(Instant::now() < deadline, "the Hung calls never queued");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    held
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_app_queue_refuses_at_once_with_a_retry_delay() {
    let server = TestServer::with_config(hung_config("max_queued_calls = 2\n")).await;
    let held = hold_hung(&server, 2).await;
    let mut third = session(&server).await;

    let asked = Instant::now();
    let refused = third.call("get_tree", json!({"app": "Hung"})).await;
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "a busy app refuses at once, not at the deadline ({:?})",
        asked.elapsed()
    );
    assert_eq!(refused["isError"], true, "{refused}");
    let text = text_of(&refused);
    assert!(
        text.contains("Hung is busy") && text.contains("backend.max_queued_calls"),
        "{text}"
    );
    assert_eq!(refused["_meta"]["axgate/retryAfterSecs"], 1, "{refused}");
    // Another app's worker is not this queue.
    let other = third.call("list_windows", json!({"app": "Form"})).await;
    assert_eq!(other["isError"], false, "{other}");
    assert_eq!(
        metric(&server, r#"axgate_busy_refusals_total{reason="app_queue"}"#).await,
        1.0
    );

    for call in held {
        let result = call.await.expect("held call");
        assert!(text_of(&result).contains("did not answer"), "{result}");
    }
    // The hung worker thread frees its places once it returns from the app (a caller that
    // gave up at its deadline leaves its job queued until then); then the next call reaches
    // the app (and times out there): it is not refused.
    let deadline = Instant::now() + Duration::from_secs(5);
    while metric(&server, "axgate_worker_queue_depth").await != 0.0 {
        assert!(Instant::now() < deadline, "the Hung worker never drained");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let again = third.call("get_tree", json!({"app": "Hung"})).await;
    assert!(text_of(&again).contains("did not answer"), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_max_in_flight_a_post_gets_503_with_retry_after() {
    let server = TestServer::with_config(hung_config("[server]\nmax_in_flight = 2\n")).await;
    // Both sessions exist before the bound fills (initialize is a POST too).
    let mut waiting: Client = session(&server).await;
    let held = hold_hung(&server, 2).await;

    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
    let refused = waiting.post(&body).send().await.expect("send");
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");
    let error: Value = refused.json().await.expect("JSON-RPC error");
    let message = error["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("server.max_in_flight"), "{error}");
    // Health and metrics are not MCP POSTs.
    let health = reqwest::get(format!("http://{}/healthz", server.addr))
        .await
        .expect("healthz");
    assert_eq!(health.status(), 200);
    assert_eq!(metric(&server, "axgate_requests_in_flight").await, 2.0);
    assert_eq!(
        metric(&server, r#"axgate_busy_refusals_total{reason="in_flight"}"#).await,
        1.0
    );

    for call in held {
        call.await.expect("held call");
    }
    // The places are given back when the responses end.
    let tools = waiting.request("tools/list", json!({})).await;
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while metric(&server, "axgate_requests_in_flight").await != 0.0 {
        assert!(Instant::now() < deadline, "places not given back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_still_running_in_the_session_is_refused() {
    let server = TestServer::with_config(hung_config("")).await;
    let c = session(&server).await;
    let hung = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "get_tree", "arguments": {"app": "Hung"}}});
    let first = {
        let request = c.post(&hung);
        tokio::spawn(async move { request.send().await.expect("send").text().await })
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while metric(&server, "axgate_worker_queue_depth").await < 1.0 {
        assert!(Instant::now() < deadline, "the Hung call never queued");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Same id, same session, while the first runs: refused at once, with the fix.
    let again = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    let refused = c.post(&again).send().await.expect("send");
    assert_eq!(refused.status(), 400);
    let error: Value = refused.json().await.expect("JSON-RPC error");
    assert_eq!(error["id"], 7, "{error}");
    let message = error["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("already used") && message.contains("own id"),
        "{error}"
    );

    // The first request still gets its own answer, and then the id is free again.
    let answered = first.await.expect("task").expect("body");
    assert!(answered.contains("did not answer"), "{answered}");
    let reused = c.post(&again).send().await.expect("send");
    assert_eq!(reused.status(), 200);
    assert!(reused.text().await.expect("body").contains("\"tools\""));
}
