//! The SDK interop matrix: real MCP clients — the official Python SDK 2.x and 1.x (`mcp<2`)
//! and the TypeScript SDK 1.x — against a real axgate (demo backend) with auth on: a static
//! bearer token generated here, configured as `[auth] tokens`, sent by each client as
//! `Authorization: Bearer`. Each client initializes, subscribes to a resource, lists the
//! tools, presses the Form app's "Subscribe" check box and reads the effect back, receives the
//! resource update and its log records, resumes a broken stream, ends the session (DELETE;
//! then 404), and fails with 401 given a wrong or no token. The Python SDK 2.x also runs in its
//! default mode, where it speaks the sessionless 2026-07-28 revision, and there confirms a
//! destructive press through axgate's input-required result (MRTR, SEP-2322).
//!
//! The stream is broken by a proxy between client and server ([`proxy`]): it cuts the
//! connection of the first response stream that carries a progress notification (a
//! `wait_for` that holds only once the client presses the check box back). The SDK must
//! reconnect with `Last-Event-ID` and get the rest, result included; the proxy records the cut
//! and the resuming request, so the test sees the resumption from outside the client too.
//!
//! Every step is asserted here from the script's JSON lines, not only from its exit code. The
//! scripts live in `tests/clients/`; `scripts/test-env` installs the SDKs they need (venvs
//! under `target/test-env`, `node_modules` under `tests/clients/ts`). When those are missing
//! these tests fail, never skip: CI runs `scripts/test`, which prepares them first.

mod proxy;
pub(crate) mod run;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use axgate::http::auth::{Scope, tokens};
use serde_json::{Value, json};

use crate::support::TestServer;
use proxy::BreakingProxy;
use run::{Run, check_common_steps, repo, require, run_script};

const STATE_URI: &str = "axgate://app/Form/state";
/// What the proxy cuts after: the first response stream event carrying progress.
const MARKER: &str = "\"notifications/progress\"";

/// A server with auth on (one generated static token, read and act scopes) and a proxy in
/// front of it. Returns the token too; it is passed to the script through its environment.
async fn server_with_token() -> (TestServer, BreakingProxy, String) {
    let (server, token) = server_configured("").await;
    let proxy = BreakingProxy::start(server.addr, MARKER).await;
    (server, proxy, token)
}

/// A server with auth on (as [`server_with_token`], without the proxy) and `extra`
/// configuration; returns the token too.
async fn server_configured(extra: &str) -> (TestServer, String) {
    let token = tokens::generate().expect("OS random numbers");
    let scopes: BTreeSet<Scope> = [Scope::Read, Scope::Act].into();
    let entry = tokens::config_entry("interop", &tokens::sha256(&token), &scopes);
    let server = TestServer::with_config(crate::support::config(&format!(
        "[auth]\ntokens = [{entry}]\n{extra}"
    )))
    .await;
    (server, token)
}

/// How an SDK fails when the server answers 401.
#[derive(Clone, Copy)]
enum Refusal {
    /// Its error carries the status (`code` 401, `HTTPStatusError`).
    Status,
    /// Its error is this text, without the status (a known quirk, see docs/PROTOCOL.md).
    Generic(&'static str),
}

/// Runs one SDK's script through the proxy and asserts every step of the matrix.
async fn matrix(name: &str, program: &Path, script: PathBuf, sdk_prefix: &str, refusal: Refusal) {
    require(&script, "the client script");
    let (server, proxy, token) = server_with_token().await;
    let run = run_script(
        name,
        program,
        &[script, PathBuf::from(&proxy.url)],
        &[("CLIENT_CHECK_TOKEN", token.as_str())],
    )
    .await;
    let report = run.report();
    assert!(
        !run.stdout.contains(&token) && !run.stderr.contains(&token),
        "the token leaked into the script's output"
    );
    let hello = check_common_steps(&run);
    assert_eq!(hello["session"], true, "no MCP-Session-Id: {report}");
    let sdk = hello["sdk"].as_str().unwrap_or_default();
    assert!(sdk.starts_with(sdk_prefix), "{name} ran {sdk}\n{report}");
    assert_eq!(run.step("subscribe")["uri"], STATE_URI, "{report}");
    let updated = run.step("updated");
    assert!(
        updated["uris"]
            .as_array()
            .is_some_and(|u| u.contains(&json!(STATE_URI))),
        "{report}"
    );

    check_resume(&run, &proxy);

    let mut logged: Vec<String> =
        serde_json::from_value(run.step("log")["tools"].clone()).expect("log lists tools");
    logged.sort();
    assert_eq!(
        logged,
        [
            "get_tree",
            "get_tree",
            "perform_action",
            "perform_action",
            "wait_for"
        ],
        "one tool_call log record per call\n{report}"
    );

    assert_eq!(run.step("end")["delete_status"], 200, "{report}");
    assert_eq!(
        run.step("gone")["status"],
        404,
        "the ended session answers 404\n{report}"
    );
    let auth = run.step("auth");
    for case in ["wrong", "missing"] {
        let failed = &auth[case];
        assert_eq!(
            failed["http"],
            json!([401]),
            "{name} with a {case} token: the server answered 401, once\n{report}"
        );
        match refusal {
            Refusal::Status => assert_eq!(
                failed["status"], 401,
                "{name} with a {case} token must fail with 401: {failed}\n{report}"
            ),
            Refusal::Generic(error) => assert_eq!(
                (&failed["status"], &failed["error"]),
                (&Value::Null, &json!(error)),
                "{name} with a {case} token: the documented failure\n{report}"
            ),
        }
    }
    assert_eq!(server.state.sessions.registry().len(), 0, "{report}");
    println!("{report}");
    server.shutdown().await.expect("server stops cleanly");
}

/// The broken stream: cut once by the proxy after an event with an id; the client asked for
/// the rest with `Last-Event-ID` = that id, and got the result of the wait.
fn check_resume(run: &Run, proxy: &BreakingProxy) {
    let report = run.report();
    let resume = run.step("resume");
    let seen = proxy.observed();
    assert_eq!(seen.cuts.len(), 1, "one stream cut: {seen:?}\n{report}");
    let cut_after = seen.cuts[0]
        .clone()
        .expect("the cut stream had carried an event id");
    assert!(
        seen.resumes.contains(&cut_after),
        "the client resumed with Last-Event-ID {cut_after:?}; it sent {:?}\n{report}",
        seen.resumes
    );
    assert_eq!(resume["satisfied"], true, "{report}");
    assert_eq!(resume["pressed"], false, "{report}");
    assert!(
        resume["actual"]
            .as_str()
            .is_some_and(|a| a.contains("false")),
        "{report}"
    );
    assert!(
        resume["progress"].as_u64().is_some_and(|n| n >= 1),
        "{report}"
    );
    if let Some(tokens) = resume["resumption_tokens"].as_array() {
        // The TypeScript SDK reports every event id it got: the cut one, then the replay's.
        let at = tokens.iter().position(|t| t == &json!(cut_after));
        assert!(
            at.is_some_and(|i| i + 1 < tokens.len()),
            "ids after the cut arrived: {tokens:?} (cut after {cut_after})\n{report}"
        );
    }
}

fn venv_python(venv: &str) -> PathBuf {
    let python = repo().join("target/test-env").join(venv).join("bin/python");
    require(
        &python,
        &format!("the Python SDK venv target/test-env/{venv}"),
    );
    python
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2_matrix() {
    let script = repo().join("tests/clients/python/client_check.py");
    // SDK 2.x maps a non-2xx answer without a JSON-RPC body to this error.
    let refusal = Refusal::Generic("MCPError: Server returned an error response");
    matrix(
        "python 2.x",
        &venv_python("venv"),
        script,
        "mcp 2.",
        refusal,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_1_matrix() {
    let script = repo().join("tests/clients/python/client_check_v1.py");
    matrix(
        "python 1.x",
        &venv_python("venv-v1"),
        script,
        "mcp 1.",
        Refusal::Status,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_matrix() {
    require(
        &repo().join("tests/clients/ts/node_modules/@modelcontextprotocol/sdk/package.json"),
        "the TypeScript SDK (tests/clients/ts/node_modules)",
    );
    let script = repo().join("tests/clients/ts/client_check.mjs");
    let sdk = "@modelcontextprotocol/sdk 1.";
    matrix(
        "typescript",
        Path::new("node"),
        script,
        sdk,
        Refusal::Status,
    )
    .await;
}

/// The proxy itself: without a marker event it forwards unchanged, and a plain session works
/// through it (so a failure above is the client's, not the proxy's).
#[tokio::test]
async fn the_proxy_forwards_until_the_marker() {
    let (server, proxy, token) = server_with_token().await;
    let mut client = server.client();
    client.url = proxy.url.clone();
    client.http = reqwest::Client::builder()
        .default_headers(
            [(
                reqwest::header::AUTHORIZATION,
                format!("Bearer {token}").parse().expect("header value"),
            )]
            .into_iter()
            .collect(),
        )
        .build()
        .expect("client");
    client.initialize().await;
    let listed = client.request("tools/list", json!({})).await;
    assert!(
        listed["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{listed}"
    );
    assert!(proxy.observed().cuts.is_empty());
}

/// The Python SDK 2.x in its default `auto` mode finds the sessionless 2026-07-28 revision
/// through `server/discover` and speaks it against the same server and token: no session,
/// tools, `subscriptions/listen` with an update, a resource read, and `lease_app` refusing
/// with the reason (a lease needs a session).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2_sessionless() {
    let (server, _proxy, token) = server_with_token().await;
    let (run, report) = python_2(
        &server.url,
        &token,
        "modern_check.py",
        "python 2.x sessionless",
    )
    .await;
    assert_eq!(
        run.steps().last().map(|s| s["step"].clone()),
        Some(json!("pass")),
        "{report}"
    );
    let connect = run.step("connect");
    assert_eq!(
        connect["protocol"], "2026-07-28",
        "the SDK chose the sessionless revision\n{report}"
    );
    assert_eq!(connect["server"], "axgate", "{report}");
    assert!(
        connect["sdk"]
            .as_str()
            .is_some_and(|s| s.starts_with("mcp 2.")),
        "{report}"
    );
    let tools = run.step("tools/list")["tools"].clone();
    assert!(
        tools
            .as_array()
            .is_some_and(|t| t.contains(&json!("perform_action"))),
        "{report}"
    );
    assert_eq!(
        run.step("listen")["honored"],
        json!([STATE_URI]),
        "{report}"
    );
    let updated = run.step("updated");
    assert_eq!(
        (&updated["uri"], &updated["pressed"]),
        (&json!(STATE_URI), &json!(true)),
        "{report}"
    );
    assert_eq!(run.step("read")["uris"], json!([STATE_URI]), "{report}");
    let lease = run.step("lease");
    assert_eq!(lease["is_error"], true, "{report}");
    assert!(
        lease["text"]
            .as_str()
            .is_some_and(|t| t.contains("needs a session")),
        "{report}"
    );
    assert_eq!(
        server.state.sessions.registry().len(),
        0,
        "no session was made\n{report}"
    );
    assert_eq!(
        crate::support::app_value(&server, "Form", "subscribe"),
        Some(axgate::ax::AxValue::Bool(true)),
        "the app saw the press"
    );
}

/// The Python SDK 2.x in its default (sessionless) mode confirms a destructive press: axgate
/// answers it with an input-required result carrying a form elicitation and a sealed
/// `requestState`; the SDK asks through the script's elicitation callback (which accepts) and
/// retries with the answer; the press happens once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2_sessionless_confirms_through_input_required() {
    let (server, token) =
        server_configured("[policy]\nconfirm_words = [\"subscribe\"]\nunconfirmed = \"ask\"\n")
            .await;
    let (run, report) = python_2(
        &server.url,
        &token,
        "confirm_check.py",
        "python 2.x sessionless confirmation",
    )
    .await;
    assert!(
        !run.stdout.contains(&token) && !run.stderr.contains(&token),
        "the token leaked into the script's output"
    );
    assert_eq!(run.step("connect")["protocol"], "2026-07-28", "{report}");
    let confirmed = run.step("confirmed");
    let asked = confirmed["asked"].as_array().cloned().unwrap_or_default();
    assert_eq!(asked.len(), 1, "asked once\n{report}");
    assert_eq!(asked[0]["mode"], "form", "{report}");
    assert_eq!(asked[0]["fields"], json!(["confirm"]), "{report}");
    let message = asked[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Subscribe") && message.contains("Form"),
        "the message names the element and the app: {message}"
    );
    assert_eq!(confirmed["pressed"], true, "{report}");
    assert_eq!(
        crate::support::app_value(&server, "Form", "subscribe"),
        Some(axgate::ax::AxValue::Bool(true)),
        "the app saw one press\n{report}"
    );
    assert_eq!(server.state.sessions.registry().len(), 0, "{report}");
}

/// The Form task in the Python SDK 2.x's default (sessionless) mode, with nothing but the
/// paths its results give: find, fill, submit, and the confirmation the app shows. Before
/// sessionless results named elements by path only, they carried handles (`e3`) that the next
/// request could not use; the script fails on any handle in a result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2_sessionless_form_task() {
    let (server, _proxy, token) = server_with_token().await;
    let (run, report) = python_2(&server.url, &token, "form_task.py", "python 2.x form task").await;
    assert_eq!(run.step("connect")["protocol"], "2026-07-28", "{report}");
    let paths = run.step("paths");
    assert_eq!(
        (&paths["name"], &paths["submit"]),
        (
            &json!("window[0]/text_field[0]"),
            &json!("window[0]/button[0]")
        ),
        "{report}"
    );
    assert_eq!(run.step("submit")["verified"], true, "{report}");
    assert_eq!(
        run.step("confirmation")["status"],
        "Submitted: Ada Lovelace",
        "{report}"
    );
    assert_eq!(
        crate::support::app_value(&server, "Form", "name"),
        Some(axgate::ax::AxValue::Text("Ada Lovelace".into())),
        "the app holds what the client typed"
    );
    assert_eq!(server.state.sessions.registry().len(), 0, "{report}");
    assert!(
        !report.contains("correct horse"),
        "the typed password is in no output\n{report}"
    );
}

/// Runs a Python SDK 2.x script (`tests/clients/python/SCRIPT`, default mode) against `url`
/// with `token`; it must exit 0. The run and its report.
async fn python_2(url: &str, token: &str, script: &str, label: &str) -> (Run, String) {
    let script = repo().join("tests/clients/python").join(script);
    require(&script, "the client script");
    let run = run_script(
        label,
        &venv_python("venv"),
        &[script, PathBuf::from(url)],
        &[("CLIENT_CHECK_TOKEN", token)],
    )
    .await;
    let report = run.report();
    assert!(run.status.success(), "{report}");
    (run, report)
}
