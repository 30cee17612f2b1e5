//! The replay backend over real recordings made on real Macs by others
//! (`../shared/data/recorded-trees/macos/`, turned into `axgate-recording/1` by `loaders`):
//! what a user sees over MCP (HTTP, a port-0 listener, `backend.kind = "replay"` with
//! `backend.recording`) when the macOS decoding, naming, role mapping and walk read them.
//! Where a recording lacks an attribute, the test says so rather than inventing it.

mod loaders;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::support::{self, Client, Served, check, text_of};
use loaders::{AEROSPACE_PID, CHROMIUM_PID};

/// A server replaying `recording` (written to a file and named by `backend.recording`, as
/// `axgate serve --backend replay --recording FILE` does) and a client with a session.
async fn replay(recording: &Value) -> (Served, Client, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("recording.json");
    std::fs::write(&file, recording.to_string()).expect("write recording");
    let config = support::config(&format!(
        "[backend]\nkind = \"replay\"\nrecording = {:?}\n",
        file.display().to_string()
    ));
    let selected = axgate::platform::select(&config.backend).expect("the replay backend");
    assert_eq!(selected.backend.name(), "replay");
    let served = support::serve(config, Arc::clone(&selected.backend)).await;
    let mut client = support::client_for(&served.url);
    client.initialize().await;
    (served, client, dir)
}

fn matches(result: &Value) -> Vec<Value> {
    result["structuredContent"]["matches"]
        .as_array()
        .unwrap_or_else(|| panic!("no matches: {result}"))
        .clone()
}

/// The SwiftUI window's buttons named only by AXDescription (the recorder wrote no
/// AXTitle for any of them).
fn described_buttons(node: &Value, out: &mut Vec<String>) {
    let a = &node["attributes"];
    if a["AXRole"] == "AXButton"
        && let Some(d) = a["AXDescription"].as_str()
    {
        assert!(a["AXTitle"].as_str().is_none_or(str::is_empty), "{a}");
        out.push(d.to_owned());
    }
    for c in node["children"].as_array().into_iter().flatten() {
        described_buttons(c, out);
    }
}

#[tokio::test]
async fn every_named_swiftui_button_is_found_by_its_visible_name() {
    let recording = loaders::screen2ax();
    let mut names = Vec::new();
    described_buttons(&recording["apps"][0]["root"], &mut names);
    assert_eq!(
        names.len(),
        27,
        "27 buttons are named by AXDescription only"
    );
    let (_served, mut c, _dir) = replay(&recording).await;
    for name in &names {
        // `text` matches the name's source (AXDescription) today; `find` by name (h-naming)
        // will match the same buttons by their accessible name.
        let found = check(
            &mut c,
            "find",
            json!({"app": 500, "role": "button", "text": name, "mode": "exact"}),
            false,
            &[&format!("[button] {name:?}")],
        )
        .await;
        assert!(!matches(&found).is_empty(), "{name}");
    }
    // The compact tree shows the names too: that is the accessible name, not the title.
    let tree = check(
        &mut c,
        "get_tree",
        json!({"app": 500, "max_depth": 30}),
        false,
        &[
            "[button] \"New Chat\"",
            "[button] \"Hide Sidebar\"",
            "[popup_button] \"GPT-4o\"",
        ],
    )
    .await;
    assert!(text_of(&tree).contains("[static_text] \"Message\""));
}

#[tokio::test]
async fn the_swiftui_list_is_a_list_with_its_rows() {
    let (_served, mut c, _dir) = replay(&loaders::screen2ax()).await;
    let lists = check(
        &mut c,
        "find",
        json!({"app": 500, "role": "list"}),
        false,
        &[],
    )
    .await;
    let lists = matches(&lists);
    let table = lists
        .iter()
        .find(|n| n["native_role"] == "AXTable")
        .unwrap_or_else(|| panic!("the AXTable described as \"list\" is a list: {lists:?}"));
    let path = table["path"].as_str().expect("path");
    let rows = check(
        &mut c,
        "find",
        json!({"app": 500, "role": "row", "root": path}),
        false,
        &[],
    )
    .await;
    assert_eq!(matches(&rows).len(), 5, "the list's five rows");
    // The rows carry no name; their content does (the recording has none on rows or cells).
    check(
        &mut c,
        "find",
        json!({"app": 500, "role": "static_text", "text": "History", "root": path}),
        false,
        &["[static_text] \"History\""],
    )
    .await;
    // The sidebar is an outline of rows, not a list.
    check(
        &mut c,
        "find",
        json!({"app": 500, "role": "outline"}),
        false,
        &["[outline] \"Sidebar\""],
    )
    .await;
}

#[tokio::test]
async fn the_swiftui_window_lists_with_its_title_and_reads_no_act() {
    let (_served, mut c, _dir) = replay(&loaders::screen2ax()).await;
    check(&mut c, "list_apps", json!({}), false, &["AI Chat"]).await;
    check(
        &mut c,
        "list_windows",
        json!({"app": 500}),
        false,
        &["Chats"],
    )
    .await;
    let press = c
        .call(
            "press",
            json!({"app": 500, "target": "window[0]//button[\"Settings\"]"}),
        )
        .await;
    let text = text_of(&press);
    assert_eq!(press["isError"], true, "{press}");
    assert!(text.contains("replay backend"), "{text}");
}

#[tokio::test]
async fn window_titles_come_from_the_title_or_the_linked_title_element() {
    let dumps = loaders::aerospace();
    assert_eq!(dumps.len(), 77);
    let (_served, mut c, _dir) = replay(&loaders::aerospace_all()).await;
    let mut untitled_with_link = Vec::new();
    for (i, (stem, one)) in dumps.iter().enumerate() {
        let window = &one["apps"][0]["root"]["children"][0]["attributes"];
        let pid = AEROSPACE_PID + i as u32;
        let listed = c.call("list_windows", json!({"app": pid})).await;
        assert_eq!(listed["isError"], false, "{stem}: {listed}");
        let windows = listed["structuredContent"]["windows"]
            .as_array()
            .unwrap_or_else(|| panic!("{stem}: {listed}"))
            .clone();
        assert_eq!(windows.len(), 1, "{stem}");
        match window["AXTitle"].as_str() {
            Some(title) if !title.is_empty() => {
                assert_eq!(windows[0]["title"], title, "{stem}")
            }
            _ if window.get("AXTitleUIElement").is_some() => {
                // The dump links the title element but never recorded its text (`title=nil`
                // and no AXValue), so the visible title cannot be resolved from this data.
                assert!(windows[0].get("title").is_none_or(Value::is_null), "{stem}");
                untitled_with_link.push(stem.as_str());
            }
            _ => assert!(windows[0].get("title").is_none_or(Value::is_null), "{stem}"),
        }
    }
    assert_eq!(
        untitled_with_link,
        [
            "about_this_mac",
            "apple_followup_sign_in_to_a_new_device_confirmation",
            "choose_1_5_0",
            "nomachine_session_1",
            "nomachine_welcome_window_1",
            "system_settings"
        ]
    );
}

#[tokio::test]
async fn the_green_button_is_a_button_whatever_its_subrole() {
    let dumps = loaders::aerospace();
    let (_served, mut c, _dir) = replay(&loaders::aerospace_all()).await;
    let (mut full_screen, mut zoom) = (0, 0);
    for (i, (stem, _)) in dumps.iter().enumerate() {
        let pid = AEROSPACE_PID + i as u32;
        let buttons = c.call("find", json!({"app": pid, "role": "button"})).await;
        assert_eq!(buttons["isError"], false, "{stem}: {buttons}");
        for b in matches(&buttons) {
            let path = b["path"].as_str().expect("path");
            let element = c
                .call("get_element", json!({"app": pid, "target": path}))
                .await;
            match element["structuredContent"]["subrole"].as_str() {
                Some("AXFullScreenButton") => full_screen += 1,
                Some("AXZoomButton") => zoom += 1,
                _ => {}
            }
        }
    }
    // The README's counts: the green button is AXFullScreenButton on 29 windows and
    // AXZoomButton on 19; both are found as buttons of their window.
    assert_eq!((full_screen, zoom), (29, 19));
}

#[tokio::test]
async fn web_content_inputs_and_links_are_found_by_their_label() {
    let recording = loaders::chromium();
    let apps = recording["apps"].as_array().expect("apps");
    let pid_of = |name: &str| {
        apps.iter()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("no section {name}"))["pid"]
            .as_u64()
            .expect("pid")
    };
    assert!(pid_of("input-text") >= u64::from(CHROMIUM_PID));
    let (_served, mut c, _dir) = replay(&recording).await;
    // <input aria-label="Name" placeholder="Name">: AXDescription and AXPlaceholderValue,
    // no AXTitle (Chromium's filter printed no AXTitle for it).
    let field = check(
        &mut c,
        "find",
        json!({"app": pid_of("input-text"), "role": "text_field", "text": "Name", "mode": "exact"}),
        false,
        &["[text_field] \"Name\""],
    )
    .await;
    assert_eq!(matches(&field).len(), 1);
    // The link is named by AXDescription.
    let links = check(
        &mut c,
        "find",
        json!({"app": pid_of("a-name"), "role": "link"}),
        false,
        &[],
    )
    .await;
    let links = matches(&links);
    assert!(!links.is_empty());
    assert!(
        links.iter().all(|l| l["description"].is_string()),
        "{links:?}"
    );
}
