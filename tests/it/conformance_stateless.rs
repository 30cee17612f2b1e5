//! Our own checks of the conformance fixture's 2026-07-28 side, sessionless over raw HTTP
//! (the suite reads little of what these answers say): multi round-trip results whose
//! answers make the result (and whose `requestState` is sealed: altered, it is refused),
//! the `server-stateless` diagnostics (−32021 for an undeclared capability, log records only
//! at a requested level), `subscriptions/listen` delivering only the changes it asked for,
//! and the `Mcp-Param-*` header of an `x-mcp-header` parameter checked against the body.

use std::time::Duration;

use crate::conformance::fixture;
use crate::support::parse_sse;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

/// The `_meta` of a 2026-07-28 request declaring `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "fixture-check", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// POSTs one sessionless request (`params` gets the `_meta` unless it has one) with the
/// standard headers plus `extra`; returns the HTTP status and every message of the answer.
async fn post(
    url: &str,
    method: &str,
    mut params: Value,
    extra: &[(&str, &str)],
) -> (u16, Vec<Value>) {
    if params.get("_meta").is_none() {
        params["_meta"] = meta(json!({ "sampling": {}, "elicitation": {}, "roots": {} }));
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request.body(body.to_string()).send().await.expect("POST");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let messages = match serde_json::from_str::<Value>(&text) {
        Ok(one) => vec![one],
        Err(_) => parse_sse(&text).iter().filter_map(|e| e.json()).collect(),
    };
    (status, messages)
}

/// The answer (the message with the request's id) among `messages`.
fn answer(messages: &[Value]) -> &Value {
    messages
        .iter()
        .find(|m| m["id"] == 1)
        .unwrap_or_else(|| panic!("no answer in {messages:?}"))
}

async fn call(url: &str, params: Value) -> Value {
    let (status, messages) = post(url, "tools/call", params, &[]).await;
    assert_eq!(status, 200, "{messages:?}");
    answer(&messages).clone()
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

#[tokio::test]
async fn multi_round_requests_make_their_result_from_the_answers() {
    let server = fixture();
    let url = &server.url;
    let tool = |name: &str, extra: Value| {
        let mut params = json!({ "name": name, "arguments": {} });
        if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
            params.extend(extra.clone());
        }
        params
    };
    // Round 1 asks; round 2 with the answer completes with it.
    let first = call(
        url,
        tool("test_input_required_result_elicitation", json!({})),
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(
        first["result"]["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let done = call(
        url,
        tool(
            "test_input_required_result_elicitation",
            json!({ "inputResponses": { "user_name": accept(json!({ "name": "Alice" })), "extra": 1 } }),
        ),
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, Alice!",
        "{done}"
    );
    // A malformed answer is a protocol error.
    let bad = call(
        url,
        tool(
            "test_input_required_result_elicitation",
            json!({ "inputResponses": { "user_name": 12345 } }),
        ),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

    // Three rounds: the state of round 2 carries the name into round 3.
    let name = "test_input_required_result_multi_round";
    let r1 = call(url, tool(name, json!({}))).await;
    let state1 = r1["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    let r2 = call(
        url,
        tool(name, json!({ "inputResponses": { "step1": accept(json!({ "name": "Alice" })) }, "requestState": state1 })),
    )
    .await;
    let state2 = r2["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    assert_ne!(state1, state2);
    assert!(r2["result"]["inputRequests"]["step2"].is_object(), "{r2}");
    let r3 = call(
        url,
        tool(name, json!({ "inputResponses": { "step2": accept(json!({ "color": "blue" })) }, "requestState": state2 })),
    )
    .await;
    assert_eq!(
        r3["result"]["content"][0]["text"], "Alice's favorite color is blue.",
        "{r3}"
    );

    // A sealed state is verified; altered, or made for another tool, it is refused.
    let name = "test_input_required_result_tampered_state";
    let r1 = call(url, tool(name, json!({}))).await;
    let state = r1["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    let confirm = json!({ "confirm": accept(json!({ "ok": true })) });
    let ok = call(
        url,
        tool(
            name,
            json!({ "inputResponses": confirm, "requestState": state }),
        ),
    )
    .await;
    assert!(
        ok["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("state-ok")),
        "{ok}"
    );
    for forged in [format!("{state}-TAMPERED"), state.replacen('A', "B", 1)] {
        let refused = call(
            url,
            tool(
                name,
                json!({ "inputResponses": confirm, "requestState": forged }),
            ),
        )
        .await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }
    let elsewhere = call(
        url,
        tool(
            "test_input_required_result_request_state",
            json!({ "inputResponses": confirm, "requestState": state }),
        ),
    )
    .await;
    assert_eq!(elsewhere["error"]["code"], -32602, "{elsewhere}");

    // Only what the client declared is asked for.
    let mut params = tool("test_input_required_result_capabilities", json!({}));
    params["_meta"] = meta(json!({ "sampling": {} }));
    let asked = call(url, params).await;
    let methods: Vec<&str> = asked["result"]["inputRequests"]
        .as_object()
        .expect("inputRequests")
        .values()
        .filter_map(|r| r["method"].as_str())
        .collect();
    assert_eq!(methods, ["sampling/createMessage"], "{asked}");

    // prompts/get asks too, then renders with the answer.
    let (_, messages) = post(
        url,
        "prompts/get",
        json!({ "name": "test_input_required_result_prompt",
                "inputResponses": { "user_context": accept(json!({ "context": "tests" })) } }),
        &[],
    )
    .await;
    assert_eq!(
        answer(&messages)["result"]["messages"][0]["content"]["text"],
        "Answer with this context in mind: tests"
    );
}

#[tokio::test]
async fn stateless_diagnostics_answer_as_the_revision_asks() {
    let server = fixture();
    let url = &server.url;
    // Sampling not declared: −32021 naming it, HTTP 400.
    let mut params = json!({ "name": "test_missing_capability", "arguments": {} });
    params["_meta"] = meta(json!({}));
    let (status, messages) = post(url, "tools/call", params, &[]).await;
    assert_eq!(status, 400, "{messages:?}");
    let refused = answer(&messages);
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({ "sampling": {} })
    );

    // Log records only for a request that asked for them, at its level.
    let logs = |messages: &[Value]| {
        messages
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .count()
    };
    let params = json!({ "name": "test_logging_tool", "arguments": {} });
    let (_, quiet) = post(url, "tools/call", params.clone(), &[]).await;
    assert_eq!(logs(&quiet), 0, "{quiet:?}");
    let mut asked = params.clone();
    asked["_meta"] = meta(json!({}));
    asked["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let (_, loud) = post(url, "tools/call", asked.clone(), &[]).await;
    assert_eq!(logs(&loud), 3, "{loud:?}");
    asked["_meta"]["io.modelcontextprotocol/logLevel"] = json!("error");
    let (_, filtered) = post(url, "tools/call", asked, &[]).await;
    assert_eq!(logs(&filtered), 0, "{filtered:?}");

    // The Mcp-Param header of an x-mcp-header parameter must match the body.
    let params = json!({ "name": "test_header_param", "arguments": { "region": "Hello" } });
    for (header, status) in [
        ("Hello", 200),
        ("=?base64?SGVsbG8=?=", 200),
        ("=?base64?SGVsbG8?=", 400),
        ("Bye", 400),
    ] {
        let (got, messages) = post(
            url,
            "tools/call",
            params.clone(),
            &[("mcp-param-region", header)],
        )
        .await;
        assert_eq!(got, status, "Mcp-Param-Region: {header}: {messages:?}");
    }
    let (got, messages) = post(url, "tools/call", params, &[]).await;
    assert_eq!(got, 400, "no Mcp-Param-Region: {messages:?}");
    assert_eq!(answer(&messages)["error"]["code"], -32020);
}

#[tokio::test]
async fn a_listen_gets_the_changes_it_asked_for_and_no_others() {
    let server = fixture();
    let url = server.url.clone();
    let listen = |filter: Value| {
        let url = url.clone();
        tokio::spawn(async move {
            // Read until the stream has been quiet for a moment after the trigger.
            let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                               "params": { "_meta": meta(json!({})), "notifications": filter } });
            let mut response = reqwest::Client::new()
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "subscriptions/listen")
                .body(body.to_string())
                .send()
                .await
                .expect("listen");
            let mut text = String::new();
            let until = tokio::time::Instant::now() + Duration::from_millis(1500);
            while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(until, response.chunk()).await {
                text.push_str(&String::from_utf8_lossy(&chunk));
            }
            parse_sse(&text)
                .iter()
                .filter_map(|e| e.json())
                .collect::<Vec<Value>>()
        })
    };
    let tools = listen(json!({ "toolsListChanged": true }));
    let prompts = listen(json!({ "promptsListChanged": true }));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let triggered = call(
        &url,
        json!({ "name": "test_trigger_tool_change", "arguments": {} }),
    )
    .await;
    assert_eq!(triggered["result"]["isError"], false, "{triggered}");
    let (tools, prompts) = (tools.await.expect("listen"), prompts.await.expect("listen"));
    let methods = |frames: &[Value]| -> Vec<String> {
        frames
            .iter()
            .filter_map(|f| f["method"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(
        methods(&tools),
        [
            "notifications/subscriptions/acknowledged",
            "notifications/tools/list_changed"
        ],
        "{tools:?}"
    );
    for frame in &tools {
        assert_eq!(
            frame["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 1,
            "{frame}"
        );
    }
    assert_eq!(
        methods(&prompts),
        ["notifications/subscriptions/acknowledged"],
        "{prompts:?}"
    );
}
