//! `assert` and `diff`.

use super::*;

#[tokio::test]
async fn assert_passes_and_fails_with_expected_and_actual() {
    let (_server, mut c) = start_session().await;
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
                "ok   name: expected \"Status\", actual \"Status\"",
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
                "FAIL name: expected \"Send\", actual \"Submit\"",
            ],
        ),
        (
            "Form",
            json!({"target": r#"window[0]/button["Nope"]"#, "title": "Nope"}),
            vec![
                "FAIL exists: expected \"true\", actual \"false\"",
                "FAIL name: expected \"Nope\", actual \"no element\"",
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
    let (server, mut c) = start_session().await;
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
    let second = steps(
        &mut c,
        &[
            (
                "perform_action",
                json!({"app": "Form", "target": "window[0]/check_box[\"Subscribe\"]", "action": "press"}),
                &[],
            ),
            (
                "diff",
                json!({"app": "Form"}),
                &["~ [check_box] \"Subscribe\" window[0]/check_box[0] value: \"false\" → \"true\""],
            ),
        ],
    )
    .await;
    let out = &second["structuredContent"];
    assert_eq!(out["had_baseline"], true);
    assert_eq!(
        out["changes"],
        json!([{"kind": "changed", "role": "check_box", "name": "Subscribe", "path": "window[0]/check_box[0]",
                "fields": [{"field": "value", "before": "false", "after": "true"}]}])
    );
    steps(
        &mut c,
        &[
            ("diff", json!({"app": "Form"}), &["no changes"]),
            // Elements that come and go: the popup's menu.
            (
                "perform_action",
                json!({"app": "Form", "target": "window[0]/popup_button[0]", "action": "show_menu"}),
                &[],
            ),
        ],
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
    steps(
        &mut c,
        &[
            ("press_key", json!({"app": "Form", "key": "escape"}), &[]),
            (
                "diff",
                json!({"app": "Form"}),
                &["- [menu_item] \"Blue\" window[0]/popup_button[0]/menu[0]/menu_item[2]"],
            ),
        ],
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
    let (_server, mut c) = start_session().await;
    steps(
        &mut c,
        &[
            ("diff", json!({"app": "List"}), &["baseline taken"]),
            (
                "scroll",
                json!({"app": "List", "target": "window[0]/scroll_area[0]", "direction": "down", "amount": 2}),
                &[],
            ),
        ],
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
        changes.iter().all(|c| c["name"] != "Row 5"),
        "a frame-only change was reported: {r}"
    );
    // A window move changes only frames.
    steps(
        &mut c,
        &[
            ("diff", json!({"app": "Settings"}), &[]),
            (
                "window_action",
                json!({"app": "Settings", "target": "window[0]", "action": "move", "x": 300, "y": 200}),
                &[],
            ),
            ("diff", json!({"app": "Settings"}), &["no changes"]),
        ],
    )
    .await;
}
