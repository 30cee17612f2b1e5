//! The Form app: effects, value rules, errors, pointer input and hit testing.

use super::*;
use axgate_engine::Role;

const APP: &str = "Form";

fn click(b: &DemoBackend, point: (f64, f64), button: MouseButton, count: u32) {
    let click = Gesture::Click { button, count };
    gesture(b, APP, point, Modifiers::default(), click).expect("click");
}

#[test]
fn submit_copies_the_name_into_status() {
    let b = DemoBackend::new();
    assert_eq!(value(&b, APP, "status"), text("Ready"));
    set(&b, APP, "name", AxValue::Text("Ada".into())).unwrap();
    press(&b, APP, "submit").unwrap();
    assert_eq!(value(&b, APP, "status"), text("Submitted: Ada"));
}

#[test]
fn clear_empties_the_fields_and_says_so() {
    let b = DemoBackend::new();
    set(&b, APP, "name", AxValue::Text("Ada".into())).unwrap();
    set(&b, APP, "email", AxValue::Text("ada@example.com".into())).unwrap();
    press(&b, APP, "clear").unwrap();
    for (ident, expected) in [("name", ""), ("email", ""), ("status", "Cleared")] {
        assert_eq!(value(&b, APP, ident), text(expected), "{ident}");
    }
}

#[test]
fn subscribe_toggles_on_each_press() {
    let b = DemoBackend::new();
    for expected in [true, false, true] {
        press(&b, APP, "subscribe").unwrap();
        assert_eq!(value(&b, APP, "subscribe"), Some(AxValue::Bool(expected)));
    }
}

#[test]
fn the_slider_steps_by_ten_and_clamps() {
    let b = DemoBackend::new();
    // (action or value, expected value afterwards)
    let steps: [(&str, f64); 8] = [
        ("increment", 60.0),
        ("decrement", 50.0),
        ("=150", 100.0),
        ("increment", 100.0),
        ("=-5", 0.0),
        ("decrement", 0.0),
        ("=42.5", 42.5),
        ("increment", 52.5),
    ];
    for (step, expected) in steps {
        match step.strip_prefix('=') {
            Some(v) => set(&b, APP, "volume", AxValue::Number(v.parse().unwrap())).unwrap(),
            None => act(&b, APP, "volume", step).unwrap(),
        }
        assert_eq!(
            value(&b, APP, "volume"),
            Some(AxValue::Number(expected)),
            "{step}"
        );
    }
}

#[test]
fn the_color_popup_opens_a_menu_and_picking_green_closes_it() {
    let b = DemoBackend::new();
    assert!(b.node_by_identifier(APP, "color_menu").is_none());
    press(&b, APP, "color").unwrap();
    let popup = b.node_by_identifier(APP, "color").unwrap();
    assert_eq!(popup.child_count, 1);
    assert!(popup.states.expanded);
    let items: Vec<_> = ["color_red", "color_green", "color_blue"]
        .iter()
        .map(|i| b.node_by_identifier(APP, i).unwrap())
        .collect();
    assert!(items.iter().all(|i| i.role == Role::MenuItem));
    assert_eq!(items[1].title.as_deref(), Some("Green"));

    press(&b, APP, "color_green").unwrap();
    assert_eq!(value(&b, APP, "color"), text("Green"));
    let popup = b.node_by_identifier(APP, "color").unwrap();
    assert_eq!(popup.child_count, 0);
    assert!(!popup.states.expanded);
    assert!(b.node_by_identifier(APP, "color_menu").is_none());
}

#[test]
fn refused_calls_say_why() {
    let b = DemoBackend::new();
    let name = AxValue::Text("x".into());
    let cases: [(&str, Result<(), AxError>, &str); 6] = [
        ("disabled", press(&b, APP, "disabled_action"), "disabled"),
        (
            "no such action",
            act(&b, APP, "submit", "increment"),
            "unsupported_action",
        ),
        (
            "button value",
            set(&b, APP, "submit", name.clone()),
            "not_settable",
        ),
        (
            "text into slider",
            set(&b, APP, "volume", name),
            "invalid_value",
        ),
        (
            "nan",
            set(&b, APP, "volume", AxValue::Number(f64::NAN)),
            "invalid_value",
        ),
        (
            "bool into text",
            set(&b, APP, "name", AxValue::Bool(true)),
            "invalid_value",
        ),
    ];
    for (what, result, kind) in cases {
        let err = result.unwrap_err();
        assert_eq!(err.kind(), kind, "{what}: {err}");
    }
    let err = act(&b, APP, "submit", "increment").unwrap_err();
    assert!(err.to_string().contains("press"), "{err}");
    assert_eq!(value(&b, APP, "status"), text("Ready"));
}

#[test]
fn stubborn_ignores_press_but_reacts_to_a_click() {
    let b = DemoBackend::new();
    press(&b, APP, "stubborn").unwrap();
    assert_eq!(value(&b, APP, "status"), text("Ready"));
    click(&b, centre(&b, APP, "stubborn"), MouseButton::Left, 1);
    assert_eq!(value(&b, APP, "status"), text("Stubborn clicked"));
}

#[test]
fn clicks_press_toggle_focus_and_pick_menu_items() {
    let b = DemoBackend::new();
    click(&b, centre(&b, APP, "subscribe"), MouseButton::Left, 1);
    assert_eq!(value(&b, APP, "subscribe"), Some(AxValue::Bool(true)));
    click(&b, centre(&b, APP, "subscribe"), MouseButton::Right, 1);
    assert_eq!(value(&b, APP, "subscribe"), Some(AxValue::Bool(true)));
    click(&b, centre(&b, APP, "subscribe"), MouseButton::Left, 2);
    assert_eq!(value(&b, APP, "subscribe"), Some(AxValue::Bool(true)));

    click(&b, centre(&b, APP, "email"), MouseButton::Left, 1);
    assert!(b.node_by_identifier(APP, "email").unwrap().states.focused);

    click(&b, centre(&b, APP, "disabled_action"), MouseButton::Left, 1);
    assert_eq!(value(&b, APP, "status"), text("Ready"));

    click(&b, centre(&b, APP, "color"), MouseButton::Left, 1);
    click(&b, centre(&b, APP, "color_blue"), MouseButton::Left, 1);
    assert_eq!(value(&b, APP, "color"), text("Blue"));
    assert!(b.node_by_identifier(APP, "color_menu").is_none());

    click(&b, centre(&b, APP, "color"), MouseButton::Right, 1);
    assert!(b.node_by_identifier(APP, "color_menu").is_some());
    act(&b, APP, "color_menu", "cancel").unwrap();
    assert!(b.node_by_identifier(APP, "color_menu").is_none());
    assert_eq!(value(&b, APP, "color"), text("Blue"));

    click(&b, (5.0, 5.0), MouseButton::Left, 1);
}

#[test]
fn element_at_finds_the_deepest_visible_element() {
    let b = DemoBackend::new();
    let p = pid(&b, APP);
    for ident in ["name", "password", "volume", "status", "submit", "stubborn"] {
        let hit = b.element_at(p, centre(&b, APP, ident), &mut ctx()).unwrap();
        assert_eq!(hit, Some(id(&b, APP, ident)), "{ident}");
    }
    let window = b.element_at(p, (50.0, 70.0), &mut ctx()).unwrap();
    assert_eq!(window, Some(id(&b, APP, "form_window")));
    assert_eq!(b.element_at(p, (5.0, 5.0), &mut ctx()).unwrap(), None);

    press(&b, APP, "color").unwrap();
    let over = b
        .element_at(p, centre(&b, APP, "color_green"), &mut ctx())
        .unwrap();
    assert_eq!(over, Some(id(&b, APP, "color_green")));
}

#[test]
fn focus_moves_and_leaves_one_focused_control() {
    let b = DemoBackend::new();
    let p = pid(&b, APP);
    b.focus(p, id(&b, APP, "name"), &mut ctx()).unwrap();
    b.focus(p, id(&b, APP, "email"), &mut ctx()).unwrap();
    let focused: Vec<_> = snapshot(&b, APP, 9, 100)
        .nodes
        .into_iter()
        .filter(|n| n.states.focused)
        .map(|n| n.identifier.unwrap_or_default())
        .collect();
    assert_eq!(focused, ["form_window", "email"]);
    let err = b.focus(p, id(&b, APP, "status"), &mut ctx()).unwrap_err();
    assert_eq!(err.kind(), "unsupported", "{err}");
}

#[test]
fn the_password_is_accepted_but_never_read_back() {
    let b = DemoBackend::new();
    set(&b, APP, "password", AxValue::Text("hunter2".into())).unwrap();
    assert_eq!(value(&b, APP, "password"), text("hunter2"));
    let snap = snapshot(&b, APP, 9, 100);
    let field = snap
        .nodes
        .iter()
        .find(|n| n.identifier.as_deref() == Some("password"));
    assert_eq!(field.unwrap().value, None);
}

#[test]
fn windows_are_listed_with_title_frame_and_focus() {
    let b = DemoBackend::new();
    let windows = b.list_windows(pid(&b, APP), &mut ctx()).unwrap();
    assert_eq!(windows.len(), 1);
    assert_eq!(windows[0].title.as_deref(), Some("Demo Form"));
    assert!(windows[0].focused && !windows[0].minimized);
    let frame = windows[0].frame.unwrap();
    assert_eq!((frame.w, frame.h), (480.0, 440.0));
}
