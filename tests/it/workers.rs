//! AX worker isolation through the MCP interface: a hung app's call times out within its
//! deadline while another session's call to another app is answered, and an app that keeps
//! timing out is marked unresponsive and fails fast.

use std::time::{Duration, Instant};

use crate::support::wait::until;
use crate::support::{TestServer, config, text_of};
use serde_json::json;

fn server_config() -> axgate::config::Config {
    config("[backend]\ncall_timeout_ms = 1500\nunresponsive_after = 2\nprobe_interval_ms = 60000\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hung_app_times_out_while_another_session_is_answered() {
    let server = TestServer::with_config(server_config()).await;
    let mut stuck = server.client();
    let mut other = server.client();
    stuck.initialize().await;
    other.initialize().await;

    let started = Instant::now();
    let hung = tokio::spawn(async move {
        let result = stuck.call("get_tree", json!({"app": "Hung"})).await;
        (result, Instant::now())
    });
    // The hung call holds Hung's worker before the other session asks.
    let jobs = &server.state.metrics.engine.worker_queue_depth;
    until("the hung call on its worker", || jobs.get() >= 1).await;
    let answered = other
        .call("get_tree", json!({"app": "Form", "depth": 2}))
        .await;
    let answered_at = Instant::now();
    assert_eq!(answered["isError"], false, "{answered}");

    let (result, hung_at) = hung.await.unwrap();
    assert_eq!(result["isError"], true);
    let text = text_of(&result);
    assert!(
        text.contains("Hung") && text.contains("did not answer"),
        "{text}"
    );
    assert!(
        answered_at < hung_at,
        "the Form call waited for the Hung app"
    );
    // The deadline holds (1.5 s) with a generous margin; the app itself blocks longer.
    assert!(
        hung_at - started < Duration::from_secs(6),
        "timeout took {:?}",
        hung_at - started
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_timeouts_mark_the_app_unresponsive() {
    let server = TestServer::with_config(server_config()).await;
    let mut client = server.client();
    client.initialize().await;
    for _ in 0..2 {
        let r = client.call("get_tree", json!({"app": "Hung"})).await;
        assert!(text_of(&r).contains("did not answer"), "{r}");
    }
    let started = Instant::now();
    let r = client.call("get_tree", json!({"app": "Hung"})).await;
    assert_eq!(r["isError"], true);
    assert!(text_of(&r).contains("unresponsive"), "{r}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "an unresponsive app fails fast"
    );
    // Other apps are unaffected.
    let ok = client
        .call("get_tree", json!({"app": "Form", "depth": 1}))
        .await;
    assert_eq!(ok["isError"], false);
}
