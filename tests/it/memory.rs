//! Memory under large results, and what a resume gets once the replay log let events go.
//! The server's replay log is weighed in bytes (per stream, per session, in total): a session
//! that asks for a multi-megabyte tree again and again must not grow the process, and a
//! resume asking for events the log no longer holds gets 410 saying so, never a silent gap.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::spawned::Axgate;
use crate::support::{Client, TestServer, config};

const MIB: u64 = 1024 * 1024;

/// A `/proc/<pid>/status` field in bytes (`VmRSS`, `VmHWM`).
fn proc_status(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kib * 1024
}

fn client(url: &str) -> Client {
    Client {
        http: reqwest::Client::new(),
        url: url.to_owned(),
        session: None,
        next_id: 1,
    }
}

/// Regression: the replay log kept every event as rmcp's in-memory JSON tree (~10× its wire
/// size), counted but not weighed; 40 `get_tree` calls on Huge took the server to 2.9 GB.
/// A `get_tree` result is now one page of at most 1 MiB (`mcp/tools/pages.rs`), so the test
/// asks for many near-1-MiB pages: 150 of them are 150 MiB of wire bytes (about 1.5 GB as JSON
/// trees), far past the session's 8 MiB replay budget, which is all the log may keep of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_multi_megabyte_results_stay_within_the_replay_budget() {
    const CALLS: usize = 150;
    // The session's replay budget (sessions.max_session_bytes, 8 MiB) and room for what a
    // call holds while it runs, the allocator's free lists and everything else.
    const ROOM: u64 = 8 * MIB + 100 * MIB;
    let server = Axgate::serve(&["--backend", "demo"]);
    let pid = server.pid();
    let mut client = client(&server.url);
    client.initialize().await;
    let started = proc_status(pid, "VmRSS");
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut sizes = Vec::new();
    for call in 0..CALLS {
        let (id, events) = client
            .request_events(
                "tools/call",
                json!({"name": "get_tree", "arguments": {"app": "Huge", "depth": 64, "max_nodes": 20000, "nodes": true}}),
            )
            .await;
        let reply = events
            .iter()
            .filter_map(|e| e.json().map(|v| (e.data.len(), v)))
            .find(|(_, v)| v["id"] == json!(id))
            .unwrap_or_else(|| panic!("call {call}: no response"));
        assert_eq!(reply.1["result"]["isError"], false, "call {call}");
        sizes.push(reply.0);
        assert!(
            Instant::now() < deadline,
            "{call} calls took more than 300 s; {}",
            server.log().lines().last().unwrap_or_default()
        );
    }
    assert!(
        sizes[0] > (MIB / 2) as usize,
        "a result near the 1 MiB page bound: {} bytes",
        sizes[0]
    );
    let rss = proc_status(pid, "VmRSS");
    let peak = proc_status(pid, "VmHWM");
    let total: usize = sizes.iter().sum();
    eprintln!(
        "memory: {CALLS} results, {} MiB in all: VmRSS {} MiB at start, {} MiB after, peak {} MiB",
        total as u64 / MIB,
        started / MIB,
        rss / MIB,
        peak / MIB
    );
    assert!(
        rss < started + ROOM,
        "VmRSS {} MiB after {CALLS} results, {} MiB in all (started at {} MiB, peak {} MiB): the replay log is not bounded in bytes",
        rss / MIB,
        total as u64 / MIB,
        started / MIB,
        peak / MIB
    );
}

/// GET with `Last-Event-ID`.
async fn resume(client: &Client, last_event_id: &str) -> reqwest::Response {
    client
        .get()
        .header("last-event-id", last_event_id)
        .send()
        .await
        .unwrap()
}

/// The 410 a resume of evicted events gets, with its JSON-RPC error.
async fn assert_gone(client: &Client, last_event_id: &str) {
    let resp = resume(client, last_event_id).await;
    assert_eq!(resp.status(), 410, "resume after {last_event_id}");
    let body: Value = resp.json().await.expect("a JSON-RPC error body");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("evicted"), "{body}");
    assert!(message.contains("Send the request again"), "{body}");
}

fn metric(server: &TestServer, line_start: &str) -> f64 {
    let text = server.state.metrics.render();
    text.lines()
        .find(|l| l.starts_with(line_start))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_of_evicted_events_is_told_they_are_gone() {
    let server = TestServer::with_config(config(
        "[sessions]\nmax_stream_bytes = 65536\nmax_session_bytes = 65536\n",
    ))
    .await;
    let mut client = server.client();
    client.initialize().await;
    // Small results until the first call's stream is evicted to keep the session's budget.
    let args =
        json!({"name": "get_tree", "arguments": {"app": "Huge", "max_nodes": 100, "nodes": true}});
    let (_, first) = client.request_events("tools/call", args.clone()).await;
    let first_priming = first[0].id.clone().expect("a priming event id");
    let mut calls = 1;
    while metric(
        &server,
        "axgate_events_evicted_total{reason=\"session_budget\"}",
    ) == 0.0
    {
        assert!(calls < 50, "50 results never went past 64 KiB");
        client.request_events("tools/call", args.clone()).await;
        calls += 1;
    }
    assert_gone(&client, &first_priming).await;

    // A result larger than the whole session budget is delivered, and not kept.
    let before = metric(&server, "axgate_events_too_large_total");
    let (id, events) = client
        .request_events(
            "tools/call",
            json!({"name": "get_tree", "arguments": {"app": "Huge", "max_nodes": 2000, "nodes": true}}),
        )
        .await;
    let reply = crate::support::response_of(&events, id).expect("the large result arrives");
    assert_eq!(reply["result"]["isError"], false);
    assert_eq!(
        metric(&server, "axgate_events_too_large_total"),
        before + 1.0
    );
    assert!(metric(&server, "axgate_event_log_bytes") <= 65536.0);
    let priming = events[0].id.clone().expect("a priming event id");
    assert_gone(&client, &priming).await;

    // Another session is not told anything about these streams (and gets nothing).
    let mut other = server.client();
    other.initialize().await;
    let resp = resume(&other, &priming).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.text().await.unwrap().trim().is_empty());
}

/// Regression: the log's queues of finished and unbound streams kept an entry for every call
/// until the TTL (5 minutes), long after the session's budget had let its stream go: at a few
/// thousand calls a second, tens of MiB no budget weighed. Now a queue is compacted once it
/// doubles, so 3,000 quick calls leave at most 2 × 1,024 entries of 24 bytes in the finished
/// queue (its allocation: at most 2,048 entries) and next to nothing in the unbound one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_quick_calls_keep_the_stream_queues_within_their_bound() {
    const CALLS: usize = 3_000;
    let server = TestServer::with_config(config(
        "[sessions]\nmax_stream_bytes = 65536\nmax_session_bytes = 65536\n",
    ))
    .await;
    let mut client = server.client();
    client.initialize().await;
    let args = json!({"name": "list_apps", "arguments": {}});
    for _ in 0..CALLS {
        let (id, events) = client.request_events("tools/call", args.clone()).await;
        let reply = crate::support::response_of(&events, id).expect("a response");
        assert_eq!(reply["result"]["isError"], false, "{reply}");
    }
    let bytes = crate::support::metric(&server, "axgate_event_log_queue_bytes").await;
    assert!(
        bytes > 0.0 && bytes <= (2_048 * 24 + 2_048) as f64,
        "{bytes} bytes of queues after {CALLS} calls"
    );
}

/// Issue 33, finding 11: the task-result budget counted serialized bytes while each kept
/// result was held as a JSON tree about nine times larger (66.7 MB counted, RSS 62 → 700
/// MiB). Kept results are now held as their text: filling a 32 MiB budget with near-1-MiB
/// `get_tree` results grows the server by about the budget, not nine times it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_task_results_weigh_what_the_budget_counts() {
    const BUDGET: u64 = 32 * MIB;
    // The budget, and room for what a call holds while it runs and the allocator's lists.
    const ROOM: u64 = BUDGET + 100 * MIB;
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("axgate.toml");
    std::fs::write(
        &file,
        format!(
            "[limits]\nmax_task_bytes = {BUDGET}\nmax_tasks_per_principal = 200\n\
             task_ttl_secs = 600\ncalls_per_second = 100000\n"
        ),
    )
    .expect("config");
    let server = Axgate::serve(&[
        "--backend",
        "demo",
        "--config",
        file.to_str().expect("utf-8"),
    ]);
    let pid = server.pid();
    let mut c = client(&server.url);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": crate::support::PROTOCOL,
                   "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
                   "clientInfo": {"name": "memory-test", "version": "1"}}});
    let resp = c.post(&init).send().await.expect("initialize");
    c.session = Some(
        resp.headers()["mcp-session-id"]
            .to_str()
            .expect("ascii")
            .to_owned(),
    );
    resp.text().await.expect("body");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    c.post(&note).send().await.expect("initialized");
    let addr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let started = proc_status(pid, "VmRSS");
    let mut kept = 0u64;
    let deadline = Instant::now() + Duration::from_secs(240);
    while kept < BUDGET - 2 * MIB {
        let created = c
            .request(
                "tools/call",
                json!({"name": "get_tree", "task": {},
                       "arguments": {"app": "Huge", "depth": 64, "max_nodes": 20000, "nodes": true}}),
            )
            .await["result"]
            .clone();
        let id = created["taskId"].as_str().expect("a task").to_owned();
        let status = loop {
            let got = c.request("tasks/get", json!({"taskId": id})).await;
            let status = got["result"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if status != "working" {
                break status;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        if status != "completed" {
            break;
        }
        let text = crate::support::scrape(&addr, None).await;
        kept = crate::support::sample_of(&text, "axgate_task_result_bytes").unwrap_or(0.0) as u64;
        assert!(
            Instant::now() < deadline,
            "filling the budget took over 240 s"
        );
    }
    assert!(
        kept > BUDGET / 2,
        "the budget was filled: {kept} bytes kept"
    );
    let rss = proc_status(pid, "VmRSS");
    eprintln!(
        "tasks: {} MiB kept; VmRSS {} MiB at start, {} MiB after",
        kept / MIB,
        started / MIB,
        rss / MIB
    );
    assert!(
        rss < started + ROOM,
        "VmRSS {} MiB with {} MiB of task results kept (started at {} MiB): kept results \
         weigh more than the budget counts",
        rss / MIB,
        kept / MIB,
        started / MIB
    );
}
