//! `type_text`: typing into the focused element, grapheme by grapheme, with its effects.

use super::*;
use axgate_engine::ChangeKind;

const APP: &str = "Form";

/// Disables an element app-side, as the app itself might.
fn disable(b: &DemoBackend, app: &str, identifier: &str) {
    let handle = b.app(pid(b, app)).unwrap();
    let (mut tree, _) = handle.lock();
    let node = tree.find_identifier(identifier).unwrap();
    tree.get_mut(node).unwrap().states.enabled = false;
}

#[test]
fn typing_appends_to_the_focused_field() {
    let b = DemoBackend::new();
    focus(&b, APP, "name");
    // (typed, name afterwards)
    let steps = [
        ("Ada", "Ada"),
        (" Lovelace", "Ada Lovelace"),
        ("", "Ada Lovelace"),
    ];
    for (typed, expected) in steps {
        type_text(&b, APP, typed).unwrap();
        assert_eq!(value(&b, APP, "name"), text(expected), "after {typed:?}");
    }
    assert_eq!(value(&b, APP, "email"), text(""));
}

#[test]
fn each_grapheme_is_one_key_and_one_value_change() {
    let b = DemoBackend::new();
    let seen = record(&b);
    focus(&b, APP, "name");
    seen.lock().unwrap().clear();
    type_text(&b, APP, "e\u{301}👍🏽🇫🇷x").unwrap();
    let changes = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.kind == ChangeKind::ValueChanged)
        .count();
    assert_eq!(changes, 4);
    // Backspace removes a whole grapheme, never half of one.
    let expected = ["e\u{301}👍🏽🇫🇷", "e\u{301}👍🏽", "e\u{301}", ""];
    for want in expected {
        key(&b, APP, "backspace");
        assert_eq!(value(&b, APP, "name"), text(want));
    }
}

#[test]
fn typing_needs_a_focused_text_field() {
    let b = DemoBackend::new();
    let err = type_text(&b, APP, "x").unwrap_err();
    assert_eq!(err.kind(), "unsupported", "{err}");
    assert!(
        err.to_string().contains("focus a text field first"),
        "{err}"
    );
    focus(&b, APP, "subscribe");
    let err = type_text(&b, APP, "x").unwrap_err();
    assert_eq!(err.kind(), "unsupported", "{err}");
    assert_eq!(value(&b, APP, "subscribe"), Some(AxValue::Bool(false)));
}

#[test]
fn a_disabled_field_ignores_typing() {
    let b = DemoBackend::new();
    focus(&b, APP, "name");
    type_text(&b, APP, "Ada").unwrap();
    disable(&b, APP, "name");
    type_text(&b, APP, "!!").unwrap();
    key(&b, APP, "backspace");
    assert_eq!(value(&b, APP, "name"), text("Ada"));
}

#[test]
fn newline_presses_the_default_button_and_tab_moves_on() {
    let b = DemoBackend::new();
    focus(&b, APP, "name");
    type_text(&b, APP, "Ada\tada@example.com\n").unwrap();
    assert_eq!(value(&b, APP, "name"), text("Ada"));
    assert_eq!(value(&b, APP, "email"), text("ada@example.com"));
    assert_eq!(value(&b, APP, "status"), text("Submitted: Ada"));
    assert!(flag(&b, APP, "email", |s| s.focused));
}

#[test]
fn a_text_area_takes_newlines() {
    let b = DemoBackend::new();
    focus(&b, "Editor", "document");
    type_text(&b, "Editor", "one\ntwo").unwrap();
    key(&b, "Editor", "return");
    assert_eq!(value(&b, "Editor", "document"), text("one\ntwo\n"));
}

#[test]
fn typing_runs_change_effects() {
    let b = DemoBackend::new();
    let app = "Settings";
    press(&b, app, "tab_advanced").unwrap();
    focus(&b, app, "proxy");
    type_text(&b, app, "http://p:1").unwrap();
    assert_eq!(value(&b, app, "proxy_hint"), text("Proxy: http://p:1"));
}

#[test]
fn a_typing_run_is_one_undo_step() {
    let b = DemoBackend::new();
    let app = "Editor";
    focus(&b, app, "document");
    type_text(&b, app, "draft").unwrap();
    press(&b, app, "undo").unwrap();
    assert_eq!(value(&b, app, "document"), text(""));
}

#[test]
fn a_secure_field_takes_typing_but_never_shows_it() {
    let b = DemoBackend::new();
    focus(&b, APP, "password");
    type_text(&b, APP, "hunter2").unwrap();
    assert_eq!(value(&b, APP, "password"), text("hunter2"));
    let snap = snapshot(&b, APP, 9, 100);
    let field = snap
        .nodes
        .iter()
        .find(|n| n.identifier.as_deref() == Some("password"))
        .unwrap();
    assert_eq!(field.value, None);
}

#[test]
fn typing_brings_the_app_to_the_front() {
    let b = DemoBackend::new();
    focus(&b, "Editor", "document");
    focus(&b, APP, "name");
    type_text(&b, "Editor", "x").unwrap();
    let apps = b.list_apps(&mut ctx()).unwrap();
    let front: Vec<_> = apps
        .iter()
        .filter(|a| a.frontmost)
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(front, ["Editor"]);
}
