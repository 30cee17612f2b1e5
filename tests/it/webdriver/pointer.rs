//! The pointer with keys held, hovering and long presses: W3C actions (a key source's
//! modifiers on later pointer actions, a move without a press, a press held through pauses)
//! and `macos: click` with `keyModifierFlags`, `hover`, `press`, `tap`, `doubleTap`, against
//! the demo List, Settings and Form.

use serde_json::{Value, json};

use super::{ELEMENT, Wd};
use crate::support::{TestServer, app_value};
use axgate::ax::AxValue;

fn keys(actions: Value) -> Value {
    json!({"type": "key", "id": "keyboard", "actions": actions})
}

fn mouse(actions: Value) -> Value {
    json!({"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": actions})
}

fn on(element: &str) -> Value {
    json!({"type": "pointerMove", "origin": {ELEMENT: element}, "x": 0, "y": 0})
}

async fn perform(wd: &Wd, sid: &str, sources: Value) {
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/actions"),
            Some(json!({"actions": sources})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

fn selected_rows(server: &TestServer) -> Vec<u32> {
    (1..=8)
        .filter(|n| {
            let row = server.demo.node_by_identifier("List", &format!("row_{n}"));
            row.is_some_and(|r| r.states.selected)
        })
        .collect()
}

fn shown(server: &TestServer, app: &str, identifier: &str) -> bool {
    server
        .demo
        .node_by_identifier(app, identifier)
        .is_some_and(|n| n.states.visible)
}

/// How many long presses the backend was asked for (`op="long_press"` calls).
fn long_presses(server: &TestServer) -> u64 {
    let text = server.state.metrics.render();
    text.lines()
        .find(|l| l.starts_with("axgate_backend_call_duration_seconds_count{op=\"long_press\"}"))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_key_sources_shift_and_command_reach_later_pointer_clicks() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("List").await;
    let row2 = wd.find(&sid, "id", "row_2").await;
    let row4 = wd.find(&sid, "id", "row_4").await;
    let row6 = wd.find(&sid, "id", "row_6").await;
    let click = |element: &str| json!([on(element), {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]);
    perform(&wd, &sid, json!([mouse(click(&row2))])).await;
    assert_eq!(selected_rows(&server), [2]);
    // Shift (U+E008) down in the key source's first tick, the click in later ticks.
    let held = |key: &str| {
        keys(
            json!([{"type": "keyDown", "value": key}, {"type": "pause"}, {"type": "pause"},
            {"type": "pause"}, {"type": "keyUp", "value": key}]),
        )
    };
    perform(&wd, &sid, json!([held("\u{E008}"), mouse(click(&row4))])).await;
    assert_eq!(selected_rows(&server), [2, 3, 4]);
    // Command (U+E03D): the row joins the selection.
    perform(&wd, &sid, json!([held("\u{E03D}"), mouse(click(&row6))])).await;
    assert_eq!(selected_rows(&server), [2, 3, 4, 6]);
}

#[tokio::test]
async fn a_move_without_a_press_hovers_and_a_held_press_is_long() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Settings").await;
    let search = wd.find(&sid, "id", "search_button").await;
    assert!(!shown(&server, "Settings", "hover_tip"));
    perform(&wd, &sid, json!([mouse(json!([on(&search)]))])).await;
    assert!(shown(&server, "Settings", "hover_tip"));
    let form = wd.session("Form").await;
    let subscribe = wd.find(&form, "id", "subscribe").await;
    let before = long_presses(&server);
    // Down, 300 ms, up: a click, not a long press.
    perform(
        &wd,
        &form,
        json!([mouse(
            json!([on(&subscribe), {"type": "pointerDown", "button": 0},
            {"type": "pause", "duration": 300}, {"type": "pointerUp", "button": 0}])
        )]),
    )
    .await;
    assert_eq!(long_presses(&server), before);
    assert_eq!(
        app_value(&server, "Form", "subscribe"),
        Some(AxValue::Bool(true))
    );
    // Down, 600 ms, up: a long press, whose release clicks the check box.
    perform(
        &wd,
        &form,
        json!([mouse(
            json!([on(&subscribe), {"type": "pointerDown", "button": 0},
            {"type": "pause", "duration": 600}, {"type": "pointerUp", "button": 0}])
        )]),
    )
    .await;
    assert_eq!(long_presses(&server), before + 1);
    assert_eq!(
        app_value(&server, "Form", "subscribe"),
        Some(AxValue::Bool(false))
    );
}

#[tokio::test]
async fn macos_hover_press_tap_and_modifier_clicks() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Settings").await;
    let search = wd.find(&sid, "id", "search_button").await;
    let answer = wd
        .exec_ok(&sid, "hover", json!({"elementId": search}))
        .await;
    assert_eq!(answer, Value::Null);
    assert!(shown(&server, "Settings", "hover_tip"));
    let form = wd.session("Form").await;
    let color = wd.find(&form, "id", "color").await;
    let before = long_presses(&server);
    wd.exec_ok(&form, "press", json!({"elementId": color, "duration": 0.6}))
        .await;
    assert_eq!(long_presses(&server), before + 1);
    assert!(
        server
            .demo
            .node_by_identifier("Form", "color_menu")
            .is_some()
    );
    let (status, body) = wd
        .exec(&form, "press", json!({"elementId": color, "duration": 30}))
        .await;
    super::assert_w3c(status, &body, 400, "invalid argument");
    let subscribe = wd.find(&form, "id", "subscribe").await;
    wd.exec_ok(&form, "tap", json!({"elementId": subscribe}))
        .await;
    assert_eq!(
        app_value(&server, "Form", "subscribe"),
        Some(AxValue::Bool(true))
    );
    let list = wd.session("List").await;
    let row2 = wd.find(&list, "id", "row_2").await;
    let row5 = wd.find(&list, "id", "row_5").await;
    wd.exec_ok(&list, "click", json!({"elementId": row2})).await;
    // Shift is Mac2's bit 1 << 1.
    wd.exec_ok(
        &list,
        "click",
        json!({"elementId": row5, "keyModifierFlags": 1 << 1}),
    )
    .await;
    assert_eq!(selected_rows(&server), [2, 3, 4, 5]);
    wd.exec_ok(&list, "doubleTap", json!({"elementId": row2}))
        .await;
    assert_eq!(selected_rows(&server), [2]);
}
