//! Security policy end to end over HTTP, with static bearer tokens: sessions bound to the
//! principal that created them (another principal presenting the id gets 404 on every
//! method), per-tool scopes (`tools/list` shows each principal what it may call; a call
//! beyond the token's scope gets 403 with a step-up challenge), the admin tools, read-only
//! mode, app allow/deny lists (tools, resources, subscriptions, launch), rate limits with a
//! retry hint, and an audit line for every denied call.

use std::path::Path;

use crate::support::{
    Client, PROTOCOL, TestServer, audit_lines, check, client_with, config, session, text_of,
};
use axgate::http::auth::tokens;
use serde_json::{Value, json};

/// One token per role, generated for this test run.
struct Tokens {
    reader: String,
    actor: String,
    other: String,
    admin: String,
}

impl Tokens {
    fn new() -> Tokens {
        let t = || tokens::generate().expect("random token");
        Tokens {
            reader: t(),
            actor: t(),
            other: t(),
            admin: t(),
        }
    }

    /// The `[auth]` section granting each its scopes.
    fn section(&self) -> String {
        let entry = |name: &str, token: &str, scopes: &str| {
            format!(
                "{{ name = \"{name}\", sha256 = \"{}\", scopes = [{scopes}] }}",
                tokens::hex(&tokens::sha256(token))
            )
        };
        format!(
            "[auth]\ntokens = [{}, {}, {}, {}]\n",
            entry("reader", &self.reader, "\"axgate:read\""),
            entry("actor", &self.actor, "\"axgate:act\""),
            entry("other", &self.other, "\"axgate:act\""),
            entry("admin", &self.admin, "\"axgate:admin\""),
        )
    }
}

fn audit_section(path: &Path) -> String {
    format!("[audit]\npath = {:?}\n", path.display().to_string())
}

async fn signed_in(server: &TestServer, token: &str) -> Client {
    let mut c = client_with(server, token);
    c.initialize().await;
    c
}

async fn tool_names(c: &mut Client) -> Vec<String> {
    let list = c.request("tools/list", json!({})).await;
    list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

fn call_body(id: u64, tool: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": args}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_id_presented_by_another_principal_is_unknown() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&tokens.section())).await;
    let mut owner = signed_in(&server, &tokens.actor).await;
    let sid = owner.session.clone().expect("session id");
    // A subscription and a handle exist in the owner's session.
    owner
        .request(
            "resources/subscribe",
            json!({"uri": "axgate://app/Form/tree"}),
        )
        .await;
    let found = owner
        .call("find", json!({"app": "Form", "role": "button"}))
        .await;
    assert_eq!(found["isError"], false, "{found}");

    let mut thief = client_with(&server, &tokens.other);
    thief.session = Some(sid.clone());
    let attempts = [
        call_body(1, "list_apps", json!({})),
        call_body(2, "get_element", json!({"app": "Form", "target": "e1"})),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/unsubscribe",
               "params": {"uri": "axgate://app/Form/tree"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    ];
    for body in &attempts {
        let resp = thief.post(body).send().await.expect("send");
        assert_eq!(resp.status(), 404, "{body}");
        let text = resp.text().await.expect("body");
        assert!(text.contains("Session not found"), "{text}");
    }
    for last_event in [None, Some("0")] {
        let mut get = thief
            .http
            .get(&thief.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", PROTOCOL);
        if let Some(id) = last_event {
            get = get.header("last-event-id", id);
        }
        let resp = get.send().await.expect("GET");
        assert_eq!(resp.status(), 404, "GET with Last-Event-ID {last_event:?}");
    }
    let resp = thief
        .http
        .delete(&thief.url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .expect("DELETE");
    assert_eq!(resp.status(), 404, "DELETE by another principal");

    // The owner's session, subscription and handles are untouched.
    let again = owner
        .call("find", json!({"app": "Form", "role": "button"}))
        .await;
    assert_eq!(again["isError"], false, "{again}");
    let unsubscribed = owner
        .request(
            "resources/unsubscribe",
            json!({"uri": "axgate://app/Form/tree"}),
        )
        .await;
    assert!(unsubscribed.get("result").is_some(), "{unsubscribed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_follow_scopes_and_a_call_beyond_them_gets_a_step_up_challenge() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!(
        "{}{}",
        tokens.section(),
        audit_section(&audit)
    )))
    .await;
    let mut reader = signed_in(&server, &tokens.reader).await;
    let mut actor = signed_in(&server, &tokens.actor).await;
    let mut admin = signed_in(&server, &tokens.admin).await;
    let (r, a, m) = (
        tool_names(&mut reader).await,
        tool_names(&mut actor).await,
        tool_names(&mut admin).await,
    );
    for read in [
        "list_apps",
        "get_tree",
        "find",
        "screenshot",
        "read_clipboard",
        "wait_for",
    ] {
        assert!(r.contains(&read.to_owned()), "reader lacks {read}: {r:?}");
    }
    for write in [
        "click",
        "set_value",
        "type_text",
        "launch_app",
        "write_clipboard",
    ] {
        assert!(!r.contains(&write.to_owned()), "reader sees {write}");
        assert!(a.contains(&write.to_owned()), "actor lacks {write}");
    }
    for admin_tool in ["list_sessions", "end_session", "set_draining"] {
        assert!(
            !a.contains(&admin_tool.to_owned()),
            "actor sees {admin_tool}"
        );
        assert!(
            m.contains(&admin_tool.to_owned()),
            "admin lacks {admin_tool}"
        );
    }
    assert_eq!(m.len(), a.len() + 3, "admin sees every tool");

    let target = r#"window[0]/button["Submit"]"#;
    let before = crate::support::app_value(&server, "Form", "status");
    for (client, tool, args, needed) in [
        (
            &reader,
            "click",
            json!({"app": "Form", "target": target}),
            "axgate:act",
        ),
        (&actor, "list_sessions", json!({}), "axgate:admin"),
    ] {
        let resp = client
            .post(&call_body(9, tool, args))
            .send()
            .await
            .expect("send");
        assert_eq!(resp.status(), 403, "{tool}");
        let challenge = resp.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            challenge.contains("error=\"insufficient_scope\""),
            "{challenge}"
        );
        assert!(
            challenge.contains(&format!("scope=\"{needed}\"")),
            "{challenge}"
        );
        assert!(challenge.contains("resource_metadata="), "{challenge}");
        // The body is a JSON-RPC error for this request, naming the scope and how to get
        // it, for clients that show the body rather than the challenge.
        let body: Value = resp.json().await.expect("a JSON body");
        assert_eq!(body["jsonrpc"], "2.0", "{body}");
        assert_eq!(body["id"], 9, "{body}");
        assert_eq!(body["error"]["code"], -32003, "{body}");
        let message = body["error"]["message"].as_str().expect("message");
        assert!(
            message.contains(&format!("the tool {tool} needs the {needed} scope")),
            "{message}"
        );
        assert!(message.contains("axgate token new"), "{message}");
        assert_eq!(body["error"]["data"]["required_scope"], needed, "{body}");
        assert_eq!(body["error"]["data"]["tool"], tool, "{body}");
        assert_eq!(
            body["error"]["data"]["error"], "insufficient_scope",
            "{body}"
        );
    }
    assert_eq!(
        crate::support::app_value(&server, "Form", "status"),
        before,
        "the refused click did nothing"
    );
    let lines = audit_lines(&audit);
    let denied: Vec<&Value> = lines.iter().filter(|l| l["outcome"] == "denied").collect();
    assert_eq!(denied.len(), 2, "{lines:?}");
    assert_eq!(denied[0]["tool"], "click");
    assert_eq!(denied[0]["principal"], "token:reader");
    assert_eq!(denied[0]["app"], "Form");
    assert_eq!(denied[0]["reason"], "insufficient_scope: needs axgate:act");
    assert!(denied[0]["session"].as_str().is_some_and(|s| s.len() == 12));
    assert_eq!(denied[1]["principal"], "token:actor");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_tools_list_sessions_and_end_one() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&tokens.section())).await;
    let actor = signed_in(&server, &tokens.actor).await;
    let mut admin = signed_in(&server, &tokens.admin).await;
    let listed = check(
        &mut admin,
        "list_sessions",
        json!({}),
        false,
        &["2 live session(s)"],
    )
    .await;
    let sessions = listed["structuredContent"]["sessions"]
        .as_array()
        .unwrap()
        .clone();
    let theirs = sessions
        .iter()
        .find(|s| s["principal"] == "token:actor")
        .expect("the actor's session is listed");
    let text = text_of(&listed);
    assert!(
        !text.contains(actor.session.as_deref().unwrap()),
        "ids are never shown"
    );
    assert_eq!(theirs["protocol_version"], PROTOCOL);
    let tag = theirs["tag"].as_str().unwrap().to_owned();

    check(
        &mut admin,
        "end_session",
        json!({"tag": tag}),
        false,
        &["ended"],
    )
    .await;
    let resp = actor
        .post(&call_body(7, "list_apps", json!({})))
        .send()
        .await
        .expect("send");
    assert_eq!(resp.status(), 404, "the ended session is gone");
    check(
        &mut admin,
        "end_session",
        json!({"tag": "000000000000"}),
        true,
        &["no live session has the tag", "list_sessions"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_mode_hides_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let server = TestServer::with_config(config(&format!(
        "[policy]\nread_only = true\n{}",
        audit_section(&audit)
    )))
    .await;
    let mut c = session(&server).await;
    let names = tool_names(&mut c).await;
    assert!(names.contains(&"get_tree".to_owned()));
    for write in [
        "click",
        "perform_action",
        "set_value",
        "type_text",
        "press_key",
        "quit_app",
    ] {
        assert!(
            !names.contains(&write.to_owned()),
            "read-only lists {write}"
        );
    }
    check(
        &mut c,
        "click",
        json!({"app": "Form", "target": r#"window[0]/button["Submit"]"#}),
        true,
        &["read-only mode", "policy.read_only"],
    )
    .await;
    check(&mut c, "get_tree", json!({"app": "Form"}), false, &[]).await;
    let lines = audit_lines(&audit);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["outcome"], "denied");
    assert_eq!(lines[0]["reason"], "policy.read_only");
    assert_eq!(lines[0]["principal"], "anonymous");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_rules_refuse_denied_apps_everywhere_and_audit_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    // A line for every denied call (no coalescing), to see each one.
    let server = TestServer::with_config(config(&format!(
        "[policy]\ndeny_apps = [\"Editor\"]\n{}deny_window_secs = 0\n",
        audit_section(&audit)
    )))
    .await;
    let mut c = session(&server).await;
    let apps = check(&mut c, "list_apps", json!({}), false, &["Form"]).await;
    assert!(
        !text_of(&apps).contains("Editor"),
        "denied apps are not listed"
    );
    // The caller is told what it would be told of an app that does not run; the audit trail
    // keeps the rule.
    let rule = "no running app matches";
    for (tool, args) in [
        ("get_tree", json!({"app": "Editor"})),
        ("find", json!({"app": "editor", "role": "button"})),
        (
            "type_text",
            json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "x"}),
        ),
        ("lease_app", json!({"app": "Editor"})),
    ] {
        check(&mut c, tool, args, true, &[rule]).await;
    }
    let read = c
        .request("resources/read", json!({"uri": "axgate://app/Editor/tree"}))
        .await;
    assert!(
        read["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains(rule),
        "{read}"
    );
    let sub = c
        .request(
            "resources/subscribe",
            json!({"uri": "axgate://app/Editor/tree"}),
        )
        .await;
    assert!(
        sub["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains(rule),
        "{sub}"
    );
    let listed = c.request("resources/list", json!({})).await;
    assert!(
        !listed.to_string().contains("axgate://app/Editor/"),
        "{listed}"
    );
    let lines = audit_lines(&audit);
    let denied: Vec<&Value> = lines.iter().filter(|l| l["outcome"] == "denied").collect();
    assert_eq!(denied.len(), 4, "every refused call is audited: {lines:?}");
    assert_eq!(denied[0]["tool"], "get_tree");
    assert_eq!(denied[0]["reason"], "policy.deny_apps rule \"editor\"");

    // The default deny-list refuses a terminal before launching it; an allow-list refuses
    // every app it does not name.
    let defaults = TestServer::start().await;
    let mut d = session(&defaults).await;
    check(
        &mut d,
        "launch_app",
        json!({"app": "Terminal"}),
        true,
        &["nothing that can be launched matches \"Terminal\""],
    )
    .await;
    let only_form = TestServer::with_config(config("[policy]\nallow_apps = [\"Form\"]\n")).await;
    let mut f = session(&only_form).await;
    check(&mut f, "get_tree", json!({"app": "Form"}), false, &[]).await;
    check(
        &mut f,
        "get_tree",
        json!({"app": "List"}),
        true,
        &["no running app matches \"List\""],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_beyond_the_rate_limit_are_refused_with_a_retry_hint() {
    let tokens = Tokens::new();
    let server = TestServer::with_config(config(&format!(
        "{}[limits]\nwrites_per_second = 1\n",
        tokens.section()
    )))
    .await;
    let mut actor = signed_in(&server, &tokens.actor).await;
    // One write per second: of five back-to-back writes, some are refused.
    let mut refused = None;
    for i in 0..5 {
        let r = actor
            .call("write_clipboard", json!({"text": format!("n{i}")}))
            .await;
        if r["isError"] == true {
            refused = Some(r);
            break;
        }
    }
    let refused = refused.expect("a write beyond 1/s is refused");
    let text = text_of(&refused);
    assert!(text.contains("limits.writes_per_second"), "{text}");
    assert!(text.contains("retry after"), "{text}");
    let wait = refused["_meta"]["dev.axgate/retry-after-ms"]
        .as_u64()
        .expect("hint");
    assert!((1..=1000).contains(&wait), "{wait}");
    // Reads are limited separately, and another principal has its own allowance.
    check(&mut actor, "list_apps", json!({}), false, &[]).await;
    let mut other = signed_in(&server, &tokens.other).await;
    check(
        &mut other,
        "write_clipboard",
        json!({"text": "o"}),
        false,
        &[],
    )
    .await;
    // After the hinted wait the write goes through.
    tokio::time::sleep(std::time::Duration::from_millis(wait + 50)).await;
    check(
        &mut actor,
        "write_clipboard",
        json!({"text": "later"}),
        false,
        &[],
    )
    .await;
    let metrics = client_with(&server, &tokens.admin)
        .http
        .get(format!("http://{}/metrics", server.addr))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("body");
    assert!(
        metrics.lines().any(
            |l| l.starts_with("axgate_rate_limited_total{kind=\"writes\"}") && !l.ends_with(" 0")
        ),
        "{metrics}"
    );
}
