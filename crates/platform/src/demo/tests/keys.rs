//! `press_key`: editing keys, focus order, default and cancel buttons, clipboard keys, menu
//! shortcuts and control keys.

use super::*;

const APP: &str = "Form";

fn focused(b: &DemoBackend, app: &str) -> Option<String> {
    snapshot(b, app, 9, 1000)
        .nodes
        .into_iter()
        .find(|n| n.states.focused && !matches!(n.role, axgate_engine::Role::Window))
        .and_then(|n| n.identifier)
}

fn clipboard(b: &DemoBackend) -> String {
    b.read_clipboard(&mut ctx()).unwrap()
}

#[test]
fn backspace_deletes_the_last_character() {
    let b = DemoBackend::new();
    focus(&b, APP, "name");
    type_text(&b, APP, "Ada").unwrap();
    for expected in ["Ad", "A", "", ""] {
        key(&b, APP, "backspace");
        assert_eq!(value(&b, APP, "name"), text(expected));
    }
    // Forward delete at the end of the text deletes nothing.
    type_text(&b, APP, "Ada").unwrap();
    key(&b, APP, "delete");
    assert_eq!(value(&b, APP, "name"), text("Ada"));
}

#[test]
fn tab_walks_the_enabled_controls_and_wraps() {
    let b = DemoBackend::new();
    let order = [
        "name",
        "email",
        "password",
        "subscribe",
        "volume",
        "color",
        "submit",
        "clear",
        "stubborn",
        "name",
    ];
    for expected in order {
        key(&b, APP, "tab");
        assert_eq!(focused(&b, APP).as_deref(), Some(expected));
    }
    for expected in ["stubborn", "clear"] {
        key(&b, APP, "shift+tab");
        assert_eq!(focused(&b, APP).as_deref(), Some(expected));
    }
}

#[test]
fn return_presses_the_default_button_of_the_window() {
    let b = DemoBackend::new();
    focus(&b, APP, "name");
    type_text(&b, APP, "Ada").unwrap();
    key(&b, APP, "return");
    assert_eq!(value(&b, APP, "status"), text("Submitted: Ada"));
    assert_eq!(value(&b, APP, "name"), text("Ada"));
}

#[test]
fn select_all_then_typing_or_backspace_replaces_everything() {
    let b = DemoBackend::new();
    focus(&b, APP, "name");
    type_text(&b, APP, "Ada").unwrap();
    key(&b, APP, "cmd+a");
    assert!(flag(&b, APP, "name", |s| s.selected));
    type_text(&b, APP, "Grace").unwrap();
    assert_eq!(value(&b, APP, "name"), text("Grace"));
    assert!(!flag(&b, APP, "name", |s| s.selected));
    key(&b, APP, "cmd+a");
    key(&b, APP, "backspace");
    assert_eq!(value(&b, APP, "name"), text(""));
    // An arrow key collapses the selection: typing appends again.
    type_text(&b, APP, "Bo").unwrap();
    key(&b, APP, "cmd+a");
    key(&b, APP, "right");
    type_text(&b, APP, "b").unwrap();
    assert_eq!(value(&b, APP, "name"), text("Bob"));
}

#[test]
fn copy_cut_and_paste_go_through_the_clipboard() {
    let b = DemoBackend::new();
    focus(&b, APP, "name");
    type_text(&b, APP, "Ada").unwrap();
    // Nothing selected: copy copies nothing.
    key(&b, APP, "cmd+c");
    assert_eq!(clipboard(&b), "");
    key(&b, APP, "cmd+a");
    key(&b, APP, "cmd+c");
    assert_eq!(clipboard(&b), "Ada");
    focus(&b, APP, "email");
    key(&b, APP, "cmd+v");
    key(&b, APP, "cmd+v");
    assert_eq!(value(&b, APP, "email"), text("AdaAda"));
    key(&b, APP, "cmd+a");
    key(&b, APP, "cmd+x");
    assert_eq!(
        (clipboard(&b), value(&b, APP, "email")),
        ("AdaAda".into(), text(""))
    );
    b.write_clipboard("from outside", &mut ctx()).unwrap();
    key(&b, APP, "cmd+v");
    assert_eq!(value(&b, APP, "email"), text("from outside"));
}

#[test]
fn a_secure_field_never_copies() {
    let b = DemoBackend::new();
    b.write_clipboard("before", &mut ctx()).unwrap();
    focus(&b, APP, "password");
    type_text(&b, APP, "hunter2").unwrap();
    key(&b, APP, "cmd+a");
    key(&b, APP, "cmd+c");
    key(&b, APP, "cmd+a");
    key(&b, APP, "cmd+x");
    assert_eq!(clipboard(&b), "before");
    assert_eq!(value(&b, APP, "password"), text("hunter2"));
}

#[test]
fn menu_shortcuts_run_their_item() {
    let b = DemoBackend::new();
    let app = "Editor";
    let title = |b: &DemoBackend| {
        b.list_windows(pid(b, app), &mut ctx())
            .unwrap()
            .into_iter()
            .map(|w| w.title.unwrap_or_default())
            .collect::<Vec<_>>()
    };
    key(&b, app, "cmd+s");
    assert_eq!(title(&b), ["Saved"]);
    key(&b, app, "cmd+shift+s");
    assert_eq!(title(&b), ["Saved", "Save As"]);
    key(&b, app, "escape");
    assert_eq!(title(&b), ["Saved"]);
    key(&b, app, "cmd+N");
    assert_eq!(title(&b), ["Untitled"]);
    assert!(flag(&b, app, "document", |s| s.focused));
    // The focused text area takes cmd+a itself; cmd+w closes the (saved) window.
    type_text(&b, app, "x").unwrap();
    key(&b, app, "cmd+a");
    assert!(flag(&b, app, "document", |s| s.selected));
    key(&b, app, "cmd+s");
    key(&b, app, "cmd+w");
    assert!(title(&b).is_empty());
    // No such shortcut: nothing happens.
    key(&b, app, "cmd+k");
}

#[test]
fn escape_closes_an_open_menu() {
    let b = DemoBackend::new();
    press(&b, "Editor", "file").unwrap();
    assert!(flag(&b, "Editor", "file_menu", |s| s.visible));
    key(&b, "Editor", "escape");
    assert!(!flag(&b, "Editor", "file_menu", |s| s.visible));
    // A new dialog is the key window: Escape presses its Cancel button.
    press(&b, "Editor", "open").unwrap();
    key(&b, "Editor", "escape");
    assert!(b.node_by_identifier("Editor", "open_dialog").is_none());
    press(&b, APP, "color").unwrap();
    key(&b, APP, "esc");
    assert!(b.node_by_identifier(APP, "color_menu").is_none());
    assert_eq!(value(&b, APP, "color"), text("Red"));
}

#[test]
fn arrows_step_a_focused_slider_and_space_presses() {
    let b = DemoBackend::new();
    focus(&b, APP, "volume");
    // (key, volume afterwards)
    let steps = [
        ("up", 60.0),
        ("right", 70.0),
        ("down", 60.0),
        ("left", 50.0),
    ];
    for (k, expected) in steps {
        key(&b, APP, k);
        assert_eq!(
            value(&b, APP, "volume"),
            Some(AxValue::Number(expected)),
            "{k}"
        );
    }
    focus(&b, APP, "subscribe");
    key(&b, APP, "space");
    assert_eq!(value(&b, APP, "subscribe"), Some(AxValue::Bool(true)));
    // A printable key with nothing to type into does nothing.
    key(&b, APP, "q");
    assert_eq!(value(&b, APP, "subscribe"), Some(AxValue::Bool(true)));
}
