//! The sessionless 2026-07-28 revision over real HTTP, beside 2025-11-25 sessions on the same
//! server, with auth on: `server/discover`, per-request auth and scopes, tools without a
//! session (and the tools that need one refusing clearly), `subscriptions/listen` delivering
//! resource updates on the listen's own stream, closing a stream cancelling its request, and
//! replays (`GET` + `Last-Event-ID`, which rmcp would serve to anyone) only for the caller
//! whose request the stream answers.

use std::time::Duration;

use crate::support::{
    Event, PROTOCOL, SseReader, TestServer, audit_lines, client_with, config, parse_sse, text_of,
};
use axgate::http::auth::{Scope, tokens};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const CHECK_BOX: &str = "window[0]/check_box[\"Subscribe\"]";

/// Tokens generated for this run: `reader` may read, `actor` and `other` may act.
struct Callers {
    reader: String,
    actor: String,
    other: String,
}

impl Callers {
    fn new() -> Callers {
        let t = || tokens::generate().expect("random token");
        Callers {
            reader: t(),
            actor: t(),
            other: t(),
        }
    }

    fn section(&self) -> String {
        let entry = |name: &str, token: &str, scopes: &[Scope]| {
            tokens::config_entry(
                name,
                &tokens::sha256(token),
                &scopes.iter().copied().collect(),
            )
        };
        // The actors may also scrape /metrics (axgate:metrics is not part of axgate:act).
        let act = [Scope::Read, Scope::Act, Scope::Metrics];
        format!(
            "[auth]\ntokens = [{}, {}, {}]\n",
            entry("reader", &self.reader, &[Scope::Read]),
            entry("actor", &self.actor, &act),
            entry("other", &self.other, &act),
        )
    }
}

/// The `_meta` every 2026-07-28 request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "sessionless-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

/// A sessionless request: the version in `_meta` and the header, and the standard
/// `Mcp-Method` / `Mcp-Name` headers; `token` as the bearer when given.
fn modern(
    server: &TestServer,
    token: Option<&str>,
    id: u64,
    method: &str,
    mut params: Value,
) -> reqwest::RequestBuilder {
    let mut full = meta();
    if let Some(extra) = params.get("_meta").and_then(Value::as_object) {
        for (key, value) in extra {
            full[key] = value.clone();
        }
    }
    params["_meta"] = full;
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut req = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str);
    if let Some(name) = name {
        req = req.header("mcp-name", name);
    }
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    req.body(body.to_string())
}

/// Sends a sessionless request and returns its status, headers and SSE events.
async fn exchange(req: reqwest::RequestBuilder) -> (u16, reqwest::header::HeaderMap, Vec<Event>) {
    let resp = req.send().await.expect("send");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.expect("body");
    // A JSON answer (one line) is read as one event without an id.
    let json = text.trim_start().starts_with('{');
    let sse = if json {
        format!("data: {text}\n\n")
    } else {
        text
    };
    (status, headers, parse_sse(&sse))
}

/// The JSON-RPC response to `id` among `events`.
fn answer(events: &[Event], id: u64) -> Value {
    crate::support::response_of(events, id)
        .unwrap_or_else(|| panic!("no response to {id}: {events:?}"))
}

fn tool_names(list: &Value) -> Vec<&str> {
    let tools = list["result"]["tools"].as_array().into_iter().flatten();
    tools.filter_map(|t| t["name"].as_str()).collect()
}

/// A sessionless replay: `GET` with `Last-Event-ID` under 2026-07-28, as `token` if given.
fn replay(
    server: &TestServer,
    token: Option<&str>,
    last: &str,
) -> impl Future<Output = reqwest::Result<reqwest::Response>> + use<> {
    let mut get = reqwest::Client::new()
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("last-event-id", last.to_owned());
    if let Some(token) = token {
        get = get.bearer_auth(token);
    }
    get.send()
}

fn method_is(event: &Event, method: &str) -> bool {
    event.json().is_some_and(|m| m["method"] == method)
}

/// `axgate_tool_calls_total` for `tool` and `outcome`, read from `/metrics`.
async fn tool_calls(server: &TestServer, token: &str, tool: &str, outcome: &str) -> u64 {
    let text = reqwest::Client::new()
        .get(format!("http://{}/metrics", server.addr))
        .bearer_auth(token)
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics body");
    let labels = format!("tool=\"{tool}\"");
    let outcome = format!("outcome=\"{outcome}\"");
    text.lines()
        .filter(|l| l.starts_with("axgate_tool_calls_total{"))
        .filter(|l| l.contains(&labels) && l.contains(&outcome))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .map(|v| v as u64)
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessionless_requests_are_served_beside_sessions_with_auth_on_every_request() {
    let callers = Callers::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl");
    let server = TestServer::with_config(config(&format!(
        "{}[audit]\npath = {:?}\n",
        callers.section(),
        audit.display().to_string()
    )))
    .await;

    // A 2025-11-25 session of the actor, open throughout.
    let mut session = client_with(&server, &callers.actor);
    session.initialize().await;
    let sid = session.session.clone().expect("session id");

    // server/discover: both eras advertised; no credentials, no answer.
    let discover = || {
        modern(
            &server,
            Some(&callers.reader),
            1,
            "server/discover",
            json!({}),
        )
    };
    let (status, headers, events) = exchange(discover()).await;
    assert_eq!(status, 200, "{events:?}");
    assert!(
        headers.get("mcp-session-id").is_none(),
        "no session is minted"
    );
    let versions = answer(&events, 1)["result"]["supportedVersions"].clone();
    for v in [MODERN, PROTOCOL] {
        assert!(
            versions.as_array().is_some_and(|a| a.contains(&json!(v))),
            "{versions}"
        );
    }
    let (status, headers, _) =
        exchange(modern(&server, None, 1, "server/discover", json!({}))).await;
    assert_eq!(status, 401);
    assert!(
        headers["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("resource_metadata="),
        "{headers:?}"
    );
    let (status, _, _) = exchange(modern(
        &server,
        Some("not-a-token"),
        1,
        "tools/list",
        json!({}),
    ))
    .await;
    assert_eq!(status, 401, "a bad token on a sessionless request");

    // tools/list per principal, per request.
    let (_, _, events) = exchange(modern(
        &server,
        Some(&callers.reader),
        2,
        "tools/list",
        json!({}),
    ))
    .await;
    let listed = answer(&events, 2);
    let read_only = tool_names(&listed);
    assert!(read_only.contains(&"get_tree"), "{read_only:?}");
    assert!(!read_only.contains(&"perform_action"), "{read_only:?}");
    let (_, _, events) = exchange(modern(
        &server,
        Some(&callers.actor),
        3,
        "tools/list",
        json!({}),
    ))
    .await;
    assert!(tool_names(&answer(&events, 3)).contains(&"perform_action"));

    // An act beyond the reader's scope: 403 with the step-up challenge, nothing pressed.
    let press = json!({"name": "perform_action",
                       "arguments": {"app": "Form", "target": CHECK_BOX, "action": "press"}});
    let (status, headers, _) = exchange(modern(
        &server,
        Some(&callers.reader),
        4,
        "tools/call",
        press.clone(),
    ))
    .await;
    assert_eq!(status, 403);
    let challenge = headers["www-authenticate"].to_str().unwrap().to_owned();
    assert!(
        challenge.contains("insufficient_scope") && challenge.contains("axgate:act"),
        "{challenge}"
    );
    assert_eq!(
        crate::support::app_value(&server, "Form", "subscribe"),
        Some(axgate::ax::AxValue::Bool(false))
    );

    // The actor presses; the app sees it. A stale session id on the request is ignored.
    let req = modern(&server, Some(&callers.actor), 5, "tools/call", press)
        .header("mcp-session-id", "no-such-session");
    let (status, headers, events) = exchange(req).await;
    assert_eq!(status, 200, "{events:?}");
    assert!(headers.get("mcp-session-id").is_none());
    let result = answer(&events, 5)["result"].clone();
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        crate::support::app_value(&server, "Form", "subscribe"),
        Some(axgate::ax::AxValue::Bool(true))
    );

    // A sessionless result names elements by path (a handle would not outlive the request),
    // and the path works in the next request; a handle from anywhere gets told why not.
    let find = json!({"name": "find", "arguments": {"app": "Form", "title": "Submit"}});
    let (_, _, events) =
        exchange(modern(&server, Some(&callers.actor), 8, "tools/call", find)).await;
    let result = answer(&events, 8)["result"].clone();
    let found = result["structuredContent"]["matches"][0].clone();
    assert!(found.get("handle").is_none(), "{found}");
    assert!(text_of(&result).contains("window[0]/button[0]"), "{result}");
    let path = found["path"].clone();
    for (id, target, is_error) in [(9, json!("e1"), true), (10, path, false)] {
        let get = json!({"name": "get_element", "arguments": {"app": "Form", "target": target}});
        let (_, _, events) =
            exchange(modern(&server, Some(&callers.actor), id, "tools/call", get)).await;
        let result = answer(&events, id)["result"].clone();
        assert_eq!(result["isError"], is_error, "{target}: {result}");
        if is_error {
            assert!(
                text_of(&result).contains("do not outlive a sessionless"),
                "{result}"
            );
        }
    }

    // Tools that keep state between requests say why they cannot run without a session.
    for (id, tool, args) in [
        (6, "lease_app", json!({"app": "Form"})),
        (7, "diff", json!({"app": "Form"})),
    ] {
        let call = json!({"name": tool, "arguments": args});
        let (_, _, events) = exchange(modern(
            &server,
            Some(&callers.actor),
            id,
            "tools/call",
            call,
        ))
        .await;
        let result = answer(&events, id)["result"].clone();
        assert_eq!(result["isError"], true, "{result}");
        let text = text_of(&result);
        assert!(
            text.contains("needs a session") && text.contains("2025-11-25"),
            "{text}"
        );
    }

    // The session was not disturbed, and no session was made for any sessionless request.
    let listed = session.call("list_apps", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
    assert_eq!(session.session.as_deref(), Some(sid.as_str()));
    assert_eq!(
        server.state.sessions.registry().len(),
        1,
        "only the 2025-11-25 session exists"
    );

    // The press is in the audit trail under its principal, with no session.
    let lines = audit_lines(&audit);
    let pressed = lines
        .iter()
        .find(|l| l["tool"] == "perform_action" && l["outcome"] == "ok")
        .unwrap_or_else(|| panic!("no audit line of the press: {lines:?}"));
    assert_eq!(pressed["principal"], "token:actor", "{pressed}");
    assert!(pressed["session"].is_null(), "{pressed}");
    assert!(
        lines.iter().any(|l| l["tool"] == "perform_action"
            && l["outcome"] == "denied"
            && l["principal"] == "token:reader"),
        "the refused press is audited: {lines:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessionless_stream_is_replayed_only_to_its_caller() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let call = json!({"name": "list_apps", "arguments": {}});
    let (status, _, events) =
        exchange(modern(&server, Some(&callers.actor), 9, "tools/call", call)).await;
    assert_eq!(status, 200);
    let first = events
        .iter()
        .find_map(|e| e.id.clone())
        .unwrap_or_else(|| panic!("a sessionless SSE stream has event ids: {events:?}"));
    let apps = answer(&events, 9);

    let replay = |token: Option<&str>, last: &str| replay(&server, token, last);
    let stolen = replay(Some(&callers.other), &first).await.expect("GET");
    assert_eq!(
        stolen.status(),
        404,
        "another principal replaying the stream"
    );
    let body = stolen.text().await.unwrap();
    assert!(
        !body.contains("Form"),
        "nothing of the stream leaks: {body}"
    );
    assert_eq!(replay(None, &first).await.expect("GET").status(), 401);

    let mine = replay(Some(&callers.actor), &first).await.expect("GET");
    assert_eq!(mine.status(), 200);
    let replayed = parse_sse(&mine.text().await.unwrap());
    assert_eq!(
        answer(&replayed, 9),
        apps,
        "the caller gets the response again"
    );

    // A session's stream is never served on the sessionless path, even to its owner.
    let mut session = client_with(&server, &callers.actor);
    session.initialize().await;
    let (_, events) = session.request_events("tools/list", json!({})).await;
    let session_event = events
        .iter()
        .find_map(|e| e.id.clone())
        .expect("session event id");
    let crossed = replay(Some(&callers.actor), &session_event)
        .await
        .expect("GET");
    assert_eq!(
        crossed.status(),
        404,
        "a session's event id on the sessionless path"
    );
    assert_eq!(
        replay(Some(&callers.actor), "not-an-id")
            .await
            .expect("GET")
            .status(),
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_sessionless_stream_cancels_its_request() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let wait = |progress: Option<&str>| {
        let mut call = json!({"name": "wait_for", "arguments": {
            "app": "Form", "target": "window[0]/static_text[0]",
            "condition": "value_equals", "value": "never", "timeout_ms": 60000
        }});
        if let Some(token) = progress {
            call["_meta"] = json!({"progressToken": token});
        }
        call
    };
    let cancelled = |count: u64| {
        let (server, token) = (&server, callers.actor.clone());
        async move {
            // Ends long before the wait's 60 s timeout: cancelled (an error, not a timeout).
            let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
            while tool_calls(server, &token, "wait_for", "tool_error").await < count {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the wait kept running after its stream was closed"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            assert_eq!(tool_calls(server, &token, "wait_for", "timeout").await, 0);
        }
    };

    // With a progress token the stream opens at the first progress notification; the
    // client reads it, then closes the stream.
    let resp = modern(
        &server,
        Some(&callers.actor),
        11,
        "tools/call",
        wait(Some("p11")),
    )
    .send()
    .await
    .expect("send");
    assert_eq!(resp.status(), 200);
    let mut reader = SseReader::new(resp);
    let opened = reader
        .until(Duration::from_secs(10), |e| {
            method_is(e, "notifications/progress")
        })
        .await;
    let first = opened
        .iter()
        .find_map(|e| e.id.clone())
        .unwrap_or_else(|| panic!("the stream opens with an event id: {opened:?}"));
    assert_eq!(
        tool_calls(&server, &callers.actor, "wait_for", "tool_error").await,
        0
    );
    drop(reader);
    cancelled(1).await;
    // A cancelled request is replayable by nobody, its caller included.
    let again = replay(&server, Some(&callers.actor), &first).await;
    assert_eq!(again.expect("GET").status(), 404);

    // Without one, nothing is sent before the result: the client gives up waiting for the
    // response and closes the connection.
    let pending = modern(&server, Some(&callers.actor), 12, "tools/call", wait(None)).send();
    let gave_up = tokio::time::timeout(Duration::from_millis(800), pending).await;
    assert!(gave_up.is_err(), "the wait answered early: {gave_up:?}");
    cancelled(2).await;
}

mod caching;
mod confirm;
mod listen;
