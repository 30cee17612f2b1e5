//! Operations without a restart, against the real binary: SIGHUP re-reads the config file,
//! so a removed token stops working at once and a new one works, policy changes apply to
//! the next call, and a broken file changes nothing.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axgate::http::auth::tokens;
use serde_json::{Value, json};

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn entry(name: &str, token: &str) -> String {
    format!(
        "[auth]\ntokens = [{{ name = \"{name}\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}]\n",
        tokens::hex(&tokens::sha256(token))
    )
}

/// Starts `axgate serve` on a free port with `config`, and waits for its address.
fn start(config: &std::path::Path) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_axgate"));
    // axgate reads every AXGATE_* variable (the test environment is not the server's).
    for (key, _) in std::env::vars() {
        if key.starts_with("AXGATE_") {
            cmd.env_remove(&key);
        }
    }
    let mut child = cmd
        .args([
            "serve",
            "--backend",
            "demo",
            "--bind",
            "127.0.0.1:0",
            "--log-format",
            "json",
        ])
        .arg("--config")
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn axgate");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in lines.by_ref().map_while(Result::ok) {
            if !sent && let Some(at) = line.find("http://127.0.0.1:") {
                let url = line[at..].split(['"', ' ']).next().unwrap_or("").to_owned();
                let _ = tx.send(url);
                sent = true;
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("axgate prints its address within 30 s");
    Server { child, url }
}

/// The HTTP status of initialize with `token`, and the tool names it may list.
async fn try_token(url: &str, token: &str) -> (u16, Vec<String>) {
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<&str>| {
        let mut req = http
            .post(url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(s) = session {
            req = req
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", "2025-11-25");
        }
        req.send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "reload-test", "version": "1"}}});
    let resp = post(init, None).await.expect("initialize");
    let status = resp.status().as_u16();
    if status != 200 {
        return (status, Vec::new());
    }
    let sid = resp.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = resp.text().await;
    post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(&sid),
    )
    .await
    .expect("initialized");
    let list = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        Some(&sid),
    )
    .await
    .expect("tools/list")
    .text()
    .await
    .expect("body");
    let data = list
        .lines()
        .find_map(|l| l.strip_prefix("data: ").filter(|d| d.contains("\"tools\"")))
        .expect("tools/list result");
    let value: Value = serde_json::from_str(data).expect("json");
    let names = value["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    (status, names)
}

fn hangup(server: &Server) {
    let status = Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .expect("kill -HUP");
    assert!(status.success());
}

/// Polls until `token`'s initialize answers `want` (bounded: 15 s).
async fn until_status(url: &str, token: &str, want: u16) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, names) = try_token(url, token).await;
        if status == want {
            return names;
        }
        assert!(Instant::now() < deadline, "still {status}, expected {want}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_reloads_tokens_and_policy() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("axgate.toml");
    let first = tokens::generate().unwrap();
    let second = tokens::generate().unwrap();
    std::fs::write(&file, entry("first", &first)).unwrap();
    let server = start(&file);

    let names = until_status(&server.url, &first, 200).await;
    assert!(names.contains(&"click".to_owned()));
    assert_eq!(try_token(&server.url, &second).await.0, 401);

    // Revoke the first token, add the second, and turn read-only mode on.
    std::fs::write(
        &file,
        format!("{}[policy]\nread_only = true\n", entry("second", &second)),
    )
    .unwrap();
    hangup(&server);
    until_status(&server.url, &first, 401).await;
    let names = until_status(&server.url, &second, 200).await;
    assert!(names.contains(&"get_tree".to_owned()), "{names:?}");
    assert!(
        !names.contains(&"click".to_owned()),
        "read-only after reload: {names:?}"
    );

    // A broken file changes nothing.
    std::fs::write(&file, "[auth\ntokens = ").unwrap();
    hangup(&server);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, names) = try_token(&server.url, &second).await;
    assert_eq!(status, 200);
    assert!(!names.contains(&"click".to_owned()));
    assert_eq!(try_token(&server.url, &first).await.0, 401);
}
