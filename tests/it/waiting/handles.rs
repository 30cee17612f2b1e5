//! Handles across changes, failing closed, eviction; errors that say what exists;
//! cancellation of a running wait.

use super::*;

#[tokio::test]
async fn a_handle_survives_unrelated_changes_and_is_re_resolved_after_replacement() {
    let (server, mut c) = start_session().await;
    let found = check(
        &mut c,
        "find",
        json!({"app": "Editor", "role": "text_area"}),
        false,
        &["[text_area] \"Document\""],
    )
    .await;
    let doc = handle_of(&found, "/structuredContent/matches/0/handle");
    let menu = |menu: &str| json!({"app": "Editor", "menu": menu});
    let typing = |text: &str| json!({"app": "Editor", "target": doc, "text": text});
    let read = json!({"app": "Editor", "target": doc});
    // Unrelated changes: typing, a selection, a dialog that opens and closes.
    let cancel = json!({"app": "Editor", "target": "dialog[0]/button[\"Cancel\"]"});
    let r = steps(
        &mut c,
        &[
            ("type_text", typing("hello"), &["value: \"\" → \"hello\""]),
            ("select_menu", menu("Edit > Select All"), &[]),
            ("select_menu", menu("File > Open…"), &[]),
            ("click", cancel, &["the element is gone now"]),
            (
                "get_element",
                read.clone(),
                &["[text_area] \"Document\" = \"hello\""],
            ),
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["handle"], doc);
    assert_eq!(
        r["structuredContent"]["element"]["path"],
        "window[0]/text_area[0]"
    );
    // Save, then close the window: the handle's element is gone, and it fails closed.
    let closing = [
        ("select_menu", menu("File > Save"), &[][..]),
        ("select_menu", menu("File > Close"), &[]),
    ];
    steps(&mut c, &closing).await;
    assert!(!has_node(&server, "Editor", "document"));
    let stale = format!("stale element {doc}");
    for (tool, args) in [("get_element", read), ("type_text", typing("x"))] {
        check(
            &mut c,
            tool,
            args,
            true,
            &[
                &stale,
                "expected text_area \"Document\" at window[0]/text_area[0], found nothing",
                "Re-run find or get_tree",
            ],
        )
        .await;
    }
    // File > New makes a new window with a new text area: the same handle re-resolves by its
    // remembered path to the element that matches its fingerprint.
    let new_window = ["+ [text_area] \"Document\" window[0]/text_area[0]"];
    let r = steps(
        &mut c,
        &[
            ("select_menu", menu("File > New"), &new_window),
            ("type_text", typing("again"), &["value: \"\" → \"again\""]),
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["handle"], doc);
    assert_eq!(
        app_value(&server, "Editor", "document"),
        Some(AxValue::Text("again".into()))
    );
}

#[tokio::test]
async fn handles_of_closed_menus_and_renamed_windows_fail_closed() {
    let (server, mut c) = start_session().await;
    let found = steps(
        &mut c,
        &[
            (
                "perform_action",
                json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "action": "show_menu"}),
                &[],
            ),
            (
                "find",
                json!({"app": "Form", "role": "menu_item", "title": "Green"}),
                &["window[0]/popup_button[0]/menu[0]/menu_item[1]"],
            ),
        ],
    )
    .await;
    let green = handle_of(&found, "/structuredContent/matches/0/handle");
    steps(
        &mut c,
        &[
            ("get_element", json!({"app": "Form", "target": green}), &[]),
            ("press_key", json!({"app": "Form", "key": "escape"}), &[]),
        ],
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
    let windows = steps(
        &mut c,
        &[
            (
                "wait_for",
                json!({"app": "Form", "target": green, "condition": "gone", "timeout_ms": 1000}),
                &["no such element"],
            ),
            // A window whose title changed no longer matches its handle's fingerprint.
            ("list_windows", json!({"app": "Editor"}), &[]),
        ],
    )
    .await;
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
    let tree = get_tree(
        &mut c,
        json!({"app": "List", "depth": 4, "max_nodes": 40}),
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
    let info = steps(
        &mut c,
        &[
            ("get_element", json!({"app": "List", "target": last}), &[]),
            ("session_info", json!({}), &["List pid=41006 handles=16"]),
        ],
    )
    .await;
    assert_eq!(info["structuredContent"]["connections"][0]["handles"], 16);
}

// ---------------------------------------------------------------------------------------
// Paths and apps that name nothing, or too much

#[tokio::test]
async fn missing_paths_and_ambiguous_apps_say_what_exists() {
    let (_server, mut c) = start_session().await;
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
        let r = get_tree(&mut c, json!({"app": app, "depth": 0}), &[]).await;
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
