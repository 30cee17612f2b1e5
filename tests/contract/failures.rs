//! Contracts of failure: a handle whose element changed is refused as stale (and one never
//! minted as unknown), a disabled element is not acted on, an app that stops answering times
//! out at the call's deadline with "did not answer", and an app that exits while a call waits
//! on it ends that call with "the app exited" (later calls: not running).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::run::{Run, Target};
use crate::support::text_of;

pub(crate) async fn stale_handle(target: &impl Target) {
    let mut run = target.start("").await;
    let found = run
        .ok(
            "find",
            json!({"role": "static_text", "text": "Ready", "mode": "exact"}),
        )
        .await;
    let status = found["matches"][0]["handle"]
        .as_str()
        .expect("the status label")
        .to_owned();
    let name = run.handle("text_field", "Name").await;
    run.ok("set_value", json!({"target": name, "value": "Ada"}))
        .await;
    let greet = run.handle("button", "Greet").await;
    run.ok("click", json!({"target": greet})).await;
    // Seen from the app's side only: a result showing the label would refresh its handle.
    run.expect("status", "Hello, Ada");
    // The label now says something else: its handle no longer names the element it named.
    run.err(
        "get_element",
        json!({"target": status}),
        &["stale element", "Re-run find or get_tree"],
    )
    .await;
    run.err(
        "click",
        json!({"target": "e99999"}),
        &["unknown handle e99999"],
    )
    .await;
}

pub(crate) async fn disabled_element(target: &impl Target) {
    let mut run = target.start("").await;
    let disabled = run.handle("button", "Disabled").await;
    assert_eq!(run.element(&disabled).await["enabled"], false);
    run.err("click", json!({"target": disabled}), &["is disabled"])
        .await;
    run.err(
        "perform_action",
        json!({"target": disabled, "action": "press"}),
        &["is disabled"],
    )
    .await;
    // Nothing reached the app.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_ne!(
        run.side.field("status").as_deref(),
        Some("Should not happen")
    );
    run.ok(
        "wait_for",
        json!({"query": {"role": "static_text", "text": "Ready"}, "condition": "exists",
               "timeout_ms": 1000}),
    )
    .await;
}

pub(crate) async fn hung_app(target: &impl Target) {
    let mut run = target.start("[backend]\ncall_timeout_ms = 1500\n").await;
    run.ok("get_tree", json!({"depth": 2})).await;
    let hung = run.side.hang();
    let started = Instant::now();
    let result = run.c.call("get_tree", json!({"app": hung})).await;
    let took = started.elapsed();
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text_of(&result).contains("did not answer"),
        "{}",
        text_of(&result)
    );
    assert!(
        took < Duration::from_secs(4),
        "the call ended at its deadline, not later: {took:?}"
    );
}

pub(crate) async fn app_exited(target: &impl Target) {
    let mut run = target.start("").await;
    run.ok("get_tree", json!({"depth": 2})).await;
    // A wait on the app is running when the app goes away.
    let args = run.args(json!({
        "query": {"role": "static_text", "text": "Never Shown"},
        "condition": "exists", "timeout_ms": 15000
    }));
    let started = Instant::now();
    let Run { c, side, .. } = &mut run;
    let wait = c.call("wait_for", args);
    let kill = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        side.kill();
    };
    let (result, ()) = tokio::join!(wait, kill);
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text_of(&result).contains("the app exited"),
        "{}",
        text_of(&result)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the wait ended when the app exited, not at its timeout"
    );
    run.err("get_tree", json!({}), &["no running app matches"])
        .await;
}
