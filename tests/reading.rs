//! The reading and inspecting tool families end to end over MCP on the demo backend:
//! `get_tree` (filters, depth, cursor continuation, deadline), `find` (modes, fields, case,
//! root, bad patterns), `get_element` (attributes and what is settable), `get_focused` and
//! `element_at`. Reading never changes an app, so most tests share one server per test.

mod support;

use std::collections::HashSet;

use serde_json::{Value, json};
use support::{TestServer, check, session, text_of};

fn nodes(result: &Value) -> Vec<Value> {
    result["structuredContent"]["nodes"]
        .as_array()
        .unwrap_or_else(|| panic!("no nodes: {result}"))
        .clone()
}

fn field<'a>(list: &'a [Value], key: &str) -> Vec<&'a str> {
    list.iter().map(|n| n[key].as_str().unwrap_or("")).collect()
}

/// (app, filter arguments, the roles shown nodes may have, titles shown, titles not shown)
type FilterCase<'a> = (&'a str, Value, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>);

/// (target, role, native role, settable, text needles)
type ElementCase<'a> = (&'a str, &'a str, &'a str, Vec<&'a str>, Vec<&'a str>);

fn matches(result: &Value) -> Vec<Value> {
    result["structuredContent"]["matches"]
        .as_array()
        .unwrap_or_else(|| panic!("no matches: {result}"))
        .clone()
}

// ---------------------------------------------------------------------------------------
// get_tree

#[tokio::test]
async fn get_tree_filters_by_role_visibility_and_interactivity() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (app, filter arguments, every shown node's role must be one of these, titles that
    // must show, titles that must not)
    let cases: Vec<FilterCase> = vec![
        (
            "Form",
            json!({"roles": ["button"]}),
            vec!["button"],
            vec!["Submit", "Clear", "Disabled Action", "Stubborn"],
            vec!["Demo Form", "Name"],
        ),
        (
            "Form",
            json!({"roles": ["text_field", "secure_text_field"]}),
            vec!["text_field", "secure_text_field"],
            vec!["Name", "Email", "Password"],
            vec!["Submit"],
        ),
        (
            "Form",
            json!({"interactive_only": true}),
            vec![
                "button",
                "check_box",
                "text_field",
                "secure_text_field",
                "slider",
                "popup_button",
            ],
            vec!["Name", "Subscribe", "Volume", "Color", "Stubborn"],
            vec!["Demo Form", "Status", "Form"],
        ),
        (
            "Settings",
            json!({"roles": ["tab", "radio_button"]}),
            vec!["tab", "radio_button"],
            vec!["General", "Advanced", "Light", "Dark", "Auto"],
            vec!["Theme"],
        ),
        // Only ten of the List's 200 rows are on screen.
        (
            "List",
            json!({"visible_only": true, "roles": ["list_item"]}),
            vec!["list_item"],
            vec!["Row 1", "Row 10"],
            vec!["Row 11", "Row 200"],
        ),
    ];
    for (app, filter, roles, shown, hidden) in cases {
        let mut args = filter.clone();
        args["app"] = json!(app);
        let r = check(&mut c, "get_tree", args.clone(), false, &[]).await;
        let list = nodes(&r);
        assert!(!list.is_empty(), "{args}: nothing shown");
        for n in &list {
            let role = n["role"].as_str().unwrap();
            assert!(roles.contains(&role), "{args}: {role} shown: {n}");
            if filter["visible_only"] == true {
                assert!(n["frame"].is_object() || n["role"] == "application", "{n}");
            }
        }
        let titles = field(&list, "title");
        for t in shown {
            assert!(titles.contains(&t), "{args}: {t:?} missing from {titles:?}");
        }
        for t in hidden {
            assert!(!titles.contains(&t), "{args}: {t:?} shown in {titles:?}");
        }
        // The text lists exactly the shown nodes.
        assert_eq!(
            text_of(&r).lines().filter(|l| l.contains('[')).count(),
            list.len()
        );
    }
    // The walk still goes through filtered-out roles: the buttons sit in the window.
    let r = check(
        &mut c,
        "get_tree",
        json!({"app": "Form", "roles": ["button"]}),
        false,
        &[],
    )
    .await;
    assert_eq!(
        field(&nodes(&r), "path"),
        [
            "window[0]/button[0]",
            "window[0]/button[1]",
            "window[0]/button[2]",
            "window[0]/button[3]"
        ]
    );
    check(
        &mut c,
        "get_tree",
        json!({"app": "Form", "roles": ["widget"]}),
        true,
        &[
            "invalid argument `roles`",
            "unknown role \"widget\"",
            "check_box",
        ],
    )
    .await;
}

/// A control inside a hidden panel is not visible to anyone looking at the screen, so
/// `visible_only` must leave it out (as `element_at` and pointer clicks already do).
#[tokio::test]
async fn get_tree_visible_only_leaves_out_the_contents_of_hidden_panels() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let r = check(
        &mut c,
        "get_tree",
        json!({"app": "Settings", "visible_only": true}),
        false,
        &[],
    )
    .await;
    let list = nodes(&r);
    // The hidden panel itself is left out, the visible one shown.
    let groups: Vec<&str> = list
        .iter()
        .filter(|n| n["role"] == "group")
        .map(|n| n["title"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(groups, ["General"]);
    let titles: Vec<String> = list
        .iter()
        .map(|n| n["title"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(titles.iter().any(|t| t == "Launch at login"), "{titles:?}");
    assert!(
        !titles.iter().any(|t| t == "Proxy" || t == "Reset"),
        "controls of the hidden Advanced panel are shown as visible: {titles:?}"
    );
    // The same for the items of Editor's closed menus.
    let r = check(
        &mut c,
        "get_tree",
        json!({"app": "Editor", "visible_only": true}),
        false,
        &[],
    )
    .await;
    let titles: Vec<String> = nodes(&r)
        .iter()
        .map(|n| n["title"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(
        !titles.iter().any(|t| t == "Save As…" || t == "Select All"),
        "items of closed menus are shown as visible: {titles:?}"
    );
}

#[tokio::test]
async fn get_tree_cursor_continues_without_overlap_or_gaps() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // Huge has 20,203 elements: pages of 100 never reach the end.
    let page = |cursor: Option<&str>| {
        let mut args = json!({"app": "Huge", "depth": 64, "max_nodes": 100});
        if let Some(cur) = cursor {
            args["cursor"] = json!(cur);
        }
        args
    };
    let first = check(
        &mut c,
        "get_tree",
        page(None),
        false,
        &["budget or deadline reached: pass next_cursor as `cursor` to continue"],
    )
    .await;
    let out = &first["structuredContent"];
    assert_eq!(out["truncated"], true);
    assert_eq!(out["walked"], 100);
    let cursor = out["next_cursor"].as_str().expect("a cursor").to_owned();
    let second = check(&mut c, "get_tree", page(Some(&cursor)), false, &[]).await;
    let out2 = &second["structuredContent"];
    assert_eq!(out2["walked"], 100, "{out2}");
    let cursor2 = out2["next_cursor"].as_str().expect("another cursor");
    assert_ne!(cursor2, cursor);
    let (a, b) = (nodes(&first), nodes(&second));
    let pa: Vec<&str> = field(&a, "path");
    let pb: Vec<&str> = field(&b, "path");
    assert_eq!(pa.len(), 100);
    assert_eq!(pb.len(), 100);
    let seen: HashSet<&str> = pa.iter().copied().collect();
    assert!(pb.iter().all(|p| !seen.contains(p)), "pages overlap");
    // Together the two pages are exactly the first 200 nodes of one walk.
    let whole = check(
        &mut c,
        "get_tree",
        json!({"app": "Huge", "depth": 64, "max_nodes": 200}),
        false,
        &[],
    )
    .await;
    let all = nodes(&whole);
    let joined: Vec<&str> = pa.iter().chain(pb.iter()).copied().collect();
    assert_eq!(joined, field(&all, "path"));
    // Handles are stable across pages of one session.
    assert_eq!(
        field(&b, "handle"),
        field(&all, "handle")[100..].to_vec(),
        "the same element keeps its handle"
    );
}

#[tokio::test]
async fn get_tree_cursor_ends_when_the_walk_is_complete() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // At depth 4 the List has 206 elements: three pages of 100.
    let mut cursor: Option<String> = None;
    let mut paths: Vec<String> = Vec::new();
    let mut pages = 0;
    loop {
        let mut args = json!({"app": "List", "depth": 4, "max_nodes": 100});
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let r = check(&mut c, "get_tree", args, false, &[]).await;
        pages += 1;
        paths.extend(
            nodes(&r)
                .iter()
                .map(|n| n["path"].as_str().unwrap().to_owned()),
        );
        cursor = r["structuredContent"]["next_cursor"]
            .as_str()
            .map(str::to_owned);
        if cursor.is_none() {
            // Cut by depth, not by the budget: the hint says so.
            assert!(
                text_of(&r).contains("deeper levels left out"),
                "{}",
                text_of(&r)
            );
            assert_eq!(r["structuredContent"]["walked"], 6, "{r}");
            break;
        }
        assert!(pages < 5, "the cursor never ended");
    }
    assert_eq!(pages, 3);
    let unique: HashSet<&String> = paths.iter().collect();
    assert_eq!(unique.len(), paths.len(), "no node twice");
    let whole = check(
        &mut c,
        "get_tree",
        json!({"app": "List", "depth": 4}),
        false,
        &[],
    )
    .await;
    assert!(
        whole["structuredContent"]
            .get("next_cursor")
            .is_none_or(Value::is_null)
    );
    assert_eq!(
        paths,
        field(&nodes(&whole), "path")
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    );
    // When everything fits there is no cursor and nothing is truncated.
    let form = check(&mut c, "get_tree", json!({"app": "Form"}), false, &[]).await;
    let out = &form["structuredContent"];
    assert_eq!(out["truncated"], false);
    assert!(out.get("next_cursor").is_none_or(Value::is_null), "{out}");
    assert_eq!(out["walked"], 13);
    let text = text_of(&form);
    assert!(
        !text.contains("next_cursor") && !text.contains("deeper levels"),
        "{text}"
    );
    // A cursor that was not handed out is refused.
    for bad in ["!!!", "bm90IGEgY3Vyc29y"] {
        check(
            &mut c,
            "get_tree",
            json!({"app": "Form", "cursor": bad}),
            true,
            &["invalid argument `cursor`", "next_cursor"],
        )
        .await;
    }
}

#[tokio::test]
async fn get_tree_root_depth_and_deadline_bound_the_walk() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // A root given as a path or as a handle.
    let r = check(
        &mut c,
        "get_tree",
        json!({"app": "Settings", "root": "window[0]/tab_group[0]/group[\"General\"]/radio_group[0]"}),
        false,
        &["[radio_group] \"Theme\"", "[radio_button] \"Dark\""],
    )
    .await;
    let list = nodes(&r);
    assert_eq!(list.len(), 4);
    assert_eq!(list[0]["depth"], 0);
    assert_eq!(list[1]["depth"], 1);
    let handle = list[0]["handle"].as_str().unwrap().to_owned();
    let again = check(
        &mut c,
        "get_tree",
        json!({"app": "Settings", "root": handle}),
        false,
        &[],
    )
    .await;
    assert_eq!(field(&nodes(&again), "path"), field(&list, "path"));
    // Depth 0 is the root alone, and says deeper levels were left out.
    let r = check(
        &mut c,
        "get_tree",
        json!({"app": "Form", "depth": 0}),
        false,
        &["deeper levels left out"],
    )
    .await;
    assert_eq!(nodes(&r).len(), 1);
    assert_eq!(r["structuredContent"]["truncated"], true);
    // A deadline cuts a big walk short and hands out a cursor (Huge is built first, so the
    // deadline bounds the walk, not the app's construction).
    check(
        &mut c,
        "get_tree",
        json!({"app": "Huge", "max_nodes": 10}),
        false,
        &[],
    )
    .await;
    for deadline_ms in [200] {
        let r = check(
            &mut c,
            "get_tree",
            json!({"app": "Huge", "depth": 64, "max_nodes": 20000, "deadline_ms": deadline_ms}),
            false,
            &["pass next_cursor as `cursor` to continue"],
        )
        .await;
        let out = &r["structuredContent"];
        assert_eq!(out["truncated"], true, "{deadline_ms} ms");
        assert!(out["next_cursor"].is_string(), "{deadline_ms} ms: {out}");
        assert!(out["walked"].as_u64().unwrap() <= 20000);
    }
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "depth": 65}),
            vec!["invalid argument `depth`: at most 64"],
        ),
        (
            json!({"app": "Form", "max_nodes": 20001}),
            vec!["invalid argument `max_nodes`: between 1 and 20000"],
        ),
        (
            json!({"app": "Form", "root": "window[3]"}),
            vec!["no element at window[3]", "window[0] \"Demo Form\""],
        ),
        (
            json!({"app": "Form", "root": "e4242"}),
            vec!["unknown handle e4242"],
        ),
        (
            json!({"app": "Form", "root": "window[0"}),
            vec!["invalid argument `root`", "bad element path"],
        ),
        (
            json!({"app": "Form", "deadline_ms": -1}),
            vec!["invalid argument `deadline_ms`"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "get_tree", args, true, &needles).await;
    }
}

/// `deadline_ms` is documented as "stop walking after this many ms": a deadline that is too
/// short for the whole walk cuts it short (truncated, with a cursor), it does not fail.
#[tokio::test]
async fn get_tree_a_tiny_deadline_truncates_instead_of_failing() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // Build Huge first, so the deadline bounds only the walk.
    check(
        &mut c,
        "get_tree",
        json!({"app": "Huge", "max_nodes": 10}),
        false,
        &[],
    )
    .await;
    let mut failures = Vec::new();
    for _ in 0..20 {
        let r = c
            .call(
                "get_tree",
                json!({"app": "Huge", "depth": 64, "max_nodes": 20000, "deadline_ms": 1}),
            )
            .await;
        if r["isError"] == true {
            failures.push(text_of(&r));
        } else {
            assert_eq!(r["structuredContent"]["truncated"], true, "{r}");
            assert!(r["structuredContent"]["next_cursor"].is_string(), "{r}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 20 walks with deadline_ms 1 failed instead of being cut short: {:?}",
        failures.len(),
        failures.first()
    );
}

// ---------------------------------------------------------------------------------------
// find

#[tokio::test]
async fn find_matches_by_mode_case_and_field() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (app, query, the titles (or, for untitled matches, paths) matched, in order)
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        ("Form", json!({"title": "SUB"}), vec!["Subscribe", "Submit"]),
        (
            "Form",
            json!({"title": "SUB", "case_sensitive": true}),
            vec![],
        ),
        (
            "Form",
            json!({"title": "Sub", "case_sensitive": true}),
            vec!["Subscribe", "Submit"],
        ),
        (
            "Form",
            json!({"title": "submit", "mode": "exact"}),
            vec!["Submit"],
        ),
        (
            "Form",
            json!({"title": "submit", "mode": "exact", "case_sensitive": true}),
            vec![],
        ),
        ("Form", json!({"title": "Sub", "mode": "exact"}), vec![]),
        (
            "Form",
            json!({"title": "^(Name|Email)$", "mode": "regex"}),
            vec!["Name", "Email"],
        ),
        (
            "Form",
            json!({"title": "a.+n", "mode": "regex"}),
            vec!["Disabled Action"],
        ),
        // Patterns are literal unless the mode is regex.
        ("Form", json!({"title": "a.+n"}), vec![]),
        ("Form", json!({"value": "red"}), vec!["Color"]),
        (
            "Form",
            json!({"value": "50", "mode": "exact"}),
            vec!["Volume"],
        ),
        (
            "Form",
            json!({"value": "false", "role": "check_box"}),
            vec!["Subscribe"],
        ),
        ("Form", json!({"identifier": "vol"}), vec!["Volume"]),
        (
            "Form",
            json!({"identifier": "^(name|email|password)$", "mode": "regex"}),
            vec!["Name", "Email", "Password"],
        ),
        // `text` looks at the description too.
        ("Form", json!({"text": "pointer click"}), vec!["Stubborn"]),
        ("Form", json!({"text": "ready"}), vec!["Status"]),
        (
            "Form",
            json!({"role": "text_field", "text": "e"}),
            vec!["Name", "Email"],
        ),
        (
            "Form",
            json!({"role": "button", "title": "s"}),
            vec!["Submit", "Disabled Action", "Stubborn"],
        ),
        (
            "Editor",
            json!({"role": "menu_item", "title": "save"}),
            vec!["Save", "Save As…"],
        ),
        // A root narrows the search to a subtree.
        (
            "Settings",
            json!({"role": "radio_button", "root": "window[0]/tab_group[0]/group[0]/radio_group[0]"}),
            vec!["Light", "Dark", "Auto"],
        ),
        (
            "Settings",
            json!({"title": "a", "root": "window[0]/tab_group[0]/group[\"Advanced\"]"}),
            vec!["Advanced"],
        ),
        (
            "List",
            json!({"title": "Row 1", "mode": "exact", "root": "window[0]/scroll_area[0]/list[0]"}),
            vec!["Row 1"],
        ),
        (
            "Huge",
            json!({"title": "Open 199.49", "mode": "exact"}),
            vec!["Open 199.49"],
        ),
        (
            "Huge",
            json!({"title": "Open 7.", "root": "window[0]/scroll_area[0]/group[7]", "max_results": 100}),
            vec![],
        ),
    ];
    for (app, query, want) in cases {
        let mut args = query.clone();
        args["app"] = json!(app);
        let r = check(&mut c, "find", args.clone(), false, &[]).await;
        let found = matches(&r);
        if app == "Huge" && query.get("root").is_some() {
            // Every Open 7.N button, and only those.
            assert_eq!(found.len(), 50, "{args}");
            assert!(
                found
                    .iter()
                    .all(|m| m["title"].as_str().unwrap().starts_with("Open 7."))
            );
            continue;
        }
        let titles = field(&found, "title");
        assert_eq!(titles, want, "{args}");
        if want.is_empty() {
            assert!(text_of(&r).contains("no match; call get_tree"), "{r}");
        }
        // Every match line ends with its path, and the handle resolves.
        for m in &found {
            let path = m["path"].as_str().unwrap();
            assert!(text_of(&r).contains(path), "{path} not in {}", text_of(&r));
            let handle = m["handle"].as_str().unwrap();
            let e = check(
                &mut c,
                "get_element",
                json!({"app": app, "target": handle}),
                false,
                &[],
            )
            .await;
            assert_eq!(e["structuredContent"]["element"]["path"], path);
        }
    }
    let huge = check(
        &mut c,
        "find",
        json!({"app": "Huge", "title": "Open 199.49", "mode": "exact"}),
        false,
        &["window[0]/scroll_area[0]/group[199]/button[49]"],
    )
    .await;
    assert_eq!(huge["structuredContent"]["searched"], 20203);
}

#[tokio::test]
async fn find_never_matches_a_secure_value() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    check(
        &mut c,
        "type_text",
        json!({"app": "Form", "target": "window[0]/secure_text_field[0]", "text": "hunter2"}),
        false,
        &[],
    )
    .await;
    let typed = server.demo.node_by_identifier("Form", "password").unwrap();
    assert_eq!(
        typed.value,
        Some(axgate::ax::AxValue::Text("hunter2".into()))
    );
    for query in [
        json!({"app": "Form", "value": "hunter2"}),
        json!({"app": "Form", "text": "hunter2"}),
        json!({"app": "Form", "value": "hunter", "mode": "regex"}),
        json!({"app": "Form", "value": ".", "mode": "regex", "role": "secure_text_field"}),
    ] {
        let r = check(&mut c, "find", query.clone(), false, &["no match"]).await;
        assert!(matches(&r).is_empty(), "{query}");
    }
    let r = check(
        &mut c,
        "find",
        json!({"app": "Form", "role": "secure_text_field"}),
        false,
        &["= •••"],
    )
    .await;
    assert!(!r.to_string().contains("hunter2"));
}

#[tokio::test]
async fn find_refuses_bad_patterns_naming_the_field() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"title": "(", "mode": "regex"}),
            vec!["invalid argument `title`: bad regex"],
        ),
        (
            json!({"text": "[a-", "mode": "regex"}),
            vec!["invalid argument `text`: bad regex"],
        ),
        (
            json!({"value": "a{2,1}", "mode": "regex"}),
            vec!["invalid argument `value`: bad regex"],
        ),
        (
            json!({"identifier": "*", "mode": "regex"}),
            vec!["invalid argument `identifier`: bad regex"],
        ),
        (
            json!({"title": "x", "mode": "fuzzy"}),
            vec!["invalid argument `mode`"],
        ),
        (
            json!({"role": "widget"}),
            vec!["invalid argument `role`", "unknown role \"widget\""],
        ),
        (
            json!({"title": "x", "max_results": 0}),
            vec!["invalid argument `max_results`: between 1 and 500"],
        ),
        (
            json!({"title": "x", "max_results": 501}),
            vec!["invalid argument `max_results`: between 1 and 500"],
        ),
        (
            json!({"mode": "regex"}),
            vec!["give at least one of `role`, `title`, `value`, `identifier` or `text`"],
        ),
        (
            json!({"title": "x", "root": "window[0]/list[0]"}),
            vec!["no element at window[0]/list[0]", "found here"],
        ),
    ];
    for (mut args, needles) in cases {
        args["app"] = json!("Form");
        check(&mut c, "find", args, true, &needles).await;
    }
    // The same characters are fine where patterns are literal.
    check(
        &mut c,
        "find",
        json!({"app": "Form", "title": "(", "mode": "contains"}),
        false,
        &["no match"],
    )
    .await;
    // More matches than max_results: truncated, with the total.
    let r = check(
        &mut c,
        "find",
        json!({"app": "List", "role": "list_item", "max_results": 3}),
        false,
        &["200 matches in all; narrow the query or raise max_results"],
    )
    .await;
    assert_eq!(matches(&r).len(), 3);
    assert_eq!(r["structuredContent"]["truncated"], true);
}

// ---------------------------------------------------------------------------------------
// get_element, get_focused, element_at

#[tokio::test]
async fn get_element_reports_attributes_and_what_is_settable() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
        let r = check(
            &mut c,
            "get_element",
            json!({"app": "Form", "target": target}),
            false,
            &needles,
        )
        .await;
        let out = &r["structuredContent"];
        assert_eq!(out["element"]["role"], role, "{target}");
        assert_eq!(out["element"]["native_role"], native, "{target}");
        assert_eq!(out["element"]["path"], target, "{target}");
        assert_eq!(out["settable"], json!(settable), "{target}");
        assert_eq!(out["visible"], true, "{target}");
    }
    let slider = check(
        &mut c,
        "get_element",
        json!({"app": "Form", "target": "window[0]/slider[0]"}),
        false,
        &[],
    )
    .await;
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
    let password = check(
        &mut c,
        "get_element",
        json!({"app": "Form", "target": "window[0]/secure_text_field[0]"}),
        false,
        &[],
    )
    .await;
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
    let disabled = check(
        &mut c,
        "get_element",
        json!({"app": "Form", "target": "window[0]/button[2]"}),
        false,
        &["disabled"],
    )
    .await;
    assert_eq!(disabled["structuredContent"]["element"]["enabled"], false);
    // Selected and hidden states (Settings' General tab is selected, Advanced hidden).
    let tab = check(
        &mut c,
        "get_element",
        json!({"app": "Settings", "target": "window[0]/tab_group[0]/tab[\"General\"]"}),
        false,
        &[],
    )
    .await;
    assert_eq!(tab["structuredContent"]["selected"], true);
    let panel = check(
        &mut c,
        "get_element",
        json!({"app": "Settings", "target": "window[0]/tab_group[0]/group[\"Advanced\"]"}),
        false,
        &[],
    )
    .await;
    assert_eq!(panel["structuredContent"]["visible"], false);
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "target": "window[0]/slider[\"Bass\"]"}),
            vec![
                "no element at window[0]/slider[\"Bass\"]",
                "slider[0] \"Volume\"",
            ],
        ),
        (
            json!({"app": "Form", "target": "e77777"}),
            vec!["unknown handle e77777"],
        ),
        (json!({"app": "Form"}), vec!["missing field `target`"]),
        (
            json!({"app": "Nope", "target": "window[0]"}),
            vec!["no running app matches \"Nope\"", "Form (pid 41001)"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "get_element", args, true, &needles).await;
    }
}

#[tokio::test]
async fn get_focused_follows_focus() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
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
        check(
            &mut c,
            "focus",
            json!({"app": "Form", "target": target}),
            false,
            &[],
        )
        .await;
        let r = check(
            &mut c,
            "get_focused",
            json!({"app": "Form"}),
            false,
            &[&format!("path: {path}"), "focused"],
        )
        .await;
        assert_eq!(r["structuredContent"]["element"]["role"], role);
        assert_eq!(r["structuredContent"]["element"]["path"], path);
    }
    // Editor's Save As dialog takes focus into its file name field.
    check(
        &mut c,
        "select_menu",
        json!({"app": "Editor", "menu": "File > Save As…"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "get_focused",
        json!({"app": "Editor"}),
        false,
        &[
            "[text_field] \"File name\"",
            "path: dialog[0]/text_field[0]",
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
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    // (app, target, the path element_at reports at the target's centre)
    let cases = [
        (
            "Form",
            r#"window[0]/button["Submit"]"#,
            "window[0]/button[0]",
        ),
        (
            "Form",
            r#"window[0]/button["Stubborn"]"#,
            "window[0]/button[3]",
        ),
        (
            "Form",
            r#"window[0]/slider["Volume"]"#,
            "window[0]/slider[0]",
        ),
        (
            "Form",
            "window[0]/secure_text_field[0]",
            "window[0]/secure_text_field[0]",
        ),
        (
            "Settings",
            r#"window[0]/tab_group[0]/group["General"]/radio_group[0]/radio_button["Dark"]"#,
            "window[0]/tab_group[0]/group[0]/radio_group[0]/radio_button[1]",
        ),
        // A row's centre lies on its text: the topmost element is the static text.
        (
            "List",
            "window[0]/scroll_area[0]/list[0]/list_item[3]",
            "window[0]/scroll_area[0]/list[0]/list_item[3]/static_text[0]",
        ),
    ];
    for (app, target, path) in cases {
        let e = check(
            &mut c,
            "get_element",
            json!({"app": app, "target": target}),
            false,
            &[],
        )
        .await;
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
    check(
        &mut c,
        "element_at",
        json!({"app": "Form", "x": 45, "y": 65}),
        false,
        &["[window] \"Demo Form\"", "path: window[0]"],
    )
    .await;
    // Rows scrolled out of view are not hit: below the viewport is nothing of the list.
    let r = check(
        &mut c,
        "element_at",
        json!({"app": "List", "x": 1500, "y": 870}),
        false,
        &[],
    )
    .await;
    assert_eq!(r["structuredContent"]["element"]["path"], "window[0]");
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"app": "Form", "x": 5, "y": 5}),
            vec!["no element of Form at (5, 5)"],
        ),
        (json!({"app": "Form", "x": 5}), vec!["missing field `y`"]),
        (
            json!({"app": "Form", "x": "left", "y": 5}),
            vec!["invalid argument `x`"],
        ),
    ];
    for (args, needles) in cases {
        check(&mut c, "element_at", args, true, &needles).await;
    }
}
