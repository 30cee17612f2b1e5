//! The waiting and verification tool family end to end over MCP on the demo backend:
//! `wait_for` (satisfied by another session's act, timing out with expected vs actual, by
//! target and by query), `wait_idle`, `assert` (pass, and fail as an error with FAIL lines)
//! and `diff` (baseline, then changes); plus how element targets behave over time: handles
//! that survive unrelated changes, are re-resolved after their element was replaced, or
//! fail closed as stale or unknown, and path or app errors that say what exists instead.

mod support;

use std::time::Duration;

use axgate::ax::AxValue;
use serde_json::{Value, json};
use support::{TestServer, check, config, session, text_of};

/// `base` with the fields of `extra` added.
fn with(base: Value, extra: &Value) -> Value {
    let mut out = base;
    for (k, v) in extra.as_object().expect("an object") {
        out[k] = v.clone();
    }
    out
}

fn handle_of(result: &Value, pointer: &str) -> String {
    result
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no handle at {pointer}: {result}"))
        .to_owned()
}

/// (condition, how the waiter names the element, the act (tool, arguments) that satisfies
/// it, the path of the element seen, if any)
type WaitStep<'a> = (&'a str, Value, (&'a str, Value), Option<&'a str>);

const STATUS: &str = r#"window[0]/static_text["Status"]"#;

// ---------------------------------------------------------------------------------------
// wait_for

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
        check(
            &mut actor,
            "set_value",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": name}),
            false,
            &[],
        )
        .await;
        check(
            &mut actor,
            "click",
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
            false,
            &[],
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
    let steps: Vec<WaitStep> = vec![
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
    for (condition, way, (tool, act), path) in steps {
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
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
            "title \"Demo Form\"",
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
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
            vec!["\"Other\"", "last saw title \"Demo Form\""],
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
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"target": STATUS, "query": {"role": "button"}, "condition": "exists"}),
            vec!["give exactly one of `target` or `query`"],
        ),
        (
            json!({"condition": "exists"}),
            vec!["give exactly one of `target` or `query`"],
        ),
        (
            json!({"target": STATUS, "condition": "value_equals"}),
            vec!["needs `value`"],
        ),
        (
            json!({"target": "window[0]", "condition": "title_equals"}),
            vec!["needs `value`"],
        ),
        (
            json!({"target": STATUS, "condition": "visible"}),
            vec!["invalid argument `condition`"],
        ),
        (
            json!({"target": "e9999", "condition": "exists", "timeout_ms": 300}),
            vec!["unknown handle e9999"],
        ),
        (
            json!({"target": "window[0]/", "condition": "exists"}),
            vec!["invalid argument `target`", "bad element path"],
        ),
        (
            json!({"query": {"colour": "red"}, "condition": "exists"}),
            vec!["invalid argument `query", "unknown field `colour`"],
        ),
    ];
    for (args, needles) in cases {
        let args = with(json!({"app": "Form"}), &args);
        check(&mut c, "wait_for", args, true, &needles).await;
    }
}

// ---------------------------------------------------------------------------------------
// wait_idle

#[tokio::test]
async fn wait_idle_waits_for_a_quiet_period() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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

// ---------------------------------------------------------------------------------------
// assert

#[tokio::test]
async fn assert_passes_and_fails_with_expected_and_actual() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (app, arguments, the check lines the text must hold)
    let passing: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "Form",
            json!({"target": r#"window[0]/slider["Volume"]"#, "value": "50", "enabled": true}),
            vec![
                "ok   exists: expected \"true\", actual \"true\"",
                "ok   enabled: expected \"true\", actual \"true\"",
                "ok   value: expected \"50\", actual \"50\"",
            ],
        ),
        (
            "Form",
            json!({"target": STATUS, "title": "Status", "value_contains": "Read", "focused": false}),
            vec![
                "ok   title: expected \"Status\", actual \"Status\"",
                "ok   value_contains: expected \"Read\", actual \"Ready\"",
            ],
        ),
        (
            "Form",
            json!({"target": "window[0]/button[2]", "enabled": false}),
            vec!["ok   enabled: expected \"false\", actual \"false\""],
        ),
        (
            "Form",
            json!({"target": r#"window[0]/button["Nope"]"#, "exists": false}),
            vec!["ok   exists: expected \"false\", actual \"false\""],
        ),
        // A secure field reads as •••.
        (
            "Form",
            json!({"target": "window[0]/secure_text_field[0]", "value": "•••"}),
            vec!["ok   value: expected \"•••\", actual \"•••\""],
        ),
        (
            "Settings",
            json!({"target": r#"window[0]/tab_group[0]/tab["General"]"#, "selected": true, "value": "true"}),
            vec!["ok   selected: expected \"true\", actual \"true\""],
        ),
    ];
    for (app, args, lines) in passing {
        let args = with(json!({"app": app}), &args);
        let r = check(&mut c, "assert", args.clone(), false, &lines).await;
        let out = &r["structuredContent"];
        assert_eq!(out["pass"], true, "{args}");
        let checks = out["checks"].as_array().unwrap();
        let properties = args
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| !["app", "target", "exists"].contains(&k.as_str()))
            .count();
        assert_eq!(
            checks.len(),
            properties + 1,
            "exists is always checked: {r}"
        );
        assert!(checks.iter().all(|c| c["pass"] == true), "{r}");
        assert!(!text_of(&r).contains("FAIL"), "{r}");
    }
    let failing: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "Form",
            json!({"target": STATUS, "value_contains": "Saved", "focused": false}),
            vec![
                "ok   exists: expected \"true\", actual \"true\"",
                "ok   focused: expected \"false\", actual \"false\"",
                "FAIL value_contains: expected \"Saved\", actual \"Ready\"",
            ],
        ),
        (
            "Form",
            json!({"target": "window[0]/button[0]", "enabled": false, "title": "Send"}),
            vec![
                "FAIL enabled: expected \"false\", actual \"true\"",
                "FAIL title: expected \"Send\", actual \"Submit\"",
            ],
        ),
        (
            "Form",
            json!({"target": r#"window[0]/button["Nope"]"#, "title": "Nope"}),
            vec![
                "FAIL exists: expected \"true\", actual \"false\"",
                "FAIL title: expected \"Nope\", actual \"no element\"",
            ],
        ),
        (
            "Form",
            json!({"target": "window[0]/button[0]", "exists": false}),
            vec!["FAIL exists: expected \"false\", actual \"true\""],
        ),
        // value_contains never passes for a secure field, not even with "".
        (
            "Form",
            json!({"target": "window[0]/secure_text_field[0]", "value_contains": ""}),
            vec!["FAIL value_contains: expected \"\", actual \"•••\""],
        ),
        (
            "Settings",
            json!({"target": r#"window[0]/tab_group[0]/tab["Advanced"]"#, "selected": true}),
            vec!["FAIL selected: expected \"true\", actual \"false\""],
        ),
    ];
    for (app, args, lines) in failing {
        let args = with(json!({"app": app}), &args);
        let r = check(&mut c, "assert", args.clone(), true, &lines).await;
        assert!(
            r.get("structuredContent").is_none_or(Value::is_null),
            "a failed assert has no structuredContent: {r}"
        );
    }
    for (args, needle) in [
        (json!({"app": "Form"}), "missing field `target`"),
        (
            json!({"app": "Form", "target": "window[0]", "visible": true}),
            "unknown field `visible`",
        ),
        (
            json!({"app": "Form", "target": "e123456"}),
            "unknown handle e123456",
        ),
    ] {
        check(&mut c, "assert", args, true, &[needle]).await;
    }
}

// ---------------------------------------------------------------------------------------
// diff

#[tokio::test]
async fn diff_takes_a_baseline_then_reports_changes() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let mut other = session(&server).await;
    check(
        &mut other,
        "diff",
        json!({"app": "Form"}),
        false,
        &["baseline taken"],
    )
    .await;
    let first = check(
        &mut c,
        "diff",
        json!({"app": "Form"}),
        false,
        &["baseline taken; call diff again after the app changes"],
    )
    .await;
    assert_eq!(first["structuredContent"]["had_baseline"], false);
    assert_eq!(first["structuredContent"]["changes"], json!([]));
    assert_eq!(first["structuredContent"]["nodes"], 13);
    check(
        &mut c,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/check_box[\"Subscribe\"]", "action": "press"}),
        false,
        &[],
    )
    .await;
    let second = check(
        &mut c,
        "diff",
        json!({"app": "Form"}),
        false,
        &["~ [check_box] \"Subscribe\" window[0]/check_box[0] value: \"false\" → \"true\""],
    )
    .await;
    let out = &second["structuredContent"];
    assert_eq!(out["had_baseline"], true);
    assert_eq!(
        out["changes"],
        json!([{"kind": "changed", "role": "check_box", "title": "Subscribe", "path": "window[0]/check_box[0]",
                "fields": [{"field": "value", "before": "false", "after": "true"}]}])
    );
    check(
        &mut c,
        "diff",
        json!({"app": "Form"}),
        false,
        &["no changes"],
    )
    .await;
    // Elements that come and go: the popup's menu.
    check(
        &mut c,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/popup_button[0]", "action": "show_menu"}),
        false,
        &[],
    )
    .await;
    let r = check(
        &mut c,
        "diff",
        json!({"app": "Form"}),
        false,
        &[
            "+ [menu_item] \"Red\" window[0]/popup_button[0]/menu[0]/menu_item[0]",
            "expanded: \"false\" → \"true\"",
        ],
    )
    .await;
    let kinds: Vec<&str> = r["structuredContent"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"added") && kinds.contains(&"changed"),
        "{kinds:?}"
    );
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "escape"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "diff",
        json!({"app": "Form"}),
        false,
        &["- [menu_item] \"Blue\" window[0]/popup_button[0]/menu[0]/menu_item[2]"],
    )
    .await;
    // Another session's baseline is its own: it sees everything since then at once, and
    // not the menu that came and went in between.
    let r = check(
        &mut other,
        "diff",
        json!({"app": "Form"}),
        false,
        &["~ [check_box] \"Subscribe\" window[0]/check_box[0] value: \"false\" → \"true\""],
    )
    .await;
    assert!(!text_of(&r).contains("menu"), "the menu came and went: {r}");
    assert_eq!(
        r["structuredContent"]["changes"].as_array().unwrap().len(),
        1,
        "{r}"
    );
}

#[tokio::test]
async fn diff_filters_scroll_bar_and_coordinate_noise() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    check(
        &mut c,
        "diff",
        json!({"app": "List"}),
        false,
        &["baseline taken"],
    )
    .await;
    check(
        &mut c,
        "scroll",
        json!({"app": "List", "target": "window[0]/scroll_area[0]", "direction": "down", "amount": 2}),
        false,
        &[],
    )
    .await;
    let r = check(
        &mut c,
        "diff",
        json!({"app": "List"}),
        false,
        &["~ [list_item] \"Row 11\"", "visible: \"false\" → \"true\""],
    )
    .await;
    let changes = r["structuredContent"]["changes"].as_array().unwrap();
    assert!(
        changes.iter().all(|c| c["role"] != "scroll_bar"),
        "scroll bars are noise: {r}"
    );
    // Rows that only moved (still visible) are not news.
    assert!(
        changes.iter().all(|c| c["title"] != "Row 5"),
        "a frame-only change was reported: {r}"
    );
    // A window move changes only frames.
    check(&mut c, "diff", json!({"app": "Settings"}), false, &[]).await;
    check(
        &mut c,
        "window_action",
        json!({"app": "Settings", "target": "window[0]", "action": "move", "x": 300, "y": 200}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "diff",
        json!({"app": "Settings"}),
        false,
        &["no changes"],
    )
    .await;
}

// ---------------------------------------------------------------------------------------
// Handles over time

#[tokio::test]
async fn a_handle_survives_unrelated_changes_and_is_re_resolved_after_replacement() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let found = check(
        &mut c,
        "find",
        json!({"app": "Editor", "role": "text_area"}),
        false,
        &["[text_area] \"Document\""],
    )
    .await;
    let doc = handle_of(&found, "/structuredContent/matches/0/handle");
    // Unrelated changes: typing, a selection, a dialog that opens and closes.
    check(
        &mut c,
        "type_text",
        json!({"app": "Editor", "target": doc, "text": "hello"}),
        false,
        &["value: \"\" → \"hello\""],
    )
    .await;
    for menu in ["Edit > Select All", "File > Open…"] {
        check(
            &mut c,
            "select_menu",
            json!({"app": "Editor", "menu": menu}),
            false,
            &[],
        )
        .await;
    }
    check(
        &mut c,
        "click",
        json!({"app": "Editor", "target": "dialog[0]/button[\"Cancel\"]"}),
        false,
        &["the element is gone now"],
    )
    .await;
    let r = check(
        &mut c,
        "get_element",
        json!({"app": "Editor", "target": doc}),
        false,
        &["[text_area] \"Document\" = \"hello\""],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["handle"], doc);
    assert_eq!(
        r["structuredContent"]["element"]["path"],
        "window[0]/text_area[0]"
    );
    // Save, then close the window: the handle's element is gone, and it fails closed.
    for menu in ["File > Save", "File > Close"] {
        check(
            &mut c,
            "select_menu",
            json!({"app": "Editor", "menu": menu}),
            false,
            &[],
        )
        .await;
    }
    assert!(
        server
            .demo
            .node_by_identifier("Editor", "document")
            .is_none()
    );
    for (tool, args) in [
        ("get_element", json!({"app": "Editor", "target": doc})),
        (
            "type_text",
            json!({"app": "Editor", "target": doc, "text": "x"}),
        ),
    ] {
        check(
            &mut c,
            tool,
            args,
            true,
            &[
                &format!("stale element {doc}"),
                "expected text_area \"Document\" at window[0]/text_area[0], found nothing",
                "Re-run find or get_tree",
            ],
        )
        .await;
    }
    // File > New makes a new window with a new text area: the same handle re-resolves by its
    // remembered path to the element that matches its fingerprint.
    check(
        &mut c,
        "select_menu",
        json!({"app": "Editor", "menu": "File > New"}),
        false,
        &["+ [text_area] \"Document\" window[0]/text_area[0]"],
    )
    .await;
    let r = check(
        &mut c,
        "type_text",
        json!({"app": "Editor", "target": doc, "text": "again"}),
        false,
        &["value: \"\" → \"again\""],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["handle"], doc);
    assert_eq!(
        server
            .demo
            .node_by_identifier("Editor", "document")
            .unwrap()
            .value,
        Some(AxValue::Text("again".into()))
    );
}

#[tokio::test]
async fn handles_of_closed_menus_and_renamed_windows_fail_closed() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    check(
        &mut c,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "action": "show_menu"}),
        false,
        &[],
    )
    .await;
    let found = check(
        &mut c,
        "find",
        json!({"app": "Form", "role": "menu_item", "title": "Green"}),
        false,
        &["window[0]/popup_button[0]/menu[0]/menu_item[1]"],
    )
    .await;
    let green = handle_of(&found, "/structuredContent/matches/0/handle");
    check(
        &mut c,
        "get_element",
        json!({"app": "Form", "target": green}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "escape"}),
        false,
        &[],
    )
    .await;
    for (tool, args) in [
        ("get_element", json!({"app": "Form", "target": green})),
        ("click", json!({"app": "Form", "target": green})),
        (
            "perform_action",
            json!({"app": "Form", "target": green, "action": "press"}),
        ),
    ] {
        check(
            &mut c,
            tool,
            args,
            true,
            &[
                &format!("stale element {green}"),
                "expected menu_item \"Green\" at window[0]/popup_button[0]/menu[0]/menu_item[1], found nothing",
            ],
        )
        .await;
    }
    assert_eq!(
        server
            .demo
            .node_by_identifier("Form", "color")
            .unwrap()
            .value,
        Some(AxValue::Text("Red".into())),
        "nothing was picked through the stale handle"
    );
    // wait_for counts a stale handle as "no such element".
    check(
        &mut c,
        "wait_for",
        json!({"app": "Form", "target": green, "condition": "gone", "timeout_ms": 1000}),
        false,
        &["no such element"],
    )
    .await;
    // A window whose title changed no longer matches its handle's fingerprint.
    let windows = check(&mut c, "list_windows", json!({"app": "Editor"}), false, &[]).await;
    let window = handle_of(&windows, "/structuredContent/windows/0/handle");
    check(
        &mut c,
        "select_menu",
        json!({"app": "Editor", "menu": "File > Save"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "get_element",
        json!({"app": "Editor", "target": window}),
        true,
        &[
            &format!("stale element {window}"),
            "expected window \"Untitled\" at window[0], found window \"Saved\"",
        ],
    )
    .await;
    // Handles belong to one session and one app.
    let mut other = session(&server).await;
    check(
        &mut other,
        "get_element",
        json!({"app": "Editor", "target": window}),
        true,
        &[
            &format!("unknown handle {window}"),
            "never minted in this session",
        ],
    )
    .await;
}

#[tokio::test]
async fn evicted_handles_are_unknown() {
    let server = TestServer::with_config(config("[backend]\nhandle_cap = 16\n")).await;
    let mut c = session(&server).await;
    let tree = check(
        &mut c,
        "get_tree",
        json!({"app": "List", "depth": 4, "max_nodes": 40}),
        false,
        &[],
    )
    .await;
    let nodes = tree["structuredContent"]["nodes"].as_array().unwrap();
    let first = nodes[0]["handle"].as_str().unwrap().to_owned();
    let last = nodes.last().unwrap()["handle"].as_str().unwrap().to_owned();
    check(
        &mut c,
        "get_element",
        json!({"app": "List", "target": first}),
        true,
        &[&format!("unknown handle {first}"), "evicted"],
    )
    .await;
    check(
        &mut c,
        "get_element",
        json!({"app": "List", "target": last}),
        false,
        &[],
    )
    .await;
    let info = check(
        &mut c,
        "session_info",
        json!({}),
        false,
        &["List pid=41006 handles=16"],
    )
    .await;
    assert_eq!(info["structuredContent"]["connections"][0]["handles"], 16);
}

// ---------------------------------------------------------------------------------------
// Paths and apps that name nothing, or too much

#[tokio::test]
async fn missing_paths_and_ambiguous_apps_say_what_exists() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (tool, arguments, what the error must say)
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "get_element",
            json!({"app": "Form", "target": r#"window[0]/button["Save"]"#}),
            vec![
                "no element at window[0]/button[\"Save\"]: expected button[\"Save\"], found here: text_field[0] \"Name\", text_field[1] \"Email\", secure_text_field[0] \"Password\"",
                "button[0] \"Submit\", button[1] \"Clear\", button[2] \"Disabled Action\", button[3] \"Stubborn\"",
                "Call get_tree on the parent",
            ],
        ),
        // The error names the first step that fails, with what exists there.
        (
            "click",
            json!({"app": "Form", "target": "window[1]/button[0]"}),
            vec![
                "no element at window[1]: expected window[1], found here: window[0] \"Demo Form\"",
            ],
        ),
        (
            "get_element",
            json!({"app": "Editor", "target": "dialog[0]/button[\"Save\"]"}),
            vec![
                "no element at dialog[0]",
                "found here: menu_bar[0], window[0] \"Untitled\"",
            ],
        ),
        (
            "set_value",
            json!({"app": "Form", "target": "window[0]/text_field[2]", "value": "x"}),
            vec![
                "expected text_field[2]",
                "text_field[0] \"Name\", text_field[1] \"Email\"",
            ],
        ),
        // Title steps compare the title exactly: case matters.
        (
            "perform_action",
            json!({"app": "Form", "target": r#"window[0]/button["submit"]"#, "action": "press"}),
            vec!["expected button[\"submit\"]", "button[0] \"Submit\""],
        ),
        (
            "get_element",
            json!({"app": "Form", "target": r#"window[0]/button["say \"hi\" \\ bye"]"#}),
            vec![r#"expected button["say \"hi\" \\ bye"]"#],
        ),
        (
            "get_element",
            json!({"app": "Form", "target": "window[0]/buton[0]"}),
            vec![
                "invalid argument `target`",
                "bad element path at byte 10: unknown role \"buton\"",
                "Expected steps like window[0]/button[\"Save\"]",
            ],
        ),
        // Apps: a prefix that fits two apps, and a name that fits none.
        (
            "get_tree",
            json!({"app": "H"}),
            vec![
                "\"H\" matches 2 apps (Huge (pid 41003), Hung (pid 41004)); name it by pid instead",
            ],
        ),
        (
            "click",
            json!({"app": "hu", "target": "window[0]"}),
            vec!["matches 2 apps", "name it by pid"],
        ),
        (
            "get_tree",
            json!({"app": "Photoshop"}),
            vec![
                "no running app matches \"Photoshop\"; running apps: Form (pid 41001), Editor (pid 41002), Huge (pid 41003), Hung (pid 41004), Settings (pid 41005), List (pid 41006)",
                "list_apps",
            ],
        ),
        (
            "get_tree",
            json!({"app": "41999"}),
            vec!["no running app matches \"41999\""],
        ),
    ];
    for (tool, args, needles) in cases {
        check(&mut c, tool, args, true, &needles).await;
    }
    // The same app named by prefix, pid and bundle id is one connection.
    for app in ["Hug", "41003", "dev.axgate.demo.huge", "HUGE"] {
        let r = check(
            &mut c,
            "get_tree",
            json!({"app": app, "depth": 0}),
            false,
            &[],
        )
        .await;
        assert_eq!(r["structuredContent"]["app"], "Huge", "{app}");
    }
    let info = check(&mut c, "session_info", json!({}), false, &[]).await;
    let huge = info["structuredContent"]["connections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|conn| conn["app"] == "Huge")
        .count();
    assert_eq!(huge, 1);
}

/// `notifications/cancelled` ends a running `wait_for` at once instead of at its timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_stops_a_running_wait_promptly() {
    let server = TestServer::start().await;
    let mut c = server.client();
    c.initialize().await;
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "wait_for", "arguments": {
            "app": "Form", "target": "window[0]/static_text[0]",
            "condition": "value_equals", "value": "never", "timeout_ms": 60000
        }}
    });
    let started = std::time::Instant::now();
    let pending = c.post(&body).send();
    let waiting = tokio::spawn(async move { pending.await.unwrap().text().await });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let cancel = serde_json::json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 77, "reason": "test"}
    });
    assert_eq!(c.post(&cancel).send().await.unwrap().status(), 202);
    let ended = tokio::time::timeout(std::time::Duration::from_secs(20), waiting).await;
    assert!(
        ended.is_ok(),
        "the wait kept running after its cancellation"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "ended by its timeout, not the cancellation"
    );
}
