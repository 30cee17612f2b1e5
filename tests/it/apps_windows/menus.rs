//! Menus: `list_menus` and `select_menu`.

use super::*;

#[tokio::test]
async fn list_menus_gives_every_menu_path() {
    let (_server, mut c) = start_session().await;
    let r = check(&mut c, "list_menus", json!({"app": "Editor"}), false, &[]).await;
    assert_eq!(text_of(&r), format!("{}\n", EDITOR_MENUS.join("\n")));
    let items = r["structuredContent"]["items"].as_array().unwrap();
    let paths: Vec<&str> = items
        .iter()
        .map(|i| i["menu_path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, EDITOR_MENUS);
    assert_eq!(
        items[3],
        json!({"menu_path": "File > Save As…", "path": "menu_bar[0]/menu_bar_item[0]/menu[0]/menu_item[3]",
               "enabled": true, "has_submenu": false})
    );
    assert_eq!(
        items[9]["path"],
        "menu_bar[0]/menu_bar_item[1]/menu[0]/menu_item[4]"
    );
    // Each listed path resolves to its item.
    for item in items {
        let e = check(
            &mut c,
            "get_element",
            json!({"app": "Editor", "target": item["path"]}),
            false,
            &["[menu_item]"],
        )
        .await;
        let title = e["structuredContent"]["element"]["title"].as_str().unwrap();
        assert!(
            item["menu_path"].as_str().unwrap().ends_with(title),
            "{item}"
        );
    }
    for app in ["Form", "Settings", "List"] {
        check(
            &mut c,
            "list_menus",
            json!({"app": app}),
            true,
            &[&format!("{app} has no menu bar")],
        )
        .await;
    }
}

#[tokio::test]
async fn select_menu_runs_commands_by_menu_path() {
    let (server, mut c) = start_session().await;
    let title = |server: &TestServer| {
        server
            .demo
            .node_by_identifier("Editor", "document_window")
            .and_then(|w| w.title)
    };
    // (menu as written, text the result shows)
    let picks: Vec<(&str, Vec<&str>)> = vec![
        (
            "Edit > Select All",
            vec![
                "select_menu menu_bar[0]/menu_bar_item[1]/menu[0]/menu_item[4]",
                "~ [text_area] \"Document\" window[0]/text_area[0] selected: \"false\" → \"true\"",
            ],
        ),
        // Parts are trimmed and compared ignoring case; `...` matches `…`.
        (
            "  file>save as...  ",
            vec![
                "+ [dialog] \"Save As\" dialog[0]",
                "+ [text_field] \"File name\" dialog[0]/text_field[0]",
            ],
        ),
    ];
    for (menu, needles) in picks {
        let r = check(
            &mut c,
            "select_menu",
            json!({"app": "Editor", "menu": menu}),
            false,
            &needles,
        )
        .await;
        assert_eq!(r["structuredContent"]["verified"], true, "{menu}: {r}");
        assert_eq!(r["structuredContent"]["tool"], "select_menu");
    }
    assert!(
        server
            .demo
            .node_by_identifier("Editor", "document")
            .unwrap()
            .states
            .selected
    );
    // Finish the Save As dialog: the window takes the file's name.
    steps(
        &mut c,
        &[
            (
                "set_value",
                json!({"app": "Editor", "target": "dialog[0]/text_field[\"File name\"]", "value": "notes.txt"}),
                &[],
            ),
            ("click", json!({"app": "Editor", "target": "dialog[0]/button[\"Save\"]"}), &[
            "the element is gone now",
            "~ [window] \"notes.txt\" window[0] name: \"Untitled\" → \"notes.txt\"",
            "- [dialog] \"Save As\" dialog[0]",
        ]),
        ],
    )
    .await;
    assert_eq!(title(&server).as_deref(), Some("notes.txt"));
    // File > Close closes the saved window; File > New opens a fresh one.
    check(
        &mut c,
        "select_menu",
        json!({"app": "Editor", "menu": "File > Close"}),
        false,
        &["- [window] \"notes.txt\" window[0]"],
    )
    .await;
    assert_eq!(title(&server), None);
    check(
        &mut c,
        "select_menu",
        json!({"app": "Editor", "menu": "File > New"}),
        false,
        &[
            "+ [window] \"Untitled\" window[0]",
            "+ [text_area] \"Document\" window[0]/text_area[0]",
        ],
    )
    .await;
    assert_eq!(title(&server).as_deref(), Some("Untitled"));
    // Copy changes only the clipboard: not verified, and not an error.
    let r = check(
        &mut c,
        "select_menu",
        json!({"app": "Editor", "menu": "Edit > Copy"}),
        false,
        &["no observable effect yet"],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], false);
}

#[tokio::test]
async fn select_menu_refuses_unknown_items_and_apps_without_menus() {
    let (server, mut c) = start_session().await;
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Editor", "menu": "File > Export"}),
            &[
                "no element at File > Export: expected a menu item \"File > Export\"",
                "found here: File > New, File > Open…, File > Save",
                "Edit > Select All",
            ],
        ),
        // A menu bar item alone is not a menu item; nor is a path that goes too deep.
        (
            json!({"app": "Editor", "menu": "File"}),
            &["expected a menu item \"File\""],
        ),
        (
            json!({"app": "Editor", "menu": "Edit > Select All > Lines"}),
            &["expected a menu item \"Edit > Select All > Lines\""],
        ),
        (
            json!({"app": "Editor", "menu": "Select All"}),
            &["expected a menu item \"Select All\""],
        ),
        (
            json!({"app": "Form", "menu": "File > New"}),
            &["Form has no menu bar"],
        ),
        (json!({"app": "Editor"}), &["missing field `menu`"]),
    ];
    refusals(&mut c, "select_menu", cases).await;
    // Nothing ran.
    let window = server
        .demo
        .node_by_identifier("Editor", "document_window")
        .unwrap();
    assert_eq!(window.title.as_deref(), Some("Untitled"));
    assert!(!has_node(&server, "Editor", "save_dialog"));
}
