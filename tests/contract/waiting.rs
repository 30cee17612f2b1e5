//! Contracts of waiting and events: `wait_for` holds at once for what is there, waits for a
//! value, a state and an element that comes later, and times out naming what it last saw; the
//! app's events resource records a change, and a subscription to its state delivers an update
//! on the session's stream.

use std::time::Duration;

use serde_json::{Value, json};

use crate::reading::waits_on_what_is_there_hold;
use crate::run::{Run, Target};
use crate::support::{SseReader, text_of};

pub(crate) async fn waits(target: &impl Target) {
    let mut run = target.start("").await;
    waits_on_what_is_there_hold(&mut run).await;

    let name = run.handle("text_field", "Name").await;
    run.ok("set_value", json!({"target": name, "value": "Wait"}))
        .await;
    let value = run
        .ok(
            "wait_for",
            json!({"target": name, "condition": "value_equals", "value": "Wait"}),
        )
        .await;
    assert_eq!(value["satisfied"], true, "{value}");

    // Something that appears only after the wait started: another session presses Greet.
    let (url, app) = (run.url.clone(), run.app.clone());
    let later = run.ok(
        "wait_for",
        json!({"query": {"role": "static_text", "text": "Hello, Wait"},
               "condition": "exists", "timeout_ms": 5000}),
    );
    let (waited, pressed) = tokio::join!(later, press_greet_later(&url, &app));
    assert_ne!(pressed["isError"], true, "{}", text_of(&pressed));
    assert_eq!(waited["satisfied"], true, "{waited}");

    let timed_out = run
        .err(
            "wait_for",
            json!({"query": {"role": "static_text", "text": "Never Shown"},
                   "condition": "exists", "timeout_ms": 300}),
            &["timed out after 300 ms"],
        )
        .await;
    assert!(timed_out.contains("no such element"), "{timed_out}");
}

/// Presses Greet from another session after 300 ms.
async fn press_greet_later(url: &str, app: &str) -> Value {
    let mut other = crate::run::session(url).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let greet = other
        .call(
            "find",
            json!({"app": app, "role": "button", "name": "Greet", "mode": "exact"}),
        )
        .await;
    let handle = greet["structuredContent"]["matches"][0]["handle"].clone();
    other
        .call(
            "perform_action",
            json!({"app": app, "target": handle, "action": "press"}),
        )
        .await
}

pub(crate) async fn events(target: &impl Target) {
    let mut run = target.start("").await;
    let state_uri = format!("axgate://app/{}/state", run.app);
    let subscribed = run
        .c
        .request("resources/subscribe", json!({"uri": state_uri}))
        .await;
    assert!(subscribed["result"].is_object(), "{subscribed}");
    let mut stream = SseReader::new(run.c.listen().await);
    tokio::time::sleep(Duration::from_millis(300)).await;

    let volume = run.handle("slider", "Volume").await;
    run.ok("set_value", json!({"target": volume, "value": 70}))
        .await;
    let events = stream
        .until(Duration::from_secs(10), |e| {
            e.data.contains("notifications/resources/updated") && e.data.contains(&state_uri)
        })
        .await;
    assert!(
        events.iter().any(|e| e.data.contains(&state_uri)),
        "no update of {state_uri} within 10 s: {events:?}"
    );

    let recent = read_events(&mut run).await;
    let kinds: Vec<&str> = recent["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"value_changed"), "{recent}");
}

/// The app's events resource, parsed.
async fn read_events(run: &mut Run) -> Value {
    let uri = format!("axgate://app/{}/events", run.app);
    let read = run.c.request("resources/read", json!({"uri": uri})).await;
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    serde_json::from_str(text).expect("the events resource is JSON")
}
