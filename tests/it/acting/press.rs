//! Acting on elements: `perform_action` semantic actions, `click` and its actuation ladder,
//! right-click, and `focus`.

use super::*;

#[tokio::test]
async fn perform_action_runs_each_semantic_action_and_the_app_sees_it() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (target, action, identifier whose app-side value changes, the value after)
    let cases = [
        (
            r#"window[0]/slider["Volume"]"#,
            "increment",
            "volume",
            number(60.0),
        ),
        (
            r#"window[0]/slider["Volume"]"#,
            "increment",
            "volume",
            number(70.0),
        ),
        (
            r#"window[0]/slider["Volume"]"#,
            "decrement",
            "volume",
            number(60.0),
        ),
        (
            r#"window[0]/check_box["Subscribe"]"#,
            "press",
            "subscribe",
            boolean(true),
        ),
        (
            r#"window[0]/button["Clear"]"#,
            "press",
            "status",
            text("Cleared"),
        ),
        (
            r#"window[0]/button["Submit"]"#,
            "press",
            "status",
            text("Submitted: "),
        ),
    ];
    for (target, action, identifier, after) in cases {
        let r = check(
            &mut c,
            "perform_action",
            json!({"app": "Form", "target": target, "action": action}),
            false,
            &[&format!("perform_action {target}")],
        )
        .await;
        let out = &r["structuredContent"];
        assert_eq!(out["tool"], "perform_action", "{r}");
        assert_eq!(out["verified"], true, "{target} {action}: {r}");
        assert_eq!(out["element_gone"], false, "{r}");
        assert!(out.get("rung").is_none_or(Value::is_null), "{r}");
        assert_eq!(out["element"]["path"], target, "paths are echoed as given");
        assert_eq!(
            app_value(&server, "Form", identifier),
            after,
            "{target} {action}"
        );
    }
    // The result's element is re-read after the act.
    let r = check(
        &mut c,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/slider[0]", "action": "increment"}),
        false,
        &["value: \"60\" → \"70\""],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["value"], 70.0);
    assert_eq!(
        change_fields(&r, "window[0]/slider[0]"),
        ["value: 60 → 70"],
        "{r}"
    );
    // show_menu opens the popup's menu: its items appear as added elements.
    let r = check(
        &mut c,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "action": "show_menu"}),
        false,
        &["+ [menu_item] \"Green\"", "expanded: \"false\" → \"true\""],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true);
    assert!(
        server
            .demo
            .node_by_identifier("Form", "color_green")
            .is_some()
    );
}

#[tokio::test]
async fn perform_action_refuses_what_the_element_cannot_do() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "action": "increment"}),
            vec![
                "button \"Submit\" at window[0]/button[\"Submit\"] does not support \"increment\"",
                "it supports: press",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Disabled Action\"]", "action": "press"}),
            vec!["button \"Disabled Action\"", "is disabled", "wait_for"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Missing\"]", "action": "press"}),
            vec![
                "no element at window[0]/button[\"Missing\"]",
                "button[3] \"Stubborn\"",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/buton[0]", "action": "press"}),
            vec!["invalid argument `target`", "unknown role \"buton\""],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[0]"}),
            vec!["missing field `action`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[0]", "action": "press", "force": true}),
            vec!["unknown field `force`"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "perform_action", args, true, &needles).await;
    }
    // Nothing happened on the app's side.
    assert_eq!(app_value(&server, "Form", "status"), text("Ready"));
}

// ---------------------------------------------------------------------------------------
// click

#[tokio::test]
async fn click_climbs_the_ladder_and_reports_the_rung() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (app, target, extra arguments, the rung reported, identifier changed, its value after)
    let cases = [
        (
            "Form",
            r#"window[0]/button["Submit"]"#,
            json!({}),
            "press",
            "status",
            text("Submitted: "),
        ),
        // Stubborn ignores the semantic press: the ladder has to climb to the pointer.
        (
            "Form",
            r#"window[0]/button["Stubborn"]"#,
            json!({}),
            "pointer",
            "status",
            text("Stubborn clicked"),
        ),
        (
            "Form",
            r#"window[0]/check_box["Subscribe"]"#,
            json!({}),
            "press",
            "subscribe",
            boolean(true),
        ),
        (
            "Form",
            r#"window[0]/button["Clear"]"#,
            json!({"strategy": "pointer"}),
            "pointer",
            "status",
            text("Cleared"),
        ),
        (
            "Form",
            r#"window[0]/check_box["Subscribe"]"#,
            json!({"strategy": "action"}),
            "press",
            "subscribe",
            boolean(false),
        ),
        // A row offers no press: a plain click selects it with the pointer.
        (
            "List",
            "window[0]/scroll_area[0]/list[0]/list_item[4]",
            json!({}),
            "pointer",
            "selection",
            text("Selected: Row 5"),
        ),
        // A double click goes through the pointer.
        (
            "List",
            "window[0]/scroll_area[0]/list[0]/list_item[2]",
            json!({"count": 2}),
            "pointer",
            "selection",
            text("Selected: Row 3"),
        ),
    ];
    for (app, target, extra, rung, identifier, after) in cases {
        let mut args = json!({"app": app, "target": target});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let r = check(
            &mut c,
            "click",
            args.clone(),
            false,
            &[&format!("click {target} (rung: {rung})")],
        )
        .await;
        let out = &r["structuredContent"];
        assert_eq!(out["rung"], rung, "{args}: {r}");
        assert_eq!(out["verified"], true, "{args}: {r}");
        assert_eq!(app_value(&server, app, identifier), after, "{args}");
    }
}

#[tokio::test]
async fn click_stubborn_reports_the_pointer_rung_and_the_status_change() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let r = check(
        &mut c,
        "click",
        json!({"app": "Form", "target": "window[0]/button[\"Stubborn\"]"}),
        false,
        &[
            "(rung: pointer)",
            "~ [static_text] \"Status\" window[0]/static_text[0] value: \"Ready\" → \"Stubborn clicked\"",
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["rung"], "pointer");
    assert_eq!(
        change_fields(&r, "window[0]/static_text[0]"),
        ["value: Ready → Stubborn clicked"]
    );
    assert_eq!(
        app_value(&server, "Form", "status"),
        text("Stubborn clicked")
    );
}

#[tokio::test]
async fn click_failures_name_the_rungs_tried_and_the_fix() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        // The semantic press alone has no effect on Stubborn.
        (
            json!({"app": "Form", "target": "window[0]/button[\"Stubborn\"]", "strategy": "action"}),
            vec![
                "button \"Stubborn\" at window[0]/button[\"Stubborn\"]",
                "no rung produced an observable effect",
                "tried press (no effect)",
            ],
        ),
        // A right click on a button without a context menu does nothing.
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "button": "right"}),
            vec![
                "no rung produced an observable effect",
                "pointer (no effect)",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "button": "right", "strategy": "action"}),
            vec!["right and double clicks need the pointer"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "count": 2, "strategy": "action"}),
            vec!["right and double clicks need the pointer"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "count": 3}),
            vec!["invalid argument `count`: 1 or 2"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "button": "middle"}),
            vec!["invalid argument `button`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Disabled Action\"]"}),
            vec!["is disabled"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "click", args, true, &needles).await;
    }
    assert_eq!(app_value(&server, "Form", "status"), text("Ready"));
}

#[tokio::test]
async fn right_click_opens_a_context_menu_through_show_menu() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let r = check(
        &mut c,
        "click",
        json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "button": "right"}),
        false,
        &["+ [menu_item] \"Red\"", "+ [menu_item] \"Blue\""],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true);
    assert!(
        r["structuredContent"]
            .get("rung")
            .is_none_or(Value::is_null),
        "show_menu is not a rung: {r}"
    );
    assert!(
        server
            .demo
            .node_by_identifier("Form", "color_menu")
            .is_some()
    );
    let popup = server.demo.node_by_identifier("Form", "color").unwrap();
    assert!(popup.states.expanded);
}

/// Settings' Proxy field sits in the Advanced panel, which is hidden while the General tab
/// shows; at its centre the screen shows General's "Launch at login" check box. Clicking the
/// hidden field must not click whatever is painted there instead.
#[tokio::test]
async fn click_on_a_control_in_a_hidden_panel_does_not_act_on_another_element() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let proxy = r#"window[0]/tab_group[0]/group["Advanced"]/text_field["Proxy"]"#;
    let panel = check(
        &mut c,
        "get_element",
        json!({"app": "Settings", "target": "window[0]/tab_group[0]/group[\"Advanced\"]"}),
        false,
        &[],
    )
    .await;
    assert_eq!(panel["structuredContent"]["visible"], false);
    let r = c
        .call("click", json!({"app": "Settings", "target": proxy}))
        .await;
    assert_eq!(
        app_value(&server, "Settings", "launch_at_login"),
        boolean(false),
        "clicking the hidden Proxy field toggled \"Launch at login\": {}",
        text_of(&r)
    );
    assert_eq!(r["isError"], true, "{r}");
}

// ---------------------------------------------------------------------------------------
// focus

#[tokio::test]
async fn focus_moves_keyboard_focus_and_is_idempotent() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let r = check(
        &mut c,
        "focus",
        json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]"}),
        false,
        &[
            "focus window[0]/text_field[\"Name\"]",
            "~ [text_field] \"Name\" window[0]/text_field[0] focused: \"false\" → \"true\"",
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["focused"], true);
    assert!(
        server
            .demo
            .node_by_identifier("Form", "name")
            .unwrap()
            .states
            .focused
    );
    // Focus moves on: the previous element loses it.
    let r = check(
        &mut c,
        "focus",
        json!({"app": "Form", "target": "window[0]/slider[0]"}),
        false,
        &["focused: \"true\" → \"false\""],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true);
    assert!(
        !server
            .demo
            .node_by_identifier("Form", "name")
            .unwrap()
            .states
            .focused
    );
    assert!(
        server
            .demo
            .node_by_identifier("Form", "volume")
            .unwrap()
            .states
            .focused
    );
    // Focusing what already has focus changes nothing: verified false, not an error.
    let r = check(
        &mut c,
        "focus",
        json!({"app": "Form", "target": "window[0]/slider[0]"}),
        false,
        &["no observable effect yet"],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], false);
    // Elements that cannot take focus, and disabled ones, are refused.
    check(
        &mut c,
        "focus",
        json!({"app": "Form", "target": "window[0]/static_text[0]"}),
        true,
        &["cannot take keyboard focus"],
    )
    .await;
    check(
        &mut c,
        "focus",
        json!({"app": "Form", "target": "window[0]/button[2]"}),
        true,
        &["is disabled"],
    )
    .await;
}
