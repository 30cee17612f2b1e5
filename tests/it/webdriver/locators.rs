//! Every locator strategy against the demo Form, from the app and from an element, several
//! expressions each; bad selectors are `invalid selector` (400), unknown strategies
//! `invalid argument`, a miss `no such element` (404) after the implicit wait.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{ELEMENT, Wd, assert_w3c};
use crate::support::TestServer;

/// The identifiers of what `using`/`value` finds in session `sid` (from element `from`).
async fn ids(wd: &Wd, sid: &str, from: Option<&str>, using: &str, value: &str) -> Vec<String> {
    let path = match from {
        None => format!("/session/{sid}/elements"),
        Some(e) => format!("/session/{sid}/element/{e}/elements"),
    };
    let (status, body) = wd
        .send("POST", &path, Some(json!({"using": using, "value": value})))
        .await;
    assert_eq!(status, 200, "{using} {value}: {body}");
    let mut out = Vec::new();
    for el in body["value"].as_array().expect("a list") {
        let id = el[ELEMENT].as_str().expect("the W3C key");
        assert_eq!(el["ELEMENT"], id, "both keys");
        let (_, attr) = wd
            .send(
                "GET",
                &format!("/session/{sid}/element/{id}/attribute/identifier"),
                None,
            )
            .await;
        out.push(attr["value"].as_str().unwrap_or("-").to_owned());
    }
    out
}

#[tokio::test]
async fn every_strategy_finds_what_mac2_would() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let cases: &[(&str, &str, &[&str])] = &[
        ("accessibility id", "email", &["email"]),
        ("id", "submit", &["submit"]),
        ("name", "subscribe", &["subscribe"]),
        ("class name", "XCUIElementTypeTextField", &["name", "email"]),
        (
            "class name",
            "XCUIElementTypeSecureTextField",
            &["password"],
        ),
        (
            "-ios predicate string",
            "elementType == 9 AND enabled == false",
            &["disabled_action"],
        ),
        (
            "predicate string",
            "identifier IN {'name', 'color'}",
            &["name", "color"],
        ),
        (
            "-ios predicate string",
            "title BEGINSWITH[c] 'sub'",
            &["subscribe", "submit"],
        ),
        (
            "-ios predicate string",
            "title LIKE 'C*' AND NOT elementType == 14",
            &["clear"],
        ),
        (
            "-ios predicate string",
            "value MATCHES 'Re.*'",
            &["color", "status"],
        ),
        (
            "-ios class chain",
            "**/XCUIElementTypeButton[`title == 'Clear'`]",
            &["clear"],
        ),
        (
            "class chain",
            "XCUIElementTypeWindow/XCUIElementTypeTextField[-1]",
            &["email"],
        ),
        (
            "-ios class chain",
            "**/XCUIElementTypeWindow[`identifier == 'form_window'`]/XCUIElementTypeButton[1]",
            &["submit"],
        ),
        (
            "xpath",
            "//XCUIElementTypeButton[@title='Submit']",
            &["submit"],
        ),
        ("xpath", "//XCUIElementTypeTextField[2]", &["email"]),
        ("xpath", "//*[@enabled='false']", &["disabled_action"]),
        (
            "xpath",
            "//XCUIElementTypeCheckBox/following-sibling::XCUIElementTypeSlider",
            &["volume"],
        ),
        (
            "xpath",
            "(//XCUIElementTypeButton)[last()]/@identifier/..",
            &["stubborn"],
        ),
        (
            "xpath",
            "//*[contains(@title, 'mail') or @identifier='status']",
            &["email", "status"],
        ),
    ];
    for (using, value, want) in cases {
        assert_eq!(
            ids(&wd, &sid, None, using, value).await,
            *want,
            "{using} {value}"
        );
    }
    // From an element: only what is under it.
    let window = wd.find(&sid, "class name", "XCUIElementTypeWindow").await;
    let field = wd.find(&sid, "id", "name").await;
    assert_eq!(
        ids(&wd, &sid, Some(&window), "id", "email").await,
        ["email"]
    );
    assert!(ids(&wd, &sid, Some(&field), "id", "email").await.is_empty());
    assert_eq!(
        ids(
            &wd,
            &sid,
            Some(&window),
            "xpath",
            "./XCUIElementTypeCheckBox"
        )
        .await,
        ["subscribe"]
    );
    assert_eq!(
        ids(
            &wd,
            &sid,
            Some(&window),
            "class chain",
            "XCUIElementTypeButton[2]"
        )
        .await,
        ["clear"]
    );
    assert_eq!(
        ids(
            &wd,
            &sid,
            Some(&window),
            "-ios predicate string",
            "elementType == 33"
        )
        .await,
        ["volume"]
    );
}

#[tokio::test]
async fn bad_selectors_and_misses_have_their_w3c_errors() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let find = |using: &'static str, value: &'static str| {
        let wd = &wd;
        let path = format!("/session/{sid}/element");
        async move {
            wd.send("POST", &path, Some(json!({"using": using, "value": value})))
                .await
        }
    };
    for (using, value) in [
        ("-ios predicate string", "identifier =="),
        ("-ios predicate string", "colour == 'red'"),
        ("-ios predicate string", "label MATCHES '('"),
        ("-ios class chain", "**/XCUIElementTypeNope"),
        ("-ios class chain", "**/XCUIElementTypeButton[0]"),
        ("class chain", "**/XCUIElementTypeButton[`title ==`]"),
        ("xpath", "//XCUIElementTypeButton["),
        ("xpath", "//*[nosuch()]"),
        ("xpath", "count(//*)"),
        ("class name", "Button"),
    ] {
        let (status, body) = find(using, value).await;
        assert_w3c(status, &body, 400, "invalid selector");
        let _ = value;
    }
    let (status, body) = find("css selector", "button").await;
    assert_w3c(status, &body, 400, "invalid argument");
    let (status, body) = find("id", "no-such-thing").await;
    assert_w3c(status, &body, 404, "no such element");
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element"),
            Some(json!({"using": "id"})),
        )
        .await;
    assert_w3c(status, &body, 400, "invalid argument");
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/cookie"), None)
        .await;
    assert_w3c(status, &body, 404, "unknown command");
}

#[tokio::test]
async fn the_implicit_wait_is_done_here() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let (status, _) = wd
        .send(
            "POST",
            &format!("/session/{sid}/timeouts"),
            Some(json!({"implicit": 600})),
        )
        .await;
    assert_eq!(status, 200);
    let (_, body) = wd
        .send("GET", &format!("/session/{sid}/timeouts"), None)
        .await;
    assert_eq!(body["value"]["implicit"], 600);
    let started = Instant::now();
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element"),
            Some(json!({"using": "id", "value": "color_green"})),
        )
        .await;
    assert_w3c(status, &body, 404, "no such element");
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "waited the implicit wait"
    );
    // A menu item that appears while the wait runs is found.
    let popup = wd.find(&sid, "id", "color").await;
    let finder = async {
        wd.send(
            "POST",
            &format!("/session/{sid}/element"),
            Some(json!({"using": "id", "value": "color_green"})),
        )
        .await
    };
    let opener = async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        wd.send(
            "POST",
            &format!("/session/{sid}/element/{popup}/click"),
            Some(json!({})),
        )
        .await
    };
    let ((status, body), (clicked, _)) = tokio::join!(finder, opener);
    assert_eq!(clicked, 200);
    assert_eq!(status, 200, "{body}");
    assert!(matches!(body["value"][ELEMENT], Value::String(_)));
}
