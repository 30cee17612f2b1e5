//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) over real HTTP, with auth
//! on: a `wait_for` from a session that declared the extension answers at once with a
//! `CreateTaskResult`, and `tasks/get` polls it to `completed` with the tool result once the
//! demo app changes; `tasks/cancel` ends the running wait (the call is counted as ended long
//! before its timeout); another principal cannot see or cancel the task (−32602 unknown
//! task); a principal holds at most `limits.max_tasks_per_principal` tasks; a result larger
//! than what is left of `limits.max_task_bytes` is not kept (the task fails naming the key)
//! and the bytes kept show on `/metrics` as `axgate_task_result_bytes`.

use std::time::Duration;

use crate::support::wait::eventually;
use crate::support::{Client, TestServer, client_with, config, parse_sse, response_of, scrape};
use axgate::http::auth::{Scope, tokens};
use serde_json::{Value, json};

const STATUS: &str = r#"window[0]/static_text["Status"]"#;
const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Tokens of two principals that may act and scrape `/metrics`.
struct Callers {
    one: String,
    two: String,
}

impl Callers {
    fn new() -> Callers {
        let t = || tokens::generate().expect("random token");
        Callers { one: t(), two: t() }
    }

    fn section(&self) -> String {
        let scopes = [Scope::Read, Scope::Act, Scope::Metrics]
            .into_iter()
            .collect();
        format!(
            "[auth]\ntokens = [{}, {}]\n",
            tokens::config_entry("one", &tokens::sha256(&self.one), &scopes),
            tokens::config_entry("two", &tokens::sha256(&self.two), &scopes),
        )
    }
}

/// A session of `token` whose client declared the tasks extension at `initialize`.
async fn tasking(server: &TestServer, token: &str) -> Client {
    let mut c = client_with(server, token);
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": crate::support::PROTOCOL,
                   "capabilities": {"extensions": {EXTENSION: {}}},
                   "clientInfo": {"name": "tasks-test", "version": "1"}}
    });
    let resp = c.post(&body).send().await.expect("initialize");
    assert_eq!(resp.status(), 200, "initialize");
    let sid = resp.headers()["mcp-session-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let text = resp.text().await.expect("body");
    let init = response_of(&parse_sse(&text), 0).expect("initialize result");
    assert!(
        init["result"]["capabilities"]["extensions"][EXTENSION].is_object(),
        "the server advertises the tasks extension: {init}"
    );
    c.session = Some(sid);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        c.post(&note).send().await.expect("initialized").status(),
        202
    );
    c
}

/// A plain session of `token` (no tasks extension).
async fn plain(server: &TestServer, token: &str) -> Client {
    let mut c = client_with(server, token);
    c.initialize().await;
    c
}

/// `tools/call` of `tool` asking to run as a task (`task` in its params): the result.
async fn call_as_task(c: &mut Client, tool: &str, args: Value) -> Value {
    let resp = c
        .request(
            "tools/call",
            json!({"name": tool, "arguments": args, "task": {"ttl": 60000}}),
        )
        .await;
    resp.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{tool}: {resp}"))
}

/// Starts `tool` as a task; its id.
async fn start(c: &mut Client, tool: &str, args: Value) -> String {
    let created = call_as_task(c, tool, args).await;
    assert_eq!(created["resultType"], "task", "{tool}: {created}");
    assert_eq!(created["status"], "working", "{created}");
    assert!(
        created["ttlMs"].as_u64().is_some_and(|ms| ms > 0),
        "{created}"
    );
    created["taskId"].as_str().expect("taskId").to_owned()
}

/// A `wait_for` task until the Form's status shows `text` (at most `timeout_ms`); its id.
async fn wait_for_status(c: &mut Client, text: &str, timeout_ms: u64) -> String {
    let args = json!({"app": "Form", "target": STATUS, "condition": "value_contains",
                      "value": text, "timeout_ms": timeout_ms});
    start(c, "wait_for", args).await
}

/// `tasks/get` of `id`: the task, or the JSON-RPC error.
async fn get(c: &mut Client, id: &str) -> Result<Value, Value> {
    let resp = c.request("tasks/get", json!({"taskId": id})).await;
    match resp.get("result") {
        Some(task) => Ok(task.clone()),
        None => Err(resp["error"].clone()),
    }
}

/// Polls `id` until it is in a terminal status.
async fn settled(c: &mut Client, id: &str) -> Value {
    let mut task = Value::Null;
    eventually(
        Duration::from_secs(30),
        &format!("task {id} settled"),
        async || {
            task = get(c, id).await.expect("tasks/get");
            ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap_or(""))
        },
    )
    .await;
    task
}

fn assert_unknown(error: &Value, id: &str) {
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("unknown task") && message.contains(id),
        "{error}"
    );
}

/// The sum of the `/metrics` samples whose line contains every one of `parts`.
async fn samples(server: &TestServer, token: &str, parts: &[&str]) -> f64 {
    scrape(server.addr, Some(token))
        .await
        .lines()
        .filter(|l| !l.starts_with('#') && parts.iter().all(|p| l.contains(p)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_for_task_completes_when_the_app_changes_and_only_its_principal_sees_it() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let mut waiter = tasking(&server, &callers.one).await;
    let id = wait_for_status(&mut waiter, "Submitted: tasked", 30000).await;
    let working = get(&mut waiter, &id).await.expect("tasks/get");
    assert_eq!(working["status"], "working", "{working}");
    assert!(working.get("result").is_none(), "{working}");
    // Another principal, even one that declared the extension, does not see the task.
    let mut stranger = tasking(&server, &callers.two).await;
    assert_unknown(&get(&mut stranger, &id).await.expect_err("hidden"), &id);
    let cancel = stranger
        .request("tasks/cancel", json!({"taskId": id}))
        .await;
    assert_unknown(&cancel["error"], &id);
    // The app changes (another session acts); the task completes with the wait's result.
    let mut actor = plain(&server, &callers.two).await;
    for (tool, args) in [
        (
            "set_value",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": "tasked"}),
        ),
        (
            "click",
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
        ),
    ] {
        let r = actor.call(tool, args).await;
        assert_eq!(r["isError"], false, "{tool}: {r}");
    }
    let done = settled(&mut waiter, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["satisfied"], true,
        "{done}"
    );
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("tasked")),
        "{done}"
    );
    // Still hidden from the other principal once done; an unknown id is −32602 too.
    assert_unknown(&get(&mut stranger, &id).await.expect_err("hidden"), &id);
    assert_unknown(
        &get(&mut waiter, "no-such-task").await.expect_err("unknown"),
        "no-such-task",
    );
    // Without the extension the same tool answers in its request.
    let sync = actor
        .call("wait_idle", json!({"app": "Form", "quiet_ms": 50}))
        .await;
    assert!(sync.get("taskId").is_none(), "{sync}");
    assert_eq!(sync["isError"], false, "{sync}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_wait_for_task_ends_the_running_wait() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let mut waiter = tasking(&server, &callers.one).await;
    let ended = |s: &TestServer| {
        let token = callers.one.clone();
        let addr = s.addr;
        async move {
            scrape(addr, Some(&token))
                .await
                .lines()
                .filter(|l| l.starts_with("axgate_tool_calls_total") && l.contains("\"wait_for\""))
                .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
                .sum::<f64>()
        }
    };
    let before = ended(&server).await;
    let id = wait_for_status(&mut waiter, "never shown", 60000).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(ended(&server).await, before, "the wait is still running");
    let ack = waiter.request("tasks/cancel", json!({"taskId": id})).await;
    let ack = &ack["result"];
    assert_eq!(ack["resultType"], "complete", "{ack}");
    assert!(
        ack.get("taskId").is_none() && ack.get("status").is_none(),
        "{ack}"
    );
    let task = get(&mut waiter, &id).await.expect("tasks/get");
    assert_eq!(task["status"], "cancelled", "{task}");
    assert!(task.get("result").is_none(), "{task}");
    // The call itself ended (counted with its outcome) within seconds, not after 60 s.
    let what = "the end of the cancelled wait_for call";
    eventually(Duration::from_secs(5), what, async || {
        ended(&server).await > before
    })
    .await;
    // A second cancel of the finished task is the same ack.
    let again = waiter.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_results_are_bounded_in_bytes_and_tasks_in_count() {
    let callers = Callers::new();
    let toml = format!(
        "{}[limits]\nmax_task_bytes = 1024\nmax_tasks_per_principal = 3\n",
        callers.section()
    );
    let server = TestServer::with_config(config(&toml)).await;
    let mut c = tasking(&server, &callers.one).await;
    // A small result is kept, and its bytes show on /metrics.
    let small = start(&mut c, "wait_idle", json!({"app": "Form", "quiet_ms": 50})).await;
    let done = settled(&mut c, &small).await;
    assert_eq!(done["status"], "completed", "{done}");
    let held = samples(&server, &callers.one, &["axgate_task_result_bytes"]).await;
    assert!(
        held > 0.0 && held <= 1024.0,
        "axgate_task_result_bytes = {held}"
    );
    // A whole tree is larger than what is left: not kept; the task fails naming the key.
    let big = start(
        &mut c,
        "get_tree",
        json!({"app": "Form", "nodes": true, "frames": true}),
    )
    .await;
    let failed = settled(&mut c, &big).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("limits.max_task_bytes") && message.contains("get_tree"),
        "{failed}"
    );
    let after = samples(&server, &callers.one, &["axgate_task_result_bytes"]).await;
    assert_eq!(after, held, "nothing more is kept");
    // The third task is the last this principal may hold; a fourth is refused by name.
    start(&mut c, "wait_idle", json!({"app": "Form", "quiet_ms": 50})).await;
    let refused = call_as_task(&mut c, "wait_idle", json!({"app": "Form", "quiet_ms": 50})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.get("taskId").is_none(), "{refused}");
    assert!(
        crate::support::text_of(&refused).contains("limits.max_tasks_per_principal"),
        "{refused}"
    );
    // Another principal has an allowance of its own.
    let mut other = tasking(&server, &callers.two).await;
    start(
        &mut other,
        "wait_idle",
        json!({"app": "Form", "quiet_ms": 50}),
    )
    .await;
    assert_eq!(
        samples(&server, &callers.one, &["axgate_tasks "]).await,
        4.0,
        "four tasks held"
    );
}

/// Issue 33, finding 12: a running task survived the removal of its token by a reload and
/// was readable again when the token came back. Now its call is cancelled and the task
/// forgotten.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_tokens_running_task_ends_and_stays_unreadable() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let mut waiter = tasking(&server, &callers.one).await;
    let before = samples(
        &server,
        &callers.two,
        &["axgate_tool_calls_total", "\"wait_for\""],
    )
    .await;
    let id = wait_for_status(&mut waiter, "never shown", 60000).await;
    // SIGHUP's reload, with token one removed.
    let scopes = [Scope::Read, Scope::Act, Scope::Metrics]
        .into_iter()
        .collect();
    let only_two = format!(
        "[auth]\ntokens = [{}]\n",
        tokens::config_entry("two", &tokens::sha256(&callers.two), &scopes)
    );
    server.state.reload(&config(&only_two)).expect("reload");
    let what = "the end of the removed token's wait_for";
    eventually(Duration::from_secs(5), what, async || {
        let series = ["axgate_tool_calls_total", "\"wait_for\""];
        samples(&server, &callers.two, &series).await > before
    })
    .await;
    // The token comes back: its old task is gone.
    server
        .state
        .reload(&config(&callers.section()))
        .expect("reload");
    let mut back = tasking(&server, &callers.one).await;
    assert_unknown(&get(&mut back, &id).await.expect_err("forgotten"), &id);
}

/// Issue 32: the MCP Inspector declares the tasks extension and calls tools plainly; axgate
/// answered `get_tree` (and the other long tools) with a task it never asked for, and listed
/// no `execution.taskSupport`, so the Inspector failed with "declares an output schema but
/// returned no structured content". Now `tools/list` says which tools may run as a task, and
/// a call without `task` in its params is answered in its request, extension or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_support_is_listed_and_a_call_without_task_never_returns_one() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let mut c = tasking(&server, &callers.one).await;
    let listed = c.request("tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let optional: Vec<&str> = tools
        .iter()
        .filter(|t| t["execution"]["taskSupport"] == "optional")
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        optional,
        ["get_tree", "launch_app", "wait_for", "wait_idle"],
        "{listed}"
    );
    // Every other tool leaves it out: `forbidden`, the spec's default.
    assert_eq!(
        tools
            .iter()
            .filter(|t| t.get("execution").is_some())
            .count(),
        optional.len(),
        "{listed}"
    );
    for (tool, args) in [
        ("get_tree", json!({"app": "Form"})),
        ("wait_idle", json!({"app": "Form", "quiet_ms": 50})),
        (
            "wait_for",
            json!({"app": "Form", "target": STATUS, "condition": "exists", "timeout_ms": 5000}),
        ),
        ("launch_app", json!({"app": "Notes"})),
    ] {
        let r = c.call(tool, args).await;
        assert_ne!(r["resultType"], "task", "{tool}: {r}");
        assert!(r.get("taskId").is_none(), "{tool}: {r}");
        assert_eq!(r["isError"], false, "{tool}: {r}");
        assert!(r["structuredContent"].is_object(), "{tool}: {r}");
    }
}
