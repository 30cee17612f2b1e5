//! `get_element`, `get_focused` and `element_at`.

use super::*;

#[tokio::test]
async fn get_element_reports_attributes_and_what_is_settable() {
    let (_server, mut c) = start_session().await;
    // (target, role, native role, settable, text needles)
    let cases: Vec<ElementCase> = vec![
        (
            r#"window[0]/slider["Volume"]"#,
            "slider",
            "AXSlider",
            vec!["value", "focused"],
            vec!["[slider] \"Volume\" = \"50\"", "settable: value, focused"],
        ),
        (
            r#"window[0]/text_field["Name"]"#,
            "text_field",
            "AXTextField",
            vec!["value", "focused"],
            vec!["path: window[0]/text_field[\"Name\"]"],
        ),
        (
            r#"window[0]/secure_text_field[0]"#,
            "secure_text_field",
            "AXTextField",
            vec!["value", "focused"],
            vec!["= •••", "native role: AXTextField (AXSecureTextField)"],
        ),
        (
            r#"window[0]/check_box[0]"#,
            "check_box",
            "AXCheckBox",
            vec!["focused"],
            vec!["settable: focused"],
        ),
        (
            r#"window[0]/button["Submit"]"#,
            "button",
            "AXButton",
            vec!["focused"],
            vec!["press"],
        ),
        (
            r#"window[0]/static_text[0]"#,
            "static_text",
            "AXStaticText",
            vec![],
            vec!["settable: nothing"],
        ),
        (
            "window[0]",
            "window",
            "AXWindow",
            vec![],
            vec!["(AXStandardWindow)", "focused raise"],
        ),
        (
            "",
            "application",
            "AXApplication",
            vec![],
            vec!["[application] \"Form\""],
        ),
    ];
    for (target, role, native, settable, needles) in cases {
        let r = get_element(&mut c, "Form", target, &needles).await;
        let out = &r["structuredContent"];
        assert_eq!(out["element"]["role"], role, "{target}");
        assert_eq!(out["element"]["native_role"], native, "{target}");
        assert_eq!(out["element"]["path"], target, "{target}");
        assert_eq!(out["settable"], json!(settable), "{target}");
        assert_eq!(out["visible"], true, "{target}");
    }
    let slider = get_element(&mut c, "Form", "window[0]/slider[0]", &[]).await;
    let out = &slider["structuredContent"];
    assert_eq!(out["min_value"], 0.0);
    assert_eq!(out["max_value"], 100.0);
    assert_eq!(out["element"]["value"], 50.0);
    assert_eq!(out["element"]["identifier"], "volume");
    assert_eq!(
        out["element"]["frame"],
        json!({"x": 60.0, "y": 232.0, "w": 300.0, "h": 24.0})
    );
    assert_eq!(out["element"]["actions"], json!(["increment", "decrement"]));
    let password = get_element(&mut c, "Form", "window[0]/secure_text_field[0]", &[]).await;
    assert_eq!(password["structuredContent"]["element"]["secure"], true);
    assert_eq!(
        password["structuredContent"]["subrole"],
        "AXSecureTextField"
    );
    assert!(
        password["structuredContent"]["element"]
            .get("value")
            .is_none()
    );
    let disabled = get_element(&mut c, "Form", "window[0]/button[2]", &["disabled"]).await;
    assert_eq!(disabled["structuredContent"]["element"]["enabled"], false);
    // Selected and hidden states (Settings' General tab is selected, Advanced hidden).
    let tab = get_element(
        &mut c,
        "Settings",
        "window[0]/tab_group[0]/tab[\"General\"]",
        &[],
    )
    .await;
    assert_eq!(tab["structuredContent"]["selected"], true);
    let panel = get_element(
        &mut c,
        "Settings",
        "window[0]/tab_group[0]/group[\"Advanced\"]",
        &[],
    )
    .await;
    assert_eq!(panel["structuredContent"]["visible"], false);
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Bass\"]"}),
            &[
                "no element at window[0]/slider[\"Bass\"]",
                "slider[0] \"Volume\"",
            ],
        ),
        (
            json!({"app": "Form", "target": "e77777"}),
            &["unknown handle e77777"],
        ),
        (json!({"app": "Form"}), &["missing field `target`"]),
        (
            json!({"app": "Nope", "target": "window[0]"}),
            &["no running app matches \"Nope\"", "Form (pid 41001)"],
        ),
    ];
    refusals(&mut c, "get_element", cases).await;
}

#[tokio::test]
async fn get_focused_follows_focus() {
    let (_server, mut c) = start_session().await;
    // Only the window has focus at first: the window is returned.
    let r = check(
        &mut c,
        "get_focused",
        json!({"app": "Form"}),
        false,
        &["[window] \"Demo Form\"", "path: window[0]"],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["focused"], true);
    // (target to focus, role, path get_focused reports)
    let cases = [
        (
            r#"window[0]/text_field["Email"]"#,
            "text_field",
            "window[0]/text_field[1]",
        ),
        (
            r#"window[0]/secure_text_field["Password"]"#,
            "secure_text_field",
            "window[0]/secure_text_field[0]",
        ),
        (
            "window[0]/popup_button[0]",
            "popup_button",
            "window[0]/popup_button[0]",
        ),
    ];
    for (target, role, path) in cases {
        let r = steps(
            &mut c,
            &[
                ("focus", json!({"app": "Form", "target": target}), &[]),
                (
                    "get_focused",
                    json!({"app": "Form"}),
                    &[&format!("path: {path}"), "focused"],
                ),
            ],
        )
        .await;
        assert_eq!(r["structuredContent"]["element"]["role"], role);
        assert_eq!(r["structuredContent"]["element"]["path"], path);
    }
    // Editor's Save As dialog takes focus into its file name field.
    steps(
        &mut c,
        &[
            (
                "select_menu",
                json!({"app": "Editor", "menu": "File > Save As…"}),
                &[],
            ),
            (
                "get_focused",
                json!({"app": "Editor"}),
                &[
                    "[text_field] \"File name\"",
                    "path: dialog[0]/text_field[0]",
                ],
            ),
        ],
    )
    .await;
    check(
        &mut c,
        "get_focused",
        json!({"app": "Form", "x": 1}),
        true,
        &["unknown field `x`"],
    )
    .await;
}

#[tokio::test]
async fn element_at_hit_tests_known_frames() {
    let (_server, mut c) = start_session().await;
    // (app, target, the path element_at reports at the target's centre; both below window[0])
    let cases = [
        ("Form", r#"button["Submit"]"#, "button[0]"),
        ("Form", r#"button["Stubborn"]"#, "button[3]"),
        ("Form", r#"slider["Volume"]"#, "slider[0]"),
        ("Form", "secure_text_field[0]", "secure_text_field[0]"),
        (
            "Settings",
            r#"tab_group[0]/group["General"]/radio_group[0]/radio_button["Dark"]"#,
            "tab_group[0]/group[0]/radio_group[0]/radio_button[1]",
        ),
        // A row's centre lies on its text: the topmost element is the static text.
        (
            "List",
            "scroll_area[0]/list[0]/list_item[3]",
            "scroll_area[0]/list[0]/list_item[3]/static_text[0]",
        ),
    ];
    for (app, target, path) in cases {
        let (target, path) = (format!("window[0]/{target}"), format!("window[0]/{path}"));
        let e = get_element(&mut c, app, &target, &[]).await;
        let f = &e["structuredContent"]["element"]["frame"];
        let (x, y) = (
            f["x"].as_f64().unwrap() + f["w"].as_f64().unwrap() / 2.0,
            f["y"].as_f64().unwrap() + f["h"].as_f64().unwrap() / 2.0,
        );
        let r = check(
            &mut c,
            "element_at",
            json!({"app": app, "x": x, "y": y}),
            false,
            &[&format!("path: {path}")],
        )
        .await;
        assert_eq!(r["structuredContent"]["element"]["path"], path, "{target}");
    }
    // The window's own background.
    let r = steps(
        &mut c,
        &[
            (
                "element_at",
                json!({"app": "Form", "x": 45, "y": 65}),
                &["[window] \"Demo Form\"", "path: window[0]"],
            ),
            // Rows scrolled out of view are not hit: below the viewport is nothing of the list.
            (
                "element_at",
                json!({"app": "List", "x": 1500, "y": 870}),
                &[],
            ),
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["path"], "window[0]");
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "x": 5, "y": 5}),
            &["no element of Form at (5, 5)"],
        ),
        (json!({"app": "Form", "x": 5}), &["missing field `y`"]),
        (
            json!({"app": "Form", "x": "left", "y": 5}),
            &["invalid argument `x`"],
        ),
    ];
    refusals(&mut c, "element_at", cases).await;
}
