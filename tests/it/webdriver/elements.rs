//! Element commands against the demo Form: reads (text, attribute, rect, enabled,
//! selected, displayed, name), acts through the verified tools (click, clear, value), the
//! active element, stale references, page source as Mac2's XML, screenshots.

use base64::Engine as _;
use serde_json::{Value, json};

use super::{ELEMENT, Wd, assert_w3c};
use crate::support::{TestServer, app_value};
use axgate::ax::AxValue;

#[tokio::test]
async fn reads_answer_as_mac2() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let status = wd.find(&sid, "id", "status").await;
    assert_eq!(wd.read(&sid, &status, "text").await, "Ready");
    let submit = wd.find(&sid, "id", "submit").await;
    assert_eq!(
        wd.read(&sid, &submit, "text").await,
        "Submit",
        "title when no value or label"
    );
    assert_eq!(
        wd.read(&sid, &submit, "name").await,
        "XCUIElementTypeButton"
    );
    assert_eq!(wd.read(&sid, &submit, "attribute/elementType").await, "9");
    assert_eq!(wd.read(&sid, &submit, "attribute/title").await, "Submit");
    assert_eq!(
        wd.read(&sid, &submit, "attribute/frame").await,
        "{{60, 400}, {90, 28}}"
    );
    assert_eq!(
        wd.read(&sid, &submit, "attribute/nosuch").await,
        Value::Null
    );
    assert_eq!(
        wd.read(&sid, &submit, "rect").await,
        json!({"x": 60.0, "y": 400.0, "width": 90.0, "height": 28.0})
    );
    assert_eq!(wd.read(&sid, &submit, "enabled").await, true);
    assert_eq!(wd.read(&sid, &submit, "displayed").await, true);
    let disabled = wd.find(&sid, "id", "disabled_action").await;
    assert_eq!(wd.read(&sid, &disabled, "enabled").await, false);
    let check = wd.find(&sid, "id", "subscribe").await;
    assert_eq!(wd.read(&sid, &check, "attribute/value").await, "0");
    let stubborn = wd.find(&sid, "id", "stubborn").await;
    assert_eq!(
        wd.read(&sid, &stubborn, "attribute/label").await,
        "Ignores accessibility presses; only a pointer click works"
    );
}

#[tokio::test]
async fn acts_go_through_the_verified_tools() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("dev.axgate.demo.form").await;
    let name = wd.find(&sid, "id", "name").await;
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{name}/value"),
            Some(json!({"text": "Ada"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app_value(&server, "Form", "name"),
        Some(AxValue::Text("Ada".into()))
    );
    assert_eq!(wd.read(&sid, &name, "text").await, "Ada");
    let submit = wd.find(&sid, "accessibility id", "submit").await;
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{submit}/click"),
            Some(json!({})),
        )
        .await;
    assert_eq!((status, &body["value"]), (200, &Value::Null), "{body}");
    assert_eq!(
        app_value(&server, "Form", "status"),
        Some(AxValue::Text("Submitted: Ada".into()))
    );
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{name}/clear"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app_value(&server, "Form", "name"),
        Some(AxValue::Text(String::new()))
    );
    let check = wd.find(&sid, "id", "subscribe").await;
    wd.send(
        "POST",
        &format!("/session/{sid}/element/{check}/click"),
        Some(json!({})),
    )
    .await;
    assert_eq!(wd.read(&sid, &check, "attribute/value").await, "1");
    // A disabled button is not interactable.
    let disabled = wd.find(&sid, "id", "disabled_action").await;
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{disabled}/click"),
            Some(json!({})),
        )
        .await;
    assert_w3c(status, &body, 400, "element not interactable");
    // The active element is the focused field (typing focused it).
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/element/active"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let active = body["value"][ELEMENT].as_str().unwrap();
    assert_eq!(wd.read(&sid, active, "attribute/identifier").await, "name");
}

/// Element Send Keys types text runs, presses key codepoints and holds a modifier until the
/// NULL key (before, every key but Enter, Tab and Space was refused).
#[tokio::test]
async fn send_keys_presses_special_keys_and_holds_modifiers() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("TextEdit").await;
    let text = wd.find(&sid, "id", "First Text View").await;
    let send = |keys: &'static str| {
        let (wd, sid, text) = (&wd, &sid, &text);
        async move {
            let (status, body) = wd
                .send(
                    "POST",
                    &format!("/session/{sid}/element/{text}/value"),
                    Some(json!({"text": keys})),
                )
                .await;
            assert_eq!(status, 200, "{keys:?}: {body}");
            wd.read(sid, text, "attribute/value").await
        }
    };
    // Shift (U+E008) holds over "ab" until NULL (U+E000); "c" is typed plainly.
    assert_eq!(send("\u{E008}ab\u{E000}c").await, "ABc");
    // Backspace (U+E003) is pressed; Enter (U+E007) types a new line.
    assert_eq!(send("\u{E003}\u{E007}d").await, "AB\nd");
    // Command (U+E03D) with "a" selects all, released at the end of the text; the next
    // text replaces the selection; Left (U+E012) collapses it before "y".
    assert_eq!(send("\u{E03D}a").await, "AB\nd");
    assert_eq!(send("z\u{E03D}a\u{E000}\u{E012}y").await, "zy");
    // A codepoint no key stands for is refused before anything is typed.
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{text}/value"),
            Some(json!({"text": "q\u{E002}"})),
        )
        .await;
    assert_w3c(status, &body, 500, "unsupported operation");
    assert_eq!(wd.read(&sid, &text, "attribute/value").await, "zy");
}

#[tokio::test]
async fn an_element_that_is_gone_is_a_stale_reference() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let popup = wd.find(&sid, "id", "color").await;
    wd.send(
        "POST",
        &format!("/session/{sid}/element/{popup}/click"),
        Some(json!({})),
    )
    .await;
    let green = wd.find(&sid, "id", "color_green").await;
    // Choosing an item closes the menu: the item is gone.
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{green}/click"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app_value(&server, "Form", "color"),
        Some(AxValue::Text("Green".into()))
    );
    for (method, what) in [("GET", "text"), ("GET", "rect"), ("POST", "click")] {
        let (status, body) = wd
            .send(
                method,
                &format!("/session/{sid}/element/{green}/{what}"),
                (method == "POST").then(|| json!({})),
            )
            .await;
        assert_w3c(status, &body, 404, "stale element reference");
    }
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{green}/elements"),
            Some(json!({"using": "id", "value": "x"})),
        )
        .await;
    assert_w3c(status, &body, 404, "stale element reference");
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/element/e99999/text"), None)
        .await;
    assert_w3c(status, &body, 404, "no such element");
}

#[tokio::test]
async fn the_page_source_is_mac2s_xml_and_xpath_reads_it() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/source"), None)
        .await;
    assert_eq!(status, 200);
    let xml = body["value"].as_str().expect("a string");
    let doc = roxmltree::Document::parse(xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "XCUIElementTypeApplication");
    assert_eq!(root.attribute("elementType"), Some("2"));
    let submit = doc
        .descendants()
        .find(|n| n.attribute("identifier") == Some("submit"))
        .expect("submit in the source");
    assert_eq!(submit.tag_name().name(), "XCUIElementTypeButton");
    // Mac2's attributes spelled out here, not taken from the code's own list; value, label
    // and placeholderValue, which an element may lack (then not written), are not asked for.
    for attr in "elementType identifier title enabled selected x y width height".split(' ') {
        assert!(submit.attribute(attr).is_some(), "{attr}");
    }
    assert_eq!(submit.attribute("x"), Some("60"));
    let password = doc
        .descendants()
        .find(|n| n.attribute("identifier") == Some("password"))
        .expect("password field");
    assert_eq!(
        password.attribute("value"),
        None,
        "a secure value never shows"
    );
    // Every element the source shows, xpath finds: the same document.
    let (_, all) = wd
        .send(
            "POST",
            &format!("/session/{sid}/elements"),
            Some(json!({"using": "xpath", "value": "//*"})),
        )
        .await;
    assert_eq!(
        all["value"].as_array().unwrap().len(),
        doc.descendants().filter(|n| n.is_element()).count()
    );
}

#[tokio::test]
async fn screenshots_are_base64_pngs() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/screenshot"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let png = base64::engine::general_purpose::STANDARD
        .decode(body["value"].as_str().unwrap())
        .expect("base64");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let submit = wd.find(&sid, "id", "submit").await;
    let (status, body) = wd
        .send(
            "GET",
            &format!("/session/{sid}/element/{submit}/screenshot"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["value"].as_str().is_some_and(|s| s.len() > 20));
}
