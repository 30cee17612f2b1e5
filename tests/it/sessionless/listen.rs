//! `subscriptions/listen`: the acknowledged filter, updates on the listen's own stream, the
//! end of a listen when its stream closes or the server shuts down.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_listen_delivers_updates_on_its_own_stream() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let state_uri = "axgate://app/Form/state";
    let filter = json!({"notifications": {
        "resourceSubscriptions": [state_uri, "axgate://app/Keychain%20Access/tree", "file:///etc/passwd"],
        "toolsListChanged": true,
    }});
    let resp = modern(
        &server,
        Some(&callers.actor),
        21,
        "subscriptions/listen",
        filter,
    )
    .send()
    .await
    .expect("listen");
    assert_eq!(resp.status(), 200);
    let mut listen = SseReader::new(resp);
    let acked = listen
        .until(Duration::from_secs(10), |e| {
            method_is(e, "notifications/subscriptions/acknowledged")
        })
        .await;
    let ack = acked
        .iter()
        .filter_map(Event::json)
        .find(|m| m["method"] == "notifications/subscriptions/acknowledged")
        .unwrap_or_else(|| panic!("no acknowledgment: {acked:?}"));
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 21,
        "{ack}"
    );
    // Only the app URI the policy allows; no list-changed (axgate sends none).
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!([state_uri]),
        "{ack}"
    );
    assert!(
        ack["params"]["notifications"]
            .get("toolsListChanged")
            .is_none(),
        "{ack}"
    );
    let listen_event = acked
        .iter()
        .find_map(|e| e.id.clone())
        .expect("listen event id");

    // Another principal cannot replay the listen.
    let replay = |token: &str| replay(&server, Some(token), &listen_event);
    assert_eq!(replay(&callers.other).await.expect("GET").status(), 404);

    // A sessionless press changes the app; the update arrives on the listen's stream.
    let press = json!({"name": "perform_action",
                       "arguments": {"app": "Form", "target": CHECK_BOX, "action": "press"}});
    let (_, _, events) = exchange(modern(
        &server,
        Some(&callers.other),
        22,
        "tools/call",
        press,
    ))
    .await;
    assert_eq!(answer(&events, 22)["result"]["isError"], false);
    let updates = listen
        .until(Duration::from_secs(10), |e| {
            method_is(e, "notifications/resources/updated")
        })
        .await;
    let update = updates
        .iter()
        .filter_map(Event::json)
        .find(|m| m["method"] == "notifications/resources/updated")
        .unwrap_or_else(|| panic!("no update on the listen stream: {updates:?}"));
    assert_eq!(update["params"]["uri"], state_uri, "{update}");
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 21,
        "{update}"
    );

    // Closing the stream ends the listen: it is no longer replayable, even by its caller.
    drop(listen);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let status = replay(&callers.actor).await.expect("GET").status();
        if status == 404 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the closed listen is still replayable ({status})"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A URI whose app is not running ends the listen with an error naming it.
    let gone =
        json!({"notifications": {"resourceSubscriptions": ["axgate://app/NoSuchApp/state"]}});
    let (_, _, events) = exchange(modern(
        &server,
        Some(&callers.actor),
        24,
        "subscriptions/listen",
        gone,
    ))
    .await;
    let refused = answer(&events, 24);
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("NoSuchApp")),
        "{refused}"
    );
    // resources/subscribe is a 2025-11-25 method: sessionless, it does not exist.
    let (_, _, events) = exchange(modern(
        &server,
        Some(&callers.actor),
        23,
        "resources/subscribe",
        json!({"uri": state_uri}),
    ))
    .await;
    assert_eq!(answer(&events, 23)["error"]["code"], -32601, "{events:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_a_listen_with_its_graceful_result() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let filter = json!({"notifications": {"resourceSubscriptions": ["axgate://app/Form/state"]}});
    let resp = modern(
        &server,
        Some(&callers.actor),
        31,
        "subscriptions/listen",
        filter,
    )
    .send()
    .await
    .expect("listen");
    let mut listen = SseReader::new(resp);
    let acked = listen
        .until(Duration::from_secs(10), |e| {
            method_is(e, "notifications/subscriptions/acknowledged")
        })
        .await;
    assert!(
        acked
            .iter()
            .any(|e| method_is(e, "notifications/subscriptions/acknowledged")),
        "{acked:?}"
    );
    let stopping = tokio::spawn(server.shutdown());
    let ended = listen
        .until(Duration::from_secs(10), |e| {
            e.json().is_some_and(|m| m["id"] == 31)
        })
        .await;
    let result = answer(&ended, 31);
    assert_eq!(result["result"]["resultType"], "complete", "{result}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 31,
        "{result}"
    );
    stopping
        .await
        .expect("join")
        .expect("the server stops cleanly");
}
