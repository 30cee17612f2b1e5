//! Acting on elements: `perform_action` semantic actions, `click` and its actuation ladder,
//! right-click, and `focus`.

use super::*;

#[tokio::test]
async fn perform_action_runs_each_semantic_action_and_the_app_sees_it() {
    let (server, mut c) = start_session().await;
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
    assert!(has_node(&server, "Form", "color_green"));
}

#[tokio::test]
async fn perform_action_refuses_what_the_element_cannot_do() {
    let (server, mut c) = start_session().await;
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "action": "increment"}),
            &[
                "button \"Submit\" at window[0]/button[\"Submit\"] does not support \"increment\"",
                "it supports: press",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Disabled Action\"]", "action": "press"}),
            &["button \"Disabled Action\"", "is disabled", "wait_for"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Missing\"]", "action": "press"}),
            &[
                "no element at window[0]/button[\"Missing\"]",
                "button[3] \"Stubborn\"",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/buton[0]", "action": "press"}),
            &["invalid argument `target`", "unknown role \"buton\""],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[0]"}),
            &["missing field `action`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[0]", "action": "press", "force": true}),
            &["unknown field `force`"],
        ),
    ];
    refusals(&mut c, "perform_action", cases).await;
    // Nothing happened on the app's side.
    assert_eq!(app_value(&server, "Form", "status"), text("Ready"));
}

// ---------------------------------------------------------------------------------------
// click

#[tokio::test]
async fn click_climbs_the_ladder_and_reports_the_rung() {
    let (server, mut c) = start_session().await;
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
        // Stubborn accepts the semantic press and ignores it: with the fallback asked, the
        // ladder climbs to the pointer.
        (
            "Form",
            r#"window[0]/button["Stubborn"]"#,
            json!({"fallback": true}),
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
    let (server, mut c) = start_session().await;
    let r = check(
        &mut c,
        "click",
        json!({"app": "Form", "target": "window[0]/button[\"Stubborn\"]", "fallback": true}),
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
    let (server, mut c) = start_session().await;
    let no_effect = "no rung produced an observable effect";
    // Without require_effect, these clicks are ok and unverified (`once.rs`).
    let need_pointer: &[&str] = &["right and double clicks need the pointer"];
    let cases: &[(Value, &[&str])] = &[
        // The semantic press alone has no effect on Stubborn.
        (
            json!({"app": "Form", "target": "window[0]/button[\"Stubborn\"]", "strategy": "action", "require_effect": true}),
            &[
                "button \"Stubborn\" at window[0]/button[\"Stubborn\"]",
                no_effect,
                "tried press (no effect)",
            ],
        ),
        // A right click on a button without a context menu does nothing.
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "button": "right", "require_effect": true}),
            &[no_effect, "pointer (no effect)", "require_effect"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "button": "right", "strategy": "action"}),
            need_pointer,
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "count": 2, "strategy": "action"}),
            need_pointer,
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "count": 3}),
            &["invalid argument `count`: 1 or 2"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "button": "middle"}),
            &["invalid argument `button`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Disabled Action\"]"}),
            &["is disabled"],
        ),
    ];
    refusals(&mut c, "click", cases).await;
    assert_eq!(app_value(&server, "Form", "status"), text("Ready"));
}

#[tokio::test]
async fn right_click_opens_a_context_menu_through_show_menu() {
    let (server, mut c) = start_session().await;
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
    assert!(has_node(&server, "Form", "color_menu"));
    let popup = server.demo.node_by_identifier("Form", "color").unwrap();
    assert!(popup.states.expanded);
}

/// Settings' Proxy field sits in the Advanced panel, which is hidden while the General tab
/// shows; at its centre the screen shows General's "Launch at login" check box. Clicking the
/// hidden field must not click whatever is painted there instead.
#[tokio::test]
async fn click_on_a_control_in_a_hidden_panel_does_not_act_on_another_element() {
    let (server, mut c) = start_session().await;
    let panel = r#"window[0]/tab_group[0]/group["Advanced"]"#;
    let proxy = format!(r#"{panel}/text_field["Proxy"]"#);
    let hidden = get_element(&mut c, "Settings", panel, &[]).await;
    assert_eq!(
        hidden["structuredContent"]["visible"], false,
        "the panel is hidden"
    );
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
    let (server, mut c) = start_session().await;
    let focus = |target: &str| json!({"app": "Form", "target": target});
    let r = steps(
        &mut c,
        &[(
            "focus",
            focus(r#"window[0]/text_field["Name"]"#),
            &[
                "focus window[0]/text_field[\"Name\"]",
                "~ [text_field] \"Name\" window[0]/text_field[0] focused: \"false\" → \"true\"",
            ],
        )],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["focused"], true);
    assert!(is_focused(&server, "Form", "name"));
    // Focus moves on: the previous element loses it.
    let slider = "window[0]/slider[0]";
    let r = steps(
        &mut c,
        &[("focus", focus(slider), &["focused: \"true\" → \"false\""])],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true);
    assert!(!is_focused(&server, "Form", "name"));
    assert!(is_focused(&server, "Form", "volume"));
    // Focusing what already has focus changes nothing: verified false, not an error.
    let r = steps(
        &mut c,
        &[("focus", focus(slider), &["no observable effect yet"])],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], false);
    // Elements that cannot take focus, and disabled ones, are refused.
    refusals(
        &mut c,
        "focus",
        &[
            (
                focus("window[0]/static_text[0]"),
                &["cannot take keyboard focus"],
            ),
            (focus("window[0]/button[2]"), &["is disabled"]),
        ],
    )
    .await;
}
