//! Resumability over raw HTTP: a stream cut mid-response is resumed with `Last-Event-ID`,
//! nothing is lost (including a result completed while disconnected), the resumed stream
//! continues live, no other stream's events appear, and another session cannot replay it.

use std::collections::HashSet;
use std::time::Duration;

use crate::support::wait::{WITHIN, eventually, tool_calls, until};
use crate::support::{Client, Event, TestServer, config, parse_sse};
use serde_json::json;

/// A server whose Hung app answers (with a timeout error) after about one second.
async fn server() -> TestServer {
    TestServer::with_config(config(
        "[backend]\ncall_timeout_ms = 1000\nunresponsive_after = 100\n",
    ))
    .await
}

/// Waits until the slow call has ended (with its timeout error) while nobody listens.
async fn call_ended(server: &TestServer) {
    eventually(WITHIN, "the end of the slow call", async || {
        tool_calls(server, "get_tree").await >= 1.0
    })
    .await;
}

/// Starts a slow tool call and cuts the connection right after the priming event.
/// Returns the priming event id.
async fn start_and_cut(client: &mut Client, id: u64) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "get_tree", "arguments": {"app": "Hung"}}
    });
    let mut resp = client.post(&body).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let mut text = String::new();
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(5), resp.chunk())
            .await
            .expect("priming arrives")
            .unwrap()
            .expect("stream open");
        text.push_str(&String::from_utf8_lossy(&chunk));
        if let Some(e) = parse_sse(&text).into_iter().find(|e| e.id.is_some()) {
            drop(resp); // cut the stream mid-response
            return e.id.unwrap();
        }
    }
}

/// GET with Last-Event-ID; reads until the stream ends (or `limit` passes).
async fn resume(client: &Client, last_event_id: &str, limit: Duration) -> Vec<Event> {
    let resp = client
        .get()
        .header("last-event-id", last_event_id)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = tokio::time::timeout(limit, resp.text())
        .await
        .expect("resumed stream ends after the response")
        .unwrap();
    parse_sse(&text)
}

fn responses(events: &[Event]) -> Vec<serde_json::Value> {
    events
        .iter()
        .filter_map(Event::json)
        .filter(|v| v.get("id").is_some())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_completed_while_disconnected_is_replayed_and_nothing_else() {
    let server = server().await;
    let mut client = server.client();
    client.initialize().await;
    let priming = start_and_cut(&mut client, 41).await;
    // Other traffic on the same session while the first stream is cut.
    let other = client.call("list_apps", json!({})).await;
    assert_eq!(other["isError"], false);
    call_ended(&server).await;
    let events = resume(&client, &priming, Duration::from_secs(10)).await;
    let replies = responses(&events);
    assert_eq!(replies.len(), 1, "exactly the missed response: {events:?}");
    assert_eq!(replies[0]["id"], 41);
    assert_eq!(replies[0]["result"]["isError"], true);
    assert!(
        replies[0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resumed_stream_continues_live_until_the_result() {
    let server = server().await;
    let mut client = server.client();
    client.initialize().await;
    let priming = start_and_cut(&mut client, 42).await;
    // Resume at once, before the result exists: the stream must stay open and deliver it.
    let events = resume(&client, &priming, Duration::from_secs(10)).await;
    let replies = responses(&events);
    assert_eq!(replies.len(), 1, "{events:?}");
    assert_eq!(replies[0]["id"], 42);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_session_cannot_replay_a_stream() {
    let server = server().await;
    let mut owner = server.client();
    owner.initialize().await;
    let priming = start_and_cut(&mut owner, 43).await;
    call_ended(&server).await;
    let mut thief = server.client();
    thief.initialize().await;
    let stolen = resume(&thief, &priming, Duration::from_secs(5)).await;
    assert!(
        responses(&stolen).is_empty(),
        "foreign replay leaked: {stolen:?}"
    );
    // The owner still gets it.
    let events = resume(&owner, &priming, Duration::from_secs(5)).await;
    assert_eq!(responses(&events).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_ids_are_unique_within_a_session() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let mut seen = HashSet::new();
    for _ in 0..5 {
        let (_, events) = client
            .request_events("tools/call", json!({"name": "list_apps", "arguments": {}}))
            .await;
        for e in events {
            if let Some(id) = e.id {
                assert!(seen.insert(id.clone()), "duplicate event id {id}");
            }
        }
    }
    assert!(
        seen.len() >= 10,
        "each stream has a priming event and a response: {seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_get_takes_over_the_standalone_stream() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let open = || client.get().send();
    let first = open().await.unwrap();
    let first_body = tokio::spawn(async move { first.text().await });
    until("the first GET stream open", || {
        server.state.metrics.http.get_streams.get() == 1
    })
    .await;
    let second = open().await.unwrap();
    // The first stream ends: a message is never delivered on two streams.
    let ended = tokio::time::timeout(Duration::from_secs(5), first_body).await;
    assert!(
        ended.is_ok(),
        "the first GET stream should end when a second one opens"
    );
    drop(second);
}
