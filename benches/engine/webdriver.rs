//! The WebDriver facade's figures (docs/PERFORMANCE.md, "WebDriver"): each WebDriver command
//! is timed over HTTP against the in-process server, interleaved run by run with the same
//! work through MCP on the same server, so a noisy machine moves both sides alike and the
//! ratio WebDriver/MCP is what the row says. Each row prints p50 and p99 of both sides.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Client, PROTOCOL, TestServer};
use crate::whole_tree;

/// A bare W3C client: JSON bodies, `{"value": …}` answers.
struct Wd {
    http: reqwest::Client,
    base: String,
}

impl Wd {
    /// The `value` of a command's answer; a W3C error stops the benchmark.
    async fn command(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("a WebDriver answer");
        let ok = response.status().is_success();
        let mut answer: Value = response.json().await.expect("a JSON answer");
        assert!(ok, "{path}: {answer}");
        answer["value"].take()
    }

    /// A Mac2 session on `bundle_id`; its id.
    async fn session(&self, bundle_id: &str) -> String {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "platformName": "mac",
            "appium:automationName": "Mac2",
            "appium:bundleId": bundle_id,
        }}});
        let value = self.command(Method::POST, "/session", Some(caps)).await;
        value["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    async fn end(&self, sid: &str) {
        self.command(Method::DELETE, &format!("/session/{sid}"), None)
            .await;
    }

    /// The first element `using`/`value` finds; its id.
    async fn find(&self, sid: &str, using: &str, value: &str) -> String {
        let body = json!({"using": using, "value": value});
        let path = format!("/session/{sid}/element");
        let found = self.command(Method::POST, &path, Some(body)).await;
        found["ELEMENT"].as_str().expect("an element").to_owned()
    }

    /// How many elements `using`/`value` finds.
    async fn count(&self, sid: &str, using: &str, value: &str) -> usize {
        let body = json!({"using": using, "value": value});
        let path = format!("/session/{sid}/elements");
        let found = self.command(Method::POST, &path, Some(body)).await;
        found.as_array().map_or(0, Vec::len)
    }
}

/// An MCP tool call that must succeed.
async fn tool(client: &mut Client, name: &str, args: Value) -> Value {
    let result = client.call(name, args).await;
    assert_ne!(result["isError"], true, "{name}: {result}");
    result
}

/// p50 and p99 of a set of runs.
fn percentiles(mut xs: Vec<Duration>) -> (Duration, Duration) {
    xs.sort();
    let at = |q: f64| xs[((xs.len() as f64 * q).ceil() as usize).clamp(1, xs.len()) - 1];
    (at(0.50), at(0.99))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `wd` and `mcp` in turn `n` times and prints one row: both sides' p50 and p99 and
/// the ratios.
async fn row(
    name: &str,
    reference: &str,
    n: usize,
    mut wd: impl AsyncFnMut(),
    mut mcp: impl AsyncFnMut(),
) {
    let (mut wd_times, mut mcp_times) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let started = Instant::now();
        wd().await;
        wd_times.push(started.elapsed());
        let started = Instant::now();
        mcp().await;
        mcp_times.push(started.elapsed());
    }
    let (wd50, wd99) = percentiles(wd_times);
    let (mcp50, mcp99) = percentiles(mcp_times);
    println!(
        "webdriver {name}: p50 {:.2} ms, p99 {:.2} ms | MCP {reference}: p50 {:.2} ms, p99 {:.2} ms | WebDriver/MCP p50 {:.2}×, p99 {:.2}× ({n} runs)",
        ms(wd50),
        ms(wd99),
        ms(mcp50),
        ms(mcp99),
        wd50.as_secs_f64() / mcp50.as_secs_f64(),
        wd99.as_secs_f64() / mcp99.as_secs_f64(),
    );
}

/// Every WebDriver figure, on the demo TextEdit (launched by the first session) and Huge.
pub(crate) async fn run(server: &TestServer, quick: bool) {
    let (n, n_source) = if quick { (20, 2) } else { (300, 40) };
    let wd = Wd {
        http: reqwest::Client::new(),
        base: format!("http://{}", server.addr),
    };
    let mut mcp = server.client();
    mcp.initialize().await;

    // The first session launches TextEdit; the timed ones attach to it, as a suite's do.
    let launched = Instant::now();
    let sid = wd.session("com.apple.TextEdit").await;
    println!(
        "webdriver new session launching TextEdit: {:.1} ms (once)",
        ms(launched.elapsed())
    );
    row(
        "new session + delete (TextEdit running)",
        "initialize + delete",
        n,
        async || {
            let other = wd.session("com.apple.TextEdit").await;
            wd.end(&other).await;
        },
        async || {
            let mut client = server.client();
            client.initialize().await;
            let ended = client
                .http
                .delete(&client.url)
                .header(
                    "mcp-session-id",
                    client.session.as_deref().unwrap_or_default(),
                )
                .header("mcp-protocol-version", PROTOCOL)
                .send()
                .await
                .expect("DELETE");
            assert!(ended.status().is_success(), "{}", ended.status());
        },
    )
    .await;

    // Each strategy finds one element of TextEdit; the reference is the `find` of the same
    // (by role, identifier or both).
    let finds = [
        (
            "accessibility id",
            "First Text View",
            None,
            Some("First Text View"),
        ),
        (
            "class name",
            "XCUIElementTypeTextView",
            Some("text_area"),
            None,
        ),
        (
            "-ios predicate string",
            "elementType == 12 AND identifier == 'bold'",
            Some("check_box"),
            Some("bold"),
        ),
        (
            "-ios class chain",
            "**/XCUIElementTypeCheckBox[`identifier == 'italic'`]",
            Some("check_box"),
            Some("italic"),
        ),
        (
            "xpath",
            "//XCUIElementTypeCheckBox[@identifier='underline']",
            Some("check_box"),
            Some("underline"),
        ),
    ];
    for (using, value, role, identifier) in finds {
        let mut args = json!({"app": "TextEdit", "mode": "exact"});
        if let Some(role) = role {
            args["role"] = json!(role);
        }
        if let Some(identifier) = identifier {
            args["identifier"] = json!(identifier);
        }
        assert_eq!(wd.count(&sid, using, value).await, 1, "{using} {value}");
        let found = tool(&mut mcp, "find", args.clone()).await;
        let matches = found["structuredContent"]["matches"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(matches, 1, "find {args}");
        row(
            &format!("find by {using}"),
            "find",
            n,
            async || {
                wd.find(&sid, using, value).await;
            },
            async || {
                tool(&mut mcp, "find", args.clone()).await;
            },
        )
        .await;
    }

    // A click toggles the bold check box in the format bar, each side its own turn.
    let bold = wd.find(&sid, "accessibility id", "bold").await;
    let found = tool(
        &mut mcp,
        "find",
        json!({"app": "TextEdit", "identifier": "bold", "mode": "exact"}),
    )
    .await;
    let handle = found["structuredContent"]["matches"][0]["handle"].clone();
    let click_path = format!("/session/{sid}/element/{bold}/click");
    row(
        "click (the bold check box)",
        "click",
        n,
        async || {
            wd.command(Method::POST, &click_path, Some(json!({}))).await;
        },
        async || {
            tool(
                &mut mcp,
                "click",
                json!({"app": "TextEdit", "target": handle}),
            )
            .await;
        },
    )
    .await;
    wd.end(&sid).await;

    // The page source of Huge (its 20,000-node budget, as `get_tree` below).
    let huge = wd.session("dev.axgate.demo.huge").await;
    let source_path = format!("/session/{huge}/source");
    let xml = wd.command(Method::GET, &source_path, None).await;
    let xml = xml.as_str().expect("XML text");
    let elements = xml.matches("<XCUIElementType").count();
    let walked = whole_tree(&mut mcp, "Huge").await.walked;
    println!(
        "webdriver page source of Huge: {elements} elements, {} bytes, {:.1} bytes/element (get_tree: {walked} nodes walked)",
        xml.len(),
        xml.len() as f64 / elements.max(1) as f64
    );
    row(
        "page source (Huge)",
        "get_tree of Huge, every page",
        n_source,
        async || {
            wd.command(Method::GET, &source_path, None).await;
        },
        async || {
            whole_tree(&mut mcp, "Huge").await;
        },
    )
    .await;
    wd.end(&huge).await;
}
