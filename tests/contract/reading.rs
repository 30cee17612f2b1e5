//! Contracts of reading: the tree has the contract app's shape (one window "Contract" holding
//! each control once, the menu bar, the disabled button disabled, no secure value), every path
//! `get_tree` shows resolves to the element it was shown for, `find` matches by role,
//! exact accessible name, regex and any text, and what only reads apps, windows and waits
//! (`list_apps`, `list_windows`, `wait_for` on what is there) answers without acting.

use serde_json::{Value, json};

use crate::run::{Run, Target};
use crate::support::CONTRACT_CONTROLS as CONTROLS;

fn named<'a>(nodes: &'a [Value], role: &str, title: &str) -> Vec<&'a Value> {
    nodes
        .iter()
        .filter(|n| n["role"] == role && n["name"] == title)
        .collect()
}

pub(crate) async fn tree_shape_and_paths(target: &impl Target) {
    let mut run = target.start("").await;
    let tree = run
        .ok(
            "get_tree",
            json!({"depth": 30, "max_nodes": 5000, "nodes": true}),
        )
        .await;
    assert_eq!(tree["truncated"], false, "{tree}");
    let nodes = tree["nodes"].as_array().expect("nodes").clone();
    let windows = named(&nodes, "window", "Contract");
    assert_eq!(windows.len(), 1, "one window \"Contract\": {tree}");
    let window_path = windows[0]["path"].as_str().expect("path").to_owned();
    for (role, title) in CONTROLS {
        let found = named(&nodes, role, title);
        assert_eq!(found.len(), 1, "one {role} {title:?} in the tree: {tree}");
        let path = found[0]["path"].as_str().expect("path");
        assert!(
            path.starts_with(&format!("{window_path}/")),
            "{role} {title:?} is inside the window: {path}"
        );
        assert_eq!(
            found[0]["enabled"],
            *title != "Disabled",
            "{role} {title:?}: {}",
            found[0]
        );
    }
    assert!(
        nodes.iter().any(|n| n["role"] == "menu_bar"),
        "a menu bar: {tree}"
    );
    let password = named(&nodes, "secure_text_field", "Password")[0];
    assert!(password["value"].is_null(), "{password}");

    // Every path shown resolves to the element it was shown for; so does every handle.
    for node in &nodes {
        let path = node["path"].as_str().expect("every node has a path");
        let by_path = run.element(path).await;
        for key in ["role", "name", "title", "native_role"] {
            assert_eq!(by_path[key], node[key], "{key} of {path}: {by_path}");
        }
        let handle = node["handle"].as_str().expect("every node has a handle");
        let by_handle = run.element(handle).await;
        assert_eq!(by_handle["path"], by_path["path"], "{handle}");
    }
}

pub(crate) async fn find(target: &impl Target) {
    let mut run = target.start("").await;
    let buttons = run.ok("find", json!({"role": "button"})).await;
    let mut titles: Vec<&str> = buttons["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    titles.sort_unstable();
    assert_eq!(titles, ["Clear", "Disabled", "Greet"], "{buttons}");

    for (role, title) in CONTROLS {
        let handle = run.handle(role, title).await;
        let element = run.element(&handle).await;
        assert_eq!(
            (element["role"].as_str(), element["name"].as_str()),
            (Some(*role), Some(*title))
        );
    }
    let regex = run
        .ok(
            "find",
            json!({"role": "button", "name": "^(greet|clear)$", "mode": "regex"}),
        )
        .await;
    assert_eq!(
        regex["matches"].as_array().map(Vec::len),
        Some(2),
        "{regex}"
    );
    // `text` matches the status label whether its text is its title or its value.
    let status = run
        .ok(
            "find",
            json!({"role": "static_text", "text": "Ready", "mode": "exact"}),
        )
        .await;
    assert_eq!(
        status["matches"].as_array().map(Vec::len),
        Some(1),
        "{status}"
    );
    let none = run
        .ok("find", json!({"name": "No Such Control", "mode": "exact"}))
        .await;
    assert_eq!(none["matches"], json!([]), "{none}");
}

pub(crate) async fn apps_windows_and_waits_read(target: &impl Target) {
    let mut run = target.start("").await;
    let apps = run.c.call("list_apps", json!({})).await;
    let listed = apps["structuredContent"]["apps"]
        .as_array()
        .expect("apps")
        .iter()
        .filter(|a| a["name"] == run.app.as_str())
        .count();
    assert_eq!(listed, 1, "the contract app, once: {apps}");
    let windows = run.ok("list_windows", json!({})).await;
    let window = &windows["windows"][0];
    assert_eq!(window["title"], "Contract", "{windows}");
    assert!(window["frame"]["w"].as_f64() > Some(0.0), "{windows}");

    // Waits on what is there hold at once; on what is not, time out naming it.
    waits_on_what_is_there_hold(&mut run).await;
    run.err(
        "wait_for",
        json!({"query": {"role": "button", "name": "Never Shown"}, "condition": "exists",
               "timeout_ms": 300}),
        &["timed out after 300 ms", "no such element"],
    )
    .await;
}

/// `wait_for` holds at once on what is there: the status label that says "Ready" exists and
/// the Disabled button is disabled (each within 2 s). Reading only: the waiting contracts
/// begin with it too.
pub(crate) async fn waits_on_what_is_there_hold(run: &mut Run) {
    let ready = run
        .ok(
            "wait_for",
            json!({"query": {"role": "static_text", "text": "Ready"}, "condition": "exists",
                   "timeout_ms": 2000}),
        )
        .await;
    assert_eq!(ready["satisfied"], true, "{ready}");
    let disabled = run.handle("button", "Disabled").await;
    let state = run
        .ok(
            "wait_for",
            json!({"target": disabled, "condition": "disabled", "timeout_ms": 2000}),
        )
        .await;
    assert_eq!(state["satisfied"], true, "{state}");
}
