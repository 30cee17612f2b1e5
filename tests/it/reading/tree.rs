//! `get_tree`: filters, cursors and the bounds of a walk.

use super::*;

#[tokio::test]
async fn get_tree_filters_by_role_visibility_and_interactivity() {
    let (_server, mut c) = start_session().await;
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
        let r = get_tree(&mut c, args.clone(), &[]).await;
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
    let r = get_tree(&mut c, json!({"app": "Form", "roles": ["button"]}), &[]).await;
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
    let (_server, mut c) = start_session().await;
    let r = get_tree(
        &mut c,
        json!({"app": "Settings", "visible_only": true}),
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
    let r = get_tree(&mut c, json!({"app": "Editor", "visible_only": true}), &[]).await;
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
    let (_server, mut c) = start_session().await;
    // Huge has 20,203 elements: pages of 100 never reach the end.
    let page = |cursor: Option<&str>| {
        let mut args = json!({"app": "Huge", "depth": 64, "max_nodes": 100});
        if let Some(cur) = cursor {
            args["cursor"] = json!(cur);
        }
        args
    };
    let first = get_tree(
        &mut c,
        page(None),
        &["budget or deadline reached: pass next_cursor as `cursor` to continue"],
    )
    .await;
    let out = &first["structuredContent"];
    assert_eq!(out["truncated"], true);
    assert_eq!(out["walked"], 100);
    let cursor = out["next_cursor"].as_str().expect("a cursor").to_owned();
    let second = get_tree(&mut c, page(Some(&cursor)), &[]).await;
    let out2 = &second["structuredContent"];
    assert_eq!(out2["walked"], 100, "{out2}");
    let cursor2 = out2["next_cursor"].as_str().expect("another cursor");
    assert_ne!(cursor2, cursor);
    let a = nodes(&first);
    let pa: Vec<&str> = field(&a, "path");
    assert_eq!(pa.len(), 100);
    let seen: HashSet<String> = pa.iter().map(|p| p.to_string()).collect();
    // The second page starts with its ancestors, then 100 new nodes.
    let b = continued(&seen, &nodes(&second));
    let pb: Vec<&str> = field(&b, "path");
    assert_eq!(pb.len(), 100);
    // Together the two pages are exactly the first 200 nodes of one walk.
    let whole = get_tree(
        &mut c,
        json!({"app": "Huge", "depth": 64, "max_nodes": 200}),
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
    let (_server, mut c) = start_session().await;
    // At depth 4 the List has 206 elements: three pages of 100.
    let mut cursor: Option<String> = None;
    let mut paths: Vec<String> = Vec::new();
    let mut pages = 0;
    loop {
        let mut args = json!({"app": "List", "depth": 4, "max_nodes": 100});
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let r = get_tree(&mut c, args, &[]).await;
        pages += 1;
        let page = if pages == 1 {
            nodes(&r)
        } else {
            continued(&paths.iter().cloned().collect(), &nodes(&r))
        };
        paths.extend(page.iter().map(|n| n["path"].as_str().unwrap().to_owned()));
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
    let whole = get_tree(&mut c, json!({"app": "List", "depth": 4}), &[]).await;
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
    let form = get_tree(&mut c, json!({"app": "Form"}), &[]).await;
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
    let (_server, mut c) = start_session().await;
    // A root given as a path or as a handle.
    let r = get_tree(&mut c, json!({"app": "Settings", "root": "window[0]/tab_group[0]/group[\"General\"]/radio_group[0]"}), &["[radio_group] \"Theme\"", "[radio_button] \"Dark\""]).await;
    let list = nodes(&r);
    assert_eq!(list.len(), 4);
    assert_eq!(list[0]["depth"], 0);
    assert_eq!(list[1]["depth"], 1);
    let handle = list[0]["handle"].as_str().unwrap().to_owned();
    let again = get_tree(&mut c, json!({"app": "Settings", "root": handle}), &[]).await;
    assert_eq!(field(&nodes(&again), "path"), field(&list, "path"));
    // Depth 0 is the root alone, and says deeper levels were left out.
    let r = get_tree(
        &mut c,
        json!({"app": "Form", "depth": 0}),
        &["deeper levels left out"],
    )
    .await;
    assert_eq!(nodes(&r).len(), 1);
    assert_eq!(r["structuredContent"]["truncated"], true);
    // A deadline cuts a big walk short and hands out a cursor (Huge is built first, so the
    // deadline bounds the walk, not the app's construction).
    get_tree(&mut c, json!({"app": "Huge", "max_nodes": 10}), &[]).await;
    for deadline_ms in [200] {
        let r = get_tree(
            &mut c,
            json!({"app": "Huge", "depth": 64, "max_nodes": 20000, "deadline_ms": deadline_ms}),
            &["pass next_cursor as `cursor` to continue"],
        )
        .await;
        let out = &r["structuredContent"];
        assert_eq!(out["truncated"], true, "{deadline_ms} ms");
        assert!(out["next_cursor"].is_string(), "{deadline_ms} ms: {out}");
        assert!(out["walked"].as_u64().unwrap() <= 20000);
    }
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"app": "Form", "depth": 65}),
            &["invalid argument `depth`: at most 64"],
        ),
        (
            json!({"app": "Form", "max_nodes": 20001}),
            &["invalid argument `max_nodes`: between 1 and 20000"],
        ),
        (
            json!({"app": "Form", "root": "window[3]"}),
            &["no element at window[3]", "window[0] \"Demo Form\""],
        ),
        (
            json!({"app": "Form", "root": "e4242"}),
            &["unknown handle e4242"],
        ),
        (
            json!({"app": "Form", "root": "window[0"}),
            &["invalid argument `root`", "bad element path"],
        ),
        (
            json!({"app": "Form", "deadline_ms": -1}),
            &["invalid argument `deadline_ms`"],
        ),
    ];
    refusals(&mut c, "get_tree", cases).await;
}

/// `deadline_ms` is documented as "stop walking after this many ms": a deadline that is too
/// short for the whole walk cuts it short (truncated, with a cursor), it does not fail.
#[tokio::test]
async fn get_tree_a_tiny_deadline_truncates_instead_of_failing() {
    let (_server, mut c) = start_session().await;
    // Build Huge first, so the deadline bounds only the walk.
    get_tree(&mut c, json!({"app": "Huge", "max_nodes": 10}), &[]).await;
    // Many rounds: the deadline may fall anywhere, also inside a read that then returns
    // nothing new (which once ended the page without a cursor, `truncated: false`).
    let mut failures = Vec::new();
    for _ in 0..200 {
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
        "{} of 200 walks with deadline_ms 1 failed instead of being cut short: {:?}",
        failures.len(),
        failures.first()
    );
}
