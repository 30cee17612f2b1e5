//! Synthetic input: `type_text`, `press_key`, `scroll` and `drag`.

use super::*;

#[tokio::test]
async fn type_text_types_into_fields_and_clears_first() {
    let (server, mut c) = start_session().await;
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
    let (server, mut c) = start_session().await;
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
    let (server, mut c) = start_session().await;
    refusals(
        &mut c,
        "type_text",
        &[
            // Only the window has focus: there is no text field to type into.
            (
                json!({"app": "Form", "text": "x"}),
                &["focus a text field first"],
            ),
            (
                json!({"app": "Form", "target": "window[0]/button[2]", "text": "x"}),
                &["is disabled"],
            ),
            (
                json!({"app": "Form", "target": "window[0]/text_field[0]"}),
                &["missing `text`", "or `secret`"],
            ),
        ],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "name"), text(""));
}

// ---------------------------------------------------------------------------------------
// press_key

#[tokio::test]
async fn press_key_moves_focus_submits_and_edits() {
    let (server, mut c) = start_session().await;
    let name = r#"window[0]/text_field["Name"]"#;
    let key = |key: &str| json!({"app": "Form", "key": key});
    // Tab moves focus along the window's controls, shift+tab back.
    let r = steps(
        &mut c,
        &[
            ("focus", json!({"app": "Form", "target": name}), &[]),
            (
                "press_key",
                key("tab"),
                &[
                    "press_key window[0]/text_field[0]",
                    "~ [text_field] \"Email\" window[0]/text_field[1] focused: \"false\" → \"true\"",
                ],
            ),
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true);
    assert!(is_focused(&server, "Form", "email") && !is_focused(&server, "Form", "name"));
    let shift_tab = json!({"app": "Form", "key": "tab", "modifiers": ["shift"]});
    steps(&mut c, &[("press_key", shift_tab, &[])]).await;
    assert!(is_focused(&server, "Form", "name"));
    steps(&mut c, &[("press_key", key("shift+tab"), &[])]).await;
    assert!(
        is_focused(&server, "Form", "stubborn"),
        "shift+tab wraps to the last control"
    );
    // Return presses the default button (Submit), which reads the name.
    steps(
        &mut c,
        &[
            (
                "set_value",
                json!({"app": "Form", "target": name, "value": "Ada"}),
                &[],
            ),
            (
                "press_key",
                json!({"app": "Form", "key": "return", "target": name}),
                &["value: \"Ready\" → \"Submitted: Ada\""],
            ),
        ],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "status"), text("Submitted: Ada"));
    // cmd+a selects everything, so typing replaces it.
    steps(
        &mut c,
        &[
            (
                "press_key",
                json!({"app": "Form", "key": "cmd+a", "target": name}),
                &[],
            ),
            (
                "type_text",
                json!({"app": "Form", "target": name, "text": "Grace"}),
                &["value: \"Ada\" → \"Grace\""],
            ),
        ],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "name"), text("Grace"));
    // The same with the modifier given separately, then backspace empties the field.
    let cmd_a = json!({"app": "Form", "key": "a", "modifiers": ["command"]});
    steps(
        &mut c,
        &[
            ("press_key", cmd_a, &[]),
            ("press_key", key("backspace"), &["value: \"Grace\" → \"\""]),
        ],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "name"), text(""));
    // Arrow keys step a focused slider.
    steps(
        &mut c,
        &[(
            "press_key",
            json!({"app": "Form", "key": "up", "target": "window[0]/slider[0]"}),
            &["value: \"50\" → \"60\""],
        )],
    )
    .await;
    assert_eq!(app_value(&server, "Form", "volume"), number(60.0));
}

#[tokio::test]
async fn press_key_runs_menu_shortcuts() {
    let (server, mut c) = start_session().await;
    // cmd+s is File > Save in Editor.
    steps(
        &mut c,
        &[(
            "press_key",
            json!({"app": "Editor", "key": "cmd+s"}),
            &["~ [window] \"Saved\" window[0] name: \"Untitled\" → \"Saved\""],
        )],
    )
    .await;
    let window = server
        .demo
        .node_by_identifier("Editor", "document_window")
        .unwrap();
    assert_eq!(window.title.as_deref(), Some("Saved"));
    // cmd+shift+s opens Save As…, escape cancels it.
    steps(
        &mut c,
        &[
            (
                "press_key",
                json!({"app": "Editor", "key": "s", "modifiers": ["cmd", "shift"]}),
                &["+ [dialog] \"Save As\" dialog[0]"],
            ),
            (
                "press_key",
                json!({"app": "Editor", "key": "esc"}),
                &["- [dialog] \"Save As\" dialog[0]"],
            ),
        ],
    )
    .await;
    assert!(!has_node(&server, "Editor", "save_dialog"));
}

#[tokio::test]
async fn press_key_refuses_bad_keys() {
    let (_server, mut c) = start_session().await;
    let bad_key = ["invalid argument `key`"];
    refusals(
        &mut c,
        "press_key",
        &[
            (json!({"app": "Form", "key": "hyperspace"}), &bad_key),
            (
                json!({"app": "Form", "key": "hyper+a"}),
                &[
                    "invalid argument `key`",
                    "unknown modifier \"hyper\"",
                    "cmd, ctrl, opt or shift",
                ],
            ),
            (
                json!({"app": "Form", "key": "a", "modifiers": ["meta", "turbo"]}),
                &["invalid argument `key`", "turbo"],
            ),
            (json!({"app": "Form", "key": ""}), &bad_key),
            (json!({"app": "Form", "key": "f21"}), &bad_key),
            (json!({"app": "Form"}), &["missing field `key`"]),
        ],
    )
    .await;
}

// ---------------------------------------------------------------------------------------
// scroll and drag

#[tokio::test]
async fn scroll_brings_later_rows_into_view_and_back() {
    let (_server, mut c) = start_session().await;
    let visible = |r: &Value| r["structuredContent"]["visible"].as_bool().unwrap();
    let row = |i: usize| format!("window[0]/scroll_area[0]/list[0]/list_item[{i}]");
    // Ten rows show at first.
    for (i, shown) in [(0, true), (9, true), (10, false), (14, false)] {
        let r = get_element(&mut c, "List", &row(i), &[&format!("\"Row {}\"", i + 1)]).await;
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
        let r = get_element(&mut c, "List", &row(i), &[]).await;
        assert_eq!(visible(&r), shown, "Row {} after scrolling down 5", i + 1);
    }
    // Scrolling from inside the area (a row) scrolls the area; up brings Row 1 back.
    let r = steps(
        &mut c,
        &[
            (
                "scroll",
                json!({"app": "List", "target": row(7), "direction": "up", "amount": 100}),
                &["\"Row 1\"", "visible: \"false\" → \"true\""],
            ),
            ("get_element", json!({"app": "List", "target": row(0)}), &[]),
        ],
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

/// An act whose effect the picture cannot show returns once the app has gone quiet, not at the
/// end of its 1.5 s effect window (`VERIFY_WAIT`), which it used to wait out every time (typing
/// into a password field took 1,509 ms); it says it is unverified, and the effect is real.
#[tokio::test]
async fn an_act_with_no_visible_effect_returns_when_the_app_is_quiet() {
    let (server, mut c) = start_session().await;
    let password = json!({"app": "Form", "target": "window[0]/secure_text_field[\"Password\"]", "text": "s3cret"});
    let nothing = json!({"app": "Form", "target": "window[0]/text_field[0]", "direction": "down"});
    for (tool, args) in [("type_text", password), ("scroll", nothing)] {
        let started = std::time::Instant::now();
        let r = c.call(tool, args).await;
        let took = started.elapsed();
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(r["structuredContent"]["verified"], false, "{tool}: {r}");
        assert!(
            took < std::time::Duration::from_millis(1200),
            "{tool} waited {took:?} for an effect it could not see"
        );
    }
    assert_eq!(app_value(&server, "Form", "password"), text("s3cret"));
}

#[tokio::test]
async fn drag_moves_the_slider_thumb() {
    let (server, mut c) = start_session().await;
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
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "from": "window[0]/slider[0]"}),
            &["give either `to` (an element) or both `to_x` and `to_y`"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[0]", "to_x": 1}),
            &["give either `to`"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[0]", "to": "window[0]/button[0]", "to_x": 1, "to_y": 2}),
            &["give either `to`"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[0]", "to": "window[0]/button[\"Disabled Action\"]"}),
            &["is disabled"],
        ),
        (
            json!({"app": "Form", "from": "window[0]/slider[9]", "to_x": 1, "to_y": 2}),
            &["no element at window[0]/slider[9]", "slider[0] \"Volume\""],
        ),
    ];
    refusals(&mut c, "drag", cases).await;
}
