//! Test harness: starts a real axgate (demo backend) on a port-0 loopback listener inside
//! the test process, and speaks raw Streamable HTTP to it (JSON-RPC over POST, SSE parsing).
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;
use std::time::Duration;

use axgate::ax::Backend;
use axgate::ax::engine::engine_for;
use axgate::config::{Config, Layers};
use axgate::metrics::Metrics;
use axgate::platform::demo::{DemoBackend, DemoOptions};
use axgate::server::{self, AppState};
use serde_json::{Value, json};
use tokio::sync::oneshot;

pub mod change_log;
pub mod wait;

pub const PROTOCOL: &str = "2025-11-25";

/// The controls every contract app has, (role, accessible name): what the contract suite's
/// reading contracts look for (`tests/contract/reading.rs`) and the recording of the macOS
/// contract app must show (`tests/it/replay.rs`).
pub const CONTRACT_CONTROLS: &[(&str, &str)] = &[
    ("text_field", "Name"),
    ("secure_text_field", "Password"),
    ("check_box", "Subscribe"),
    ("slider", "Volume"),
    ("button", "Greet"),
    ("button", "Clear"),
    ("button", "Disabled"),
    ("list", "Items"),
];

/// A running server; dropping it shuts the server down.
pub struct TestServer {
    pub addr: std::net::SocketAddr,
    pub url: String,
    pub state: AppState,
    pub demo: Arc<DemoBackend>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

/// Rate limits high enough that no test meets them by accident; tests of the limits set
/// their own `[limits]`, which override these.
const HARNESS: &str = "[limits]\ncalls_per_second = 100000\nwrites_per_second = 100000\n";

/// Config from TOML text layered over the harness settings and the defaults (and nothing
/// from the environment).
pub fn config(toml: &str) -> Config {
    let mut layers = Layers::default();
    layers.toml_text(HARNESS, "harness");
    layers.toml_text(toml, "test");
    layers.build().expect("valid test config")
}

/// A server running in this process; the caller owns its stop signal and task.
pub struct Served {
    pub addr: std::net::SocketAddr,
    pub url: String,
    pub state: AppState,
    pub stop: oneshot::Sender<()>,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Serves `backend` under `config` (the product's engine and app) on a port-0 loopback
/// listener, until the stop signal is sent or dropped.
pub async fn serve(config: Config, backend: Arc<dyn Backend>) -> Served {
    let metrics = Metrics::new(prometheus::Registry::new()).expect("metric families");
    let engine = engine_for(backend, &config.backend, metrics.engine.clone());
    let state = AppState::new(config, engine, metrics).expect("valid allow-lists");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(server::run(
        listener,
        state.clone(),
        Box::pin(async move {
            let _ = stopped.await;
        }),
    ));
    Served {
        addr,
        url: format!("http://{addr}/mcp"),
        state,
        stop,
        task,
    }
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::with_config(config("")).await
    }

    pub async fn with_config(config: Config) -> TestServer {
        let demo = Arc::new(DemoBackend::with_options(DemoOptions {
            hang_extra: Duration::from_millis(500),
        }));
        Self::with_backend(config, demo).await
    }

    pub async fn with_backend(config: Config, demo: Arc<DemoBackend>) -> TestServer {
        let served = serve(config, demo.clone()).await;
        TestServer {
            addr: served.addr,
            url: served.url,
            state: served.state,
            demo,
            stop: Some(served.stop),
            task: Some(served.task),
        }
    }

    /// Sends the shutdown signal and waits for `run` to return.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let task = self.task.take().expect("running");
        tokio::time::timeout(Duration::from_secs(20), task)
            .await
            .expect("shutdown within 20 s")
            .expect("server task")
    }

    pub fn client(&self) -> Client {
        Client {
            http: reqwest::Client::new(),
            url: self.url.clone(),
            session: None,
            next_id: 1,
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// One SSE event.
#[derive(Clone, Debug, Default)]
pub struct Event {
    pub id: Option<String>,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Option<Value> {
        serde_json::from_str(&self.data).ok()
    }
}

/// Parses a complete SSE body into events (comments and empty events skipped).
pub fn parse_sse(body: &str) -> Vec<Event> {
    let mut out = Vec::new();
    let mut cur = Event::default();
    let mut has = false;
    for line in body.lines() {
        if line.is_empty() {
            if has {
                out.push(std::mem::take(&mut cur));
            }
            has = false;
            continue;
        }
        if let Some(v) = line.strip_prefix("id:") {
            cur.id = Some(v.trim().to_owned());
            has = true;
        } else if let Some(v) = line.strip_prefix("data:") {
            if !cur.data.is_empty() {
                cur.data.push('\n');
            }
            cur.data.push_str(v.strip_prefix(' ').unwrap_or(v));
            has = true;
        }
    }
    if has {
        out.push(cur);
    }
    out
}

/// An SSE response read a little at a time.
pub struct SseReader {
    resp: reqwest::Response,
    body: String,
    seen: usize,
}

impl SseReader {
    pub fn new(resp: reqwest::Response) -> SseReader {
        SseReader {
            resp,
            body: String::new(),
            seen: 0,
        }
    }

    /// Reads until an event satisfies `want` or `within` passes; returns every event that
    /// completed meanwhile (the caller's check on them names what was missing).
    pub async fn until(&mut self, within: Duration, want: impl Fn(&Event) -> bool) -> Vec<Event> {
        let deadline = tokio::time::Instant::now() + within;
        let mut fresh = Vec::new();
        loop {
            let complete = [("\n\n", 2), ("\r\n\r\n", 4)]
                .iter()
                .filter_map(|(sep, len)| self.body.rfind(sep).map(|i| i + len))
                .max()
                .unwrap_or(0);
            let events = parse_sse(&self.body[..complete]);
            fresh.extend(events[self.seen.min(events.len())..].iter().cloned());
            self.seen = events.len();
            if fresh.iter().any(&want) {
                return fresh;
            }
            match tokio::time::timeout_at(deadline, self.resp.chunk()).await {
                Ok(Ok(Some(chunk))) => self.body.push_str(&String::from_utf8_lossy(&chunk)),
                _ => return fresh,
            }
        }
    }

    /// The JSON messages of the events completed during `wait`.
    pub async fn read_for(&mut self, wait: Duration) -> Vec<Value> {
        let events = self.until(wait, |_| false).await;
        events.iter().filter_map(Event::json).collect()
    }
}

/// A minimal raw-HTTP MCP client for edge-case tests.
pub struct Client {
    pub http: reqwest::Client,
    pub url: String,
    pub session: Option<String>,
    pub next_id: u64,
}

impl Client {
    pub fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut req = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(s) = &self.session {
            req = req
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", PROTOCOL);
        }
        req
    }

    /// A GET of the session's stream (add `last-event-id` to resume).
    pub fn get(&self) -> reqwest::RequestBuilder {
        self.http
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header(
                "mcp-session-id",
                self.session.as_deref().unwrap_or_default(),
            )
            .header("mcp-protocol-version", PROTOCOL)
    }

    /// initialize + notifications/initialized; stores the session id.
    pub async fn initialize(&mut self) -> Value {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
        });
        let resp = self.post(&body).send().await.expect("initialize");
        assert_eq!(resp.status(), 200, "initialize status");
        let sid = resp
            .headers()
            .get("mcp-session-id")
            .expect("session id header")
            .to_str()
            .expect("ascii")
            .to_owned();
        let text = resp.text().await.expect("body");
        let result = response_of(&parse_sse(&text), 0).expect("initialize result");
        self.session = Some(sid);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let resp = self.post(&note).send().await.expect("initialized");
        assert_eq!(resp.status(), 202);
        result
    }

    /// Opens the session's GET stream; it stays open while the response is kept.
    pub async fn listen(&self) -> reqwest::Response {
        let resp = self
            .http
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", self.session.as_ref().expect("a session"))
            .header("mcp-protocol-version", PROTOCOL)
            .send()
            .await
            .expect("GET stream");
        assert_eq!(resp.status(), 200, "GET stream");
        resp
    }

    /// Sends a request and returns every SSE event of its response stream.
    pub async fn request_events(&mut self, method: &str, params: Value) -> (u64, Vec<Event>) {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let resp = self.post(&body).send().await.expect("send");
        assert_eq!(resp.status(), 200, "{method}");
        let text = resp.text().await.expect("body");
        (id, parse_sse(&text))
    }

    /// Sends a request and returns its JSON-RPC response object.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let (id, events) = self.request_events(method, params).await;
        response_of(&events, id).unwrap_or_else(|| panic!("no response to {method}: {events:?}"))
    }

    /// Sends a request its caller's rate limit refuses as it arrives: asserts 429 with
    /// `Retry-After` and returns the JSON-RPC error body.
    pub async fn rate_limited(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let resp = self.post(&body).send().await.expect("send");
        assert_eq!(resp.status(), 429, "{method} refused at arrival");
        assert!(resp.headers().contains_key("retry-after"), "{method}");
        resp.json().await.expect("a JSON-RPC error body")
    }

    /// tools/call; returns the result object.
    pub async fn call(&mut self, tool: &str, args: Value) -> Value {
        let resp = self
            .request("tools/call", json!({"name": tool, "arguments": args}))
            .await;
        resp.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{tool}: {resp}"))
    }

    /// tools/call that must succeed; returns its `structuredContent`, or fails naming the
    /// tool, its arguments and the error's text.
    pub async fn ok(&mut self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args.clone()).await;
        assert_ne!(
            result["isError"],
            true,
            "{tool} {args} failed: {}",
            text_of(&result)
        );
        result["structuredContent"].clone()
    }
}

/// The JSON-RPC response with `id` among the events.
pub fn response_of(events: &[Event], id: u64) -> Option<Value> {
    events.iter().filter_map(Event::json).find(|v| {
        v.get("id") == Some(&json!(id)) && (v.get("result").is_some() || v.get("error").is_some())
    })
}

/// A sample of `/metrics`, named with its labels as the exposition prints it (for example
/// `axgate_busy_refusals_total{reason="app_queue"}`); panics when absent.
pub async fn metric(server: &TestServer, sample: &str) -> f64 {
    let text = scrape(server.addr, None).await;
    sample_of(&text, sample).unwrap_or_else(|| panic!("{sample} missing from /metrics"))
}

/// The `/metrics` text of the server at `addr`, with a bearer token where auth is on.
pub async fn scrape(addr: impl std::fmt::Display, token: Option<&str>) -> String {
    let mut req = reqwest::Client::new().get(format!("http://{addr}/metrics"));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let resp = req.send().await.expect("scrape");
    resp.text().await.expect("body")
}

/// The value of one series (name and labels exactly as written) in a `/metrics` text.
pub fn sample_of(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse::<f64>().ok())
}

/// A Prometheus server command for the config in `dir` (`prometheus.yml`), its storage
/// there too, listening on 127.0.0.1:`port`.
pub fn prometheus_command(binary: &str, dir: &std::path::Path, port: u16) -> std::process::Command {
    let mut command = std::process::Command::new(binary);
    command
        .arg(format!(
            "--config.file={}",
            dir.join("prometheus.yml").display()
        ))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"));
    command
}

/// A client of the server at `url` (no session yet).
pub fn client_for(url: &str) -> Client {
    Client {
        http: reqwest::Client::new(),
        url: url.to_owned(),
        session: None,
        next_id: 1,
    }
}

/// Text of a tool result's first content block.
pub fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// An MCP client sending `Authorization: Bearer <token>` on every request.
pub fn client_with(server: &TestServer, token: &str) -> Client {
    bearer_client(&server.url, token)
}

/// [`client_with`] for a server at `url` (one in another process, say).
pub fn bearer_client(url: &str, token: &str) -> Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse().expect("header value"),
    );
    Client {
        http: reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .expect("client"),
        url: url.to_owned(),
        session: None,
        next_id: 1,
    }
}

/// The value of a demo app's element, read from the app's side (not through MCP).
pub fn app_value(server: &TestServer, app: &str, identifier: &str) -> Option<axgate::ax::AxValue> {
    server
        .demo
        .node_by_identifier(app, identifier)
        .unwrap_or_else(|| panic!("{app} has no element #{identifier}"))
        .value
}

/// Every line of an audit file, parsed (none when the file does not exist yet).
pub fn audit_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each audit line is JSON"))
        .collect()
}

/// A client with an initialised session.
pub async fn session(server: &TestServer) -> Client {
    let mut c = server.client();
    c.initialize().await;
    c
}

/// One data-driven check: a call, whether it errs, and text its first block must contain.
pub async fn check(
    c: &mut Client,
    tool: &str,
    args: Value,
    is_error: bool,
    expect: &[&str],
) -> Value {
    let result = c.call(tool, args.clone()).await;
    assert_eq!(result["isError"], is_error, "{tool} {args}: {result}");
    let text = text_of(&result);
    for needle in expect {
        assert!(
            text.contains(needle),
            "{tool} {args}: {needle:?} not in {text:?}"
        );
    }
    result
}

/// One step of a scenario run by [`steps`]: the tool, its arguments, and text the first
/// block of its (successful) result must contain.
pub type Step<'a> = (&'a str, Value, &'a [&'a str]);

/// Runs a scenario's steps in order, each through [`check`] as a call that must succeed (a
/// failing step names its tool and arguments); returns the last step's result.
pub async fn steps(c: &mut Client, steps: &[Step<'_>]) -> Value {
    let mut last = Value::Null;
    for (tool, args, expect) in steps {
        last = check(c, tool, args.clone(), false, expect).await;
    }
    last
}

/// A refusal table for one tool: each call must err with text holding every needle (a
/// failing row names its arguments, through [`check`]).
pub async fn refusals(c: &mut Client, tool: &str, cases: &[(Value, &[&str])]) {
    for (args, needles) in cases {
        check(c, tool, args.clone(), true, needles).await;
    }
}

/// Whether the demo app has an element with this identifier, seen from the app's side.
pub fn has_node(server: &TestServer, app: &str, identifier: &str) -> bool {
    server.demo.node_by_identifier(app, identifier).is_some()
}

/// Whether the demo app's element with this identifier has keyboard focus.
pub fn is_focused(server: &TestServer, app: &str, identifier: &str) -> bool {
    server
        .demo
        .node_by_identifier(app, identifier)
        .unwrap_or_else(|| panic!("{app} has no element #{identifier}"))
        .states
        .focused
}

/// A fresh server (its own demo backend) and a client with an initialised session on it.
pub async fn start_session() -> (TestServer, Client) {
    let server = TestServer::start().await;
    let client = session(&server).await;
    (server, client)
}

/// The `get_element` check: one target of an app, read successfully, its text holding each
/// of `expect`; returns the result.
pub async fn get_element(c: &mut Client, app: &str, target: &str, expect: &[&str]) -> Value {
    let args = json!({"app": app, "target": target});
    check(c, "get_element", args, false, expect).await
}

/// The `get_tree` check: a tree read successfully with these arguments (and the structured
/// nodes, unless `nodes` says otherwise), its text holding each of `expect`; returns the
/// result.
pub async fn get_tree(c: &mut Client, mut args: Value, expect: &[&str]) -> Value {
    if let Some(map) = args.as_object_mut() {
        map.entry("nodes").or_insert(Value::Bool(true));
    }
    check(c, "get_tree", args, false, expect).await
}
