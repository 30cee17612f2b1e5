//! Operations against real components: `/metrics` checked by `promtool check metrics`, a
//! real Prometheus server (Debian's package, on 127.0.0.1) scraping a running axgate,
//! `/readyz` flipping to 503 with the failing check when the demo backend simulates a lost
//! permission or a locked screen and staying 200 with an advisory (Secure Input held
//! elsewhere), and progress notifications on the request's own stream.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::TestServer;
use axgate::platform::demo::Simulation;
use serde_json::{Value, json};

async fn metrics_text(server: &TestServer) -> String {
    let resp = reqwest::get(format!("http://{}/metrics", server.addr))
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.text().await.unwrap()
}

fn promtool() -> &'static str {
    let path = "/usr/bin/promtool";
    assert!(
        std::path::Path::new(path).exists(),
        "promtool is missing: install Debian's prometheus package (apt-get install prometheus)"
    );
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_pass_promtool_and_count_tool_calls() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    client.call("list_apps", json!({})).await;
    client
        .call("get_tree", json!({"app": "Form", "depth": 2}))
        .await;
    client.call("get_tree", json!({"app": "NoSuchApp"})).await;
    // A test's "no" is counted apart from tool errors (the error-rate alert ignores it).
    let field = "window[0]/text_field[\"Name\"]";
    let no = client
        .call(
            "assert",
            json!({"app": "Form", "target": field, "value": "never"}),
        )
        .await;
    assert_eq!(no["isError"], true, "{no}");
    let args = json!({"app": "Form", "target": field, "condition": "value_equals",
                      "value": "never", "timeout_ms": 100});
    let no = client.call("wait_for", args).await;
    assert_eq!(no["isError"], true, "{no}");
    let text = metrics_text(&server).await;
    for needle in [
        "axgate_tool_calls_total{outcome=\"ok\",tool=\"list_apps\"} 1",
        "axgate_tool_calls_total{outcome=\"tool_error\",tool=\"get_tree\"} 1",
        "axgate_tool_calls_total{outcome=\"assert_failed\",tool=\"assert\"} 1",
        "axgate_tool_calls_total{outcome=\"wait_timeout\",tool=\"wait_for\"} 1",
        "axgate_mcp_requests_total{method=\"tools/call\"} 5",
        "axgate_http_requests_total{method=\"POST\",route=\"/mcp\",status=\"200\"}",
        "axgate_sessions_active 1",
        "axgate_readiness{check=\"demo_backend\"} 1",
        "axgate_build_info{backend=\"demo\"",
        "axgate_backend_call_duration_seconds_bucket{op=\"snapshot\"",
        "axgate_tool_call_duration_seconds_count{tool=\"get_tree\"} 2",
        "axgate_backend_round_trips_count{tool=\"get_tree\"} 2",
        "axgate_worker_queue_depth 0",
    ] {
        assert!(text.contains(needle), "missing {needle} in:\n{text}");
    }
    let nodes: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("axgate_nodes_walked_total "))
        .and_then(|v| v.parse().ok())
        .expect("nodes walked");
    assert!(nodes > 0.0);
    // Labels are bounded: no app text and no raw paths.
    assert!(!text.contains("NoSuchApp") && !text.contains("Subscribe"));

    let mut child = Command::new(promtool())
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_reports_each_failing_check_with_its_fix() {
    let server = TestServer::start().await;
    let url = format!("http://{}/readyz", server.addr);
    let ok = reqwest::get(&url).await.unwrap();
    assert_eq!(ok.status(), 200);
    let body: Value = ok.json().await.unwrap();
    assert_eq!(body["ready"], true);

    for (simulation, check) in [
        (Simulation::PermissionLost, "ax_trusted"),
        (Simulation::ScreenLocked, "screen_unlocked"),
    ] {
        server.demo.simulate(simulation);
        let resp = reqwest::get(&url).await.unwrap();
        assert_eq!(resp.status(), 503, "{check}");
        let body: Value = resp.json().await.unwrap();
        let failing: Vec<&Value> = body["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["ok"] == false)
            .collect();
        assert_eq!(failing.len(), 1, "{body}");
        assert_eq!(failing[0]["name"], check);
        assert!(
            failing[0]["fix"].as_str().is_some_and(|f| !f.is_empty()),
            "{body}"
        );
        let metrics = metrics_text(&server).await;
        assert!(
            metrics.contains(&format!("axgate_readiness{{check=\"{check}\"}} 0")),
            "{metrics}"
        );
    }
    server.demo.simulate(Simulation::None);
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 200);
    // Liveness stays up whatever readiness says.
    let health = reqwest::get(format!("http://{}/healthz", server.addr))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_advisory_keeps_readyz_200_and_names_it_while_a_gate_makes_it_503() {
    // Regression: Secure Input held by any process turned /readyz to 503, which HAProxy's
    // health check reads as a dead Mac.
    let server = TestServer::start().await;
    let url = format!("http://{}/readyz", server.addr);
    server.demo.simulate(Simulation::SecureInputHeld);
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["ready"], true, "{body}");
    let advisories = body["advisories"].as_array().unwrap();
    assert_eq!(advisories.len(), 1, "{body}");
    assert_eq!(advisories[0]["name"], "secure_input");
    assert!(
        advisories[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("held by Passwords (pid 412)")),
        "{body}"
    );
    let check = body["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "secure_input")
        .unwrap();
    assert_eq!(check["class"], "advisory");
    assert_eq!(check["ok"], false);
    let metrics = metrics_text(&server).await;
    assert!(
        metrics.contains("axgate_readiness_advisory{advisory=\"secure_input\"} 1"),
        "{metrics}"
    );
    // The gate alert (min of axgate_readiness) does not see the advisory.
    assert!(
        !metrics.contains("axgate_readiness{check=\"secure_input\"}"),
        "{metrics}"
    );
    // Typing still goes ahead while the advisory is raised.
    let mut client = server.client();
    client.initialize().await;
    let typed = client
        .call(
            "type_text",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "text": "Ada"}),
        )
        .await;
    assert_eq!(typed["isError"], false, "{typed}");

    // A gate failing makes it 503; the advisory, no longer reported, is no longer raised.
    server.demo.simulate(Simulation::ScreenLocked);
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status(), 503);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["ready"], false);
    assert_eq!(body["advisories"], json!([]), "{body}");
    let metrics = metrics_text(&server).await;
    assert!(
        !metrics.contains("axgate_readiness_advisory{advisory=\"secure_input\"} 1"),
        "{metrics}"
    );
    server.demo.simulate(Simulation::None);
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_goes_on_the_request_stream_before_the_result() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let (id, events) = client
        .request_events(
            "tools/call",
            json!({"name": "get_tree", "arguments": {"app": "Form"}, "_meta": {"progressToken": "walk-1"}}),
        )
        .await;
    let messages: Vec<Value> = events.iter().filter_map(|e| e.json()).collect();
    let result_at = messages
        .iter()
        .position(|m| m["id"] == id)
        .expect("result on the stream");
    let progress: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m["method"] == "notifications/progress" && m["params"]["progressToken"] == "walk-1"
        })
        .map(|(i, _)| i)
        .collect();
    assert!(
        !progress.is_empty(),
        "no progress on the request stream: {messages:?}"
    );
    assert!(
        progress.iter().all(|&i| i < result_at),
        "progress after the result: {messages:?}"
    );
    // Without a token, no progress is sent.
    let (_, events) = client
        .request_events(
            "tools/call",
            json!({"name": "get_tree", "arguments": {"app": "Form"}}),
        )
        .await;
    assert!(
        !events
            .iter()
            .filter_map(|e| e.json())
            .any(|m| m["method"] == "notifications/progress")
    );
}

/// A scratch folder removed on drop.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Kills the child on drop.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn prom_query(http: &reqwest::Client, base: &str, query: &str) -> Option<f64> {
    let resp = http
        .get(format!("{base}/api/v1/query"))
        .query(&[("query", query)])
        .send()
        .await
        .ok()?;
    let body: Value = resp.json().await.ok()?;
    body["data"]["result"][0]["value"][1].as_str()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_prometheus_scrapes_axgate() {
    let binary = "/usr/bin/prometheus";
    assert!(
        std::path::Path::new(binary).exists(),
        "prometheus is missing: install Debian's prometheus package (apt-get install prometheus)"
    );
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    for _ in 0..3 {
        client.call("list_apps", json!({})).await;
    }
    let dir = std::env::temp_dir().join(format!("axgate-prom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scratch = Scratch(dir.clone());
    let config = format!(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: axgate\n    metrics_path: /metrics\n    static_configs:\n      - targets: ['{}']\n",
        server.addr
    );
    std::fs::write(dir.join("prometheus.yml"), config).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let _prometheus = Child(
        crate::support::prometheus_command(binary, &dir, port)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus starts"),
    );
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut calls = None;
    while tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let up = prom_query(&http, &base, "up{job=\"axgate\"}").await;
        let counted = prom_query(
            &http,
            &base,
            "sum(axgate_tool_calls_total{tool=\"list_apps\"})",
        )
        .await;
        if up == Some(1.0) && counted.is_some() {
            calls = counted;
            break;
        }
    }
    assert_eq!(
        calls,
        Some(3.0),
        "Prometheus never saw the target up with the tool calls"
    );
    drop(scratch);
}

#[test]
fn check_offers_only_the_flags_it_reads() {
    let axgate = env!("CARGO_BIN_EXE_axgate");
    let help = Command::new(axgate)
        .args(["check", "--help"])
        .output()
        .expect("axgate runs");
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in ["--config", "--backend", "--log-level"] {
        assert!(help.contains(flag), "check --help lacks {flag}:\n{help}");
    }
    for flag in ["--bind", "--read-only", "--stdio"] {
        assert!(!help.contains(flag), "check --help offers {flag}:\n{help}");
    }
    let refused = Command::new(axgate)
        .args(["check", "--bind", "127.0.0.1:1"])
        .output()
        .expect("axgate runs");
    assert_eq!(refused.status.code(), Some(2));
    let serve = Command::new(axgate)
        .args(["serve", "--help"])
        .output()
        .expect("axgate runs");
    let serve = String::from_utf8_lossy(&serve.stdout);
    assert!(
        serve.contains("--bind") && serve.contains("--read-only"),
        "{serve}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_says_which_backend_serves_and_why() {
    let server = crate::spawned::Axgate::serve(&["--backend", "demo"]);
    let url = server.url.replace("/mcp", "/readyz");
    let body: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    assert_eq!(body["backend"], "demo", "{body}");
    assert_eq!(body["backend_reason"], "backend.kind = demo", "{body}");
    // The demo backend models every capability.
    assert_eq!(body["lacks"], serde_json::json!([]), "{body}");
    assert!(
        body["capabilities"]
            .as_array()
            .is_some_and(|c| c.len() == 15 && c.contains(&"clipboard".into())),
        "{body}"
    );
}
