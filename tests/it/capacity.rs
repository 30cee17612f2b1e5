//! Sessions of clients that never say goodbye: at `sessions.max` a new session evicts the
//! longest-idle one that nothing holds (no open stream, no running request, no app lease)
//! instead of being refused, and a session that never opened its GET stream expires sooner.

use serde_json::json;

use crate::support::wait::until;
use crate::support::{Client, TestServer, config};

fn evictions(server: &TestServer, reason: &str) -> f64 {
    let text = server.state.metrics.render();
    let start = format!("axgate_session_evictions_total{{reason=\"{reason}\"}}");
    text.lines()
        .find(|l| l.starts_with(&start))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

/// The HTTP status of a `tools/list` in the client's session.
async fn status(client: &Client) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"});
    client.post(&body).send().await.unwrap().status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_the_longest_idle_session_makes_room() {
    let server = TestServer::with_config(config("[sessions]\nmax = 2\n")).await;
    let mut first = server.client();
    first.initialize().await;
    let mut second = server.client();
    second.initialize().await;
    second.call("list_apps", json!({})).await;
    // A CLI run that never sent DELETE left `first` idle: the third session takes its place.
    let mut third = server.client();
    third.initialize().await;
    assert_eq!(
        status(&first).await,
        404,
        "the longest-idle session was evicted"
    );
    assert_eq!(status(&second).await, 200);
    assert_eq!(status(&third).await, 200);
    assert_eq!(evictions(&server, "capacity_own"), 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listening_and_leasing_sessions_are_not_evicted() {
    let server = TestServer::with_config(config("[sessions]\nmax = 2\n")).await;
    let mut listening = server.client();
    listening.initialize().await;
    let _stream = listening.listen().await;
    let mut leasing = server.client();
    leasing.initialize().await;
    let lease = leasing
        .call("lease_app", json!({"app": "Form", "seconds": 60}))
        .await;
    assert_eq!(lease["isError"], false, "{lease}");
    let resp = server
        .client()
        .post(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": crate::support::PROTOCOL, "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(status(&listening).await, 200);
    assert_eq!(status(&leasing).await, 200);
    assert_eq!(evictions(&server, "capacity_own"), 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_never_listens_expires_sooner() {
    let server = TestServer::with_config(config(
        "[sessions]\nidle_timeout_secs = 3600\nidle_without_stream_secs = 1\n",
    ))
    .await;
    let mut quiet = server.client();
    quiet.initialize().await;
    let mut listening = server.client();
    listening.initialize().await;
    let _stream = listening.listen().await;
    until("an expiry without a stream", || {
        evictions(&server, "idle_without_stream") >= 1.0
    })
    .await;
    assert_eq!(
        status(&quiet).await,
        404,
        "ended after 1 s without a GET stream"
    );
    assert_eq!(status(&listening).await, 200);
    assert_eq!(evictions(&server, "idle_without_stream"), 1.0);
}
