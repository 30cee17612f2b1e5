//! Accessible names on the demo backend (docs/TOOLS.md, "Names"): elements named only by a
//! description, by a neighbouring label (`labelled_by`) or by a placeholder are found, shown
//! and addressed by that name; `find` can be asked for one raw field.

use super::*;

/// The Settings window's search strip: a description-only button, a field labelled by the
/// static text before it and a placeholder-only field.
const APP: &str = "Settings";

#[tokio::test]
async fn elements_are_found_by_the_name_a_person_sees() {
    let (_server, mut c) = start_session().await;
    // (find arguments, the name and identifier of the single match)
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({"role": "button", "name": "Search", "mode": "exact"}),
            "Search",
            "search_button",
        ),
        (
            json!({"role": "text_field", "name": "Account", "mode": "exact"}),
            "Account",
            "account",
        ),
        (
            json!({"role": "text_field", "name": "search settings"}),
            "Search settings",
            "search_field",
        ),
        // `title` is the old spelling of `name`: it matches the name too.
        (
            json!({"role": "button", "title": "Search", "mode": "exact"}),
            "Search",
            "search_button",
        ),
    ];
    for (mut args, name, identifier) in cases {
        args["app"] = json!(APP);
        let found = c.call("find", args.clone()).await;
        let hits = matches(&found);
        assert_eq!(hits.len(), 1, "{args}: {found}");
        assert_eq!(hits[0]["name"], name, "{args}");
        assert_eq!(hits[0]["identifier"], identifier, "{args}");
    }
}

#[tokio::test]
async fn paths_compact_text_and_get_element_use_the_name() {
    let (_server, mut c) = start_session().await;
    // A path step names an element by its accessible name, wherever the name comes from.
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            r#"window[0]/button["Search"]"#,
            vec!["[button] \"Search\"", "press"],
        ),
        (
            r#"window[0]/text_field["Account"]"#,
            vec!["[text_field] \"Account\""],
        ),
        (
            r#"window[0]/text_field["Search settings"]"#,
            vec!["[text_field] \"Search settings\""],
        ),
    ];
    for (target, needles) in cases {
        get_element(&mut c, APP, target, &needles).await;
    }
    // get_element keeps the raw fields beside the name.
    let button = get_element(&mut c, APP, r#"window[0]/button["Search"]"#, &[]).await;
    let element = &button["structuredContent"]["element"];
    assert_eq!(element["name"], "Search", "{element}");
    assert_eq!(element["description"], "Search", "{element}");
    assert_eq!(element["help"], "Search the settings", "{element}");
    assert!(element.get("title").is_none(), "no raw title: {element}");
    let field = get_element(
        &mut c,
        APP,
        r#"window[0]/text_field["Search settings"]"#,
        &[],
    )
    .await;
    let element = &field["structuredContent"]["element"];
    assert_eq!(element["placeholder"], "Search settings", "{element}");
    assert!(element.get("title").is_none(), "{element}");
    let labelled = get_element(&mut c, APP, r#"window[0]/text_field["Account"]"#, &[]).await;
    let element = &labelled["structuredContent"]["element"];
    assert_eq!(element["name"], "Account", "{element}");
    assert!(
        element.get("title").is_none() && element.get("description").is_none(),
        "the name comes from the label: {element}"
    );
    // The tree shows the names.
    get_tree(
        &mut c,
        json!({"app": APP}),
        &[
            "[button] \"Search\"",
            "[text_field] \"Account\"",
            "[text_field] \"Search settings\"",
        ],
    )
    .await;
}

#[tokio::test]
async fn find_matches_one_field_when_asked() {
    let (_server, mut c) = start_session().await;
    // (arguments, identifiers matched in order)
    let cases: Vec<(Value, Vec<&str>)> = vec![
        // By default `name` matches the accessible name: the description-only button is
        // found by "Search", and so is the placeholder field ("Search settings").
        (
            json!({"name": "search"}),
            vec!["search_button", "search_field"],
        ),
        (
            json!({"name": "search", "field": "description"}),
            vec!["search_button"],
        ),
        (
            json!({"name": "search", "field": "placeholder"}),
            vec!["search_field"],
        ),
        (
            json!({"name": "the settings", "field": "help"}),
            vec!["search_button"],
        ),
        (json!({"name": "search", "field": "title"}), vec![]),
        (
            json!({"name": "^search_", "field": "identifier", "mode": "regex"}),
            vec!["search_button", "search_field"],
        ),
        (
            json!({"name": "Account", "field": "name"}),
            vec!["account_label", "account"],
        ),
        // The label's text names the field; the field itself has no title.
        (json!({"name": "Account", "field": "title"}), vec![]),
        // `text` looks at every naming field and the value.
        (json!({"text": "search the"}), vec!["search_button"]),
    ];
    for (mut args, want) in cases {
        args["app"] = json!(APP);
        let found = c.call("find", args.clone()).await;
        assert_ne!(found["isError"], true, "{args}: {found}");
        let ids: Vec<String> = matches(&found)
            .iter()
            .map(|m| m["identifier"].as_str().unwrap_or("").to_owned())
            .collect();
        assert_eq!(ids, want, "{args}");
    }
}

#[tokio::test]
async fn find_refuses_a_bad_field_naming_the_valid_ones() {
    let (_server, mut c) = start_session().await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"name": "x", "field": "label"}),
            vec![
                "invalid argument `field`",
                "`label`",
                "`name`, `title`, `description`, `placeholder`, `help`, `identifier`",
            ],
        ),
        (
            json!({"role": "button", "field": "title"}),
            vec!["`field` says which text the `name` pattern matches: give `name` too"],
        ),
        (
            json!({"name": "x", "title": "y"}),
            vec!["duplicate field `name`"],
        ),
    ];
    for (mut args, needles) in cases {
        args["app"] = json!(APP);
        check(&mut c, "find", args, true, &needles).await;
    }
}
