//! `find`: modes, case, fields, secure values and bad patterns.

use super::*;

#[tokio::test]
async fn find_matches_by_mode_case_and_field() {
    let (_server, mut c) = start_session().await;
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
            // The row, and the static text in it, whose name is its text.
            vec!["Row 1", "Row 1"],
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
        let titles = field(&found, "name");
        assert_eq!(titles, want, "{args}");
        if want.is_empty() {
            assert!(text_of(&r).contains("no match; call get_tree"), "{r}");
        }
        // Every match line ends with its path, and the handle resolves.
        for m in &found {
            let path = m["path"].as_str().unwrap();
            assert!(text_of(&r).contains(path), "{path} not in {}", text_of(&r));
            let handle = m["handle"].as_str().unwrap();
            let e = get_element(&mut c, app, handle, &[]).await;
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
    let (server, mut c) = start_session().await;
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
    let (_server, mut c) = start_session().await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"title": "(", "mode": "regex"}),
            vec!["invalid argument `name`: bad regex"],
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
            vec!["give at least one of `role`, `name`, `value`, `identifier` or `text`"],
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
    let r = steps(
        &mut c,
        &[
            (
                "find",
                json!({"app": "Form", "title": "(", "mode": "contains"}),
                &["no match"],
            ),
            // More matches than max_results: truncated, with the total.
            (
                "find",
                json!({"app": "List", "role": "list_item", "max_results": 3}),
                &["200 matches in all; narrow the query or raise max_results"],
            ),
        ],
    )
    .await;
    assert_eq!(matches(&r).len(), 3);
    assert_eq!(r["structuredContent"]["truncated"], true);
}
