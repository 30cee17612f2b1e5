//! W3C actions (key and pointer sources; modifiers held across ticks and across pointer
//! actions; Release Actions) and the window commands, against the demo TextEdit and Form.

use serde_json::{Value, json};

use super::{ELEMENT, Wd, assert_w3c};
use crate::support::{TestServer, app_value};
use axgate::ax::AxValue;

const TEXT_VIEW: &str = "First Text View";
const CONTEXT_MENU_COPY: &str =
    "//XCUIElementTypeMenu[@identifier='text_context_menu']/XCUIElementTypeMenuItem[@title='Copy']";

fn keys(actions: Value) -> Value {
    json!({"type": "key", "id": "keyboard", "actions": actions})
}

fn mouse(actions: Value) -> Value {
    json!({"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": actions})
}

impl Wd {
    async fn perform(&self, sid: &str, sources: Value) -> (u16, Value) {
        self.send(
            "POST",
            &format!("/session/{sid}/actions"),
            Some(json!({"actions": sources})),
        )
        .await
    }

    async fn perform_ok(&self, sid: &str, sources: Value) {
        let (status, body) = self.perform(sid, sources).await;
        assert_eq!(status, 200, "{body}");
    }
}

#[tokio::test]
async fn key_actions_hold_modifiers_across_ticks() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("TextEdit").await;
    let text = wd.find(&sid, "id", TEXT_VIEW).await;
    wd.exec_ok(&sid, "keys", json!({"elementId": text, "keys": ["hello"]}))
        .await;
    // Command (U+E03D) held over "a": select all; then "b" alone replaces the selection.
    wd.perform_ok(
        &sid,
        json!([keys(json!([
            {"type": "keyDown", "value": "\u{E03D}"},
            {"type": "keyDown", "value": "a"},
            {"type": "keyUp", "value": "a"},
            {"type": "keyUp", "value": "\u{E03D}"},
            {"type": "keyDown", "value": "b"},
            {"type": "keyUp", "value": "b"},
            {"type": "keyDown", "value": "\u{E008}"},
            {"type": "keyDown", "value": "c"},
        ]))]),
    )
    .await;
    assert_eq!(wd.read(&sid, &text, "attribute/value").await, "bC");
    // Shift is still down in the next command, until the actions are released.
    wd.perform_ok(
        &sid,
        json!([keys(json!([{"type": "keyDown", "value": "d"}]))]),
    )
    .await;
    assert_eq!(wd.read(&sid, &text, "attribute/value").await, "bCD");
    let (status, body) = wd
        .send("DELETE", &format!("/session/{sid}/actions"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    wd.perform_ok(
        &sid,
        json!([keys(json!([
            {"type": "keyDown", "value": "e"},
            {"type": "keyDown", "value": "\u{E003}"},
            {"type": "keyDown", "value": "\u{E003}"},
        ]))]),
    )
    .await;
    assert_eq!(wd.read(&sid, &text, "attribute/value").await, "bC");
    let (status, body) = wd
        .perform(
            &sid,
            json!([keys(json!([{"type": "keyDown", "value": "\u{E002}"}]))]),
        )
        .await;
    assert_w3c(status, &body, 500, "unsupported operation");
}

#[tokio::test]
async fn pointer_actions_click_right_click_and_control_click() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("TextEdit").await;
    let text = wd.find(&sid, "id", TEXT_VIEW).await;
    let on_text = json!({"type": "pointerMove", "origin": {ELEMENT: text}, "x": 0, "y": 0});
    // Button 2 is the right button: the context menu opens.
    wd.perform_ok(
        &sid,
        json!([mouse(json!([
            on_text,
            {"type": "pointerDown", "button": 2},
            {"type": "pointerUp", "button": 2},
        ]))]),
    )
    .await;
    assert_eq!(wd.count(&sid, CONTEXT_MENU_COPY).await, 1);
    wd.perform_ok(
        &sid,
        json!([keys(json!([
            {"type": "keyDown", "value": "\u{E00C}"},
            {"type": "keyUp", "value": "\u{E00C}"},
        ]))]),
    )
    .await;
    assert_eq!(wd.count(&sid, CONTEXT_MENU_COPY).await, 0);
    // Control held by the key source across the pointer's left click: a right click.
    wd.perform_ok(
        &sid,
        json!([
            keys(json!([
                {"type": "keyDown", "value": "\u{E009}"},
                {"type": "pause"},
                {"type": "pause"},
                {"type": "keyUp", "value": "\u{E009}"},
            ])),
            mouse(json!([
                on_text,
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0},
            ])),
        ]),
    )
    .await;
    assert_eq!(wd.count(&sid, CONTEXT_MENU_COPY).await, 1);
}

#[tokio::test]
async fn pointer_actions_click_and_drag_by_point() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    // The Subscribe check box is at (60, 202) 200×20.
    wd.perform_ok(
        &sid,
        json!([mouse(json!([
            {"type": "pointerMove", "origin": "viewport", "x": 70, "y": 210},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerUp", "button": 0},
        ]))]),
    )
    .await;
    assert_eq!(
        app_value(&server, "Form", "subscribe"),
        Some(AxValue::Bool(true))
    );
    // The Volume slider (60, 232) 300×24, dragged from its centre to a quarter.
    wd.perform_ok(
        &sid,
        json!([mouse(json!([
            {"type": "pointerMove", "x": 210, "y": 244},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerMove", "origin": "pointer", "x": -75, "y": 0},
            {"type": "pointerUp", "button": 0},
        ]))]),
    )
    .await;
    let volume = wd.find(&sid, "id", "volume").await;
    assert_eq!(wd.read(&sid, &volume, "attribute/value").await, "25");
}

#[tokio::test]
async fn window_commands_move_resize_maximize_fullscreen_and_minimize() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/window"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let handle = body["value"].as_str().unwrap().to_owned();
    let (_, body) = wd
        .send("GET", &format!("/session/{sid}/window/handles"), None)
        .await;
    assert_eq!(body["value"], json!([handle]));
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/window/rect"),
            Some(json!({"x": 100, "y": 120, "width": 500, "height": 450})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["value"],
        json!({"x": 100.0, "y": 120.0, "width": 500.0, "height": 450.0})
    );
    let (_, body) = wd
        .send("GET", &format!("/session/{sid}/window/rect"), None)
        .await;
    assert_eq!(body["value"]["width"], 500.0);
    // Maximize zooms to the screen below the menu bar (the demo's screen is 1440×900, its
    // menu bar 25 points); a second maximize gives the frame back, as macOS's zoom does.
    let zoom = |what: &'static str| {
        let (wd, sid) = (&wd, &sid);
        async move {
            let path = format!("/session/{sid}/window/{what}");
            let (status, body) = wd.send("POST", &path, Some(json!({}))).await;
            assert_eq!(status, 200, "{what}: {body}");
            body["value"].clone()
        }
    };
    assert_eq!(
        zoom("maximize").await,
        json!({"x": 0.0, "y": 25.0, "width": 1440.0, "height": 875.0})
    );
    assert_eq!(
        zoom("maximize").await,
        json!({"x": 100.0, "y": 120.0, "width": 500.0, "height": 450.0})
    );
    // Full screen covers the whole screen; a second call keeps it.
    let full = json!({"x": 0.0, "y": 0.0, "width": 1440.0, "height": 900.0});
    assert_eq!(zoom("fullscreen").await, full);
    assert_eq!(zoom("fullscreen").await, full);
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/window"),
            Some(json!({"handle": "e999"})),
        )
        .await;
    assert_w3c(status, &body, 404, "no such window");
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/window/minimize"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let window = wd.find(&sid, "class name", "XCUIElementTypeWindow").await;
    assert_eq!(wd.read(&sid, &window, "displayed").await, false);
}
