//! Contracts of synthetic input: typed text arrives exactly, surrogate pairs (emoji with a
//! skin-tone modifier) and combining marks (`e` + U+0301) included, in axgate's read-back and
//! in the app; typing into the focused element appends; a secure field takes typing without
//! the text coming back; keys edit (Backspace, `cmd+a`, which is Ctrl+A off macOS) and move
//! focus (Tab).

use serde_json::json;

use crate::run::Target;

/// Text that needs more than one UTF-16 unit per character and more than one code point per
/// grapheme.
const TRICKY: &str = "Zoë 👍🏽 e\u{301}t\u{e9} 日本";

pub(crate) async fn typing_reads_back_exactly(target: &impl Target) {
    let mut run = target.start("").await;
    let name = run.handle("text_field", "Name").await;
    let typed = run
        .ok(
            "type_text",
            json!({"target": name, "text": TRICKY, "clear_first": true}),
        )
        .await;
    assert_eq!(typed["verified"], true, "{typed}");
    assert_eq!(run.element(&name).await["value"], TRICKY);
    run.expect("name", TRICKY);

    // No target: the keys go to the focused element, which the last call focused.
    run.ok("type_text", json!({"text": " ok"})).await;
    let appended = format!("{TRICKY} ok");
    assert_eq!(run.element(&name).await["value"], appended.as_str());
    run.expect("name", &appended);

    let password = run.handle("secure_text_field", "Password").await;
    let secret = run
        .call("type_text", json!({"target": password, "text": "s3cr3t"}))
        .await;
    assert_ne!(secret["isError"], true, "{secret}");
    assert!(!secret.to_string().contains("s3cr3t"), "{secret}");
    run.expect("password", "s3cr3t");
}

pub(crate) async fn keys(target: &impl Target) {
    let mut run = target.start("").await;
    let name = run.handle("text_field", "Name").await;
    run.ok("set_value", json!({"target": name, "value": "abc"}))
        .await;
    let pressed = run
        .ok("press_key", json!({"target": name, "key": "backspace"}))
        .await;
    assert_eq!(pressed["verified"], true, "{pressed}");
    assert_eq!(run.element(&name).await["value"], "ab");
    run.expect("name", "ab");

    run.ok("press_key", json!({"key": "a", "modifiers": ["cmd"]}))
        .await;
    run.ok("press_key", json!({"key": "backspace"})).await;
    assert_eq!(run.element(&name).await["value"], "");
    run.expect("name", "");

    run.ok("press_key", json!({"key": "tab"})).await;
    let focused = run.ok("get_focused", json!({})).await;
    assert_eq!(
        (
            focused["element"]["role"].as_str(),
            focused["element"]["name"].as_str()
        ),
        (Some("secure_text_field"), Some("Password")),
        "Tab moves focus from Name to Password: {focused}"
    );
    run.err(
        "press_key",
        json!({"key": "hyper+a"}),
        &["unknown modifier"],
    )
    .await;
}
