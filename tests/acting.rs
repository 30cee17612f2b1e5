//! The acting and input tool families end to end over MCP on the demo backend:
//! `perform_action`, `click` (the actuation ladder and its rungs), `focus`, `set_value`
//! (coercion, clamping, read-back, secure values), `select_option` (popups, lists, tabs,
//! radio groups), `type_text`, `press_key`, `scroll` and `drag`. Every effect is checked
//! twice: in the verified act result, and from the app's side through `server.demo`.
//! Each test that changes app state runs its own server (its own fresh demo backend).

mod support;

use axgate::ax::AxValue;
use serde_json::{Value, json};
use support::{TestServer, app_value, check, session, text_of};

/// The app-side value of the element with this identifier (secure values included).
fn text(s: &str) -> Option<AxValue> {
    Some(AxValue::Text(s.to_owned()))
}

fn number(n: f64) -> Option<AxValue> {
    Some(AxValue::Number(n))
}

fn boolean(b: bool) -> Option<AxValue> {
    Some(AxValue::Bool(b))
}

/// The `fields` of the first change to the element at `path`, as `field: before → after`.
fn change_fields(result: &Value, path: &str) -> Vec<String> {
    result["structuredContent"]["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("no changes: {result}"))
        .iter()
        .filter(|c| c["path"] == path)
        .flat_map(|c| c["fields"].as_array().cloned().unwrap_or_default())
        .map(|f| {
            format!(
                "{}: {} → {}",
                f["field"].as_str().unwrap_or_default(),
                f["before"].as_str().unwrap_or_default(),
                f["after"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// perform_action

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

// ---------------------------------------------------------------------------------------
// set_value

#[tokio::test]
async fn set_value_coerces_clamps_and_reads_back() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (target, value given, identifier, app-side value after, text the result shows)
    let cases = [
        (
            r#"window[0]/text_field["Name"]"#,
            json!("Ada Lovelace"),
            "name",
            text("Ada Lovelace"),
            "value: \"\" → \"Ada Lovelace\"",
        ),
        // A text element turns numbers and booleans into text.
        (
            r#"window[0]/text_field["Email"]"#,
            json!(42),
            "email",
            text("42"),
            "value: \"\" → \"42\"",
        ),
        (
            r#"window[0]/text_field["Email"]"#,
            json!(true),
            "email",
            text("true"),
            "value: \"42\" → \"true\"",
        ),
        // A number element parses text and clamps to its range.
        (
            r#"window[0]/slider["Volume"]"#,
            json!(150),
            "volume",
            number(100.0),
            "value: \"50\" → \"100\"",
        ),
        (
            r#"window[0]/slider["Volume"]"#,
            json!(" -5 "),
            "volume",
            number(0.0),
            "value: \"100\" → \"0\"",
        ),
        (
            r#"window[0]/slider["Volume"]"#,
            json!(33.5),
            "volume",
            number(33.5),
            "value: \"0\" → \"33.5\"",
        ),
    ];
    for (target, value, identifier, after, shown) in cases {
        let r = check(
            &mut c,
            "set_value",
            json!({"app": "Form", "target": target, "value": value}),
            false,
            &[&format!("set_value {target}"), shown],
        )
        .await;
        assert_eq!(r["structuredContent"]["verified"], true, "{r}");
        assert_eq!(
            app_value(&server, "Form", identifier),
            after,
            "{target} ← {value}"
        );
    }
    // The read-back value is in the result's element.
    let r = check(
        &mut c,
        "set_value",
        json!({"app": "Form", "target": "window[0]/slider[0]", "value": "1e3"}),
        false,
        &[],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["value"], 100.0);
    // Setting the value it already has is fine (idempotent): nothing changes.
    let r = check(
        &mut c,
        "set_value",
        json!({"app": "Form", "target": "window[0]/slider[0]", "value": 100}),
        false,
        &["no observable effect yet"],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], false);
}

#[tokio::test]
async fn set_value_refusals_name_the_problem() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Volume\"]", "value": "loud"}),
            vec![
                "invalid value for slider \"Volume\" at window[0]/slider[\"Volume\"]",
                "\"loud\" is not a number",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Volume\"]", "value": true}),
            vec![
                "invalid value for slider \"Volume\"",
                "a boolean is not a number",
            ],
        ),
        // Booleans are coerced only for boolean elements: "true" is no number either.
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Volume\"]", "value": "true"}),
            vec!["\"true\" is not a number"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/static_text[\"Status\"]", "value": "x"}),
            vec![
                "static_text \"Status\" at window[0]/static_text[\"Status\"] has no settable value",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/check_box[\"Subscribe\"]", "value": "true"}),
            vec!["check_box \"Subscribe\"", "has no settable value"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "value": "x"}),
            vec!["has no settable value"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/text_field[0]", "value": ["a"]}),
            vec!["invalid argument `value`", "a string, boolean or number"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/text_field[0]", "value": null}),
            vec!["invalid argument `value`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/text_field[0]"}),
            vec!["missing field `value`"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "set_value", args, true, &needles).await;
    }
    assert_eq!(app_value(&server, "Form", "volume"), number(50.0));
    assert_eq!(app_value(&server, "Form", "status"), text("Ready"));
    assert_eq!(app_value(&server, "Form", "subscribe"), boolean(false));
}

#[tokio::test]
async fn set_value_never_echoes_a_secure_value() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let secret = "correct-horse-battery";
    // Whatever set_value makes of the read-back (see the next test), its result never
    // holds the value.
    let r = c
        .call(
            "set_value",
            json!({"app": "Form", "target": "window[0]/secure_text_field[\"Password\"]", "value": secret}),
        )
        .await;
    let whole = r.to_string();
    assert!(!whole.contains(secret), "the secret leaked: {whole}");
    assert!(text_of(&r).contains("•••"), "{r}");
    // The app did take it.
    assert_eq!(app_value(&server, "Form", "password"), text(secret));
    // Nor does any reading tool show it.
    for (tool, args) in [
        ("get_tree", json!({"app": "Form"})),
        (
            "get_element",
            json!({"app": "Form", "target": "window[0]/secure_text_field[0]"}),
        ),
        ("get_focused", json!({"app": "Form"})),
        ("find", json!({"app": "Form", "role": "secure_text_field"})),
        ("find", json!({"app": "Form", "text": "horse"})),
        ("diff", json!({"app": "Form"})),
        (
            "assert",
            json!({"app": "Form", "target": "window[0]/secure_text_field[0]", "value": "•••"}),
        ),
    ] {
        let r = check(&mut c, tool, args.clone(), false, &[]).await;
        assert!(
            !r.to_string().contains(secret),
            "{tool} {args} leaked it: {r}"
        );
        assert!(
            !r.to_string().contains("horse-battery"),
            "{tool} {args}: {r}"
        );
    }
}

/// The app takes the value (checked from its side), but the read-back cannot see a secure
/// value, so set_value always reports "did not take the value: expected •••, it reads •••".
#[tokio::test]
async fn set_value_on_a_secure_field_succeeds_when_the_app_took_the_value() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let r = c
        .call(
            "set_value",
            json!({"app": "Form", "target": "window[0]/secure_text_field[\"Password\"]", "value": "s3cret"}),
        )
        .await;
    assert_eq!(app_value(&server, "Form", "password"), text("s3cret"));
    assert_eq!(r["isError"], false, "{}", text_of(&r));
    let element = &r["structuredContent"]["element"];
    assert_eq!(element["secure"], true);
    assert!(element.get("value").is_none(), "{element}");
}

// ---------------------------------------------------------------------------------------
// select_option

#[tokio::test]
async fn select_option_picks_by_title_and_index_in_every_container() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (app, container, option, identifier whose app-side value follows, its value after)
    let cases = [
        (
            "Form",
            r#"window[0]/popup_button["Color"]"#,
            json!("Blue"),
            "color",
            text("Blue"),
        ),
        (
            "Form",
            r#"window[0]/popup_button["Color"]"#,
            json!(1),
            "color",
            text("Green"),
        ),
        // Titles ignore case and surrounding space.
        (
            "Form",
            r#"window[0]/popup_button["Color"]"#,
            json!("  red "),
            "color",
            text("Red"),
        ),
        (
            "List",
            "window[0]/scroll_area[0]/list[0]",
            json!("Row 12"),
            "selection",
            text("Selected: Row 12"),
        ),
        (
            "List",
            "window[0]/scroll_area[0]/list[0]",
            json!(0),
            "selection",
            text("Selected: Row 1"),
        ),
        (
            "Settings",
            "window[0]/tab_group[0]",
            json!("Advanced"),
            "tab_advanced",
            boolean(true),
        ),
        (
            "Settings",
            "window[0]/tab_group[0]",
            json!("General"),
            "tab_general",
            boolean(true),
        ),
        (
            "Settings",
            r#"window[0]/tab_group[0]/group["General"]/radio_group["Theme"]"#,
            json!(1),
            "theme_dark",
            boolean(true),
        ),
        (
            "Settings",
            r#"window[0]/tab_group[0]/group["General"]/radio_group["Theme"]"#,
            json!("Auto"),
            "theme_auto",
            boolean(true),
        ),
    ];
    for (app, target, option, identifier, after) in cases {
        let r = check(
            &mut c,
            "select_option",
            json!({"app": app, "target": target, "option": option}),
            false,
            &[&format!("select_option {target}")],
        )
        .await;
        assert_eq!(
            r["structuredContent"]["verified"], true,
            "{target} {option}: {r}"
        );
        assert_eq!(
            app_value(&server, app, identifier),
            after,
            "{target} {option}"
        );
    }
    // The popup's menu closed again after each pick.
    assert!(
        server
            .demo
            .node_by_identifier("Form", "color_menu")
            .is_none()
    );
    // A radio pick deselects its siblings; a tab pick swaps the panels.
    assert_eq!(app_value(&server, "Settings", "theme_dark"), boolean(false));
    assert_eq!(
        app_value(&server, "Settings", "theme_light"),
        boolean(false)
    );
    let advanced = server
        .demo
        .node_by_identifier("Settings", "advanced_panel")
        .unwrap();
    assert!(!advanced.states.visible);
}

#[tokio::test]
async fn select_option_in_a_long_list_scrolls_the_row_into_view() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let row = "window[0]/scroll_area[0]/list[0]/list_item[149]";
    let before = check(
        &mut c,
        "get_element",
        json!({"app": "List", "target": row}),
        false,
        &["[list_item] \"Row 150\""],
    )
    .await;
    assert_eq!(before["structuredContent"]["visible"], false);
    check(
        &mut c,
        "select_option",
        json!({"app": "List", "target": "window[0]/scroll_area[0]/list[0]", "option": "Row 150"}),
        false,
        &["value: \"Selected: none\" → \"Selected: Row 150\""],
    )
    .await;
    let after = check(
        &mut c,
        "get_element",
        json!({"app": "List", "target": row}),
        false,
        &[],
    )
    .await;
    assert_eq!(after["structuredContent"]["visible"], true, "{after}");
    assert_eq!(after["structuredContent"]["selected"], true, "{after}");
}

#[tokio::test]
async fn select_option_refusals_list_the_options() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": "Purple"}),
            vec![
                "no element at window[0]/popup_button[\"Color\"]",
                "expected an option titled \"Purple\"",
                "0: Red, 1: Green, 2: Blue",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": 7}),
            vec!["an option at index 7", "2: Blue"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": -1}),
            vec!["invalid argument `option`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": 1.5}),
            vec!["invalid argument `option`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": true}),
            vec!["invalid argument `option`: a title or an index"],
        ),
        (
            json!({"app": "Settings", "target": "window[0]/tab_group[0]", "option": "Network"}),
            vec![
                "expected an option titled \"Network\"",
                "General",
                "Advanced",
            ],
        ),
        (
            json!({"app": "List", "target": "window[0]/scroll_area[0]/list[0]", "option": "Row 201"}),
            vec![
                "expected an option titled \"Row 201\"",
                "0: Row 1, 1: Row 2",
                "and 188 more",
            ],
        ),
        // A button has no items and cannot be opened.
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "option": "x"}),
            vec!["expected an option titled \"x\""],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "select_option", args, true, &needles).await;
    }
    assert_eq!(app_value(&server, "Form", "color"), text("Red"));
    assert_eq!(
        app_value(&server, "List", "selection"),
        text("Selected: none")
    );
    // A failed pick on a popup leaves its menu open (documented); escape closes it.
    assert!(
        server
            .demo
            .node_by_identifier("Form", "color_menu")
            .is_some()
    );
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "escape"}),
        false,
        &["- [menu_item] \"Red\""],
    )
    .await;
    assert!(
        server
            .demo
            .node_by_identifier("Form", "color_menu")
            .is_none()
    );
}

// ---------------------------------------------------------------------------------------
// type_text

#[tokio::test]
async fn type_text_types_into_fields_and_clears_first() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (target, text, clear_first, app-side value of `name` after)
    let cases = [
        (Some(r#"window[0]/text_field["Name"]"#), "Ada", false, "Ada"),
        // Without a target the keys go to the focused element (Name, focused above).
        (None, " Lovelace", false, "Ada Lovelace"),
        (
            Some(r#"window[0]/text_field["Name"]"#),
            "Grace",
            true,
            "Grace",
        ),
        (Some("window[0]/text_field[0]"), "", true, ""),
    ];
    for (target, typed, clear_first, after) in cases {
        let mut args = json!({"app": "Form", "text": typed, "clear_first": clear_first});
        if let Some(t) = target {
            args["target"] = json!(t);
        }
        let r = check(&mut c, "type_text", args.clone(), false, &["type_text "]).await;
        assert_eq!(
            r["structuredContent"]["element"]["path"],
            target.unwrap_or("window[0]/text_field[0]"),
            "{args}: {r}"
        );
        assert_eq!(app_value(&server, "Form", "name"), text(after), "{args}");
    }
    // Typing shows as a value change of the field.
    check(
        &mut c,
        "type_text",
        json!({"app": "Form", "target": "window[0]/text_field[\"Email\"]", "text": "ada@example.com"}),
        false,
        &["~ [text_field] \"Email\" window[0]/text_field[1] value: \"\" → \"ada@example.com\""],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "email"), text("ada@example.com"));
    // A newline presses Return: the default button submits with the typed name.
    check(
        &mut c,
        "type_text",
        json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "text": "Linus\n"}),
        false,
        &[],
    )
    .await;
    assert_eq!(
        app_value(&server, "Form", "status"),
        text("Submitted: Linus")
    );
}

#[tokio::test]
async fn type_text_never_echoes_what_it_typed_into_a_secure_field() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let secret = "hunter2-swordfish";
    let r = check(
        &mut c,
        "type_text",
        json!({"app": "Form", "target": "window[0]/secure_text_field[\"Password\"]", "text": secret}),
        false,
        &["type_text window[0]/secure_text_field[\"Password\"]"],
    )
    .await;
    let whole = r.to_string();
    assert!(!whole.contains(secret), "the typed secret leaked: {whole}");
    assert!(
        !whole.contains("hunter2"),
        "part of the secret leaked: {whole}"
    );
    assert_eq!(app_value(&server, "Form", "password"), text(secret));
    // Typing more (into the focused secure field, no target) still never shows it.
    let r = check(
        &mut c,
        "type_text",
        json!({"app": "Form", "text": "-more"}),
        false,
        &[],
    )
    .await;
    assert!(!r.to_string().contains("swordfish"), "{r}");
    assert_eq!(
        app_value(&server, "Form", "password"),
        text(&format!("{secret}-more"))
    );
}

#[tokio::test]
async fn type_text_refusals() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        // Only the window has focus: there is no text field to type into.
        (
            json!({"app": "Form", "text": "x"}),
            vec!["focus a text field first"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[2]", "text": "x"}),
            vec!["is disabled"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/text_field[0]"}),
            vec!["missing field `text`"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "type_text", args, true, &needles).await;
    }
    assert_eq!(app_value(&server, "Form", "name"), text(""));
}

// ---------------------------------------------------------------------------------------
// press_key

#[tokio::test]
async fn press_key_moves_focus_submits_and_edits() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let focused = |server: &TestServer, id: &str| {
        server
            .demo
            .node_by_identifier("Form", id)
            .unwrap()
            .states
            .focused
    };
    // Tab moves focus along the window's controls, shift+tab back.
    check(
        &mut c,
        "focus",
        json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]"}),
        false,
        &[],
    )
    .await;
    let r = check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "tab"}),
        false,
        &[
            "press_key window[0]/text_field[0]",
            "~ [text_field] \"Email\" window[0]/text_field[1] focused: \"false\" → \"true\"",
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true);
    assert!(focused(&server, "email") && !focused(&server, "name"));
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "tab", "modifiers": ["shift"]}),
        false,
        &[],
    )
    .await;
    assert!(focused(&server, "name"));
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "shift+tab"}),
        false,
        &[],
    )
    .await;
    assert!(
        focused(&server, "stubborn"),
        "shift+tab wraps to the last control"
    );
    // Return presses the default button (Submit), which reads the name.
    check(
        &mut c,
        "set_value",
        json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": "Ada"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "return", "target": "window[0]/text_field[\"Name\"]"}),
        false,
        &["value: \"Ready\" → \"Submitted: Ada\""],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "status"), text("Submitted: Ada"));
    // cmd+a selects everything, so typing replaces it.
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "cmd+a", "target": "window[0]/text_field[\"Name\"]"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "type_text",
        json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "text": "Grace"}),
        false,
        &["value: \"Ada\" → \"Grace\""],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "name"), text("Grace"));
    // The same with the modifier given separately, then backspace empties the field.
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "a", "modifiers": ["command"]}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "backspace"}),
        false,
        &["value: \"Grace\" → \"\""],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "name"), text(""));
    // Arrow keys step a focused slider.
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "up", "target": "window[0]/slider[0]"}),
        false,
        &["value: \"50\" → \"60\""],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "volume"), number(60.0));
}

#[tokio::test]
async fn press_key_runs_menu_shortcuts() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // cmd+s is File > Save in Editor.
    check(
        &mut c,
        "press_key",
        json!({"app": "Editor", "key": "cmd+s"}),
        false,
        &["~ [window] \"Saved\" window[0] title: \"Untitled\" → \"Saved\""],
    )
    .await;
    let window = server
        .demo
        .node_by_identifier("Editor", "document_window")
        .unwrap();
    assert_eq!(window.title.as_deref(), Some("Saved"));
    // cmd+shift+s opens Save As…, escape cancels it.
    check(
        &mut c,
        "press_key",
        json!({"app": "Editor", "key": "s", "modifiers": ["cmd", "shift"]}),
        false,
        &["+ [dialog] \"Save As\" dialog[0]"],
    )
    .await;
    check(
        &mut c,
        "press_key",
        json!({"app": "Editor", "key": "esc"}),
        false,
        &["- [dialog] \"Save As\" dialog[0]"],
    )
    .await;
    assert!(
        server
            .demo
            .node_by_identifier("Editor", "save_dialog")
            .is_none()
    );
}

#[tokio::test]
async fn press_key_refuses_bad_keys() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "key": "hyperspace"}),
            vec!["invalid argument `key`"],
        ),
        (
            json!({"app": "Form", "key": "hyper+a"}),
            vec![
                "invalid argument `key`",
                "unknown modifier \"hyper\"",
                "cmd, ctrl, opt or shift",
            ],
        ),
        (
            json!({"app": "Form", "key": "a", "modifiers": ["meta", "turbo"]}),
            vec!["invalid argument `key`", "turbo"],
        ),
        (
            json!({"app": "Form", "key": ""}),
            vec!["invalid argument `key`"],
        ),
        (
            json!({"app": "Form", "key": "f21"}),
            vec!["invalid argument `key`"],
        ),
        (json!({"app": "Form"}), vec!["missing field `key`"]),
    ];
    for (args, needles) in cases {
        check(&mut c, "press_key", args, true, &needles).await;
    }
}

// ---------------------------------------------------------------------------------------
// scroll and drag

#[tokio::test]
async fn scroll_brings_later_rows_into_view_and_back() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let visible = |r: &Value| r["structuredContent"]["visible"].as_bool().unwrap();
    let row = |i: usize| format!("window[0]/scroll_area[0]/list[0]/list_item[{i}]");
    // Ten rows show at first.
    for (i, shown) in [(0, true), (9, true), (10, false), (14, false)] {
        let r = check(
            &mut c,
            "get_element",
            json!({"app": "List", "target": row(i)}),
            false,
            &[&format!("\"Row {}\"", i + 1)],
        )
        .await;
        assert_eq!(visible(&r), shown, "Row {} before scrolling", i + 1);
    }
    let r = check(
        &mut c,
        "scroll",
        json!({"app": "List", "target": "window[0]/scroll_area[0]", "direction": "down", "amount": 5}),
        false,
        &[
            "scroll window[0]/scroll_area[0]",
            "~ [list_item] \"Row 1\" window[0]/scroll_area[0]/list[0]/list_item[0] visible: \"true\" → \"false\"",
            "~ [list_item] \"Row 15\" window[0]/scroll_area[0]/list[0]/list_item[14] visible: \"false\" → \"true\"",
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true);
    for (i, shown) in [(0, false), (4, false), (5, true), (14, true), (15, false)] {
        let r = check(
            &mut c,
            "get_element",
            json!({"app": "List", "target": row(i)}),
            false,
            &[],
        )
        .await;
        assert_eq!(visible(&r), shown, "Row {} after scrolling down 5", i + 1);
    }
    // Scrolling from inside the area (a row) scrolls the area; up brings Row 1 back.
    check(
        &mut c,
        "scroll",
        json!({"app": "List", "target": row(7), "direction": "up", "amount": 100}),
        false,
        &["\"Row 1\"", "visible: \"false\" → \"true\""],
    )
    .await;
    let r = check(
        &mut c,
        "get_element",
        json!({"app": "List", "target": row(0)}),
        false,
        &[],
    )
    .await;
    assert!(visible(&r));
    // Something that cannot scroll: not an error, just no effect.
    let r = check(
        &mut c,
        "scroll",
        json!({"app": "Form", "target": "window[0]/text_field[0]", "direction": "down"}),
        false,
        &["no observable effect yet"],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], false);
    check(
        &mut c,
        "scroll",
        json!({"app": "List", "target": "window[0]/scroll_area[0]", "direction": "sideways"}),
        true,
        &["invalid argument `direction`"],
    )
    .await;
}

#[tokio::test]
async fn drag_moves_the_slider_thumb() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // The Volume track spans x 60..360: a quarter of the way is x = 135.
    let cases = [(135.0, 25.0), (360.0, 100.0), (0.0, 0.0), (210.0, 50.0)];
    for (x, after) in cases {
        let r = check(
            &mut c,
            "drag",
            json!({"app": "Form", "from": "window[0]/slider[\"Volume\"]", "to_x": x, "to_y": 244}),
            false,
            &["drag window[0]/slider[\"Volume\"]"],
        )
        .await;
        assert_eq!(r["structuredContent"]["element"]["value"], after, "{r}");
        assert_eq!(
            app_value(&server, "Form", "volume"),
            number(after),
            "to x={x}"
        );
    }
    // Dropping onto an element drops at its centre (Clear's centre is x = 205).
    let r = check(
        &mut c,
        "drag",
        json!({"app": "Form", "from": "window[0]/slider[0]", "to": "window[0]/button[\"Clear\"]"}),
        false,
        &[],
    )
    .await;
    let v = r["structuredContent"]["element"]["value"].as_f64().unwrap();
    assert!((v - 145.0 / 3.0).abs() < 1e-6, "{v}");
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "from": "window[0]/slider[0]"}),
            vec!["give either `to` (an element) or both `to_x` and `to_y`"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[0]", "to_x": 1}),
            vec!["give either `to`"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[0]", "to": "window[0]/button[0]", "to_x": 1, "to_y": 2}),
            vec!["give either `to`"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[0]", "to": "window[0]/button[\"Disabled Action\"]"}),
            vec!["is disabled"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[9]", "to_x": 1, "to_y": 2}),
            vec!["no element at window[0]/slider[9]", "slider[0] \"Volume\""],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "drag", args, true, &needles).await;
    }
}
