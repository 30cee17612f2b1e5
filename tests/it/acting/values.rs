//! `set_value` (coercion, clamping, read-back, secure fields) and `select_option` in every
//! container.

use super::*;

#[tokio::test]
async fn set_value_coerces_clamps_and_reads_back() {
    let (server, mut c) = start_session().await;
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
    let (server, mut c) = start_session().await;
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Volume\"]", "value": "loud"}),
            &[
                "invalid value for slider \"Volume\" at window[0]/slider[\"Volume\"]",
                "\"loud\" is not a number",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Volume\"]", "value": true}),
            &[
                "invalid value for slider \"Volume\"",
                "a boolean is not a number",
            ],
        ),
        // Booleans are coerced only for boolean elements: "true" is no number either.
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Volume\"]", "value": "true"}),
            &["\"true\" is not a number"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/static_text[\"Status\"]", "value": "x"}),
            &["static_text \"Status\" at window[0]/static_text[\"Status\"] has no settable value"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/check_box[\"Subscribe\"]", "value": "true"}),
            &["check_box \"Subscribe\"", "has no settable value"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "value": "x"}),
            &["has no settable value"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/text_field[0]", "value": ["a"]}),
            &["invalid argument `value`", "a string, boolean or number"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/text_field[0]", "value": null}),
            &["missing `value`", "or `secret`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/text_field[0]"}),
            &["missing `value`", "or `secret`"],
        ),
    ];
    refusals(&mut c, "set_value", cases).await;
    assert_eq!(app_value(&server, "Form", "volume"), number(50.0));
    assert_eq!(app_value(&server, "Form", "status"), text("Ready"));
    assert_eq!(app_value(&server, "Form", "subscribe"), boolean(false));
}

#[tokio::test]
async fn set_value_never_echoes_a_secure_value() {
    let (server, mut c) = start_session().await;
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
    let (server, mut c) = start_session().await;
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
    let (server, mut c) = start_session().await;
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
    assert!(!has_node(&server, "Form", "color_menu"));
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
    let (_server, mut c) = start_session().await;
    let row = "window[0]/scroll_area[0]/list[0]/list_item[149]";
    let before = get_element(&mut c, "List", row, &["[list_item] \"Row 150\""]).await;
    assert_eq!(before["structuredContent"]["visible"], false);
    let after = steps(
        &mut c,
        &[
            (
                "select_option",
                json!({"app": "List", "target": "window[0]/scroll_area[0]/list[0]", "option": "Row 150"}),
                &["value: \"Selected: none\" → \"Selected: Row 150\""],
            ),
            ("get_element", json!({"app": "List", "target": row}), &[]),
        ],
    )
    .await;
    assert_eq!(after["structuredContent"]["visible"], true, "{after}");
    assert_eq!(after["structuredContent"]["selected"], true, "{after}");
}

#[tokio::test]
async fn select_option_refusals_list_the_options() {
    let (server, mut c) = start_session().await;
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": "Purple"}),
            &[
                "no element at window[0]/popup_button[\"Color\"]",
                "expected an option titled \"Purple\"",
                "0: Red, 1: Green, 2: Blue",
            ],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": 7}),
            &["an option at index 7", "2: Blue"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": -1}),
            &["invalid argument `option`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": 1.5}),
            &["invalid argument `option`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/popup_button[\"Color\"]", "option": true}),
            &["invalid argument `option`: a title or an index"],
        ),
        (
            json!({"app": "Settings", "target": "window[0]/tab_group[0]", "option": "Network"}),
            &[
                "expected an option titled \"Network\"",
                "General",
                "Advanced",
            ],
        ),
        (
            json!({"app": "List", "target": "window[0]/scroll_area[0]/list[0]", "option": "Row 201"}),
            &[
                "expected an option titled \"Row 201\"",
                "0: Row 1, 1: Row 2",
                "and 188 more",
            ],
        ),
        // A button has no items and cannot be opened.
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]", "option": "x"}),
            &["expected an option titled \"x\""],
        ),
    ];
    refusals(&mut c, "select_option", cases).await;
    assert_eq!(app_value(&server, "Form", "color"), text("Red"));
    assert_eq!(
        app_value(&server, "List", "selection"),
        text("Selected: none")
    );
    // A failed pick on a popup leaves its menu open (documented); escape closes it.
    assert!(has_node(&server, "Form", "color_menu"));
    check(
        &mut c,
        "press_key",
        json!({"app": "Form", "key": "escape"}),
        false,
        &["- [menu_item] \"Red\""],
    )
    .await;
    assert!(!has_node(&server, "Form", "color_menu"));
}

/// A value the field already holds shows no change, so the call does not wait for one: the
/// old code waited out its whole 1.5 s effect window (`VERIFY_WAIT`) every time, whatever the
/// machine's speed. The write is still made, read back and reported.
#[tokio::test]
async fn setting_the_value_a_field_already_holds_does_not_wait_for_an_effect() {
    let (server, mut c) = start_session().await;
    let args = json!({"app": "Form", "target": r#"window[0]/text_field["Name"]"#, "value": "Ada"});
    let first = c.call("set_value", args.clone()).await;
    assert_eq!(first["isError"], false, "{first}");
    let started = std::time::Instant::now();
    let again = c.call("set_value", args).await;
    let took = started.elapsed();
    assert_eq!(again["isError"], false, "{again}");
    assert_eq!(app_value(&server, "Form", "name"), text("Ada"));
    assert!(
        took < std::time::Duration::from_millis(1200),
        "an unchanged value waited {took:?} for an effect"
    );
}
