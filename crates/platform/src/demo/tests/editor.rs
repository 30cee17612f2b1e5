//! The Editor app: menu bar menus, document commands, dialogs and window lifecycle.

use super::*;

const APP: &str = "Editor";

fn visible(b: &DemoBackend, identifier: &str) -> bool {
    b.node_by_identifier(APP, identifier)
        .unwrap()
        .states
        .visible
}

#[test]
fn menus_open_one_at_a_time_and_close_after_a_pick() {
    let b = DemoBackend::new();
    assert!(!visible(&b, "file_menu"));
    press(&b, APP, "file").unwrap();
    assert!(visible(&b, "file_menu"));
    press(&b, APP, "edit").unwrap();
    assert!(!visible(&b, "file_menu"));
    assert!(visible(&b, "edit_menu"));
    press(&b, APP, "select_all").unwrap();
    assert!(!visible(&b, "edit_menu"));
    assert!(
        b.node_by_identifier(APP, "document")
            .unwrap()
            .states
            .selected
    );
}

#[test]
fn file_commands_title_and_close_the_window() {
    let b = DemoBackend::new();
    set(&b, APP, "document", AxValue::Text("hello".into())).unwrap();
    press(&b, APP, "save").unwrap();
    assert_eq!(titles(&b, APP), ["Saved"]);
    press(&b, APP, "new").unwrap();
    assert_eq!(titles(&b, APP), ["Untitled"]);
    assert_eq!(value(&b, APP, "document"), text(""));

    let old_document = id(&b, APP, "document");
    press(&b, APP, "close").unwrap();
    assert!(titles(&b, APP).is_empty());
    let err = b
        .set_value(
            pid(&b, APP),
            old_document,
            &AxValue::Text("x".into()),
            &mut ctx(),
        )
        .unwrap_err();
    assert_eq!(err.kind(), "stale", "{err}");

    press(&b, APP, "new").unwrap();
    assert_eq!(titles(&b, APP), ["Untitled"]);
    assert_ne!(id(&b, APP, "document"), old_document);
    assert!(
        b.node_by_identifier(APP, "document")
            .unwrap()
            .states
            .focused
    );
}

#[test]
fn save_as_names_the_window_after_the_typed_file_name() {
    let b = DemoBackend::new();
    press(&b, APP, "save_as").unwrap();
    assert_eq!(titles(&b, APP), ["Untitled", "Save As"]);
    assert!(
        b.node_by_identifier(APP, "file_name")
            .unwrap()
            .states
            .focused
    );
    set(&b, APP, "file_name", AxValue::Text("notes.txt".into())).unwrap();
    press(&b, APP, "save_confirm").unwrap();
    assert_eq!(titles(&b, APP), ["notes.txt"]);
}

#[test]
fn the_open_dialog_can_only_be_cancelled() {
    let b = DemoBackend::new();
    press(&b, APP, "open").unwrap();
    assert_eq!(titles(&b, APP), ["Untitled", "Open"]);
    assert_eq!(
        press(&b, APP, "open_confirm").unwrap_err().kind(),
        "disabled"
    );
    press(&b, APP, "open_cancel").unwrap();
    assert_eq!(titles(&b, APP), ["Untitled"]);
}

#[test]
fn cut_copy_paste_and_undo_edit_the_document() {
    let b = DemoBackend::new();
    set(&b, APP, "document", AxValue::Text("abc".into())).unwrap();
    // (menu item, document afterwards)
    let steps = [
        ("copy", "abc"),
        ("paste", "abcabc"),
        ("undo", "abc"),
        ("cut", ""),
        ("paste", "abc"),
    ];
    press_in_turn(&b, APP, &steps, |b| value(b, APP, "document"));
}

#[test]
fn menus_work_with_the_pointer_and_cancel_closes_them() {
    let b = DemoBackend::new();
    let p = pid(&b, APP);
    let click = |ident: &str| {
        let point = centre(&b, APP, ident);
        b.pointer(p, &Pointer::new(point, LEFT_CLICK), &mut ctx())
            .unwrap();
    };
    click("file");
    assert!(visible(&b, "file_menu"));
    click("save");
    assert!(!visible(&b, "file_menu"));
    assert_eq!(titles(&b, APP), ["Saved"]);

    press(&b, APP, "edit").unwrap();
    act(&b, APP, "edit_menu", "cancel").unwrap();
    assert!(!visible(&b, "edit_menu"));
    assert!(!b.node_by_identifier(APP, "edit").unwrap().states.expanded);
}
