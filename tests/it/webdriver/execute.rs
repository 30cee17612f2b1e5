//! Execute Script's `macos:` commands against the demo TextEdit and Form: clicks by element
//! and by point, Control-click as a right click opening the text view's context menu, keys
//! with Mac2's modifier bits, source formats, clipboard (base64, also through Appium's
//! endpoints), app state and lifecycle, and the scripts that are refused.

use base64::Engine as _;
use serde_json::{Value, json};

use super::{Wd, assert_w3c};
use crate::support::{TestServer, app_value, config};
use axgate::ax::AxValue;

const TEXT_VIEW: &str = "First Text View";
const CONTEXT_MENU_COPY: &str =
    "//XCUIElementTypeMenu[@identifier='text_context_menu']/XCUIElementTypeMenuItem[@title='Copy']";

impl Wd {
    /// Runs `macos: <command>` with `args` (as Mac2 documents: a list whose first item is
    /// the object); status and body.
    pub(crate) async fn exec(&self, sid: &str, command: &str, args: Value) -> (u16, Value) {
        self.send(
            "POST",
            &format!("/session/{sid}/execute/sync"),
            Some(json!({"script": format!("macos: {command}"), "args": [args]})),
        )
        .await
    }

    /// `macos: <command>` that must succeed; its value.
    pub(crate) async fn exec_ok(&self, sid: &str, command: &str, args: Value) -> Value {
        let (status, body) = self.exec(sid, command, args).await;
        assert_eq!(status, 200, "macos: {command}: {body}");
        body["value"].clone()
    }

    /// How many elements `xpath` finds now.
    pub(crate) async fn count(&self, sid: &str, xpath: &str) -> usize {
        let (status, body) = self
            .send(
                "POST",
                &format!("/session/{sid}/elements"),
                Some(json!({"using": "xpath", "value": xpath})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body["value"].as_array().map_or(0, Vec::len)
    }
}

#[tokio::test]
async fn control_click_and_right_click_open_the_context_menu() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("com.apple.TextEdit").await;
    let text = wd.find(&sid, "id", TEXT_VIEW).await;
    assert_eq!(wd.count(&sid, CONTEXT_MENU_COPY).await, 0);
    // A plain click opens no menu.
    wd.exec_ok(&sid, "click", json!({"elementId": text})).await;
    assert_eq!(wd.count(&sid, CONTEXT_MENU_COPY).await, 0);
    // Control held (Mac2's bit 1 << 2): a right click, as macOS makes it.
    let value = wd
        .exec_ok(
            &sid,
            "click",
            json!({"elementId": text, "keyModifierFlags": 1 << 2}),
        )
        .await;
    assert_eq!(value, Value::Null);
    assert_eq!(wd.count(&sid, CONTEXT_MENU_COPY).await, 1);
    wd.exec_ok(&sid, "keys", json!({"keys": ["XCUIKeyboardKeyEscape"]}))
        .await;
    assert_eq!(
        wd.count(&sid, CONTEXT_MENU_COPY).await,
        0,
        "Escape closed it"
    );
    wd.exec_ok(&sid, "rightClick", json!({"elementId": text}))
        .await;
    assert_eq!(wd.count(&sid, CONTEXT_MENU_COPY).await, 1);
    // Caps Lock (1 << 0) cannot be held on a click: refused, not ignored.
    let (status, body) = wd
        .exec(
            &sid,
            "click",
            json!({"elementId": text, "keyModifierFlags": 1 << 0}),
        )
        .await;
    assert_w3c(status, &body, 500, "unsupported operation");
}

#[tokio::test]
async fn clicks_by_point_act_on_the_element_there() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    // The Subscribe check box is at (60, 202) 200×20.
    wd.exec_ok(&sid, "click", json!({"x": 70, "y": 210})).await;
    assert_eq!(
        app_value(&server, "Form", "subscribe"),
        Some(AxValue::Bool(true))
    );
    // x/y with an element are an offset from its top left.
    let check = wd.find(&sid, "id", "subscribe").await;
    wd.exec_ok(&sid, "click", json!({"elementId": check, "x": 5, "y": 5}))
        .await;
    assert_eq!(
        app_value(&server, "Form", "subscribe"),
        Some(AxValue::Bool(false))
    );
    let (status, body) = wd.exec(&sid, "click", json!({"x": 1, "y": 1})).await;
    assert_w3c(status, &body, 404, "no such element");
    let (status, body) = wd.exec(&sid, "click", json!({"x": 1})).await;
    assert_w3c(status, &body, 400, "invalid argument");
}

#[tokio::test]
async fn keys_type_text_and_press_keys_with_mac2_modifier_bits() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("TextEdit").await;
    let text = wd.find(&sid, "id", TEXT_VIEW).await;
    wd.exec_ok(
        &sid,
        "keys",
        json!({"elementId": text, "keys": ["hello", " ", "world"]}),
    )
    .await;
    assert_eq!(wd.read(&sid, &text, "attribute/value").await, "hello world");
    let typeface = wd.find(&sid, "id", "typeface").await;
    assert_eq!(wd.read(&sid, &typeface, "attribute/value").await, "Regular");
    // Command (1 << 4) + b: Format ▸ Bold.
    wd.exec_ok(
        &sid,
        "keys",
        json!({"keys": [{"key": "b", "modifierFlags": 1 << 4}]}),
    )
    .await;
    assert_eq!(wd.read(&sid, &typeface, "attribute/value").await, "Bold");
    wd.exec_ok(&sid, "keys", json!({"keys": ["XCUIKeyboardKeyDelete"]}))
        .await;
    assert_eq!(wd.read(&sid, &text, "attribute/value").await, "hello worl");
    let (status, body) = wd
        .exec(
            &sid,
            "keys",
            json!({"keys": [{"key": "b", "modifierFlags": 1 << 5}]}),
        )
        .await;
    assert_w3c(status, &body, 500, "unsupported operation");
    let (status, body) = wd.exec(&sid, "keys", json!({})).await;
    assert_w3c(status, &body, 400, "invalid argument");
}

#[tokio::test]
async fn source_clipboard_screenshots_and_app_state() {
    let server = TestServer::with_config(config("[policy]\nunconfirmed = \"allow\"\n")).await;
    let wd = Wd::new(&server);
    let sid = wd.session("TextEdit").await;
    let xml = wd.exec_ok(&sid, "source", json!({})).await;
    assert!(
        xml.as_str()
            .unwrap()
            .contains("<XCUIElementTypeApplication"),
        "{xml}"
    );
    let described = wd
        .exec_ok(&sid, "source", json!({"format": "description"}))
        .await;
    let described = described.as_str().unwrap();
    assert!(described.starts_with("Application, "), "{described}");
    assert!(
        described.contains(&format!("identifier: '{TEXT_VIEW}'")),
        "{described}"
    );
    let (status, body) = wd.exec(&sid, "source", json!({"format": "json"})).await;
    assert_w3c(status, &body, 400, "invalid argument");

    // The clipboard travels as base64, through macos: and through Appium's endpoints.
    let b64 = base64::engine::general_purpose::STANDARD;
    wd.exec_ok(
        &sid,
        "setClipboard",
        json!({"content": b64.encode("copied ✓"), "contentType": "plaintext"}),
    )
    .await;
    let got = wd.exec_ok(&sid, "getClipboard", json!({})).await;
    assert_eq!(
        b64.decode(got.as_str().unwrap()).unwrap(),
        "copied ✓".as_bytes()
    );
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/appium/device/set_clipboard"),
            Some(json!({"content": b64.encode("again"), "contentType": "plaintext"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/appium/device/get_clipboard"),
            Some(json!({})),
        )
        .await;
    assert_eq!((status, body["value"].as_str()), (200, Some("YWdhaW4=")));

    let shots = wd.exec_ok(&sid, "screenshots", json!({})).await;
    let png = b64.decode(shots["1"]["payload"].as_str().unwrap()).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "{shots}");
    assert_eq!(shots["1"]["isMain"], true);

    // queryAppState: 4 frontmost, 3 behind, 1 not running (Mac2's numbers).
    let state = |app: &'static str| {
        let wd = &wd;
        let sid = &sid;
        async move {
            wd.exec_ok(sid, "queryAppState", json!({"bundleId": app}))
                .await
        }
    };
    assert_eq!(state("com.apple.TextEdit").await, 4);
    assert_eq!(state("dev.axgate.demo.notes").await, 1);
    wd.exec_ok(
        &sid,
        "launchApp",
        json!({"bundleId": "dev.axgate.demo.notes"}),
    )
    .await;
    assert_eq!(state("dev.axgate.demo.notes").await, 4);
    assert_eq!(state("com.apple.TextEdit").await, 3);
    wd.exec_ok(
        &sid,
        "activateApp",
        json!({"bundleId": "com.apple.TextEdit"}),
    )
    .await;
    assert_eq!(state("com.apple.TextEdit").await, 4);
    wd.exec_ok(
        &sid,
        "terminateApp",
        json!({"bundleId": "dev.axgate.demo.notes"}),
    )
    .await;
    assert_eq!(state("dev.axgate.demo.notes").await, 1);
    let (status, body) = wd.exec(&sid, "launchApp", json!({})).await;
    assert_w3c(status, &body, 400, "invalid argument");
}

#[tokio::test]
async fn other_scripts_are_unsupported_operations() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    for (path, script) in [
        ("sync", "return document.title"),
        ("async", "macos: nosuch"),
        ("sync", "macos: deepLink"),
        ("sync", "macos: appleScript"),
    ] {
        let (status, body) = wd
            .send(
                "POST",
                &format!("/session/{sid}/execute/{path}"),
                Some(json!({"script": script, "args": [{"command": "beep"}]})),
            )
            .await;
        assert_w3c(status, &body, 500, "unsupported operation");
    }
    let (_, body) = wd
        .exec(&sid, "appleScript", json!({"command": "beep"}))
        .await;
    assert!(
        body["value"]["message"]
            .as_str()
            .unwrap()
            .contains("webdriver.allow_scripts"),
        "{body}"
    );
}
