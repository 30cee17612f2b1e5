//! The direct path (crates/server/src/mcp/direct.rs, crates/server/src/http/direct.rs): read-only tool calls in an
//! initialized session are answered without rmcp's per-request tasks, on a stream the event
//! log opened itself; everything else still goes through rmcp. Asserted over HTTP: which
//! calls take it (its counter), that its stream looks like rmcp's (priming event with a
//! reconnect hint, then the response) and replays like one, that a cancellation or the
//! end of the session stops a call running on it, that a quick read is answered in one
//! write while a long one gets its priming event at once, and that a call whose client left
//! still ends and is kept for a resume.

use std::time::Duration;

use serde_json::json;

use crate::support::wait::{eventually, tool_calls};
use crate::support::{Client, SseReader, TestServer, metric, parse_sse, response_of};

const DIRECT: &str = "axgate_mcp_direct_calls_total";

async fn direct_calls(server: &TestServer) -> f64 {
    crate::support::metric(server, DIRECT).await
}

/// `list_apps` until one is answered on the direct path: the session enters it when rmcp
/// has handled `notifications/initialized`, which may come after the client's next request.
/// Returns the raw SSE body of that call.
async fn first_direct_call(server: &TestServer, c: &mut Client) -> String {
    for _ in 0..100 {
        let before = direct_calls(server).await;
        let id = c.next_id;
        c.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "list_apps", "arguments": {}}});
        let resp = c.post(&body).send().await.expect("tools/call");
        assert_eq!(resp.status(), 200);
        let text = resp.text().await.expect("body");
        assert!(
            response_of(&parse_sse(&text), id).is_some(),
            "no response: {text}"
        );
        if direct_calls(server).await > before {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no list_apps call took the direct path");
}

/// The events of a `Last-Event-ID` resume after `last`, read until the stream ends (the
/// request's response ends it).
async fn resume(c: &Client, last: &str) -> Vec<crate::support::Event> {
    let resumed = c
        .get()
        .header("last-event-id", last)
        .send()
        .await
        .expect("resume");
    assert_eq!(resumed.status(), 200);
    let text = tokio::time::timeout(Duration::from_secs(10), resumed.text())
        .await
        .expect("the resumed stream ends after the response")
        .expect("body");
    parse_sse(&text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_calls_take_the_direct_path_and_the_rest_go_through_rmcp() {
    let server = TestServer::start().await;
    let mut c = server.client();
    c.initialize().await;
    let text = first_direct_call(&server, &mut c).await;

    // As rmcp writes a request stream: a priming event (id, reconnect hint, empty data),
    // then the response, under the same stream.
    let events = parse_sse(&text);
    assert_eq!(events.len(), 2, "{text}");
    assert!(events[0].data.is_empty(), "{text}");
    assert!(text.contains("retry:"), "no reconnect hint: {text}");
    let (priming, answer) = (
        events[0].id.clone().expect("priming id"),
        events[1].id.clone().expect("response id"),
    );
    assert_eq!(
        priming.split('-').next(),
        answer.split('-').next(),
        "one stream"
    );
    let response = events[1].json().expect("JSON response");
    let apps = response["result"]["structuredContent"]["apps"]
        .as_array()
        .expect("apps");
    assert!(apps.iter().any(|a| a["name"] == "Form"), "{response}");

    // The stream is in the log: resuming after the priming event replays the response.
    let replayed = resume(&c, &priming).await;
    assert_eq!(replayed.len(), 1, "{replayed:?}");
    assert_eq!(replayed[0].id.as_deref(), Some(answer.as_str()));
    assert_eq!(replayed[0].json(), Some(response.clone()));

    // A direct call's `notifications/message` reaches the session's GET stream, as one
    // sent through rmcp does (once the client asked for log messages).
    let set = c
        .request("logging/setLevel", json!({"level": "info"}))
        .await;
    assert!(set.get("result").is_some(), "setLevel answers: {set}");
    let mut stream = SseReader::new(c.listen().await);
    stream.read_for(Duration::from_millis(300)).await;
    let before = direct_calls(&server).await;
    c.call("list_apps", json!({})).await;
    assert_eq!(direct_calls(&server).await, before + 1.0);
    let logged = stream
        .until(Duration::from_secs(10), |e| {
            e.json().is_some_and(|m| {
                m["method"] == "notifications/message"
                    && m["params"]["data"]["event"] == "tool_call"
                    && m["params"]["data"]["tool"] == "list_apps"
            })
        })
        .await;
    assert!(
        logged.iter().any(|e| e.data.contains("tool_call")),
        "no tool_call log record on the GET stream: {logged:?}"
    );
    drop(stream);

    // Not on the direct path: a tool that acts, a request with `_meta`, an unknown tool.
    let counted = direct_calls(&server).await;
    let set = c
        .call(
            "set_value",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": "x"}),
        )
        .await;
    assert_ne!(set["isError"], json!(true), "{set}");
    let with_meta = c
        .request(
            "tools/call",
            json!({"name": "list_apps", "arguments": {}, "_meta": {"progressToken": "p1"}}),
        )
        .await;
    assert!(with_meta["result"]["structuredContent"]["apps"].is_array());
    let unknown = c
        .request(
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {}}),
        )
        .await;
    assert!(
        unknown["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool"))
    );
    assert_eq!(direct_calls(&server).await, counted);

    // A direct call that fails answers as rmcp would: an error result, not a broken stream.
    let missing = c.call("get_tree", json!({"app": "Photoshop"})).await;
    assert_eq!(missing["isError"], json!(true), "{missing}");
    assert_eq!(direct_calls(&server).await, counted + 1.0);
}

/// Starts a `wait_for` that never holds (60 s timeout) on the direct path, returning the
/// pending response. Its headers come once the hold is over with the call still running, so
/// from then on a cancellation or the session's end finds it.
async fn start_wait(
    server: &TestServer,
    c: &Client,
    id: u64,
) -> tokio::task::JoinHandle<reqwest::Result<String>> {
    let before = direct_calls(server).await;
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "wait_for", "arguments": {
            "app": "Form", "target": "window[0]/static_text[0]",
            "condition": "value_equals", "value": "never", "timeout_ms": 60000}}});
    let running = c.post(&body).send().await.expect("send");
    assert_eq!(running.status(), 200);
    assert!(
        direct_calls(server).await > before,
        "the wait did not take the direct path"
    );
    tokio::spawn(async move { running.text().await })
}

/// Waits until a `wait_for` call has finished (counted, any outcome), well before its
/// own 60 s timeout.
async fn wait_ended(server: &TestServer) {
    let what = "the end of the direct call that should have been stopped";
    eventually(Duration::from_secs(15), what, async || {
        tool_calls(server, "wait_for").await >= 1.0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_stops_a_call_on_the_direct_path() {
    let server = TestServer::start().await;
    let mut c = server.client();
    c.initialize().await;
    first_direct_call(&server, &mut c).await;
    let waiting = start_wait(&server, &c, 900).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 900, "reason": "test"}});
    assert_eq!(c.post(&cancel).send().await.unwrap().status(), 202);
    wait_ended(&server).await;
    let body = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("the response stream ends")
        .unwrap()
        .unwrap();
    // A cancelled request gets no response.
    assert!(response_of(&parse_sse(&body), 900).is_none(), "{body}");
    // Its id is free again.
    let again = json!({"jsonrpc": "2.0", "id": 900, "method": "tools/call",
        "params": {"name": "list_apps", "arguments": {}}});
    let resp = c.post(&again).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let events = parse_sse(&resp.text().await.unwrap());
    assert!(response_of(&events, 900).is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ending_the_session_stops_its_direct_calls() {
    let server = TestServer::start().await;
    let mut c = server.client();
    c.initialize().await;
    first_direct_call(&server, &mut c).await;
    let waiting = start_wait(&server, &c, 901).await;
    let ended = c
        .http
        .delete(&c.url)
        .header("mcp-session-id", c.session.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 200);
    wait_ended(&server).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("the response stream ends with its session");
    // The session is gone for the direct path too: its id is unknown.
    let again = c
        .post(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "list_apps", "arguments": {}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404);
}

const WHOLE: &str = "axgate_mcp_direct_calls_whole_total";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_read_is_answered_whole_and_a_long_one_streams_and_outlives_its_client() {
    let server = TestServer::start().await;
    let mut c = server.client();
    c.initialize().await;
    first_direct_call(&server, &mut c).await;

    // A quick read is done within the hold and answered in one write. A loaded machine may
    // take longer now and then, so one of twenty is enough.
    let before = metric(&server, WHOLE).await;
    for _ in 0..20 {
        let apps = c.call("list_apps", json!({})).await;
        assert!(apps["structuredContent"]["apps"].is_array(), "{apps}");
        if metric(&server, WHOLE).await > before {
            break;
        }
    }
    assert!(
        metric(&server, WHOLE).await > before,
        "no list_apps was answered whole"
    );

    // A long read gets its headers and priming event while it runs, not when it ends.
    let whole = metric(&server, WHOLE).await;
    let field = r#"window[0]/text_field["Name"]"#;
    let body = json!({"jsonrpc": "2.0", "id": 700, "method": "tools/call",
        "params": {"name": "wait_for", "arguments": {
            "app": "Form", "target": field, "condition": "value_equals", "value": "late",
            "timeout_ms": 60000}}});
    let resp = c.post(&body).send().await.expect("wait_for");
    assert_eq!(resp.status(), 200);
    let mut reader = SseReader::new(resp);
    let events = reader
        .until(Duration::from_secs(10), |e| e.id.is_some())
        .await;
    let priming = events
        .iter()
        .find_map(|e| e.id.clone())
        .expect("the priming event arrives while the call runs");
    assert_eq!(tool_calls(&server, "wait_for").await, 0.0, "still running");

    // The client leaves; the call goes on, and its response is kept for a resume.
    drop(reader);
    // A moment for the close to travel; the server need not have seen it (a quiet stream
    // shows a closed socket only at its next write), and the call must go on either way.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let set = c
        .call(
            "set_value",
            json!({"app": "Form", "target": field, "value": "late"}),
        )
        .await;
    assert_ne!(set["isError"], json!(true), "{set}");
    wait_ended(&server).await;
    let response =
        response_of(&resume(&c, &priming).await, 700).expect("the response, after a resume");
    assert_eq!(
        response["result"]["structuredContent"]["satisfied"],
        json!(true),
        "{response}"
    );
    assert_eq!(
        metric(&server, WHOLE).await,
        whole,
        "the long read was not answered whole"
    );
}
