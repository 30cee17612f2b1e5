//! Contracts of acting: every acting tool verifies its effect (`verified: true`) and the app
//! itself sees it; values are coerced to the element's type ("30" to a slider, true/false
//! to a check box), clamped and read back, and a secure value never comes back; menus list
//! and choose; list rows select.

use serde_json::json;

use crate::run::Target;

pub(crate) async fn actions_are_verified(target: &impl Target) {
    let mut run = target.start("").await;
    let name = run.handle("text_field", "Name").await;
    run.ok("set_value", json!({"target": name, "value": "Ada"}))
        .await;
    run.expect("name", "Ada");

    let greet = run.handle("button", "Greet").await;
    let clicked = run.ok("click", json!({"target": greet})).await;
    assert_eq!(clicked["verified"], true, "{clicked}");
    run.status_is("Hello, Ada").await;

    let clear = run.handle("button", "Clear").await;
    let pressed = run
        .ok(
            "perform_action",
            json!({"target": clear, "action": "press"}),
        )
        .await;
    assert_eq!(pressed["verified"], true, "{pressed}");
    run.status_is("Cleared").await;
    run.expect("name", "");
    assert_eq!(run.element(&name).await["value"], "");

    let subscribe = run.handle("check_box", "Subscribe").await;
    let toggled = run.ok("click", json!({"target": subscribe})).await;
    assert_eq!(toggled["verified"], true, "{toggled}");
    assert_eq!(run.element(&subscribe).await["value"], true);
    run.expect("subscribe", "true");

    let focused = run.ok("focus", json!({"target": name})).await;
    assert_eq!(focused["element"]["focused"], true, "{focused}");
}

pub(crate) async fn values_are_coerced_and_read_back(target: &impl Target) {
    let mut run = target.start("").await;
    let volume = run.handle("slider", "Volume").await;
    let set = run
        .ok("set_value", json!({"target": volume, "value": "30"}))
        .await;
    assert_eq!(set["verified"], true, "{set}");
    assert_eq!(run.element(&volume).await["value"], 30.0);
    run.expect("volume", "30");
    // Clamped to the slider's range.
    run.ok("set_value", json!({"target": volume, "value": 150}))
        .await;
    assert_eq!(run.element(&volume).await["value"], 100.0);
    run.expect("volume", "100");
    run.err(
        "set_value",
        json!({"target": volume, "value": "loud"}),
        &["invalid value", "\"loud\" is not a number"],
    )
    .await;

    let subscribe = run.handle("check_box", "Subscribe").await;
    for (given, want) in [(json!(true), true), (json!("off"), false), (json!(1), true)] {
        run.ok("set_value", json!({"target": subscribe, "value": given}))
            .await;
        assert_eq!(run.element(&subscribe).await["value"], want, "{given}");
        run.expect("subscribe", &want.to_string());
    }
    run.err(
        "set_value",
        json!({"target": subscribe, "value": "maybe"}),
        &["is not a boolean"],
    )
    .await;

    let name = run.handle("text_field", "Name").await;
    run.ok("set_value", json!({"target": name, "value": 42}))
        .await;
    assert_eq!(run.element(&name).await["value"], "42");

    let password = run.handle("secure_text_field", "Password").await;
    let written = run
        .call("set_value", json!({"target": password, "value": "hunter2"}))
        .await;
    assert!(
        !written.to_string().contains("hunter2"),
        "a secure value never comes back: {written}"
    );
    run.expect("password", "hunter2");
    let read = run.element(&password).await;
    assert!(read["value"].is_null() && read["secure"] == true, "{read}");

    let status = run
        .ok("find", json!({"role": "static_text", "text": "Ready"}))
        .await;
    let status = status["matches"][0]["handle"].as_str().expect("status");
    run.err(
        "set_value",
        json!({"target": status, "value": "x"}),
        &["has no settable value"],
    )
    .await;
}

pub(crate) async fn menus(target: &impl Target) {
    let mut run = target.start("").await;
    let menus = run.ok("list_menus", json!({})).await;
    let items: Vec<&str> = menus["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["menu_path"].as_str())
        .collect();
    assert!(items.contains(&"Edit > Clear Name"), "{menus}");
    let name = run.handle("text_field", "Name").await;
    run.ok("set_value", json!({"target": name, "value": "Grace"}))
        .await;
    let chosen = run
        .ok("select_menu", json!({"menu": "edit > clear name"}))
        .await;
    assert_eq!(chosen["verified"], true, "{chosen}");
    run.status_is("Cleared by menu").await;
    run.expect("name", "");
    run.err(
        "select_menu",
        json!({"menu": "Edit > Export"}),
        &["Edit > Clear Name"],
    )
    .await;
}

pub(crate) async fn list_rows_select(target: &impl Target) {
    let mut run = target.start("").await;
    let items = run.handle("list", "Items").await;
    let chosen = run
        .ok("select_option", json!({"target": items, "option": "Beta"}))
        .await;
    assert_eq!(chosen["verified"], true, "{chosen}");
    run.status_is("Selected: Beta").await;
    let by_index = run
        .ok("select_option", json!({"target": items, "option": 2}))
        .await;
    assert_eq!(by_index["verified"], true, "{by_index}");
    run.status_is("Selected: Gamma").await;
    run.err(
        "select_option",
        json!({"target": items, "option": "Delta"}),
        &["Alpha", "Beta", "Gamma"],
    )
    .await;
}
