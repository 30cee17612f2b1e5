//! Per-token policy: a static token (fields of its `[auth] tokens` table) or a JWT issuer
//! (`auth.jwt_*`) may carry its own `unconfirmed` setting and rate limits. An unattended CI
//! token is allowed destructive presses and a higher write rate while an agent's token, on
//! the same server, is still refused and held to the defaults; a JWT subject gets its
//! issuer's settings and never a static token's.

use super::issuer::LocalIssuer;
use super::*;
use crate::support::{Client, app_value, audit_lines, config, text_of};
use axgate::ax::AxValue;

const RESET: &str = r#"window[0]/tab_group[0]/group["Advanced"]/button["Reset"]"#;
const PROXY: &str = r#"window[0]/tab_group[0]/group["Advanced"]/text_field["Proxy"]"#;
const FIELD: &str = "window[0]/text_field[0]";

/// One `[auth] tokens` table for `token`, with `extra` fields.
fn entry(name: &str, token: &str, extra: &str) -> String {
    format!(
        "{{ name = \"{name}\", sha256 = \"{}\", scopes = [\"axgate:act\"]{extra} }}",
        tokens::hex(&tokens::sha256(token))
    )
}

async fn connected(server: &TestServer, token: &str) -> Client {
    let mut c = client_with(server, token);
    c.initialize().await;
    c
}

/// Opens Settings' Advanced panel and types a proxy, so that a Reset shows.
async fn prepare(c: &mut Client) {
    for (tool, args) in [
        (
            "select_option",
            json!({"app": "Settings", "target": "window[0]/tab_group[0]", "option": "Advanced"}),
        ),
        (
            "set_value",
            json!({"app": "Settings", "target": PROXY, "value": "proxy.example:3128"}),
        ),
    ] {
        let r = c.call(tool, args).await;
        assert_eq!(r["isError"], false, "{tool}: {r}");
    }
}

fn was_reset(server: &TestServer) -> bool {
    app_value(server, "Settings", "proxy_hint") == Some(AxValue::Text("No proxy".into()))
}

/// `n` quick writes (focus on the Form's first field); how many were rate limited.
async fn limited_of(c: &mut Client, n: usize) -> usize {
    let mut limited = 0;
    for _ in 0..n {
        let r = c
            .call("focus", json!({"app": "Form", "target": FIELD}))
            .await;
        let text = text_of(&r);
        if r["isError"] == true {
            assert!(text.contains("limits.writes_per_second"), "{text}");
            limited += 1;
        }
    }
    limited
}

fn decision_of(audit: &std::path::Path, principal: &str) -> Value {
    audit_lines(audit)
        .into_iter()
        .rev()
        .find(|l| l["tool"] == "click" && l["principal"] == principal)
        .map(|l| l["confirmation"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ci_token_may_allow_destructive_acts_and_write_faster_than_an_agents() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let (ci, agent) = (tokens::generate().unwrap(), tokens::generate().unwrap());
    let server = TestServer::with_config(config(&format!(
        "[audit]\npath = {:?}\n[auth]\ntokens = [{}, {}]\n[limits]\nwrites_per_second = 2\n",
        audit.display().to_string(),
        entry(
            "ci",
            &ci,
            ", unconfirmed = \"allow\", writes_per_second = 1000"
        ),
        entry("agent", &agent, ""),
    )))
    .await;
    let mut by_ci = connected(&server, &ci).await;
    let mut by_agent = connected(&server, &agent).await;
    prepare(&mut by_ci).await;

    // The agent's token keeps the server's policy: a Reset it cannot be asked about is
    // refused, and it gets two writes per second.
    let r = by_agent
        .call("click", json!({"app": "Settings", "target": RESET}))
        .await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(text_of(&r).contains("this token's own"), "{r}");
    assert!(!was_reset(&server), "refused for the agent: not pressed");
    assert_eq!(
        decision_of(&audit, "token:agent"),
        "refused_without_elicitation"
    );
    assert!(
        limited_of(&mut by_agent, 4).await >= 1,
        "the agent is held to 2 writes/s"
    );

    // The CI token's own policy: allowed, and no write of a quick burst is limited.
    let r = by_ci
        .call("click", json!({"app": "Settings", "target": RESET}))
        .await;
    assert_eq!(r["isError"], false, "{r}");
    assert!(was_reset(&server), "allowed for the CI token: pressed");
    assert_eq!(
        decision_of(&audit, "token:ci"),
        "allowed_without_elicitation"
    );
    assert_eq!(
        limited_of(&mut by_ci, 8).await,
        0,
        "the CI token's own rate"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuers_own_policy_applies_to_its_jwts_and_not_to_static_tokens() {
    let issuer = LocalIssuer::start().await;
    let agent = tokens::generate().unwrap();
    let server = TestServer::with_config(config(&format!(
        "{}tokens = [{}]\njwt_unconfirmed = \"allow\"\njwt_calls_per_second = 1\n",
        issuer.section(""),
        entry("agent", &agent, ""),
    )))
    .await;
    // A JWT subject named like the static token: still the issuer's principal.
    let jwt = issuer.token("agent", "axgate:act", Some("at+jwt"), None);
    let mut by_agent = connected(&server, &agent).await;
    prepare(&mut by_agent).await;
    let r = by_agent
        .call("click", json!({"app": "Settings", "target": RESET}))
        .await;
    assert_eq!(r["isError"], true, "the static token is still refused: {r}");
    assert!(!was_reset(&server));

    let mut by_jwt = connected(&server, &jwt).await;
    let r = by_jwt
        .call("click", json!({"app": "Settings", "target": RESET}))
        .await;
    assert_eq!(r["isError"], false, "the issuer allows it: {r}");
    assert!(was_reset(&server));
    // One call per second for the issuer's subjects: the next call at once is limited...
    let r = by_jwt
        .rate_limited("tools/call", json!({"name": "list_apps"}))
        .await;
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("at most 1 tool calls per second")),
        "{r}"
    );
    // ...while the static token keeps the default 50.
    for _ in 0..3 {
        let r = by_agent.call("list_apps", json!({})).await;
        assert_eq!(r["isError"], false, "{r}");
    }
}
