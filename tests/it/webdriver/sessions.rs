//! Session lifecycle: create (attach to a running app, launch one that is not), the
//! answered capabilities, `/status`, `/wd/hub`, delete, two sessions at once on two apps,
//! the bound on sessions, refused capabilities, idle reaping.

use std::time::Duration;

use serde_json::{Value, json};

use super::{ELEMENT, Wd, assert_w3c, caps};
use crate::support::{TestServer, config, metric};

#[tokio::test]
async fn a_session_starts_answers_as_mac2_and_ends() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let (status, body) = wd.send("GET", "/status", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["value"]["ready"], true);
    let (status, body) = wd
        .send(
            "POST",
            "/session",
            Some(caps(json!({"appium:bundleId": "dev.axgate.demo.form"}))),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let value = &body["value"];
    let sid = value["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(value["capabilities"]["platformName"], "mac");
    assert_eq!(value["capabilities"]["automationName"], "Mac2");
    assert!(value["capabilities"].get("browserName").is_none(), "{body}");
    assert_eq!(metric(&server, "axgate_webdriver_sessions").await, 1.0);
    let (status, _) = wd
        .send("GET", &format!("/session/{sid}/source"), None)
        .await;
    assert_eq!(status, 200);
    let (status, body) = wd.send("DELETE", &format!("/session/{sid}"), None).await;
    assert_eq!((status, &body["value"]), (200, &Value::Null));
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/source"), None)
        .await;
    assert_w3c(status, &body, 404, "invalid session id");
    assert_eq!(metric(&server, "axgate_webdriver_sessions").await, 0.0);
}

#[tokio::test]
async fn the_legacy_base_path_serves_the_same() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let (status, body) = wd.send("GET", "/wd/hub/status", None).await;
    assert_eq!((status, &body["value"]["ready"]), (200, &json!(true)));
    let (status, body) = wd
        .send(
            "POST",
            "/wd/hub/session",
            Some(caps(json!({"bundleId": "Form"}))),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let sid = body["value"]["sessionId"].as_str().unwrap();
    let (status, body) = wd
        .send(
            "POST",
            &format!("/wd/hub/session/{sid}/element"),
            Some(json!({"using": "accessibility id", "value": "submit"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["value"][ELEMENT].is_string());
}

#[tokio::test]
async fn a_session_launches_an_app_that_is_not_running() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    assert!(server.demo.pid_of("Notes").is_none(), "Notes starts quit");
    let sid = wd.session("dev.axgate.demo.notes").await;
    assert!(server.demo.pid_of("Notes").is_some(), "launched");
    // Its window appears after the demo's launch delay: the implicit wait covers it.
    let (status, _) = wd
        .send(
            "POST",
            &format!("/session/{sid}/timeouts"),
            Some(json!({"implicit": 5000})),
        )
        .await;
    assert_eq!(status, 200);
    wd.find(&sid, "id", "note").await;
}

/// `appium:arguments` and `appium:environment` reach the launched app (the demo shows them as
/// its application element's value, which the page source's root carries); before, such a
/// session was refused.
#[tokio::test]
async fn a_session_with_arguments_and_environment_launches_the_app_with_them() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let notes = json!({
        "appium:bundleId": "dev.axgate.demo.notes",
        "appium:arguments": ["-a", "two words"],
        "appium:environment": {"GREETING": "hi"},
    });
    let (status, body) = wd.send("POST", "/session", Some(caps(notes.clone()))).await;
    assert_eq!(status, 200, "{body}");
    let sid = body["value"]["sessionId"].as_str().unwrap();
    let (_, source) = wd
        .send("GET", &format!("/session/{sid}/source"), None)
        .await;
    let root = source["value"].as_str().unwrap().lines().nth(1).unwrap();
    assert!(
        root.contains(r#"value="-a two words GREETING=hi""#),
        "{root}"
    );
    // Notes runs now: the extras would not reach it, so such a session is refused.
    let (status, body) = wd.send("POST", "/session", Some(caps(notes))).await;
    assert_w3c(status, &body, 500, "session not created");
    let message = body["value"]["message"].as_str().unwrap();
    assert!(message.contains("quit it first"), "{message}");
    // macos: launchApp passes them too, to an app that was not running.
    wd.exec_ok(
        sid,
        "launchApp",
        json!({"bundleId": "Counter", "arguments": ["--new"], "environment": {"MODE": "x"}}),
    )
    .await;
    let counter = wd.session("Counter").await;
    let (_, source) = wd
        .send("GET", &format!("/session/{counter}/source"), None)
        .await;
    assert!(
        source["value"]
            .as_str()
            .unwrap()
            .contains(r#"value="--new MODE=x""#),
        "{source}"
    );
}

/// A variable that loads code into the launched app is refused before anything starts,
/// named, its value never repeated.
#[tokio::test]
async fn a_session_with_a_code_loading_variable_is_refused_naming_it() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let (status, body) = wd
        .send(
            "POST",
            "/session",
            Some(caps(json!({
                "appium:bundleId": "dev.axgate.demo.notes",
                "appium:environment": {"DYLD_INSERT_LIBRARIES": "/tmp/evil.dylib"},
            }))),
        )
        .await;
    assert_w3c(status, &body, 500, "session not created");
    let message = body["value"]["message"].as_str().unwrap();
    assert!(message.contains("DYLD_INSERT_LIBRARIES"), "{message}");
    assert!(!message.contains("evil"), "{message}");
    assert!(server.demo.pid_of("Notes").is_none(), "nothing started");
    // The same through macos: launchApp.
    let sid = wd.session("Form").await;
    let (status, body) = wd
        .exec(
            &sid,
            "launchApp",
            json!({"bundleId": "Notes", "environment": {"LD_PRELOAD": "/tmp/evil.so"}}),
        )
        .await;
    assert!(status >= 400, "{body}");
    assert!(
        body["value"]["message"]
            .as_str()
            .unwrap()
            .contains("LD_PRELOAD"),
        "{body}"
    );
    assert!(server.demo.pid_of("Notes").is_none(), "nothing started");
}

#[tokio::test]
async fn two_sessions_drive_two_apps_at_once() {
    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let (form, editor) = tokio::join!(wd.session("Form"), wd.session("Editor"));
    assert_ne!(form, editor);
    let (a, b) = tokio::join!(
        wd.find(&form, "class name", "XCUIElementTypeTextField"),
        wd.find(&editor, "class name", "XCUIElementTypeWindow"),
    );
    let (ta, tb) = tokio::join!(
        wd.read(&form, &a, "attribute/identifier"),
        wd.read(&editor, &b, "name")
    );
    assert_eq!(ta, "name");
    assert_eq!(tb, "XCUIElementTypeWindow");
    // Each session sees its own app only: the Form's fields are not in the Editor.
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{editor}/elements"),
            Some(json!({"using": "id", "value": "email"})),
        )
        .await;
    assert_eq!((status, &body["value"]), (200, &json!([])));
}

#[tokio::test]
async fn sessions_are_bounded_and_bad_capabilities_refused() {
    let server = TestServer::with_config(config("[webdriver]\nmax_sessions = 1\n")).await;
    let wd = Wd::new(&server);
    wd.session("Form").await;
    let (status, body) = wd
        .send(
            "POST",
            "/session",
            Some(caps(json!({"appium:bundleId": "Editor"}))),
        )
        .await;
    assert_w3c(status, &body, 500, "session not created");
    assert!(
        body["value"]["message"]
            .as_str()
            .unwrap()
            .contains("webdriver.max_sessions")
    );

    let server = TestServer::start().await;
    let wd = Wd::new(&server);
    let cases = [
        (
            json!({"appium:bundleId": "Form", "appium:prerun": {"script": "beep"}}),
            500,
            "session not created",
            "webdriver.allow_scripts",
        ),
        (
            json!({"platformName": "Windows"}),
            400,
            "invalid argument",
            "both",
        ),
        (json!({}), 500, "session not created", "appium:bundleId"),
        (
            json!({"appium:bundleId": "NoSuchApp"}),
            500,
            "session not created",
            "NoSuchApp",
        ),
        (
            json!({"appium:bundleId": 7}),
            400,
            "invalid argument",
            "bundleId",
        ),
    ];
    for (extra, want, error, names) in cases {
        let (status, body) = wd.send("POST", "/session", Some(caps(extra.clone()))).await;
        assert_w3c(status, &body, want, error);
        assert!(
            body["value"]["message"].as_str().unwrap().contains(names),
            "{extra}: {body}"
        );
    }
    let (status, body) = wd
        .send(
            "POST",
            "/session",
            Some(json!({"capabilities": {"alwaysMatch": {"platformName": "iOS"}}})),
        )
        .await;
    assert_w3c(status, &body, 500, "session not created");
}

#[tokio::test]
async fn an_idle_session_is_reaped() {
    let server = TestServer::with_config(config("[webdriver]\nidle_timeout_secs = 1\n")).await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let kept = wd.session("Editor").await;
    // The kept one is used every half second; the other is left alone.
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let (status, _) = wd
            .send("GET", &format!("/session/{kept}/timeouts"), None)
            .await;
        assert_eq!(status, 200);
    }
    let (status, body) = wd
        .send("GET", &format!("/session/{sid}/timeouts"), None)
        .await;
    assert_w3c(status, &body, 404, "invalid session id");
    assert_eq!(metric(&server, "axgate_webdriver_sessions").await, 1.0);
}
