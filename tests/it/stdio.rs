//! `axgate serve --stdio` as a local MCP host runs it: the built binary as a child process.
//!
//! - The official Python SDK 2.x's `stdio_client` starts it, initializes, lists the tools,
//!   calls them and sees the effect (`tests/clients/python/stdio_check.py`); the SDK fails on
//!   anything but JSON-RPC on stdout; the logs are on stderr; the press is in the audit trail.
//! - Raw: every stdout line is a JSON-RPC message, nothing listens on the configured HTTP
//!   address (the test holds it), and closing stdin ends the process with status 0.
//!
//! Every `AXGATE_*` variable is stripped from the child's environment: cargo sets some for
//! tests, and axgate refuses unknown ones.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::clients::run::{check_common_steps, repo, require, run_script};

const AXGATE: &str = env!("CARGO_BIN_EXE_axgate");
/// How long one exchange with the child may take; generous, the machine may be busy.
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// A config file in `dir` with an audit trail beside it and `server.bind` on `bind`.
fn write_config(dir: &Path, bind: &str) -> (PathBuf, PathBuf) {
    let audit = dir.join("audit.jsonl");
    let config = dir.join("axgate.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nbind = \"{bind}\"\n[audit]\npath = {:?}\n",
            audit.display().to_string()
        ),
    )
    .expect("write config");
    (config, audit)
}

fn axgate_without_env() -> Command {
    let mut command = Command::new(AXGATE);
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("AXGATE_")) {
        command.env_remove(key);
    }
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_stdio_client() {
    let python = repo().join("target/test-env/venv/bin/python");
    require(&python, "the Python SDK venv target/test-env/venv");
    let script = repo().join("tests/clients/python/stdio_check.py");
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, audit) = write_config(dir.path(), "127.0.0.1:8741");
    let errlog = dir.path().join("stderr.log");
    let run = run_script(
        "python stdio",
        &python,
        &[script, AXGATE.into(), config, errlog.clone()],
        &[],
    )
    .await;
    check_common_steps(&run);
    run.step("closed");

    let logs = std::fs::read_to_string(&errlog).expect("the child's stderr");
    assert!(
        logs.contains("serving MCP on stdio") && logs.contains("tool call"),
        "stderr carries the logs:\n{logs}"
    );
    let trail = std::fs::read_to_string(&audit).expect("the audit trail was written");
    let lines: Vec<Value> = trail
        .lines()
        .map(|l| serde_json::from_str(l).expect("audit lines are JSON"))
        .collect();
    assert_eq!(lines.len(), 1, "one mutating call, one audit line: {trail}");
    assert_eq!(lines[0]["tool"], "perform_action", "{trail}");
}

/// Reads the child's stdout lines on a thread, so that every wait has a deadline.
fn lines_of(stdout: std::process::ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Receives lines until the response to `id`; returns every line read.
fn until_response(rx: &mpsc::Receiver<String>, id: u64, all: &mut Vec<String>) -> Value {
    let deadline = Instant::now() + REPLY_TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("no response to id {id} ({e}); stdout so far: {all:?}"));
        all.push(line.clone());
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        if message["id"] == id {
            return message;
        }
    }
}

#[test]
fn stdout_is_protocol_only_and_closing_stdin_ends_the_process() {
    // Held for the whole test: were axgate to listen on the configured address, it could not.
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("hold a port");
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, _audit) = write_config(dir.path(), &held.local_addr().expect("addr").to_string());
    let errlog = dir.path().join("stderr.log");
    let mut child = axgate_without_env()
        .args(["serve", "--stdio", "--backend", "demo", "--config"])
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&errlog).expect("stderr file"))
        .spawn()
        .expect("start axgate");
    let mut stdin = child.stdin.take().expect("stdin");
    let rx = lines_of(child.stdout.take().expect("stdout"));
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").expect("write to axgate");
        stdin.flush().expect("flush");
    };
    let mut all = Vec::new();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "stdio-test", "version": "1"}}}),
    );
    let init = until_response(&rx, 1, &mut all);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "axgate", "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed = until_response(&rx, 2, &mut all);
    let tools = listed["result"]["tools"].as_array().map_or(0, Vec::len);
    // Every tool but the admin ones: stdio has no HTTP sessions to administer.
    let served = axgate::mcp::tools::all()
        .iter()
        .filter(|t| !t.profile.effect.administers())
        .count();
    assert_eq!(tools, served, "{listed}");
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "list_apps", "arguments": {}}}));
    let apps = until_response(&rx, 3, &mut all);
    assert_eq!(apps["result"]["isError"], false, "{apps}");
    assert!(
        apps["result"]["structuredContent"]["apps"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{apps}"
    );

    drop(stdin); // the host hangs up
    let deadline = Instant::now() + REPLY_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for axgate") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("axgate did not exit within {REPLY_TIMEOUT:?} of stdin closing");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let logs = std::fs::read_to_string(&errlog).expect("stderr");
    assert!(
        status.success(),
        "exit status {status} after stdin closed; stderr:\n{logs}"
    );
    // Whatever else came out before exit is still protocol only.
    for line in rx.try_iter() {
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    assert!(
        logs.contains("serving MCP on stdio") && logs.contains("stopped"),
        "the logs are on stderr:\n{logs}"
    );
    drop(held);
}

#[test]
fn stdio_and_bind_conflict() {
    let out = axgate_without_env()
        .args(["serve", "--stdio", "--bind", "127.0.0.1:1"])
        .stdin(Stdio::null())
        .output()
        .expect("run axgate");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--bind") && stderr.contains("--stdio"),
        "{stderr}"
    );
}

/// A host that writes its whole exchange at once and closes stdin (a script piping a file):
/// every request is answered, the slow one too, and the process exits promptly after.
#[test]
fn a_burst_then_eof_is_answered_whole_and_exits_promptly() {
    let burst = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "burst", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "get_tree", "arguments": {"app": "Huge", "max_nodes": 3000}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "list_apps", "arguments": {}}}),
    ];
    let input: String = burst.iter().map(|m| format!("{m}\n")).collect();
    let started = Instant::now();
    let mut child = axgate_without_env()
        .args(["serve", "--stdio", "--backend", "demo"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start axgate");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write the burst");
    drop(stdin);
    let rx = lines_of(child.stdout.take().expect("stdout"));
    let deadline = started + REPLY_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for axgate") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "no exit within {REPLY_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let answered: Vec<Value> = rx
        .iter()
        .map(|l| serde_json::from_str(&l).expect("JSON lines"))
        .collect();
    let mut ids: Vec<u64> = answered.iter().filter_map(|m| m["id"].as_u64()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3], "{answered:?}");
    assert!(
        answered.iter().all(|m| m.get("error").is_none()),
        "{answered:?}"
    );
    // Not the 5 s an old shutdown waited for (a behaviour bound, generous on a loaded machine).
    assert!(
        started.elapsed() < Duration::from_millis(4_500),
        "took {:?}",
        started.elapsed()
    );
}
