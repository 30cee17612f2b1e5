//! The first tool slice through MCP over HTTP against the demo apps: every tool, its
//! effects as seen from the app's side, and every error path as an `isError` result whose
//! text says what to do next.

use crate::support::{Client, TestServer, check, get_tree, session, start_session, text_of};
use serde_json::{Value, json};

#[tokio::test]
async fn tools_are_listed_with_annotations_and_schemas() {
    let (_server, mut c) = start_session().await;
    let list = c.request("tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 35, "{names:?}");
    let read_only: Vec<&str> = tools
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        read_only,
        [
            "list_apps",
            "list_windows",
            "get_tree",
            "find",
            "get_element",
            "get_focused",
            "element_at",
            "list_menus",
            "read_clipboard",
            "screenshot",
            "wait_for",
            "wait_idle",
            "assert",
            "diff",
            "session_info",
            "list_sessions"
        ]
    );
    for t in &tools {
        assert!(t["title"].is_string(), "{t}");
        assert_eq!(t["annotations"]["openWorldHint"], false, "{t}");
        if t["name"] != "screenshot" {
            assert!(t["outputSchema"]["type"] == "object", "{t}");
        }
        assert!(t["inputSchema"]["type"] == "object", "{t}");
    }
    let act = tools
        .iter()
        .find(|t| t["name"] == "perform_action")
        .unwrap();
    assert_ne!(act["annotations"]["readOnlyHint"], true);
    assert_eq!(
        act["inputSchema"]["required"],
        json!(["app", "target", "action"])
    );
}

#[tokio::test]
async fn discovery_tools() {
    let (_server, mut c) = start_session().await;
    let apps = check(
        &mut c,
        "list_apps",
        json!({}),
        false,
        &["Form", "Editor", "Huge", "Hung"],
    )
    .await;
    let form = &apps["structuredContent"]["apps"].as_array().unwrap()[0];
    assert_eq!(form["name"], "Form");
    let pid = form["pid"].as_u64().unwrap().to_string();
    // An app can be named by name, bundle id or pid: each names the Form's window.
    for app in ["form", "dev.axgate.demo.form", &pid] {
        let w = check(
            &mut c,
            "list_windows",
            json!({"app": app}),
            false,
            &["Demo Form"],
        )
        .await;
        let windows = &w["structuredContent"]["windows"];
        assert_eq!(windows[0]["path"], "window[0]", "{app}: {windows}");
    }
}

#[tokio::test]
async fn get_tree_is_bounded_and_carries_paths_and_handles() {
    let (_server, mut c) = start_session().await;
    let tree = get_tree(
        &mut c,
        json!({"app": "Form"}),
        &["[check_box] \"Subscribe\"", "press"],
    )
    .await;
    let nodes = tree["structuredContent"]["nodes"].as_array().unwrap();
    let subscribe = nodes.iter().find(|n| n["title"] == "Subscribe").unwrap();
    assert_eq!(subscribe["path"], "window[0]/check_box[0]");
    assert!(subscribe["handle"].as_str().unwrap().starts_with('e'));
    assert_eq!(subscribe["value"], false);
    let password = nodes
        .iter()
        .find(|n| n["role"] == "secure_text_field")
        .unwrap();
    assert!(
        password.get("value").is_none(),
        "secure values are never returned"
    );
    // The huge app is cut by the node budget, and says so.
    let huge = get_tree(
        &mut c,
        json!({"app": "Huge", "max_nodes": 100, "depth": 64}),
        &["next_cursor"],
    )
    .await;
    assert_eq!(huge["structuredContent"]["truncated"], true);
    assert!(huge["structuredContent"]["walked"].as_u64().unwrap() <= 100);
    assert!(huge["structuredContent"]["round_trips"].as_u64().unwrap() > 0);
    // Depth bounds the walk.
    let shallow = get_tree(&mut c, json!({"app": "Form", "depth": 1}), &[]).await;
    let max_depth = shallow["structuredContent"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["depth"].as_u64().unwrap())
        .max();
    assert_eq!(max_depth, Some(1));
    // A subtree from a root path.
    let sub = get_tree(
        &mut c,
        json!({"app": "Form", "root": "window[0]", "depth": 1}),
        &["Subscribe"],
    )
    .await;
    assert_eq!(sub["structuredContent"]["nodes"][0]["path"], "window[0]");
}

#[tokio::test]
async fn find_matches_role_title_and_text() {
    let (_server, mut c) = start_session().await;
    // (query, text the result shows, how many matches at least, the first match's path)
    let cases: &[(Value, &[&str], usize, Option<&str>)] = &[
        (
            json!({"app": "Form", "role": "button"}),
            &["Submit", "Clear"],
            4,
            None,
        ),
        (
            json!({"app": "Form", "title": "subscr"}),
            &["Subscribe"],
            0,
            Some("window[0]/check_box[0]"),
        ),
        (
            json!({"app": "Form", "text": "ready"}),
            &["Status"],
            0,
            None,
        ),
        (
            json!({"app": "Form", "title": "no such thing"}),
            &["no match"],
            0,
            None,
        ),
    ];
    for (args, expect, at_least, first) in cases {
        let r = check(&mut c, "find", args.clone(), false, expect).await;
        let found = &r["structuredContent"]["matches"];
        assert!(
            found.as_array().map_or(0, Vec::len) >= *at_least,
            "{args}: {r}"
        );
        if let Some(path) = first {
            assert_eq!(found[0]["path"], *path, "{args}: {r}");
        }
    }
    // More matches than max_results: cut, and said so.
    let many = check(
        &mut c,
        "find",
        json!({"app": "Huge", "role": "button", "max_results": 5}),
        false,
        &["matches in all"],
    )
    .await;
    let found = many["structuredContent"]["matches"].as_array().unwrap();
    assert_eq!(found.len(), 5, "{many}");
    assert_eq!(many["structuredContent"]["truncated"], true);
}

/// `perform_action` pressing `target` (a path or a handle) in the Form, through [`check`]:
/// whether it errs and what its text holds.
async fn press(c: &mut Client, target: &str, is_error: bool, expect: &[&str]) -> Value {
    let args = json!({"app": "Form", "target": target, "action": "press"});
    check(c, "perform_action", args, is_error, expect).await
}

/// The handle `find` gives for the Form's first element with `title` in its title.
async fn form_handle(c: &mut Client, title: &str) -> String {
    let found = c.call("find", json!({"app": "Form", "title": title})).await;
    found["structuredContent"]["matches"][0]["handle"]
        .as_str()
        .unwrap_or_else(|| panic!("no {title:?} in the Form: {found}"))
        .to_owned()
}

#[tokio::test]
async fn perform_action_acts_and_the_app_sees_it() {
    let (server, mut c) = start_session().await;
    let r = press(
        &mut c,
        r#"window[0]/check_box["Subscribe"]"#,
        false,
        &["press"],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["value"], true);
    let app_side = server.demo.node_by_identifier("Form", "subscribe").unwrap();
    assert_eq!(app_side.value, Some(axgate::ax::AxValue::Bool(true)));
    // A handle from find works as a target too.
    let handle = form_handle(&mut c, "Submit").await;
    press(&mut c, &handle, false, &[]).await;
    let status = server.demo.node_by_identifier("Form", "status").unwrap();
    assert!(
        matches!(status.value, Some(axgate::ax::AxValue::Text(ref s)) if s.starts_with("Submitted")),
        "{status:?}"
    );
    let tree = c.call("get_tree", json!({"app": "Form"})).await;
    assert!(text_of(&tree).contains("Submitted"));
}

#[tokio::test]
async fn errors_say_what_to_do_next() {
    let (_server, mut c) = start_session().await;
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "get_tree",
            json!({"app": "Safari"}),
            vec!["no running app matches", "Form", "list_apps"],
        ),
        (
            "get_tree",
            json!({"app": "Form", "depth": "deep"}),
            vec!["invalid argument `depth`"],
        ),
        ("get_tree", json!({}), vec!["missing field `app`"]),
        (
            "get_tree",
            json!({"app": "Form", "max_nodes": 0}),
            vec!["max_nodes"],
        ),
        (
            "get_tree",
            json!({"app": "Form", "bogus": 1}),
            vec!["bogus"],
        ),
        ("find", json!({"app": "Form"}), vec!["at least one of"]),
        (
            "find",
            json!({"app": "Form", "role": "widget"}),
            vec!["unknown role", "check_box"],
        ),
        (
            "perform_action",
            json!({"app": "Form", "target": "window[0]/button[\"Nope\"]", "action": "press"}),
            vec!["no element at", "button[0] \"Submit\"", "get_tree"],
        ),
        (
            "perform_action",
            json!({"app": "Form", "target": "window[0]/button[", "action": "press"}),
            vec!["bad element path"],
        ),
        (
            "perform_action",
            json!({"app": "Form", "target": "window[0]/button[\"Disabled Action\"]", "action": "press"}),
            vec!["disabled"],
        ),
        (
            "perform_action",
            json!({"app": "Form", "target": "window[0]/static_text[0]", "action": "press"}),
            vec!["does not support"],
        ),
        (
            "perform_action",
            json!({"app": "Form", "target": "e999", "action": "press"}),
            vec!["unknown handle", "find"],
        ),
    ];
    for (tool, args, needles) in cases {
        check(&mut c, tool, args, true, &needles).await;
    }
    let unknown = c
        .request("tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(
        unknown["error"]["code"], -32602,
        "an unknown tool is a protocol error: {unknown}"
    );
}

#[tokio::test]
async fn handles_are_per_session() {
    let server = TestServer::start().await;
    let mut a = session(&server).await;
    let mut b = session(&server).await;
    let handle = form_handle(&mut a, "Clear").await;
    press(&mut b, &handle, true, &["unknown handle"]).await;
}

#[tokio::test]
async fn an_app_may_be_named_by_its_pid_as_a_number_or_a_string() {
    let (_server, mut c) = start_session().await;
    for app in [json!(41001), json!("41001"), json!("Form")] {
        let args = json!({"app": app, "depth": 1});
        check(&mut c, "get_tree", args, false, &["Demo Form"]).await;
    }
    let refused = json!({"app": 0});
    check(
        &mut c,
        "get_tree",
        refused,
        true,
        &[
            "invalid argument `app`",
            "an app name, a bundle id, or a pid",
        ],
    )
    .await;
}
