//! The app, window, menu, clipboard, screenshot and session tool families end to end over
//! MCP on the demo backend: `list_menus` / `select_menu`, `launch_app`, `quit_app`,
//! `activate_app`, `window_action`, `read_clipboard` / `write_clipboard`, `screenshot`,
//! `lease_app` / `release_app` across two sessions, and `session_info`. Effects are checked
//! from the app's side through `server.demo` as well as in the results.

mod support;

use axgate::ax::AxValue;
use base64::Engine as _;
use serde_json::{Value, json};
use support::{Client, TestServer, check, session, text_of};

/// The names of the running apps, from `list_apps`.
async fn running(c: &mut Client) -> Vec<(String, u64, bool)> {
    let r = check(c, "list_apps", json!({}), false, &[]).await;
    r["structuredContent"]["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap().to_owned(),
                a["pid"].as_u64().unwrap(),
                a["frontmost"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn app_text(server: &TestServer, app: &str, identifier: &str) -> String {
    match server
        .demo
        .node_by_identifier(app, identifier)
        .and_then(|n| n.value)
    {
        Some(AxValue::Text(s)) => s,
        other => panic!("{app} #{identifier}: {other:?}"),
    }
}

/// A window frame: x, y, w, h.
type Frame = (f64, f64, f64, f64);

/// (extra arguments, verified, text the result shows, the app-side frame after)
type WindowStep<'a> = (Value, bool, Vec<&'a str>, Frame);

const EDITOR_MENUS: [&str; 10] = [
    "File > New",
    "File > Open…",
    "File > Save",
    "File > Save As…",
    "File > Close",
    "Edit > Undo",
    "Edit > Cut",
    "Edit > Copy",
    "Edit > Paste",
    "Edit > Select All",
];

// ---------------------------------------------------------------------------------------
// Menus

#[tokio::test]
async fn list_menus_gives_every_menu_path() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let title = |server: &TestServer| {
        server
            .demo
            .node_by_identifier("Editor", "document_window")
            .and_then(|w| w.title)
    };
    // (menu as written, text the result shows)
    let steps: Vec<(&str, Vec<&str>)> = vec![
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
    for (menu, needles) in steps {
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
    check(
        &mut c,
        "set_value",
        json!({"app": "Editor", "target": "dialog[0]/text_field[\"File name\"]", "value": "notes.txt"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "click",
        json!({"app": "Editor", "target": "dialog[0]/button[\"Save\"]"}),
        false,
        &[
            "the element is gone now",
            "~ [window] \"notes.txt\" window[0] title: \"Untitled\" → \"notes.txt\"",
            "- [dialog] \"Save As\" dialog[0]",
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
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Editor", "menu": "File > Export"}),
            vec![
                "no element at File > Export: expected a menu item \"File > Export\"",
                "found here: File > New, File > Open…, File > Save",
                "Edit > Select All",
            ],
        ),
        // A menu bar item alone is not a menu item; nor is a path that goes too deep.
        (
            json!({"app": "Editor", "menu": "File"}),
            vec!["expected a menu item \"File\""],
        ),
        (
            json!({"app": "Editor", "menu": "Edit > Select All > Lines"}),
            vec!["expected a menu item \"Edit > Select All > Lines\""],
        ),
        (
            json!({"app": "Editor", "menu": "Select All"}),
            vec!["expected a menu item \"Select All\""],
        ),
        (
            json!({"app": "Form", "menu": "File > New"}),
            vec!["Form has no menu bar"],
        ),
        (json!({"app": "Editor"}), vec!["missing field `menu`"]),
    ];
    for (args, needles) in cases {
        check(&mut c, "select_menu", args, true, &needles).await;
    }
    // Nothing ran.
    let window = server
        .demo
        .node_by_identifier("Editor", "document_window")
        .unwrap();
    assert_eq!(window.title.as_deref(), Some("Untitled"));
    assert!(
        server
            .demo
            .node_by_identifier("Editor", "save_dialog")
            .is_none()
    );
}

// ---------------------------------------------------------------------------------------
// Launching and quitting

#[tokio::test]
async fn launch_app_waits_for_the_window_and_is_idempotent() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Notes"));
    let r = check(
        &mut c,
        "launch_app",
        json!({"app": "Notes"}),
        false,
        &["Notes is ready (pid 41101, 1 window(s)) after"],
    )
    .await;
    let out = &r["structuredContent"];
    assert_eq!(
        out["app"],
        json!({"name": "Notes", "pid": 41101, "bundle_id": "dev.axgate.demo.notes", "frontmost": true})
    );
    assert_eq!(out["windows"], 1);
    // The window is there as soon as launch_app returns.
    check(
        &mut c,
        "list_windows",
        json!({"app": "Notes"}),
        false,
        &["window[0] \"Notes\""],
    )
    .await;
    assert!(server.demo.node_by_identifier("Notes", "note").is_some());
    // Launching again, by any name, activates the same process.
    for app in [
        "Notes",
        "notes",
        "dev.axgate.demo.notes",
        "/Applications/Notes.app",
    ] {
        let r = check(
            &mut c,
            "launch_app",
            json!({"app": app}),
            false,
            &["Notes is ready (pid 41101"],
        )
        .await;
        assert_eq!(r["structuredContent"]["app"]["pid"], 41101, "{app}");
    }
    let notes: Vec<_> = running(&mut c)
        .await
        .into_iter()
        .filter(|(n, _, _)| n == "Notes")
        .collect();
    assert_eq!(notes, [("Notes".to_owned(), 41101, true)]);
    // A built-in app that is running is just activated.
    let r = check(
        &mut c,
        "launch_app",
        json!({"app": "dev.axgate.demo.form"}),
        false,
        &["Form is ready (pid 41001"],
    )
    .await;
    assert_eq!(r["structuredContent"]["app"]["frontmost"], true);
    for (args, needle) in [
        (json!({"app": "Photoshop"}), "Photoshop"),
        (json!({}), "missing field `app`"),
        (
            json!({"app": "Notes", "timeout_ms": "soon"}),
            "invalid argument `timeout_ms`",
        ),
    ] {
        check(&mut c, "launch_app", args, true, &[needle]).await;
    }
}

#[tokio::test]
async fn quit_app_verifies_the_exit_and_reports_a_refusal() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    check(&mut c, "launch_app", json!({"app": "Notes"}), false, &[]).await;
    check(
        &mut c,
        "get_tree",
        json!({"app": "Notes"}),
        false,
        &["[window] \"Notes\""],
    )
    .await;
    let r = check(
        &mut c,
        "quit_app",
        json!({"app": "Notes"}),
        false,
        &["Notes (pid 41101) exited"],
    )
    .await;
    assert_eq!(
        r["structuredContent"],
        json!({"app": "Notes", "pid": 41101, "exited": true, "forced": false})
    );
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Notes"));
    check(
        &mut c,
        "get_tree",
        json!({"app": "Notes"}),
        true,
        &["no running app matches \"Notes\""],
    )
    .await;
    let info = check(&mut c, "session_info", json!({}), false, &[]).await;
    assert!(
        !text_of(&info).contains("Notes"),
        "the connection closed with the app: {info}"
    );
    // A relaunch is a new process.
    let r = check(&mut c, "launch_app", json!({"app": "Notes"}), false, &[]).await;
    let pid = r["structuredContent"]["app"]["pid"].as_u64().unwrap();
    assert_ne!(pid, 41101);
    check(
        &mut c,
        "quit_app",
        json!({"app": pid.to_string(), "force": true}),
        false,
        &[&format!("Notes (pid {pid}) exited")],
    )
    .await;

    // Editor with unsaved text asks first, and stays running.
    check(
        &mut c,
        "type_text",
        json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "draft"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Editor", "timeout_ms": 1000}),
        true,
        &[
            "Editor is still running after 1000 ms",
            "it may be showing a dialog (check get_tree)",
            "use force: true",
        ],
    )
    .await;
    assert!(running(&mut c).await.iter().any(|(n, _, _)| n == "Editor"));
    check(
        &mut c,
        "list_windows",
        json!({"app": "Editor"}),
        false,
        &["dialog[0] \"Save Changes\"", "focused"],
    )
    .await;
    assert_eq!(app_text(&server, "Editor", "document"), "draft");
    let r = check(
        &mut c,
        "quit_app",
        json!({"app": "Editor", "force": true}),
        false,
        &["Editor (pid 41002) exited"],
    )
    .await;
    assert_eq!(r["structuredContent"]["forced"], true);
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Editor"));
    assert!(server.demo.pid_of("Editor").is_none());

    // A hung app ignores a polite quit; force kills it.
    check(
        &mut c,
        "quit_app",
        json!({"app": "Hung", "timeout_ms": 300}),
        true,
        &["Hung is still running after 300 ms"],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Hung", "force": true}),
        false,
        &["Hung (pid 41004) exited"],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Hung"}),
        true,
        &["no running app matches \"Hung\""],
    )
    .await;
}

/// Quitting politely, then answering the save dialog with "Don't Save", lets the quit carry
/// on: the app exits. The click that made it exit did what it was asked, so it should be
/// reported as done, not as a failure.
#[tokio::test]
async fn dont_save_in_the_quit_dialog_lets_the_app_exit() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    check(
        &mut c,
        "type_text",
        json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "draft"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Editor", "timeout_ms": 300}),
        true,
        &["still running"],
    )
    .await;
    let r = c
        .call(
            "click",
            json!({"app": "Editor", "target": "dialog[0]/button[\"Don't Save\"]"}),
        )
        .await;
    // The app is gone either way.
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Editor"));
    assert!(server.demo.pid_of("Editor").is_none());
    assert_eq!(
        r["isError"], false,
        "a click that quit the app is reported as a failure: {r}"
    );
}

#[tokio::test]
async fn activate_app_brings_an_app_to_the_front() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let front = |apps: &[(String, u64, bool)]| -> Vec<String> {
        apps.iter().filter(|a| a.2).map(|a| a.0.clone()).collect()
    };
    assert_eq!(front(&running(&mut c).await), ["Form"]);
    // (app as named, the app that comes to the front)
    for (app, name) in [
        ("Editor", "Editor"),
        ("41005", "Settings"),
        ("dev.axgate.demo.list", "List"),
        ("form", "Form"),
    ] {
        let r = check(
            &mut c,
            "activate_app",
            json!({"app": app}),
            false,
            &[&format!("{name} is frontmost")],
        )
        .await;
        assert_eq!(r["structuredContent"]["name"], name);
        assert_eq!(r["structuredContent"]["frontmost"], true);
        assert_eq!(front(&running(&mut c).await), [name], "after {app}");
    }
    check(
        &mut c,
        "activate_app",
        json!({"app": "Photoshop"}),
        true,
        &["no running app matches \"Photoshop\""],
    )
    .await;
}

// ---------------------------------------------------------------------------------------
// Windows

#[tokio::test]
async fn window_action_minimizes_restores_moves_resizes_and_closes() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
    let steps: Vec<WindowStep> = vec![
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
    for (extra, verified, needles, after) in steps {
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
    check(
        &mut c,
        "window_action",
        json!({"app": "Settings", "target": "window[0]", "action": "minimize"}),
        false,
        &[],
    )
    .await;
    let w = check(
        &mut c,
        "list_windows",
        json!({"app": "Settings"}),
        false,
        &["window[0] \"Settings\"", "minimized"],
    )
    .await;
    assert_eq!(w["structuredContent"]["windows"][0]["minimized"], true);
    check(
        &mut c,
        "window_action",
        json!({"app": "Settings", "target": "window[0]", "action": "move", "x": 0, "y": 0}),
        true,
        &["is minimized; restore it before moving or resizing it"],
    )
    .await;
    check(
        &mut c,
        "window_action",
        json!({"app": "Settings", "target": "window[0]", "action": "restore"}),
        false,
        &[],
    )
    .await;
    // Closing removes the window.
    let r = check(
        &mut c,
        "window_action",
        json!({"app": "Settings", "target": "window[0]", "action": "close"}),
        false,
        &[
            "the element is gone now",
            "- [window] \"Settings\" window[0]",
        ],
    )
    .await;
    assert_eq!(r["structuredContent"]["element_gone"], true);
    let w = check(
        &mut c,
        "list_windows",
        json!({"app": "Settings"}),
        false,
        &[],
    )
    .await;
    assert_eq!(w["structuredContent"]["windows"], json!([]));
    assert!(
        server
            .demo
            .node_by_identifier("Settings", "settings_window")
            .is_none()
    );
}

#[tokio::test]
async fn window_action_close_asks_about_unsaved_changes_and_refuses_non_windows() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    check(
        &mut c,
        "type_text",
        json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "unsaved"}),
        false,
        &[],
    )
    .await;
    let r = check(
        &mut c,
        "window_action",
        json!({"app": "Editor", "target": "window[\"Untitled\"]", "action": "close"}),
        false,
        &[
            "+ [dialog] \"Save Changes\" dialog[0]",
            "+ [button] \"Don't Save\"",
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
    assert!(
        server
            .demo
            .node_by_identifier("Editor", "document_window")
            .is_none()
    );
    assert!(
        server.demo.pid_of("Editor").is_some(),
        "closing is not quitting"
    );
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "target": "window[0]", "action": "move", "x": 1}),
            vec!["this window action needs `y`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]", "action": "resize", "h": 1}),
            vec!["this window action needs `w`"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[0]", "action": "close"}),
            vec!["button \"Submit\" at window[0]/button[0] is not a window; use list_windows"],
        ),
        (
            json!({"app": "Form", "target": "window[0]", "action": "maximize"}),
            vec!["invalid argument `action`"],
        ),
        (
            json!({"app": "Form", "target": "window[2]", "action": "focus"}),
            vec!["no element at window[2]", "window[0] \"Demo Form\""],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "window_action", args, true, &needles).await;
    }
}

// ---------------------------------------------------------------------------------------
// Clipboard and screenshots

#[tokio::test]
async fn clipboard_round_trips_and_is_shared_with_the_apps() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
    check(
        &mut c,
        "type_text",
        json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "Hello, world"}),
        false,
        &[],
    )
    .await;
    for menu in ["Edit > Select All", "Edit > Copy"] {
        check(
            &mut c,
            "select_menu",
            json!({"app": "Editor", "menu": menu}),
            false,
            &[],
        )
        .await;
    }
    let mut other = session(&server).await;
    check(
        &mut other,
        "read_clipboard",
        json!({}),
        false,
        &["Hello, world"],
    )
    .await;
    // Paste appends what is on the clipboard.
    check(
        &mut other,
        "write_clipboard",
        json!({"text": "!"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "select_menu",
        json!({"app": "Editor", "menu": "Edit > Paste"}),
        false,
        &["value: \"Hello, world\" → \"Hello, world!\""],
    )
    .await;
    assert_eq!(app_text(&server, "Editor", "document"), "Hello, world!");
    // Form's text fields copy with cmd+a, cmd+c.
    check(
        &mut c,
        "set_value",
        json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": "Ada"}),
        false,
        &[],
    )
    .await;
    for key in ["cmd+a", "cmd+c"] {
        check(
            &mut c,
            "press_key",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "key": key}),
            false,
            &[],
        )
        .await;
    }
    check(&mut c, "read_clipboard", json!({}), false, &["Ada"]).await;
    // The secure field never copies.
    check(
        &mut c,
        "type_text",
        json!({"app": "Form", "target": "window[0]/secure_text_field[0]", "text": "s3cret"}),
        false,
        &[],
    )
    .await;
    for key in ["cmd+a", "cmd+c"] {
        check(
            &mut c,
            "press_key",
            json!({"app": "Form", "target": "window[0]/secure_text_field[0]", "key": key}),
            false,
            &[],
        )
        .await;
    }
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
    assert_eq!(content.len(), 2, "{result}");
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
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
        sizes.push((w, h));
    }
    // A control's shot is smaller than its window's, and keeps the control's proportions.
    let (window, button, region) = (sizes[0], sizes[1], sizes[2]);
    assert!(button.0 < window.0 && button.1 < window.1, "{sizes:?}");
    assert!(button.0 > button.1, "Submit is wider than tall: {button:?}");
    assert!(region.0 > region.1, "the 200×100 region: {region:?}");
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "region": [0, 0, 0, 10]}),
            vec!["give `target`, or `region` [x, y, w, h] with a positive size, or neither"],
        ),
        (
            json!({"app": "Form", "region": [0, 0, 10, -1]}),
            vec!["with a positive size"],
        ),
        (
            json!({"app": "Form", "target": "window[0]", "region": [0, 0, 10, 10]}),
            vec!["give `target`, or `region`"],
        ),
        (
            json!({"app": "Form", "region": [0, 0, 10]}),
            vec!["invalid argument `region`"],
        ),
        (
            json!({"app": "Form", "target": ""}),
            vec!["application \"Form\"", "has no frame to capture"],
        ),
        (
            json!({"app": "Form", "target": "window[0]/button[\"Nope\"]"}),
            vec!["no element at window[0]/button[\"Nope\"]"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "screenshot", args, true, &needles).await;
    }
}

// ---------------------------------------------------------------------------------------
// Leases and the session

#[tokio::test]
async fn a_lease_blocks_other_sessions_changes_until_released() {
    let server = TestServer::start().await;
    let mut a = session(&server).await;
    let mut b = session(&server).await;
    let lease = check(
        &mut a,
        "lease_app",
        json!({"app": "Form", "seconds": 120}),
        false,
        &["Form is leased to this session until "],
    )
    .await;
    let until = lease["structuredContent"]["until"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(lease["structuredContent"]["pid"], 41001);
    assert!(
        humantime::parse_rfc3339(&until).is_ok(),
        "until is RFC 3339: {until}"
    );
    let refusal = format!(
        "Form is leased by another session until {until}; wait for the lease to end, or coordinate with its holder"
    );
    // Every change B tries is refused, and nothing happens.
    let changes: Vec<(&str, Value)> = vec![
        (
            "click",
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
        ),
        (
            "perform_action",
            json!({"app": "Form", "target": "window[0]/check_box[0]", "action": "press"}),
        ),
        (
            "focus",
            json!({"app": "Form", "target": "window[0]/text_field[0]"}),
        ),
        (
            "set_value",
            json!({"app": "Form", "target": "window[0]/text_field[0]", "value": "B"}),
        ),
        (
            "type_text",
            json!({"app": "Form", "target": "window[0]/text_field[0]", "text": "B"}),
        ),
        ("type_text", json!({"app": "Form", "text": "B"})),
        ("press_key", json!({"app": "Form", "key": "tab"})),
        (
            "select_option",
            json!({"app": "Form", "target": "window[0]/popup_button[0]", "option": "Blue"}),
        ),
        (
            "scroll",
            json!({"app": "Form", "target": "window[0]", "direction": "down"}),
        ),
        (
            "drag",
            json!({"app": "Form", "from": "window[0]/slider[0]", "to_x": 100, "to_y": 244}),
        ),
        (
            "window_action",
            json!({"app": "Form", "target": "window[0]", "action": "minimize"}),
        ),
        ("activate_app", json!({"app": "Form"})),
        ("quit_app", json!({"app": "Form"})),
        ("lease_app", json!({"app": "Form"})),
    ];
    for (tool, args) in changes {
        check(&mut b, tool, args, true, &[&refusal]).await;
    }
    assert!(server.demo.pid_of("Form").is_some());
    let status = server.demo.node_by_identifier("Form", "status").unwrap();
    assert_eq!(status.value, Some(AxValue::Text("Ready".into())));
    // B can still read, launch (activate) and use the clipboard.
    for (tool, args) in [
        (
            "get_element",
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
        ),
        ("get_tree", json!({"app": "Form"})),
        ("find", json!({"app": "Form", "role": "button"})),
        (
            "assert",
            json!({"app": "Form", "target": "window[0]/static_text[0]", "value": "Ready"}),
        ),
        ("screenshot", json!({"app": "Form"})),
        ("diff", json!({"app": "Form"})),
        ("write_clipboard", json!({"text": "b"})),
        ("launch_app", json!({"app": "Form"})),
    ] {
        check(&mut b, tool, args, false, &[]).await;
    }
    // Other apps are not leased.
    check(
        &mut b,
        "click",
        json!({"app": "Settings", "target": "window[0]/tab_group[0]/tab[\"Advanced\"]"}),
        false,
        &[],
    )
    .await;
    // The holder acts freely, and can extend its lease.
    check(
        &mut a,
        "click",
        json!({"app": "Form", "target": "window[0]/check_box[0]"}),
        false,
        &["value: \"false\" → \"true\""],
    )
    .await;
    check(
        &mut a,
        "lease_app",
        json!({"app": "41001", "seconds": 60}),
        false,
        &["Form is leased to this session until"],
    )
    .await;
    let info = check(
        &mut a,
        "session_info",
        json!({}),
        false,
        &["Form pid=41001 handles=", " leased until "],
    )
    .await;
    let form = info["structuredContent"]["connections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|conn| conn["app"] == "Form")
        .unwrap()
        .clone();
    assert!(form["leased_until"].is_string(), "{form}");
    // B's session_info shows no lease of its own.
    let info_b = check(&mut b, "session_info", json!({}), false, &[]).await;
    assert!(!text_of(&info_b).contains("leased"), "{info_b}");
    // Released, B may act.
    check(
        &mut a,
        "release_app",
        json!({"app": "Form"}),
        false,
        &["released Form"],
    )
    .await;
    let again = check(
        &mut a,
        "release_app",
        json!({"app": "Form"}),
        false,
        &["this session held no lease on Form"],
    )
    .await;
    assert_eq!(
        again["structuredContent"],
        json!({"app": "Form", "released": false})
    );
    check(
        &mut b,
        "click",
        json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
        false,
        &["(rung: press)"],
    )
    .await;
    assert_eq!(
        server
            .demo
            .node_by_identifier("Form", "status")
            .unwrap()
            .value,
        Some(AxValue::Text("Submitted: ".into()))
    );
    // Now B holds it, and A is refused.
    check(
        &mut b,
        "lease_app",
        json!({"app": "Form", "seconds": 1}),
        false,
        &[],
    )
    .await;
    check(
        &mut a,
        "click",
        json!({"app": "Form", "target": "window[0]/button[0]"}),
        true,
        &["Form is leased by another session until"],
    )
    .await;
    // A lease expires by itself.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    check(
        &mut a,
        "perform_action",
        json!({"app": "Form", "target": "window[0]/slider[0]", "action": "increment"}),
        false,
        &[],
    )
    .await;
    for (args, needle) in [
        (
            json!({"app": "Form", "seconds": 0}),
            "invalid argument `seconds`: 1 to 3600",
        ),
        (
            json!({"app": "Form", "seconds": 3601}),
            "invalid argument `seconds`: 1 to 3600",
        ),
        (
            json!({"app": "Photoshop"}),
            "no running app matches \"Photoshop\"",
        ),
    ] {
        check(&mut a, "lease_app", args, true, &[needle]).await;
    }
}

#[tokio::test]
async fn session_info_reports_connections_and_handles() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let r = check(&mut c, "session_info", json!({}), false, &["backend: demo"]).await;
    assert_eq!(
        r["structuredContent"],
        json!({"backend": "demo", "connections": []})
    );
    check(&mut c, "get_tree", json!({"app": "Form"}), false, &[]).await;
    check(
        &mut c,
        "find",
        json!({"app": "List", "role": "list_item", "max_results": 5}),
        false,
        &[],
    )
    .await;
    let r = check(
        &mut c,
        "session_info",
        json!({}),
        false,
        &["Form pid=41001 handles=13", "List pid=41006 handles=5"],
    )
    .await;
    let mut conns: Vec<(String, u64, u64, bool)> = r["structuredContent"]["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["app"].as_str().unwrap().to_owned(),
                c["pid"].as_u64().unwrap(),
                c["handles"].as_u64().unwrap(),
                c["unresponsive"].as_bool().unwrap(),
            )
        })
        .collect();
    conns.sort();
    assert_eq!(
        conns,
        [
            ("Form".to_owned(), 41001, 13, false),
            ("List".to_owned(), 41006, 5, false)
        ]
    );
    // Sessions are separate.
    let mut other = session(&server).await;
    let r = check(&mut other, "session_info", json!({}), false, &[]).await;
    assert_eq!(r["structuredContent"]["connections"], json!([]));
    check(
        &mut c,
        "session_info",
        json!({"verbose": true}),
        true,
        &["unexpected argument `verbose`: this tool takes none"],
    )
    .await;
}
