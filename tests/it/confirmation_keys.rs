//! The destructive-act decision point decides on the element an act will activate, not on
//! the tool's name: Space on a focused "Reset" button (with `target`, or after `focus`), a
//! menu item's shortcut, an option chosen from a popup are confirmed like a click, and every
//! act's audit line says how the decision went.

use std::path::Path;

use crate::support::{Client, TestServer, app_value, audit_lines, check, config, session};
use axgate::ax::AxValue;
use serde_json::{Value, json};

const RESET: &str = r#"window[0]/tab_group[0]/group["Advanced"]/button["Reset"]"#;
const PROXY: &str = r#"window[0]/tab_group[0]/group["Advanced"]/text_field["Proxy"]"#;

async fn server_with(extra: &str, audit: &Path) -> TestServer {
    TestServer::with_config(config(&format!(
        "[audit]\npath = {:?}\n{extra}",
        audit.display().to_string()
    )))
    .await
}

/// Opens Settings' Advanced panel and types a proxy, so that a Reset shows.
async fn prepare(c: &mut Client) {
    let tab = json!({"app": "Settings", "target": "window[0]/tab_group[0]", "option": "Advanced"});
    check(c, "select_option", tab, false, &[]).await;
    let proxy = json!({"app": "Settings", "target": PROXY, "value": "proxy.example:3128"});
    check(c, "set_value", proxy, false, &[]).await;
}

fn was_reset(server: &TestServer) -> bool {
    app_value(server, "Settings", "proxy_hint") == Some(AxValue::Text("No proxy".into()))
}

fn last_line(audit: &Path, tool: &str) -> Value {
    audit_lines(audit)
        .into_iter()
        .rev()
        .find(|l| l["tool"] == tool)
        .unwrap_or_else(|| panic!("no audit line for {tool}"))
}

const REFUSED: &[&str] = &["looks destructive (\"reset\"", "policy.unconfirmed"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn space_on_a_destructive_button_is_confirmed_like_a_click() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let server = server_with("", &audit).await;
    let mut c = session(&server).await;
    prepare(&mut c).await;

    // With `target`: the key goes to Reset, so Reset is what is decided on.
    let keyed = json!({"app": "Settings", "key": "space", "target": RESET});
    check(&mut c, "press_key", keyed, true, REFUSED).await;
    assert!(!was_reset(&server), "refused: Space did not press Reset");
    let line = last_line(&audit, "press_key");
    assert_eq!(line["outcome"], "denied");
    assert_eq!(line["confirmation"], "refused_without_elicitation");
    assert_eq!(line["reason"], "policy.confirm_words");

    // `focus`, then Space to the focused element.
    let focus = json!({"app": "Settings", "target": RESET});
    check(&mut c, "focus", focus, false, &[]).await;
    let space = json!({"app": "Settings", "key": "space"});
    check(&mut c, "press_key", space, true, REFUSED).await;
    assert!(!was_reset(&server), "refused: Space did not press Reset");
    assert_eq!(
        last_line(&audit, "press_key")["confirmation"],
        "refused_without_elicitation"
    );
    // A key that presses nothing destructive goes ahead, and its line says so.
    let tab = json!({"app": "Settings", "key": "tab"});
    check(&mut c, "press_key", tab, false, &[]).await;
    assert_eq!(
        last_line(&audit, "press_key")["confirmation"],
        "not_destructive"
    );

    // Allowed by configuration: Space presses Reset, and the line says why it went ahead.
    let audit = dir.path().join("allow.jsonl");
    let server = server_with("[policy]\nunconfirmed = \"allow\"\n", &audit).await;
    let mut c = session(&server).await;
    prepare(&mut c).await;
    let keyed = json!({"app": "Settings", "key": "space", "target": RESET});
    check(&mut c, "press_key", keyed, false, &[]).await;
    assert!(was_reset(&server), "allowed: Space pressed Reset");
    assert_eq!(
        last_line(&audit, "press_key")["confirmation"],
        "allowed_without_elicitation"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_menu_shortcut_is_confirmed_on_its_menu_item() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    // "close" made destructive: Editor's File > Close has the shortcut cmd+w.
    let server = server_with("[policy]\nconfirm_words = [\"close\"]\n", &audit).await;
    let mut c = session(&server).await;
    let windows = |r: &Value| r["structuredContent"]["windows"].as_array().map(Vec::len);
    let before = check(&mut c, "list_windows", json!({"app": "Editor"}), false, &[]).await;
    let shortcut = json!({"app": "Editor", "key": "cmd+w"});
    check(
        &mut c,
        "press_key",
        shortcut,
        true,
        &["menu_item \"Close\"", "looks destructive (\"close\""],
    )
    .await;
    let after = check(&mut c, "list_windows", json!({"app": "Editor"}), false, &[]).await;
    assert_eq!(windows(&before), windows(&after), "the window stayed open");
    let line = last_line(&audit, "press_key");
    assert_eq!(line["confirmation"], "refused_without_elicitation");

    // Typing a Return into a text field presses the window's default button: decided on it.
    let typed = json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "text": "Ann\n"});
    check(&mut c, "type_text", typed, false, &[]).await;
    assert_eq!(
        last_line(&audit, "type_text")["confirmation"],
        "not_destructive"
    );
    let submit = dir.path().join("submit.jsonl");
    let server = server_with("[policy]\nconfirm_words = [\"submit\"]\n", &submit).await;
    let mut c = session(&server).await;
    let typed = json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "text": "Ann\n"});
    check(
        &mut c,
        "type_text",
        typed,
        true,
        &["button \"Submit\"", "looks destructive (\"submit\""],
    )
    .await;
    assert_eq!(
        app_value(&server, "Form", "status"),
        Some(AxValue::Text("Ready".into())),
        "Submit was not pressed"
    );
}
