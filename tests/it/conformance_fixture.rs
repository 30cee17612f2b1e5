//! Our own checks of the conformance fixture (`crates/conformance-fixture`), where the
//! official suite is weak (`tests/it/conformance.rs` runs the suite): every fixture tool,
//! resource, prompt and completion called by name returns its content (the suite passes some
//! scenarios without looking at it), the 2026-07-28 tools answer as the suite's scenarios
//! describe them (multi round-trip results, sealed `requestState`, the sessionless
//! diagnostics, `subscriptions/listen`), and cross-origin or foreign-Host requests get 403
//! (the suite's DNS-rebinding scenario does not send an Origin).

use std::collections::BTreeSet;
use std::time::Duration;

use crate::conformance::fixture;
use serde_json::{Value, json};

/// A client session on the spawned fixture.
async fn session(url: &str) -> crate::support::Client {
    let mut client = crate::support::Client {
        http: reqwest::Client::new(),
        url: url.to_owned(),
        session: None,
        next_id: 1,
    };
    client.initialize().await;
    client
}

/// The `notifications/message` data the session's GET stream carries while `tool` runs (read
/// until a second after its result).
async fn logs_during(c: &mut crate::support::Client, tool: &str) -> Vec<String> {
    let mut stream = c
        .http
        .get(&c.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", c.session.as_deref().expect("session"))
        .send()
        .await
        .expect("GET stream");
    assert_eq!(stream.status(), 200, "GET stream opens");
    let result = c.call(tool, json!({})).await;
    assert_eq!(result["isError"], false, "{result}");
    let mut body = String::new();
    let until = tokio::time::Instant::now() + Duration::from_secs(1);
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(until, stream.chunk()).await {
        body.push_str(&String::from_utf8_lossy(&chunk));
    }
    crate::support::parse_sse(&body)
        .iter()
        .filter_map(crate::support::Event::json)
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"]["data"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn every_fixture_tool_returns_its_content() {
    let server = fixture();
    let mut c = session(&server.url).await;
    let listed = c.request("tools/list", json!({})).await;
    let names: BTreeSet<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_tool_with_logging",
        "test_tool_with_progress",
        "test_error_handling",
        "test_sampling",
        "test_elicitation",
        "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums",
        "json_schema_2020_12_tool",
        "test_reconnection",
    ] {
        assert!(names.contains(name), "{name} not in {names:?}");
    }

    let r = c.call("test_simple_text", json!({})).await;
    assert_eq!(
        r["content"],
        json!([{ "type": "text", "text": "This is a simple text response for testing." }])
    );
    let r = c.call("test_image_content", json!({})).await;
    assert_eq!(r["content"][0]["type"], "image");
    assert_eq!(r["content"][0]["mimeType"], "image/png");
    // A well-formed 1×1 PNG, not only its signature.
    let png = decode(&r["content"][0]["data"]);
    let reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("a readable PNG");
    assert_eq!((reader.info().width, reader.info().height), (1, 1));
    let r = c.call("test_audio_content", json!({})).await;
    assert_eq!(r["content"][0]["type"], "audio");
    assert_eq!(r["content"][0]["mimeType"], "audio/wav");
    // A WAV whose RIFF and data sizes agree with its length.
    let wav = decode(&r["content"][0]["data"]);
    assert_eq!(wav.len(), 44 + 16);
    assert_eq!(&wav[..4], b"RIFF");
    assert_eq!(&wav[8..16], b"WAVEfmt ");
    assert_eq!(u32::from_le_bytes(wav[4..8].try_into().unwrap()), 36 + 16);
    let r = c.call("test_embedded_resource", json!({})).await;
    assert_eq!(
        r["content"][0]["resource"],
        json!({ "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content." })
    );
    let r = c.call("test_multiple_content_types", json!({})).await;
    let kinds: Vec<&str> = r["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|b| b["type"].as_str())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    assert_eq!(
        r["content"][2]["resource"]["text"],
        r#"{"test":"data","value":123}"#
    );
    let r = c.call("test_error_handling", json!({})).await;
    assert_eq!(r["isError"], true, "{r}");

    // Logging: three info messages. rmcp sends notifications that name no request on the
    // session's GET stream (only progress rides the request's own stream).
    let logs = logs_during(&mut c, "test_tool_with_logging").await;
    assert_eq!(
        logs,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]
    );

    // Progress: 0, 50, 100 of 100 with the request's token.
    let (_, events) = c
        .request_events(
            "tools/call",
            json!({ "name": "test_tool_with_progress", "arguments": {}, "_meta": { "progressToken": "p1" } }),
        )
        .await;
    let progress: Vec<(f64, f64)> = events
        .iter()
        .filter_map(|e| e.json())
        .filter(|m| m["method"] == "notifications/progress" && m["params"]["progressToken"] == "p1")
        .map(|m| {
            (
                m["params"]["progress"].as_f64().unwrap_or(-1.0),
                m["params"]["total"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(progress, [(0.0, 100.0), (50.0, 100.0), (100.0, 100.0)]);

    // This client declared neither sampling nor elicitation: an error result says so.
    let r = c.call("test_sampling", json!({ "prompt": "hi" })).await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        crate::support::text_of(&r).contains("sampling capability"),
        "{r}"
    );
    let r = c.call("test_elicitation", json!({ "message": "hi" })).await;
    assert!(
        crate::support::text_of(&r).contains("elicitation capability"),
        "{r}"
    );
    // A missing argument and an unknown tool are JSON-RPC errors naming the fix.
    let r = c
        .request(
            "tools/call",
            json!({ "name": "test_sampling", "arguments": {} }),
        )
        .await;
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("prompt")),
        "{r}"
    );
    let r = c
        .request(
            "tools/call",
            json!({ "name": "test_nothing", "arguments": {} }),
        )
        .await;
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("test_simple_text")),
        "{r}"
    );
}

#[tokio::test]
async fn fixture_resources_prompts_and_completions_return_their_content() {
    let server = fixture();
    let mut c = session(&server.url).await;
    let read = |uri: &str| json!({ "uri": uri });
    let r = c
        .request("resources/read", read("test://static-text"))
        .await;
    assert_eq!(
        r["result"]["contents"],
        json!([{ "uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource." }])
    );
    let r = c
        .request("resources/read", read("test://static-binary"))
        .await;
    assert_eq!(r["result"]["contents"][0]["mimeType"], "image/png");
    assert!(
        r["result"]["contents"][0]["blob"]
            .as_str()
            .is_some_and(|b| b.starts_with("iVBORw0KGgo"))
    );
    let r = c
        .request("resources/read", read("test://template/123/data"))
        .await;
    let text = r["result"]["contents"][0]["text"].as_str().expect("text");
    assert_eq!(
        serde_json::from_str::<Value>(text).expect("JSON"),
        json!({ "id": "123", "templateTest": true, "data": "Data for ID: 123" })
    );
    let r = c.request("resources/read", read("test://nothing")).await;
    assert_eq!(r["error"]["code"], -32002, "{r}");
    let r = c
        .request("resources/subscribe", read("test://watched-resource"))
        .await;
    assert_eq!(r["result"], json!({}), "{r}");
    let r = c
        .request("resources/subscribe", read("test://nothing"))
        .await;
    assert_eq!(r["error"]["code"], -32002, "{r}");

    let get = |name: &str, args: Value| json!({ "name": name, "arguments": args });
    let r = c
        .request("prompts/get", get("test_simple_prompt", json!({})))
        .await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "This is a simple prompt for testing."
    );
    let r = c
        .request(
            "prompts/get",
            get(
                "test_prompt_with_arguments",
                json!({ "arg1": "hello", "arg2": "world" }),
            ),
        )
        .await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='hello', arg2='world'"
    );
    let r = c
        .request(
            "prompts/get",
            get("test_prompt_with_arguments", json!({ "arg1": "hello" })),
        )
        .await;
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("arg2")),
        "{r}"
    );
    let r = c
        .request(
            "prompts/get",
            get(
                "test_prompt_with_embedded_resource",
                json!({ "resourceUri": "test://x" }),
            ),
        )
        .await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["resource"]["uri"],
        "test://x"
    );
    let r = c
        .request("prompts/get", get("test_prompt_with_image", json!({})))
        .await;
    assert_eq!(r["result"]["messages"][0]["content"]["type"], "image");

    let r = c
        .request(
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" }, "argument": { "name": "arg1", "value": "te" } }),
        )
        .await;
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["test", "testing", "template"])
    );
    let r = c
        .request("logging/setLevel", json!({ "level": "warning" }))
        .await;
    assert_eq!(r["result"], json!({}));
    // At warning, the tool's info messages are filtered out.
    assert!(
        logs_during(&mut c, "test_tool_with_logging")
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn fixture_refuses_foreign_origins_and_hosts() {
    let server = fixture();
    let c = session(&server.url).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 9, "method": "ping" });
    let resp = c
        .post(&ping)
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403, "a cross-origin request");
    let resp = c
        .post(&ping)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403, "a DNS-rebinding Host");
    let port = server
        .url
        .split(':')
        .nth(2)
        .and_then(|p| p.split('/').next())
        .expect("port");
    let resp = c
        .post(&ping)
        .header("origin", format!("http://localhost:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "a loopback origin");
}

#[tokio::test]
async fn test_reconnection_closes_its_stream_and_the_result_comes_on_resume() {
    let server = fixture();
    let c = session(&server.url).await;
    let call = json!({"jsonrpc": "2.0", "id": 901, "method": "tools/call",
                      "params": {"name": "test_reconnection", "arguments": {}}});
    let resp = c.post(&call).send().await.expect("POST");
    assert_eq!(resp.status(), 200);
    // The response stream ends before the result: the tool closed it.
    let events = crate::support::parse_sse(&resp.text().await.expect("stream"));
    assert!(
        crate::support::response_of(&events, 901).is_none(),
        "{events:?}"
    );
    let last = events
        .iter()
        .rev()
        .find_map(|e| e.id.clone())
        .expect("the closed stream carried an event id");
    let resumed = c
        .http
        .get(&c.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", c.session.as_deref().expect("session"))
        .header("mcp-protocol-version", crate::support::PROTOCOL)
        .header("last-event-id", last)
        .send()
        .await
        .expect("GET");
    assert_eq!(resumed.status(), 200);
    let events = crate::support::parse_sse(&resumed.text().await.expect("resumed stream"));
    let result =
        crate::support::response_of(&events, 901).expect("the result on the resumed stream");
    assert_eq!(
        result["result"]["content"][0]["text"], "Reconnection test completed successfully",
        "{result}"
    );
}

/// The bytes of a base64 `data` field.
fn decode(data: &Value) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data.as_str().expect("a base64 string"))
        .expect("valid base64")
}
