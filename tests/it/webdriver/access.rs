//! Who may do what: without a token 401, a read-only token may find but not click (403, in
//! the W3C shape with the step-up challenge, and a denied audit line), an act is audited
//! like the MCP tool it runs (under its WebDriver session, whatever session header the client
//! sends), a session is unknown to another principal.

use serde_json::json;

use super::{Wd, assert_w3c, caps};
use crate::support::{TestServer, audit_lines, config};
use axgate::audit::session_tag;
use axgate::http::auth::tokens;

#[tokio::test]
async fn tokens_and_scopes_hold_in_the_w3c_shape() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let (reader, actor) = (tokens::generate().unwrap(), tokens::generate().unwrap());
    let entry = |name: &str, token: &str, scopes: &str| {
        format!(
            "{{ name = \"{name}\", sha256 = \"{}\", scopes = [{scopes}] }}",
            tokens::hex(&tokens::sha256(token))
        )
    };
    let toml = format!(
        "[auth]\ntokens = [{}, {}]\n[audit]\npath = {:?}\n",
        entry("reader", &reader, "\"axgate:read\""),
        entry("actor", &actor, "\"axgate:act\""),
        audit.display().to_string()
    );
    let server = TestServer::with_config(config(&toml)).await;

    let anonymous = Wd::new(&server);
    let (status, body, challenge) = anonymous
        .send_full(
            "POST",
            "/session",
            Some(caps(json!({"appium:bundleId": "Form"}))),
        )
        .await;
    assert_w3c(status, &body, 401, "unauthorized");
    assert!(challenge.is_some_and(|c| c.starts_with("Bearer")));
    let (status, body, _) = anonymous.send_full("GET", "/wd/hub/status", None).await;
    assert_w3c(status, &body, 401, "unauthorized");

    let read = Wd::with_token(&server, &reader);
    let sid = read.session("Form").await;
    let submit = read.find(&sid, "id", "submit").await;
    assert_eq!(read.read(&sid, &submit, "text").await, "Submit");
    let (status, body, challenge) = read
        .send_full(
            "POST",
            &format!("/session/{sid}/element/{submit}/click"),
            Some(json!({})),
        )
        .await;
    assert_w3c(status, &body, 403, "insufficient scope");
    assert!(
        challenge.is_some_and(|c| c.contains("insufficient_scope") && c.contains("axgate:act"))
    );
    let lines = audit_lines(&audit);
    assert!(
        lines.iter().any(|l| l["tool"] == "click"
            && l["outcome"] == "denied"
            && l["principal"] == "token:reader"),
        "{lines:#?}"
    );

    // Another principal does not see the session.
    let act = Wd::with_token(&server, &actor);
    let (status, body) = act
        .send("GET", &format!("/session/{sid}/source"), None)
        .await;
    assert_w3c(status, &body, 404, "invalid session id");
    let (status, body) = act.send("DELETE", &format!("/session/{sid}"), None).await;
    assert_w3c(status, &body, 404, "invalid session id");

    // An act with the act scope is audited as the MCP tool it ran.
    let sid = act.session("Form").await;
    let submit = act.find(&sid, "id", "submit").await;
    let (status, body) = act.click(&sid, &submit).await;
    assert_eq!(status, 200, "{body}");
    let lines = audit_lines(&audit);
    assert!(
        lines.iter().any(|l| l["tool"] == "click"
            && l["outcome"] == "ok"
            && l["principal"] == "token:actor"),
        "{lines:#?}"
    );
}

#[tokio::test]
async fn a_destructive_click_is_decided_as_for_mcp() {
    // "Clear" is made a confirm word: the click is refused unasked (policy.unconfirmed).
    let server = TestServer::with_config(config("[policy]\nconfirm_words = [\"clear\"]\n")).await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let clear = wd.find(&sid, "id", "clear").await;
    let (status, body) = wd
        .send(
            "POST",
            &format!("/session/{sid}/element/{clear}/click"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 500, "{body}");
    assert!(
        body["value"]["message"]
            .as_str()
            .unwrap()
            .contains("destructive"),
        "{body}"
    );
}

/// The bridge sets the call's origin (its WebDriver session) instead of a header, and no
/// stage after it reads one: a forged `mcp-session-id` beside the command changes nothing.
#[tokio::test]
async fn an_act_is_audited_under_its_webdriver_session_not_a_forged_session_header() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let toml = format!("[audit]\npath = {:?}\n", audit.display().to_string());
    let server = TestServer::with_config(config(&toml)).await;
    let forged = "another-session";
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("mcp-session-id", forged.parse().unwrap());
    let wd = Wd {
        http: reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap(),
        ..Wd::new(&server)
    };
    let sid = wd.session("Form").await;
    let submit = wd.find(&sid, "id", "submit").await;
    let (status, body) = wd.click(&sid, &submit).await;
    assert_eq!(status, 200, "{body}");
    let lines = audit_lines(&audit);
    let click = lines
        .iter()
        .find(|l| l["tool"] == "click")
        .unwrap_or_else(|| panic!("a click line: {lines:#?}"));
    assert_eq!(click["session"], session_tag(&sid), "{click:#}");
    assert_ne!(click["session"], session_tag(forged));
}
