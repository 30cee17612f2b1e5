//! `wait_for` and `wait_idle`.

use super::*;

#[tokio::test]
async fn wait_for_is_satisfied_when_another_session_acts() {
    let server = TestServer::start().await;
    let mut actor = session(&server).await;
    // How the waiter names the Status text: by path, and by query.
    let ways = [
        json!({"target": STATUS}),
        json!({"query": {"role": "static_text", "title": "status"}}),
        json!({"query": {"text": "submitted: run"}}),
    ];
    for (i, way) in ways.iter().enumerate() {
        let name = format!("run{i}");
        let mut waiter = session(&server).await;
        let args = with(
            json!({"app": "Form", "condition": "value_contains", "value": format!("Submitted: {name}"), "timeout_ms": 30000}),
            way,
        );
        let wait = tokio::spawn(async move { waiter.call("wait_for", args).await });
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!wait.is_finished(), "{way}: the condition cannot hold yet");
        steps(
            &mut actor,
            &[
                (
                    "set_value",
                    json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": name}),
                    &[],
                ),
                ("click", json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}), &[]),
            ],
        )
        .await;
        let r = tokio::time::timeout(Duration::from_secs(60), wait)
            .await
            .expect("the wait returns")
            .expect("the waiter task");
        assert_eq!(r["isError"], false, "{way}: {r}");
        let out = &r["structuredContent"];
        assert_eq!(out["satisfied"], true, "{r}");
        assert_eq!(out["actual"], format!("value \"Submitted: {name}\""), "{r}");
        assert_eq!(out["element"]["role"], "static_text");
        assert!(
            text_of(&r).contains("holds after") && text_of(&r).contains(&name),
            "{r}"
        );
    }
}

#[tokio::test]
async fn wait_for_sees_elements_appear_and_go() {
    let server = TestServer::start().await;
    let mut actor = session(&server).await;
    // (condition, how the waiter names the element, the act that satisfies it, the path of
    // the element seen, if any)
    let waits: Vec<WaitStep> = vec![
        (
            "exists",
            json!({"query": {"role": "dialog"}}),
            (
                "select_menu",
                json!({"app": "Editor", "menu": "File > Open..."}),
            ),
            Some("dialog[0]"),
        ),
        (
            "gone",
            json!({"target": "dialog[0]"}),
            (
                "click",
                json!({"app": "Editor", "target": "dialog[0]/button[\"Cancel\"]"}),
            ),
            None,
        ),
        (
            "focused",
            json!({"target": "window[0]/text_area[0]"}),
            (
                "focus",
                json!({"app": "Editor", "target": "window[0]/text_area[0]"}),
            ),
            Some("window[0]/text_area[0]"),
        ),
        (
            "title_equals",
            json!({"target": "window[0]", "value": "Saved"}),
            (
                "select_menu",
                json!({"app": "Editor", "menu": "File > Save"}),
            ),
            Some("window[0]"),
        ),
    ];
    for (condition, way, (tool, act), path) in waits {
        let mut waiter = session(&server).await;
        let args = with(
            json!({"app": "Editor", "condition": condition, "timeout_ms": 30000}),
            &way,
        );
        let wait = tokio::spawn(async move { waiter.call("wait_for", args).await });
        tokio::time::sleep(Duration::from_millis(200)).await;
        check(&mut actor, tool, act, false, &[]).await;
        let r = wait.await.expect("the waiter task");
        assert_eq!(r["isError"], false, "{condition} {way}: {r}");
        assert_eq!(r["structuredContent"]["satisfied"], true);
        match path {
            Some(p) => assert_eq!(r["structuredContent"]["element"]["path"], p, "{r}"),
            None => {
                assert!(r["structuredContent"].get("element").is_none(), "{r}");
                assert_eq!(r["structuredContent"]["actual"], "no such element");
            }
        }
    }
}

#[tokio::test]
async fn wait_for_holds_at_once_when_the_condition_already_holds() {
    let (_server, mut c) = start_session().await;
    // (arguments, the `actual` reported)
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"target": r#"window[0]/button["Submit"]"#, "condition": "exists"}),
            "exists",
        ),
        (
            json!({"target": r#"window[0]/button["Nope"]"#, "condition": "gone"}),
            "no such element",
        ),
        (
            json!({"target": "window[0]/button[2]", "condition": "disabled"}),
            "enabled=false",
        ),
        (
            json!({"target": "window[0]/button[0]", "condition": "enabled"}),
            "enabled=true",
        ),
        (
            json!({"target": "window[0]", "condition": "focused"}),
            "focused=true",
        ),
        (
            json!({"target": STATUS, "condition": "value_equals", "value": "Ready"}),
            "value \"Ready\"",
        ),
        (
            json!({"target": "window[0]/slider[0]", "condition": "value_equals", "value": "50"}),
            "value \"50\"",
        ),
        (
            json!({"target": "window[0]", "condition": "title_equals", "value": "Demo Form"}),
            "name \"Demo Form\"",
        ),
        (
            json!({"query": {"title": "subscr"}, "condition": "exists"}),
            "exists",
        ),
        (
            json!({"query": {"role": "dialog"}, "condition": "gone"}),
            "no such element",
        ),
    ];
    for (args, actual) in cases {
        let args = with(json!({"app": "Form", "timeout_ms": 10000}), &args);
        let r = check(&mut c, "wait_for", args.clone(), false, &["holds after"]).await;
        assert_eq!(r["structuredContent"]["satisfied"], true, "{args}");
        assert_eq!(r["structuredContent"]["actual"], actual, "{args}");
    }
    let r = check(
        &mut c,
        "wait_for",
        json!({"app": "Form", "query": {"title": "subscr"}, "condition": "exists"}),
        false,
        &[],
    )
    .await;
    assert_eq!(
        r["structuredContent"]["element"]["path"],
        "window[0]/check_box[0]"
    );
}

#[tokio::test]
async fn wait_for_times_out_with_expected_and_actual() {
    let (_server, mut c) = start_session().await;
    // (arguments, what the error must say)
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"target": STATUS, "condition": "value_equals", "value": "Never"}),
            vec!["\"Never\"", "last saw value \"Ready\""],
        ),
        (
            json!({"target": STATUS, "condition": "value_contains", "value": "Submitted"}),
            vec!["\"Submitted\"", "last saw value \"Ready\""],
        ),
        (
            json!({"target": r#"window[0]/button["Nope"]"#, "condition": "exists"}),
            vec!["last saw no such element"],
        ),
        (
            json!({"target": "window[0]/button[2]", "condition": "enabled"}),
            vec!["last saw enabled=false"],
        ),
        (
            json!({"target": "window[0]/button[0]", "condition": "gone"}),
            vec!["last saw still exists"],
        ),
        (
            json!({"target": "window[0]/text_field[0]", "condition": "focused"}),
            vec!["last saw focused=false"],
        ),
        (
            json!({"target": "window[0]", "condition": "title_equals", "value": "Other"}),
            vec!["\"Other\"", "last saw name \"Demo Form\""],
        ),
        (
            json!({"query": {"role": "dialog"}, "condition": "exists"}),
            vec!["last saw no such element"],
        ),
        // A secure field never satisfies a value condition, and never shows its value.
        (
            json!({"target": "window[0]/secure_text_field[0]", "condition": "value_equals", "value": ""}),
            vec!["last saw value \"•••\""],
        ),
    ];
    for (args, mut needles) in cases {
        needles.push("timed out after 300 ms waiting for");
        let args = with(json!({"app": "Form", "timeout_ms": 300}), &args);
        check(&mut c, "wait_for", args, true, &needles).await;
    }
}

#[tokio::test]
async fn wait_for_refuses_bad_arguments() {
    let (_server, mut c) = start_session().await;
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"target": STATUS, "query": {"role": "button"}, "condition": "exists"}),
            &["give exactly one of `target` or `query`"],
        ),
        (
            json!({"condition": "exists"}),
            &["give exactly one of `target` or `query`"],
        ),
        (
            json!({"target": STATUS, "condition": "value_equals"}),
            &["needs `value`"],
        ),
        (
            json!({"target": "window[0]", "condition": "title_equals"}),
            &["needs `value`"],
        ),
        (
            json!({"target": STATUS, "condition": "visible"}),
            &["invalid argument `condition`"],
        ),
        (
            json!({"target": "e9999", "condition": "exists", "timeout_ms": 300}),
            &["unknown handle e9999"],
        ),
        (
            json!({"target": "window[0]/", "condition": "exists"}),
            &["invalid argument `target`", "bad element path"],
        ),
        (
            json!({"query": {"colour": "red"}, "condition": "exists"}),
            &["invalid argument `query", "unknown field `colour`"],
        ),
    ];
    for (args, needles) in cases {
        let args = with(json!({"app": "Form"}), args);
        check(&mut c, "wait_for", args, true, needles).await;
    }
}

// ---------------------------------------------------------------------------------------
// wait_idle

#[tokio::test]
async fn wait_idle_waits_for_a_quiet_period() {
    let (server, mut c) = start_session().await;
    let r = check(
        &mut c,
        "wait_idle",
        json!({"app": "Form", "quiet_ms": 100}),
        false,
        &["idle after", "(0 events)"],
    )
    .await;
    assert_eq!(r["structuredContent"]["idle"], true);
    assert_eq!(r["structuredContent"]["events_seen"], 0);
    // Changes in the middle of the wait are counted, and the wait goes on past them.
    let mut waiter = session(&server).await;
    let wait = tokio::spawn(async move {
        waiter
            .call(
                "wait_idle",
                json!({"app": "Form", "quiet_ms": 2000, "timeout_ms": 60000}),
            )
            .await
    });
    // The wait must be under way before the change it counts, and nothing outside the
    // call says when it is: a pause, well inside its 2 s quiet window.
    tokio::time::sleep(Duration::from_millis(300)).await;
    check(
        &mut c,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/slider[0]", "action": "increment"}),
        false,
        &[],
    )
    .await;
    let r = wait.await.unwrap();
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["idle"], true);
    assert!(
        r["structuredContent"]["events_seen"].as_u64().unwrap() >= 1,
        "{r}"
    );
    // Another app's changes do not count.
    let mut waiter = session(&server).await;
    let wait = tokio::spawn(async move {
        waiter
            .call(
                "wait_idle",
                json!({"app": "Settings", "quiet_ms": 1500, "timeout_ms": 60000}),
            )
            .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    check(
        &mut c,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/slider[0]", "action": "decrement"}),
        false,
        &[],
    )
    .await;
    let r = wait.await.unwrap();
    assert_eq!(r["structuredContent"]["events_seen"], 0, "{r}");
    // A quiet period longer than the timeout cannot be met.
    check(
        &mut c,
        "wait_idle",
        json!({"app": "Form", "quiet_ms": 2000, "timeout_ms": 300}),
        true,
        &["Form was still changing after 300 ms"],
    )
    .await;
    check(
        &mut c,
        "wait_idle",
        json!({"app": "Form", "quiet_ms": "soon"}),
        true,
        &["invalid argument `quiet_ms`"],
    )
    .await;
}
