//! The demo TextEdit over MCP: launched by bundle id as a Mac2 suite's `appium:bundleId`
//! does, read as macOS TextEdit reads (a text view in a scroll view with a ruler of tab
//! stops, the format bar, the menu bar with `duplicateDocument:`), and driven the way the
//! suite drives it (typing, select all, clear, bold/italic and the typeface, the context menu
//! by right click, File ▸ Duplicate).

use super::*;

const APP: &str = "TextEdit";
const TEXT_VIEW: &str = "window[0]/scroll_area[0]/text_area[0]";

/// A fresh server with TextEdit launched by its bundle id, and a session on it.
async fn textedit() -> (TestServer, Client) {
    let (server, mut c) = start_session().await;
    let r = check(
        &mut c,
        "launch_app",
        json!({"app": "com.apple.TextEdit"}),
        false,
        &["TextEdit is ready (pid 41101, 1 window(s))"],
    )
    .await;
    assert_eq!(
        r["structuredContent"]["app"]["bundle_id"],
        "com.apple.TextEdit"
    );
    (server, c)
}

fn matches(result: &Value) -> Vec<Value> {
    result["structuredContent"]["matches"]
        .as_array()
        .unwrap_or_else(|| panic!("no matches: {result}"))
        .clone()
}

#[tokio::test]
async fn textedit_launches_by_bundle_id_and_reads_like_macos_textedit() {
    let (_server, mut c) = textedit().await;
    let text_view = check(
        &mut c,
        "get_element",
        json!({"app": APP, "target": TEXT_VIEW}),
        false,
        &["[text_area]"],
    )
    .await;
    let element = &text_view["structuredContent"]["element"];
    assert_eq!(element["identifier"], "First Text View", "{element}");
    assert_eq!(element["native_role"], "AXTextArea", "{element}");
    // The ruler is the scroll view's, and every child of it is a marker.
    let ruler = check(
        &mut c,
        "find",
        json!({"app": APP, "role": "ruler"}),
        false,
        &["[ruler]", "window[0]/scroll_area[0]/ruler[0]"],
    )
    .await;
    assert_eq!(matches(&ruler).len(), 1);
    let tabs = check(
        &mut c,
        "find",
        json!({"app": APP, "role": "ruler_marker", "name": "left tab stop", "mode": "exact"}),
        false,
        &["[ruler_marker] \"left tab stop\""],
    )
    .await;
    assert_eq!(matches(&tabs).len(), 12);
    // The format bar's typeface pop-up, labelled as in TextEdit.
    let face = check(
        &mut c,
        "find",
        json!({"app": APP, "role": "popup_button", "name": "type face", "mode": "exact"}),
        false,
        &["[popup_button] \"type face\""],
    )
    .await;
    assert_eq!(matches(&face)[0]["value"], "Regular", "{face}");
    // The menu bar: File ▸ Duplicate carries the identifier Mac2 suites find it by.
    let menus = check(&mut c, "list_menus", json!({"app": APP}), false, &[]).await;
    let paths: Vec<&str> = menus["structuredContent"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["menu_path"].as_str().unwrap())
        .collect();
    for wanted in [
        "File > Duplicate",
        "Edit > Select All",
        "Format > Bold",
        "View > Enter Full Screen",
        "Window > Minimize",
    ] {
        assert!(paths.contains(&wanted), "{wanted} not in {paths:?}");
    }
    let duplicate = check(
        &mut c,
        "find",
        json!({"app": APP, "identifier": "duplicateDocument:", "mode": "exact"}),
        false,
        &["[menu_item] \"Duplicate\""],
    )
    .await;
    assert_eq!(matches(&duplicate).len(), 1);
}

#[tokio::test]
async fn textedit_types_selects_all_replaces_and_clears() {
    let (server, mut c) = textedit().await;
    let typed = |s: &str| Some(AxValue::Text(s.to_owned()));
    let value = |server: &TestServer| {
        server
            .demo
            .node_by_identifier(APP, "First Text View")
            .and_then(|n| n.value)
    };
    check(
        &mut c,
        "type_text",
        json!({"app": APP, "target": TEXT_VIEW, "text": "hello world"}),
        false,
        &["value: \"\" → \"hello world\""],
    )
    .await;
    assert_eq!(value(&server), typed("hello world"));
    // cmd+a, then typing replaces the whole text.
    steps(
        &mut c,
        &[
            ("press_key", json!({"app": APP, "key": "cmd+a"}), &[]),
            ("type_text", json!({"app": APP, "text": "bye"}), &[]),
        ],
    )
    .await;
    assert_eq!(value(&server), typed("bye"));
    // Edit ▸ Select All, then typing replaces again.
    steps(
        &mut c,
        &[
            (
                "select_menu",
                json!({"app": APP, "menu": "Edit > Select All"}),
                &["selected: \"false\" → \"true\""],
            ),
            ("type_text", json!({"app": APP, "text": "x"}), &[]),
        ],
    )
    .await;
    assert_eq!(value(&server), typed("x"));
    // Clear: a value write of "".
    check(
        &mut c,
        "set_value",
        json!({"app": APP, "target": TEXT_VIEW, "value": ""}),
        false,
        &[],
    )
    .await;
    assert_eq!(value(&server), typed(""));
}

#[tokio::test]
async fn textedit_bold_and_italic_change_the_typeface_popup() {
    let (server, mut c) = textedit().await;
    let face = |server: &TestServer| app_text(server, APP, "typeface");
    // (check box clicked, typeface after)
    for (check_box, after) in [
        ("bold", "Bold"),
        ("italic", "Bold Oblique"),
        ("underline", "Bold Oblique"),
        ("bold", "Oblique"),
    ] {
        check(
            &mut c,
            "click",
            json!({"app": APP, "target": format!("window[0]/check_box[\"{check_box}\"]")}),
            false,
            &[],
        )
        .await;
        assert_eq!(face(&server), after, "after {check_box}");
    }
    // The typeface change shows in the act's result, like any value change.
    check(
        &mut c,
        "click",
        json!({"app": APP, "target": "window[0]/check_box[\"italic\"]"}),
        false,
        &["[popup_button] \"type face\"", "\"Oblique\" → \"Regular\""],
    )
    .await;
    // The font size pop-up's value can be chosen; alignment is one of a radio group.
    check(
        &mut c,
        "select_option",
        json!({"app": APP, "target": "window[0]/combo_box[\"font size\"]", "option": "24"}),
        false,
        &[],
    )
    .await;
    assert_eq!(app_text(&server, APP, "font_size"), "24");
    check(
        &mut c,
        "click",
        json!({"app": APP, "target": "window[0]/radio_group[\"text alignment\"]/radio_button[\"align center\"]"}),
        false,
        &[],
    )
    .await;
    let centred = server.demo.node_by_identifier(APP, "align_center").unwrap();
    assert!(centred.states.selected);
}

#[tokio::test]
async fn textedit_right_click_opens_the_text_view_context_menu() {
    let (server, mut c) = textedit().await;
    check(
        &mut c,
        "type_text",
        json!({"app": APP, "target": TEXT_VIEW, "text": "to copy"}),
        false,
        &[],
    )
    .await;
    let r = check(
        &mut c,
        "click",
        json!({"app": APP, "target": TEXT_VIEW, "button": "right"}),
        false,
        &[
            "+ [menu_item] \"Cut\"",
            "+ [menu_item] \"Copy\"",
            "+ [menu_item] \"Paste\"",
            "+ [menu_item] \"Import Image\"",
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true, "{r}");
    check(
        &mut c,
        "click",
        json!({"app": APP, "target": format!("{TEXT_VIEW}/menu[0]/menu_item[\"Copy\"]")}),
        false,
        &[],
    )
    .await;
    assert!(!has_node(&server, APP, "text_context_menu"));
    check(&mut c, "read_clipboard", json!({}), false, &["to copy"]).await;
}

#[tokio::test]
async fn textedit_duplicate_opens_a_second_document_window() {
    let (server, mut c) = textedit().await;
    check(
        &mut c,
        "type_text",
        json!({"app": APP, "target": TEXT_VIEW, "text": "draft"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "select_menu",
        json!({"app": APP, "menu": "File > Duplicate"}),
        false,
        &["+ [window] \"Untitled 2\""],
    )
    .await;
    let r = check(&mut c, "list_windows", json!({"app": APP}), false, &[]).await;
    let titles: Vec<&str> = r["structuredContent"]["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Untitled", "Untitled 2"]);
    // The copy starts with the original's text; typing goes to the new, key window's text
    // view and leaves the original as it was.
    check(
        &mut c,
        "type_text",
        json!({"app": APP, "text": " 2"}),
        false,
        &[
            "window[1]/scroll_area[0]/text_area[0]",
            "\"draft\" → \"draft 2\"",
        ],
    )
    .await;
    assert_eq!(app_text(&server, APP, "First Text View"), "draft");
}
