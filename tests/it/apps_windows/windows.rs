//! Windows, the clipboard and screenshots.

use super::*;

#[tokio::test]
async fn window_action_minimizes_restores_moves_resizes_and_closes() {
    let (server, mut c) = start_session().await;
    let frame = |server: &TestServer| {
        let f = server
            .demo
            .node_by_identifier("Settings", "settings_window")
            .unwrap()
            .frame
            .unwrap();
        (f.x, f.y, f.w, f.h)
    };
    // (extra arguments, verified, text the result shows, the app-side frame after)
    let moves: Vec<WindowStep> = vec![
        (
            json!({"action": "minimize"}),
            true,
            vec![
                "~ [window] \"Settings\" window[0]",
                "visible: \"true\" → \"false\"",
            ],
            (880.0, 560.0, 460.0, 320.0),
        ),
        (
            json!({"action": "restore"}),
            true,
            vec!["visible: \"false\" → \"true\""],
            (880.0, 560.0, 460.0, 320.0),
        ),
        // Frames are not compared: a move or resize is not verified, but it happened.
        (
            json!({"action": "move", "x": 200, "y": 150}),
            false,
            vec![
                "[window] \"Settings\"",
                "(200,150 460×320)",
                "no observable effect yet",
            ],
            (200.0, 150.0, 460.0, 320.0),
        ),
        (
            json!({"action": "resize", "w": 500, "h": 400}),
            false,
            vec!["(200,150 500×400)"],
            (200.0, 150.0, 500.0, 400.0),
        ),
        // A window has a minimum size.
        (
            json!({"action": "resize", "w": 10, "h": 10}),
            false,
            vec!["(200,150 100×60)"],
            (200.0, 150.0, 100.0, 60.0),
        ),
        (
            json!({"action": "focus"}),
            false,
            vec!["window_action window[0]"],
            (200.0, 150.0, 100.0, 60.0),
        ),
    ];
    for (extra, verified, needles, after) in moves {
        let mut args = json!({"app": "Settings", "target": "window[0]"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let r = check(&mut c, "window_action", args.clone(), false, &needles).await;
        assert_eq!(r["structuredContent"]["verified"], verified, "{args}: {r}");
        assert_eq!(frame(&server), after, "{args}");
        let f = &r["structuredContent"]["element"]["frame"];
        assert_eq!(
            (f["x"].as_f64(), f["w"].as_f64()),
            (Some(after.0), Some(after.2)),
            "{args}: the element is re-read"
        );
    }
    // list_windows reports minimized windows.
    let settings =
        |action: &str| json!({"app": "Settings", "target": "window[0]", "action": action});
    let listing = json!({"app": "Settings"});
    let w = steps(
        &mut c,
        &[
            ("window_action", settings("minimize"), &[]),
            (
                "list_windows",
                listing.clone(),
                &["window[0] \"Settings\"", "minimized"],
            ),
        ],
    )
    .await;
    assert_eq!(w["structuredContent"]["windows"][0]["minimized"], true);
    let mut moving = settings("move");
    moving["x"] = json!(0);
    moving["y"] = json!(0);
    refusals(
        &mut c,
        "window_action",
        &[(
            moving,
            &["is minimized; restore it before moving or resizing it"],
        )],
    )
    .await;
    // Closing removes the window.
    let gone = [
        "the element is gone now",
        "- [window] \"Settings\" window[0]",
    ];
    let r = steps(
        &mut c,
        &[
            ("window_action", settings("restore"), &[]),
            ("window_action", settings("close"), &gone),
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["element_gone"], true);
    let w = steps(&mut c, &[("list_windows", listing, &[])]).await;
    assert_eq!(w["structuredContent"]["windows"], json!([]));
    assert!(!has_node(&server, "Settings", "settings_window"));
}

#[tokio::test]
async fn window_action_close_asks_about_unsaved_changes_and_refuses_non_windows() {
    let (server, mut c) = start_session().await;
    let r = steps(
        &mut c,
        &[
            (
                "type_text",
                json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "unsaved"}),
                &[],
            ),
            (
                "window_action",
                json!({"app": "Editor", "target": "window[\"Untitled\"]", "action": "close"}),
                &[
                    "+ [dialog] \"Save Changes\" dialog[0]",
                    "+ [button] \"Don't Save\"",
                ],
            ),
        ],
    )
    .await;
    assert_eq!(
        r["structuredContent"]["element_gone"], false,
        "the window stays"
    );
    check(
        &mut c,
        "click",
        json!({"app": "Editor", "target": "dialog[0]/button[\"Don't Save\"]"}),
        false,
        &[
            "- [window] \"Untitled\" window[0]",
            "- [dialog] \"Save Changes\" dialog[0]",
        ],
    )
    .await;
    assert!(!has_node(&server, "Editor", "document_window"));
    assert!(
        server.demo.pid_of("Editor").is_some(),
        "closing is not quitting"
    );
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "target": "window[0]", "action": "move", "x": 1}),
            &["this window action needs `y`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]", "action": "resize", "h": 1}),
            &["this window action needs `w`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[0]", "action": "close"}),
            &["button \"Submit\" at window[0]/button[0] is not a window; use list_windows"],
        ),
        (
            json!({"app": "Form", "target": "window[0]", "action": "zoom"}),
            &["invalid argument `action`"],
        ),
        (
            json!({"app": "Form", "target": "window[2]", "action": "focus"}),
            &["no element at window[2]", "window[0] \"Demo Form\""],
        ),
    ];
    refusals(&mut c, "window_action", cases).await;
}

// ---------------------------------------------------------------------------------------
// Clipboard and screenshots

#[tokio::test]
async fn clipboard_round_trips_and_is_shared_with_the_apps() {
    let (server, mut c) = start_session().await;
    for text in ["copied by axgate", "", "héllo 👋 wörld", "line 1\nline 2"] {
        let r = check(
            &mut c,
            "write_clipboard",
            json!({"text": text}),
            false,
            &[&format!(
                "clipboard holds {} characters",
                text.chars().count()
            )],
        )
        .await;
        assert_eq!(r["structuredContent"]["text"], text);
        let r = check(&mut c, "read_clipboard", json!({}), false, &[]).await;
        assert_eq!(r["structuredContent"]["text"], text);
        assert_eq!(text_of(&r), text);
    }
    // Editor copies through its menu; another session reads it.
    let menu = |menu: &str| json!({"app": "Editor", "menu": menu});
    let document =
        json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "Hello, world"});
    steps(
        &mut c,
        &[
            ("type_text", document, &[]),
            ("select_menu", menu("Edit > Select All"), &[]),
            ("select_menu", menu("Edit > Copy"), &[]),
        ],
    )
    .await;
    let mut other = session(&server).await;
    steps(
        &mut other,
        &[
            ("read_clipboard", json!({}), &["Hello, world"]),
            // Paste appends what is on the clipboard.
            ("write_clipboard", json!({"text": "!"}), &[]),
        ],
    )
    .await;
    let pasted = ["value: \"Hello, world\" → \"Hello, world!\""];
    steps(&mut c, &[("select_menu", menu("Edit > Paste"), &pasted)]).await;
    assert_eq!(app_text(&server, "Editor", "document"), "Hello, world!");
    // Form's text fields copy with cmd+a, cmd+c.
    let name = r#"window[0]/text_field["Name"]"#;
    let secure = "window[0]/secure_text_field[0]";
    let key = |target: &str, key: &str| json!({"app": "Form", "target": target, "key": key});
    steps(
        &mut c,
        &[
            (
                "set_value",
                json!({"app": "Form", "target": name, "value": "Ada"}),
                &[],
            ),
            ("press_key", key(name, "cmd+a"), &[]),
            ("press_key", key(name, "cmd+c"), &[]),
            ("read_clipboard", json!({}), &["Ada"]),
            // The secure field never copies.
            (
                "type_text",
                json!({"app": "Form", "target": secure, "text": "s3cret"}),
                &[],
            ),
            ("press_key", key(secure, "cmd+a"), &[]),
            ("press_key", key(secure, "cmd+c"), &[]),
        ],
    )
    .await;
    let r = check(&mut c, "read_clipboard", json!({}), false, &["Ada"]).await;
    assert!(!r.to_string().contains("s3cret"));
    for (tool, args, needle) in [
        (
            "read_clipboard",
            json!({"x": 1}),
            "unexpected argument `x`: this tool takes none",
        ),
        ("write_clipboard", json!({}), "missing field `text`"),
        (
            "write_clipboard",
            json!({"text": 5}),
            "invalid argument `text`",
        ),
    ] {
        check(&mut c, tool, args, true, &[needle]).await;
    }
}

/// Decodes a screenshot result's image: (width, height, PNG byte count).
fn png_of(result: &Value) -> (u32, u32, usize) {
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 3, "image, summary, geometry: {result}");
    assert_eq!(content[0]["type"], "image");
    assert_eq!(content[0]["mimeType"], "image/png");
    let data = content[0]["data"].as_str().expect("base64 data");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("valid base64");
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes.clone()));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).expect("PNG pixel data");
    (frame.width, frame.height, bytes.len())
}

#[tokio::test]
async fn screenshot_returns_a_decodable_png() {
    let (_server, mut c) = start_session().await;
    let mut sizes = Vec::new();
    // (arguments, the app named in the summary)
    let cases = [
        (json!({"app": "Form"}), "Form"),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
            "Form",
        ),
        (json!({"app": "Form", "region": [40, 60, 200, 100]}), "Form"),
        (json!({"app": "Editor", "target": "window[0]"}), "Editor"),
        (json!({"app": "List"}), "List"),
    ];
    for (args, app) in cases {
        let r = check(&mut c, "screenshot", args.clone(), false, &[]).await;
        assert!(r.get("structuredContent").is_none_or(Value::is_null), "{r}");
        let (w, h, bytes) = png_of(&r);
        assert!(w > 0 && h > 0, "{args}: {w}×{h}");
        assert_eq!(
            r["content"][1]["text"],
            format!("screenshot of {app} ({bytes} bytes PNG)"),
            "{args}"
        );
        // The demo renders one pixel per point; the frame is what was captured.
        let geometry = r["content"][2]["text"].as_str().unwrap_or_default();
        assert!(geometry.starts_with("frame x="), "{args}: {geometry}");
        assert!(
            geometry.contains("scale 1 pixels per point"),
            "{args}: {geometry}"
        );
        sizes.push((w, h));
    }
    // A control's shot is smaller than its window's, and keeps the control's proportions.
    let (window, button, region) = (sizes[0], sizes[1], sizes[2]);
    assert!(button.0 < window.0 && button.1 < window.1, "{sizes:?}");
    assert!(button.0 > button.1, "Submit is wider than tall: {button:?}");
    assert!(region.0 > region.1, "the 200×100 region: {region:?}");
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "region": [0, 0, 0, 10]}),
            &["give `target`, or `region` [x, y, w, h] with a positive size, or neither"],
        ),
        (
            json!({"app": "Form", "region": [0, 0, 10, -1]}),
            &["with a positive size"],
        ),
        (
            json!({"app": "Form", "target": "window[0]", "region": [0, 0, 10, 10]}),
            &["give `target`, or `region`"],
        ),
        (
            json!({"app": "Form", "region": [0, 0, 10]}),
            &["invalid argument `region`"],
        ),
        (
            json!({"app": "Form", "target": ""}),
            &["application \"Form\"", "has no frame to capture"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Nope\"]"}),
            &["no element at window[0]/button[\"Nope\"]"],
        ),
    ];
    refusals(&mut c, "screenshot", cases).await;
}

/// A capture whose PNG would exceed the budget (here a window grown to the largest size the
/// demo renders, 8192×8192 points) comes back downscaled, under 1 MiB as a message, with the size it had,
/// and with the scale of the image it carries, so pixel-to-point maths still holds. Before,
/// the whole PNG went out, and the Python SDK refused the message (its SSE limit is 1 MiB).
#[tokio::test]
async fn a_screenshot_over_the_budget_is_downscaled_to_fit() {
    let (_server, mut c) = start_session().await;
    let grown = c
        .call(
            "window_action",
            json!({"app": "List", "target": "window[0]", "action": "resize", "w": 8192, "h": 8192}),
        )
        .await;
    assert_eq!(grown["isError"], false, "{grown}");
    let r = c.call("screenshot", json!({"app": "List"})).await;
    assert_eq!(r["isError"], false, "{r}");
    assert!(
        r.to_string().len() < 1024 * 1024,
        "the result is {} bytes",
        r.to_string().len()
    );
    let (w, h, bytes) = png_of(&r);
    assert!(
        bytes <= axgate::ax::downscale::MAX_PNG_BYTES,
        "{bytes} bytes"
    );
    assert!(w < 8192 && w == h, "{w}×{h}");
    let summary = r["content"][1]["text"].as_str().unwrap_or_default();
    assert!(
        summary.contains(&format!("downscaled from 8192×8192 to {w}×{h} pixels")),
        "{summary}"
    );
    let geometry = r["content"][2]["text"].as_str().unwrap_or_default();
    let scale = f64::from(w) / 8192.0;
    assert!(
        geometry.contains(&format!("scale {} pixels", (scale * 100.0).round() / 100.0)),
        "{geometry}"
    );
}
