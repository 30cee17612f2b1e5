//! Pointer gestures with keys held, hovering and long presses on the demo apps.

use super::*;

pub(super) fn held(names: &[&str]) -> Modifiers {
    Modifiers::parse(names.iter().copied()).unwrap()
}

fn selected_rows(b: &DemoBackend) -> Vec<u32> {
    (1..=200)
        .filter(|n| flag(b, "List", &format!("row_{n}"), |s| s.selected))
        .collect()
}

#[test]
fn shift_extends_and_cmd_toggles_a_lists_selection() {
    let b = DemoBackend::new();
    let click = |row: &str, keys: &[&str]| {
        let at = centre(&b, "List", row);
        gesture(&b, "List", at, held(keys), LEFT_CLICK).unwrap();
    };
    click("row_2", &[]);
    assert_eq!(selected_rows(&b), [2]);
    click("row_4", &["shift"]);
    assert_eq!(selected_rows(&b), [2, 3, 4]);
    click("row_3", &["cmd"]);
    assert_eq!(selected_rows(&b), [2, 4]);
    click("row_6", &["cmd"]);
    assert_eq!(selected_rows(&b), [2, 4, 6]);
    // Above the selection, a shift-click reaches down to its last row.
    click("row_1", &["shift"]);
    assert_eq!(selected_rows(&b), [1, 2, 3, 4, 5, 6]);
    // A plain click selects one row again.
    click("row_5", &[]);
    assert_eq!(selected_rows(&b), [5]);
}

#[test]
fn hovering_shows_a_help_tag_and_presses_nothing() {
    let b = DemoBackend::new();
    let shown = |b: &DemoBackend| flag(b, "Settings", "hover_tip", |s| s.visible);
    assert!(!shown(&b));
    let none = Modifiers::default();
    let field = centre(&b, "Settings", "search_field");
    gesture(&b, "Settings", field, none, Gesture::Hover).unwrap();
    assert!(!shown(&b) && !flag(&b, "Settings", "search_field", |s| s.focused));
    let at = centre(&b, "Settings", "search_button");
    gesture(&b, "Settings", at, none, Gesture::Hover).unwrap();
    assert!(shown(&b));
    // The button was not pressed: it would have focused the search field.
    assert!(!flag(&b, "Settings", "search_field", |s| s.focused));
}

#[test]
fn a_long_press_opens_a_buttons_menu_else_clicks() {
    let b = DemoBackend::new();
    let none = Modifiers::default();
    let long = Gesture::Press {
        button: MouseButton::Left,
        hold: Duration::from_millis(600),
    };
    set(&b, "Form", "name", AxValue::Text("Ada".into())).unwrap();
    gesture(&b, "Form", centre(&b, "Form", "submit"), none, long).unwrap();
    assert_eq!(value(&b, "Form", "status"), text("Submitted: Ada"));
    assert!(b.node_by_identifier("Form", "color_menu").is_none());
    gesture(&b, "Form", centre(&b, "Form", "color"), none, long).unwrap();
    assert!(b.node_by_identifier("Form", "color_menu").is_some());
}
