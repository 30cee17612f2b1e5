//! Faults under load, bounded in count and time, loopback only:
//! - `kill -9` of the real binary under 32 connections of writes, then a restart on the same
//!   trail: the audit chain verifies, and every write a client saw answered has its line;
//! - clients that vanish mid-stream, en masse (GET streams open, calls in flight, no DELETE):
//!   no session, stream or worker job outlives them, as the metrics show.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::spawned::Axgate;
use crate::support::wait::eventually;
use crate::support::{Client, PROTOCOL, TestServer, audit_lines, config, metric};

/// Writers, and the most calls each makes.
const WRITERS: usize = 32;
const CALLS_EACH: usize = 400;

/// One `set_value` on the Form app's slider through a raw POST; `Some(())` when the server
/// answered with a result (ok or `isError`), `None` when the connection failed.
async fn write(http: &reqwest::Client, url: &str, session: &str, id: usize) -> Option<()> {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "set_value", "arguments": {
            "app": "Form", "target": "window[0]/slider[\"Volume\"]", "value": (id % 90) + 5,
        }},
    });
    let resp = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", PROTOCOL)
        .body(body.to_string())
        .send()
        .await
        .ok()?;
    let text = resp.text().await.ok()?;
    let answered = crate::support::parse_sse(&text)
        .iter()
        .filter_map(crate::support::Event::json)
        .any(|m| m["id"] == json!(id) && m.get("result").is_some());
    answered.then_some(())
}

fn write_config(dir: &Path) -> std::path::PathBuf {
    let trail = dir.join("audit.jsonl");
    let file = dir.join("axgate.toml");
    let text = format!(
        "[audit]\npath = {:?}\n[limits]\ncalls_per_second = 100000\nwrites_per_second = 100000\n",
        trail.to_str().expect("utf-8")
    );
    std::fs::write(&file, text).expect("config");
    file
}

#[test]
fn kill_9_under_write_load_keeps_every_answered_write_in_a_trail_that_verifies() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write_config(dir.path());
    let config = config.to_str().expect("utf-8");
    let server = Axgate::serve(&["--backend", "demo", "--config", config]);
    let url = server.url.clone();
    let answered: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mut writers = Vec::new();
        for _ in 0..WRITERS {
            let url = url.clone();
            let answered = answered.clone();
            writers.push(tokio::spawn(async move {
                let mut c = Client {
                    http: reqwest::Client::new(),
                    url: url.clone(),
                    session: None,
                    next_id: 1,
                };
                c.initialize().await;
                let session = c.session.clone().expect("a session");
                let tag = axgate::audit::session_tag(&session);
                for id in 1..=CALLS_EACH {
                    if write(&c.http, &url, &session, id).await.is_none() {
                        return;
                    }
                    *answered
                        .lock()
                        .expect("lock")
                        .entry(tag.clone())
                        .or_default() += 1;
                }
            }));
        }
        // Let the writes run, then kill the server mid-load.
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            let total: usize = answered.lock().expect("lock").values().sum();
            if total >= 300 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut server = server;
        server.kill_9();
        for w in writers {
            let _ = tokio::time::timeout(Duration::from_secs(20), w).await;
        }
    });
    let answered = answered.lock().expect("lock").clone();
    let total: usize = answered.values().sum();
    assert!(total > 0, "no write was answered before the kill");

    // A restart on the same trail appends after whatever the kill left.
    let again = Axgate::serve(&["--backend", "demo", "--config", config]);
    runtime.block_on(async {
        let mut c = Client {
            http: reqwest::Client::new(),
            url: again.url.clone(),
            session: None,
            next_id: 1,
        };
        c.initialize().await;
        let session = c.session.clone().expect("a session");
        assert!(write(&c.http, &again.url, &session, 7).await.is_some());
    });
    drop(again);

    let trail = dir.path().join("audit.jsonl");
    let files = axgate::audit::trail_files(&trail).expect("trail files");
    let verified = Command::new(env!("CARGO_BIN_EXE_axgate"))
        .args(["audit", "verify"])
        .args(&files)
        .output()
        .expect("runs audit verify");
    assert!(
        verified.status.success(),
        "the trail does not verify after kill -9: {}{}",
        String::from_utf8_lossy(&verified.stdout),
        String::from_utf8_lossy(&verified.stderr)
    );
    let mut lines: HashMap<String, usize> = HashMap::new();
    for file in &files {
        for line in audit_lines(file) {
            if line["tool"] == "set_value"
                && let Some(tag) = line["session"].as_str()
            {
                *lines.entry(tag.to_owned()).or_default() += 1;
            }
        }
    }
    for (tag, count) in &answered {
        let logged = lines.get(tag).copied().unwrap_or(0);
        assert!(
            logged >= *count,
            "session {tag}: {count} writes answered, {logged} in the trail ({total} answered in all)"
        );
    }
}

/// Sessions, open SSE streams and queued worker jobs, as a scrape of `/metrics` reports them.
async fn gauge(server: &TestServer) -> (i64, i64, i64) {
    (
        metric(server, "axgate_sessions_active").await as i64,
        metric(server, "axgate_sse_streams_open").await as i64,
        metric(server, "axgate_worker_queue_depth").await as i64,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_vanishing_mid_stream_leak_no_session_stream_or_job() {
    let server = TestServer::with_config(config(
        // 40 GET streams of one (local) caller: above the default share per caller, which
        // `shares::` tests; here the streams must all open to vanish.
        "[sessions]\nidle_timeout_secs = 2\n[backend]\ncall_timeout_ms = 1500\n\
         [server]\nmax_streams_per_caller = 64\n",
    ))
    .await;
    let mut gone = Vec::new();
    for i in 0..40 {
        let mut c = server.client();
        c.initialize().await;
        // A GET stream, read until its first bytes, then dropped with the connection.
        let get = c.get().send().await.expect("GET");
        assert_eq!(get.status(), 200);
        // A call on the hung app: in flight when its client goes.
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "get_tree", "arguments": {"app": "Hung"}}});
        let post = c.post(&call).send();
        let post = tokio::time::timeout(Duration::from_millis(300), post).await;
        gone.push((get, post));
    }
    // Not vacuous: the last client's session and stream are open now (earlier ones may
    // already have gone at the idle timeout on a busy machine, which is the point).
    let (sessions, streams, _) = gauge(&server).await;
    assert!(
        sessions >= 1 && streams >= 1,
        "{sessions} sessions, {streams} streams"
    );
    drop(gone);
    // Nothing outlives its client: the streams close, the jobs end at their deadline, the
    // sessions (never deleted) go at the idle timeout.
    let what = "sessions, streams and worker jobs all gone";
    eventually(Duration::from_secs(30), what, async || {
        gauge(&server).await == (0, 0, 0)
    })
    .await;
}
