//! The WebDriver facade (docs/WEBDRIVER.md) over real HTTP on a port-0 listener, against the
//! demo apps: sessions (`webdriver/sessions.rs`), the locator strategies
//! (`webdriver/locators.rs`), element commands and page source (`webdriver/elements.rs`),
//! authentication, scopes and audit (`webdriver/access.rs`). The client here speaks the W3C
//! wire as Selenium and WebdriverIO do: JSON bodies, `{"value": …}` answers; real clients
//! (WebdriverIO, the Appium Python client, Selenium) run a Mac2-style suite in
//! `webdriver/clients.rs`.

mod access;
mod actions;
mod clients;
mod elements;
mod execute;
mod locators;
mod pointer;
mod scripts;
mod sessions;

use serde_json::{Value, json};

use crate::support::TestServer;

/// The W3C element key.
pub(crate) const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A WebDriver client of a test server.
pub(crate) struct Wd {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl Wd {
    pub(crate) fn new(server: &TestServer) -> Wd {
        Wd {
            http: reqwest::Client::new(),
            base: format!("http://{}", server.addr),
            token: None,
        }
    }

    pub(crate) fn with_token(server: &TestServer, token: &str) -> Wd {
        Wd {
            token: Some(token.to_owned()),
            ..Wd::new(server)
        }
    }

    /// Sends a command; its status, JSON body and `WWW-Authenticate` header.
    pub(crate) async fn send_full(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value, Option<String>) {
        let url = format!("{}{path}", self.base);
        let mut request = match method {
            "GET" => self.http.get(url),
            "DELETE" => self.http.delete(url),
            _ => self.http.post(url),
        };
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = response.text().await.expect("body");
        let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        (status, body, challenge)
    }

    pub(crate) async fn send(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let (status, body, _) = self.send_full(method, path, body).await;
        (status, body)
    }

    /// A session on `app` (the demo's name or bundle id); its id.
    pub(crate) async fn session(&self, app: &str) -> String {
        let (status, body) = self
            .send(
                "POST",
                "/session",
                Some(caps(json!({"appium:bundleId": app}))),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body["value"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    /// The first element by `using`/`value`; its id.
    pub(crate) async fn find(&self, sid: &str, using: &str, value: &str) -> String {
        let (status, body) = self
            .send(
                "POST",
                &format!("/session/{sid}/element"),
                Some(json!({"using": using, "value": value})),
            )
            .await;
        assert_eq!(status, 200, "{using} {value}: {body}");
        body["value"][ELEMENT]
            .as_str()
            .expect("an element")
            .to_owned()
    }

    /// What clicking element `id` of session `sid` answers: its status and body.
    pub(crate) async fn click(&self, sid: &str, id: &str) -> (u16, Value) {
        let path = format!("/session/{sid}/element/{id}/click");
        self.send("POST", &path, Some(json!({}))).await
    }

    /// What `GET /session/{sid}/element/{id}/{what}` answers.
    pub(crate) async fn read(&self, sid: &str, id: &str, what: &str) -> Value {
        let (status, body) = self
            .send("GET", &format!("/session/{sid}/element/{id}/{what}"), None)
            .await;
        assert_eq!(status, 200, "{what}: {body}");
        body["value"].clone()
    }
}

/// Mac2 capabilities with `extra` in `firstMatch`.
pub(crate) fn caps(extra: Value) -> Value {
    json!({"capabilities": {
        "alwaysMatch": {"platformName": "mac", "appium:automationName": "Mac2"},
        "firstMatch": [extra],
    }})
}

/// Asserts the W3C error shape, code and status.
pub(crate) fn assert_w3c(status: u16, body: &Value, want_status: u16, error: &str) {
    assert_eq!(status, want_status, "{body}");
    let value = &body["value"];
    assert_eq!(value["error"], error, "{body}");
    assert!(
        value["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert_eq!(value["stacktrace"], "", "{body}");
}
