//! The replay backend over real recordings made on real Macs by others
//! (`../shared/data/recorded-trees/macos/`, turned into `axgate-recording/1` by `loaders`):
//! what a user sees over MCP (HTTP, a port-0 listener, `backend.kind = "replay"` with
//! `backend.recording`) when the macOS decoding, naming, role mapping and walk read them.
//! Where a recording lacks an attribute, the test says so rather than inventing it.

mod loaders;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::support::{self, CONTRACT_CONTROLS, Client, Served, check, text_of};
use loaders::{AEROSPACE_PID, CHROMIUM_PID};

/// A server replaying `recording` (written to a file and named by `backend.recording`, as
/// `axgate serve --backend replay --recording FILE` does) and a client with a session.
async fn replay(recording: &Value) -> (Served, Client, tempfile::TempDir) {
    let (served, client, dir, _) = replay_backend(recording).await;
    (served, client, dir)
}

/// [`replay`], with the backend itself, for what the MCP wire does not show yet:
/// `list_windows` reports a window's raw `title` field, and the linked title is the
/// backend's `WindowInfo::title` (and the window's name) until the wire shows names.
async fn replay_backend(
    recording: &Value,
) -> (
    Served,
    Client,
    tempfile::TempDir,
    Arc<dyn axgate::ax::Backend>,
) {
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
    (served, client, dir, selected.backend)
}

/// The window titles the backend lists for `pid`.
fn window_titles(backend: &dyn axgate::ax::Backend, pid: u32) -> Vec<Option<String>> {
    let mut ctx =
        axgate::ax::CallCtx::new(std::time::Instant::now() + std::time::Duration::from_secs(5));
    backend
        .list_windows(pid, &mut ctx)
        .expect("list_windows")
        .into_iter()
        .map(|w| w.title)
        .collect()
}

/// Presses (`perform_action`) the button `find` finds by `text`, by its handle.
async fn press_found(c: &mut Client, app: Value, text: &str) -> Value {
    let found = check(
        c,
        "find",
        json!({"app": app, "role": "button", "text": text, "mode": "exact"}),
        false,
        &[],
    )
    .await;
    let handle = matches(&found)[0]["handle"]
        .as_str()
        .unwrap_or_else(|| panic!("a handle: {found}"))
        .to_owned();
    c.call(
        "perform_action",
        json!({"app": app, "target": handle, "action": "press"}),
    )
    .await
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
        json!({"app": 500, "depth": 30}),
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
    let press = press_found(&mut c, json!(500), "Settings").await;
    let text = text_of(&press);
    assert_eq!(press["isError"], true, "{press}");
    assert!(text.contains("replay backend"), "{text}");
}

#[tokio::test]
async fn window_titles_come_from_the_title_or_the_linked_title_element() {
    let dumps = loaders::aerospace();
    assert_eq!(dumps.len(), 77);
    let (_served, mut c, _dir, backend) = replay_backend(&loaders::aerospace_all()).await;
    let listed_pids = visible_pids(&mut c).await;
    let mut untitled_with_link = Vec::new();
    for (i, (stem, one)) in dumps.iter().enumerate() {
        let window = &one["apps"][0]["root"]["children"][0]["attributes"];
        let pid = AEROSPACE_PID + i as u32;
        let hidden = !listed_pids.contains(&u64::from(pid));
        let listed = window_titles(&*backend, pid);
        if hidden {
            // Hidden from the tools by the default app rules; the backend still lists it.
            assert_eq!(listed.len(), 1, "{stem}");
        }
        let listed_mcp = if hidden {
            None
        } else {
            Some(c.call("list_windows", json!({"app": pid})).await)
        };
        if let Some(mcp) = &listed_mcp {
            assert_eq!(mcp["isError"], false, "{stem}: {mcp}");
            let windows = mcp["structuredContent"]["windows"].as_array();
            // One Control Center element was recorded with no role at all: not a window.
            let expected = usize::from(window["AXRole"] == "AXWindow");
            assert_eq!(windows.map(Vec::len), Some(expected), "{stem}: {mcp}");
        }
        match window["AXTitle"].as_str() {
            Some(title) if !title.is_empty() => {
                if let Some(mcp) = &listed_mcp {
                    assert_eq!(
                        mcp["structuredContent"]["windows"][0]["title"], title,
                        "{stem}"
                    );
                }
                assert_eq!(listed, [Some(title.to_owned())], "{stem}");
            }
            _ if window.get("AXTitleUIElement").is_some_and(|v| !v.is_null()) => {
                // The dump links the title element but never recorded its text (`title=nil`
                // and no AXValue), so the visible title cannot be resolved from this data:
                // the link is followed and finds nothing to name the window by.
                assert_eq!(listed, [None], "{stem}");
                untitled_with_link.push(stem.as_str());
            }
            _ => assert_eq!(listed, [None], "{stem}"),
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
    // What the `AXZoomButton` attribute returned, per window: the README's counts.
    let green: Vec<Option<&str>> = dumps
        .iter()
        .map(|(_, one)| {
            let window = &one["apps"][0]["root"]["children"][0];
            let id = window["attributes"]["AXZoomButton"]["ref"].as_str()?;
            let button = window["children"]
                .as_array()?
                .iter()
                .find(|b| b["id"] == id)?;
            button["attributes"]["AXSubrole"].as_str()
        })
        .collect();
    let count = |s: &str| green.iter().filter(|g| **g == Some(s)).count();
    assert_eq!(
        (count("AXFullScreenButton"), count("AXZoomButton")),
        (29, 19)
    );
    let (_served, mut c, _dir) = replay(&loaders::aerospace_all()).await;
    let listed = visible_pids(&mut c).await;
    let mut checked = 0;
    for (i, ((stem, _), subrole)) in dumps.iter().zip(&green).enumerate() {
        let pid = AEROSPACE_PID + i as u32;
        let Some(subrole) = subrole else { continue };
        if !listed.contains(&u64::from(pid)) {
            continue;
        }
        let buttons = check(
            &mut c,
            "find",
            json!({"app": pid, "role": "button"}),
            false,
            &[],
        )
        .await;
        let mut subroles = Vec::new();
        for b in matches(&buttons) {
            let path = b["path"].as_str().expect("path");
            let element = c
                .call("get_element", json!({"app": pid, "target": path}))
                .await;
            subroles.push(
                element["structuredContent"]["subrole"]
                    .as_str()
                    .map(str::to_owned),
            );
        }
        assert!(
            subroles.contains(&Some((*subrole).to_owned())),
            "{stem}: the green button ({subrole}) is among the window's buttons: {subroles:?}"
        );
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} windows were checked");
}

/// The pids `list_apps` shows (the default app rules hide password managers and terminals).
async fn visible_pids(c: &mut Client) -> Vec<u64> {
    let apps = check(c, "list_apps", json!({}), false, &[]).await;
    apps["structuredContent"]["apps"]
        .as_array()
        .expect("apps")
        .iter()
        .filter_map(|a| a["pid"].as_u64())
        .collect()
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

/// The complete example of docs/RECORDINGS.md, as written there: a hand-written recording
/// served as the doc says it is.
fn doc_example() -> Value {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/RECORDINGS.md"))
        .expect("docs/RECORDINGS.md");
    let section = doc
        .split("## A complete example")
        .nth(1)
        .expect("the example section");
    let block = section
        .split("```json\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("its JSON block");
    serde_json::from_str(block).expect("the example is valid JSON")
}

#[tokio::test]
async fn the_documented_example_serves_as_the_doc_says() {
    let (_served, mut c, _dir, backend) = replay_backend(&doc_example()).await;
    assert_eq!(
        window_titles(&*backend, 4242),
        [Some("Account".to_owned())],
        "the linked title element's value"
    );
    check(
        &mut c,
        "get_tree",
        json!({"app": "Example"}),
        false,
        &[
            "[window] \"Account\"",
            "[text_field] \"you@example.com\"",
            "[button] \"Sign In\"",
        ],
    )
    .await;
    // The field is named by its placeholder only: `find` by name (h-naming) will match it;
    // today `text` does not look at placeholders, so the compact tree above pins the name.
    let secure = check(
        &mut c,
        "find",
        json!({"app": 4242, "role": "secure_text_field"}),
        false,
        &["[secure_text_field] \"Password\""],
    )
    .await;
    assert!(matches(&secure)[0].get("value").is_none());
    let press = press_found(&mut c, json!(4242), "Sign In").await;
    assert_eq!(press["isError"], true, "{press}");
    assert!(
        text_of(&press).contains("the replay backend cannot"),
        "{press}"
    );
}

/// The contract suite's macOS app as its Swift source (`tests/contract/macos/ContractApp.swift`)
/// declares it, written by hand as a recording (`tests/recordings/contract-app.json`): labels
/// set with `setAccessibilityLabel` are `AXDescription`, the Name field is named only by the
/// static text its `AXTitleUIElement` links, the password (an `AXSecureTextField`) only by
/// its `AXPlaceholderValue`, the status label by its value, the Items table view is an
/// `AXTable` whose role description is "list". Frames are approximations of its stack
/// layout, not measured. The contract suite replays it too (`tests/contract/replay.rs`).
const CONTRACT_APP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/recordings/contract-app.json"
);

#[tokio::test]
async fn the_contract_apps_controls_are_found_by_the_names_the_contracts_use() {
    let recording: Value =
        serde_json::from_str(&std::fs::read_to_string(CONTRACT_APP).expect("contract recording"))
            .expect("JSON");
    let (_served, mut c, _dir) = replay(&recording).await;
    // The contract suite's controls (`CONTRACT_CONTROLS`), each once, named as a
    // person reads it: Volume and Items by AXDescription only, Name by its linked label,
    // Password by its placeholder.
    for (role, name) in CONTRACT_CONTROLS {
        let found = check(
            &mut c,
            "find",
            json!({"app": "ContractApp", "role": role, "text": name, "mode": "exact"}),
            false,
            &[&format!("[{role}] {name:?}")],
        )
        .await;
        assert_eq!(matches(&found).len(), 1, "one {role} {name:?}: {found}");
    }
    check(
        &mut c,
        "find",
        json!({"app": "ContractApp", "role": "static_text", "text": "Ready", "mode": "exact"}),
        false,
        &["[static_text] \"Ready\""],
    )
    .await;
    let secure = check(
        &mut c,
        "find",
        json!({"app": "ContractApp", "role": "secure_text_field"}),
        false,
        &[],
    )
    .await;
    assert!(matches(&secure)[0].get("value").is_none(), "{secure}");
    // Where each name came from: the raw fields stay as recorded.
    for (path, title, description, placeholder) in [
        ("window[0]/group[0]/text_field[0]", None, None, None),
        (
            "window[0]/group[0]/secure_text_field[0]",
            None,
            None,
            Some("Password"),
        ),
        ("window[0]/group[0]/slider[0]", None, Some("Volume"), None),
        (
            "window[0]/group[0]/check_box[0]",
            Some("Subscribe"),
            None,
            None,
        ),
    ] {
        let got = check(
            &mut c,
            "get_element",
            json!({"app": "ContractApp", "target": path}),
            false,
            &[],
        )
        .await;
        let element = &got["structuredContent"]["element"];
        assert_eq!(element["title"].as_str(), title, "{element}");
        assert_eq!(element["description"].as_str(), description, "{element}");
        assert_eq!(element["placeholder"].as_str(), placeholder, "{element}");
        assert!(element["name"].is_string(), "{element}");
    }
    check(
        &mut c,
        "get_tree",
        json!({"app": "ContractApp"}),
        false,
        &[
            "[window] \"Contract\"",
            "[menu_bar_item] \"Edit\"",
            "disabled",
        ],
    )
    .await;
    let rows = check(
        &mut c,
        "find",
        json!({"app": "ContractApp", "role": "row"}),
        false,
        &[],
    )
    .await;
    assert_eq!(matches(&rows).len(), 3, "Alpha, Beta, Gamma");
}
