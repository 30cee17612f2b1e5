//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
//! `tests/conformance/package-lock.json`, run with Node 22 — both from `scripts/test-env`)
//! against the conformance fixture (`crates/conformance-fixture`) served in-process behind
//! axgate's own router, layers, sessions and event log: every active server scenario of revision 2025-11-25 must pass,
//! with no expected-failures baseline. The pending scenarios are run too and reported; the
//! disconnect-and-resume check among them must pass (`test_reconnection`).
//!
//! Where the suite is weak, our own checks against the same fixture: every fixture tool,
//! resource and prompt called by name returns its content (the suite passes some scenarios
//! without looking at it), and cross-origin or foreign-Host requests get 403 (the suite's
//! DNS-rebinding scenario does not send an Origin).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use crate::spawned::{node22, repo, require, run};
use serde_json::{Value, json};

const REVISION: &str = "2025-11-25";
/// How long one run of the suite may take.
const SUITE_TIMEOUT: Duration = Duration::from_secs(600);

fn suite_cli() -> std::path::PathBuf {
    let cli = repo()
        .join("tests/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    require(
        &cli,
        "the conformance suite (tests/conformance/node_modules)",
    );
    cli
}

/// The fixture on a port-0 loopback listener, served on a runtime of its own (the tests
/// here are plain and async alike); it stops when dropped.
pub(crate) struct Fixture {
    pub(crate) url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

pub(crate) fn fixture() -> Fixture {
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("the fixture's runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            addr_tx
                .send(listener.local_addr().expect("addr"))
                .expect("the test waits for the address");
            let config = crate::support::config("");
            axgate_conformance_fixture::serve(listener, config, async {
                let _ = stopped.await;
            })
            .await
            .expect("the fixture serves");
        });
    });
    let addr = addr_rx.recv().expect("the fixture's address");
    Fixture {
        url: format!("http://{addr}/mcp"),
        stop: Some(stop),
    }
}

/// The checks of every scenario the suite wrote under `dir` (`server-<scenario>-<time>/`).
fn results(dir: &Path) -> BTreeMap<String, Vec<Value>> {
    let name = regex::Regex::new(r"^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$").expect("regex");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("the suite's output directory") {
        let path = entry.expect("entry").path();
        let file = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let scenario = name
            .captures(file)
            .unwrap_or_else(|| panic!("unexpected result directory {file}"))[1]
            .to_owned();
        let text = std::fs::read_to_string(path.join("checks.json"))
            .unwrap_or_else(|e| panic!("{file}/checks.json: {e}"));
        let checks: Vec<Value> = serde_json::from_str(&text).expect("checks.json is JSON");
        assert!(
            out.insert(scenario.clone(), checks).is_none(),
            "{scenario} ran twice"
        );
    }
    out
}

/// Runs one suite (`active` or `pending`) against `url`; returns the run and its results.
fn run_suite(suite: &str, url: &str) -> (crate::spawned::Run, BTreeMap<String, Vec<Value>>) {
    let out = tempfile::tempdir().expect("temp dir");
    let out_dir = out.path().to_str().expect("utf-8 path");
    let cli = suite_cli();
    let args = [
        cli.to_str().expect("utf-8 path"),
        "server",
        "--url",
        url,
        "--suite",
        suite,
        "--spec-version",
        REVISION,
        "-o",
        out_dir,
    ];
    let run = run(&node22(), &args, out.path(), &[], SUITE_TIMEOUT);
    let results = results(out.path());
    (run, results)
}

/// The scenario names the suite lists for the revision.
fn listed() -> BTreeSet<String> {
    let cli = suite_cli();
    let args = [
        cli.to_str().expect("utf-8 path"),
        "list",
        "--server",
        "--spec-version",
        REVISION,
    ];
    let run = run(&node22(), &args, repo(), &[], Duration::from_secs(120));
    assert!(run.status.success(), "{}", run.report("conformance list"));
    run.stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

fn statuses(checks: &[Value]) -> Vec<String> {
    checks
        .iter()
        .map(|c| {
            format!(
                "{}={}{}",
                c["id"].as_str().unwrap_or("?"),
                c["status"].as_str().unwrap_or("?"),
                c["errorMessage"]
                    .as_str()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default()
            )
        })
        .collect()
}

/// The suite's closing summary, printed for the CI log.
fn summary(stdout: &str) -> &str {
    stdout
        .find("=== SUMMARY ===")
        .map_or(stdout, |i| &stdout[i..])
}

#[test]
fn official_suite_passes_every_active_scenario() {
    let server = fixture();
    let (run, active) = run_suite("active", &server.url);
    let report = run.report("conformance suite (active)");
    assert!(run.status.success(), "{report}");
    let announced: usize = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Running active suite ("))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no scenario count in the output\n{report}"));
    assert!(announced > 0, "{report}");
    assert_eq!(
        active.len(),
        announced,
        "results of every scenario\n{report}"
    );
    for (scenario, checks) in &active {
        assert!(!checks.is_empty(), "{scenario}: no checks\n{report}");
        let bad: Vec<&Value> = checks
            .iter()
            .filter(|c| !matches!(c["status"].as_str(), Some("SUCCESS" | "INFO")))
            .collect();
        assert!(
            bad.is_empty(),
            "{scenario}: {:?}\n{report}",
            statuses(checks)
        );
    }

    // Pending scenarios are reported, not required; with the active ones they are every
    // scenario the suite lists for the revision, so none is silently left out.
    let (pending_run, pending) = run_suite("pending", &server.url);
    let ran: BTreeSet<String> = active.keys().chain(pending.keys()).cloned().collect();
    assert_eq!(ran, listed(), "active + pending = the listed scenarios");
    println!(
        "conformance suite, revision {REVISION}: {} active scenarios passed in {:.1} s\n{}",
        active.len(),
        run.took.as_secs_f64(),
        summary(&run.stdout)
    );
    // The one pending check the fixture was built for: the server closes a response stream
    // mid-call and the result arrives after the client resumes.
    let resumed = pending
        .values()
        .flatten()
        .find(|c| c["id"] == "server-sse-disconnect-resume");
    assert!(
        resumed.is_some_and(|c| c["status"] == "SUCCESS"),
        "server-sse-disconnect-resume: {resumed:?}\n{}",
        pending_run.report("conformance suite (pending)")
    );
    println!("pending scenarios (not required): {}", pending.len());
    for (scenario, checks) in &pending {
        println!("  {scenario}: {}", statuses(checks).join(", "));
    }
    println!("{}", summary(&pending_run.stdout));
}

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
    assert!(
        r["content"][0]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("iVBORw0KGgo"))
    );
    let r = c.call("test_audio_content", json!({})).await;
    assert_eq!(r["content"][0]["type"], "audio");
    assert_eq!(r["content"][0]["mimeType"], "audio/wav");
    assert!(
        r["content"][0]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("UklGR"))
    );
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
