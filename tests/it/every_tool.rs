//! Every tool through every official client (issue 32): the list `tests/clients/every_tool.json`
//! names each tool once with arguments that work on a fresh demo server, and the Python SDK 2.x
//! (with a session and sessionless), the TypeScript SDK and the MCP Inspector CLI
//! (`inspector.rs`) each run all of it. A client passes when every call succeeds with the
//! structured content its output schema promises (the SDKs validate it), an image where the
//! list says so, and, sessionless, a refusal that names the session for the calls that need one.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::clients::run::{Run, repo, require, run_script};
use crate::support::{Client, TestServer, bearer_client, config};
use axgate::http::auth::tokens;

/// One entry of the list.
#[derive(Deserialize)]
pub(crate) struct Call {
    pub(crate) tool: String,
    pub(crate) args: Value,
    /// Needs an MCP session.
    #[serde(default)]
    pub(crate) session: bool,
    /// Answers with an image and no structured content.
    #[serde(default)]
    pub(crate) image: bool,
}

/// The list, in order.
pub(crate) fn calls() -> Vec<Call> {
    let path = repo().join("tests/clients/every_tool.json");
    let text = std::fs::read_to_string(&path).expect("tests/clients/every_tool.json");
    let list: Value = serde_json::from_str(&text).expect("every_tool.json is JSON");
    serde_json::from_value(list["calls"].clone()).expect("every_tool.json's calls")
}

/// The server config: `ops` may read, act and administer, and act without a person's
/// confirmation (`quit_app` asks for one by default, and not every client can be asked);
/// `other` only reads.
pub(crate) fn two_tokens(ops: &str, other: &str) -> String {
    let row = |name: &str, token: &str, rest: &str| {
        format!(
            "{{ name = \"{name}\", sha256 = \"{}\", {rest} }}",
            tokens::hex(&tokens::sha256(token))
        )
    };
    format!(
        "[auth]\ntokens = [{}, {}]\n",
        row(
            "ops",
            ops,
            r#"scopes = ["axgate:read", "axgate:act", "axgate:admin"], unconfirmed = "allow""#
        ),
        row("other", other, r#"scopes = ["axgate:read"]"#),
    )
}

/// Opens a session of the `other` principal (kept while the client lives) and finds its tag
/// through `ops`'s `list_sessions`, for the list's `end_session`.
pub(crate) async fn other_session(url: &str, ops: &str, other: &str) -> (Client, String) {
    let mut theirs = bearer_client(url, other);
    theirs.initialize().await;
    let mut admin = bearer_client(url, ops);
    admin.initialize().await;
    let listed = admin.call("list_sessions", json!({})).await;
    let sessions = listed["structuredContent"]["sessions"].clone();
    let tag = sessions
        .as_array()
        .and_then(|all| all.iter().find(|s| s["principal"] == "token:other"))
        .and_then(|s| s["tag"].as_str())
        .unwrap_or_else(|| panic!("the other principal's session is listed: {sessions}"))
        .to_owned();
    (theirs, tag)
}

/// A server with both tokens, the other principal's session and its tag.
async fn serve() -> (TestServer, String, Client, String) {
    let (ops, other) = (
        tokens::generate().expect("token"),
        tokens::generate().expect("token"),
    );
    let server = TestServer::with_config(config(&two_tokens(&ops, &other))).await;
    let (theirs, tag) = other_session(&server.url, &ops, &other).await;
    (server, ops, theirs, tag)
}

/// Every call of the list ran, in order, as `sessionless` or not expects.
fn check_calls(run: &Run, sessionless: bool) {
    let report = run.report();
    assert!(run.status.success(), "{report}");
    let ran: Vec<Value> = run
        .steps()
        .into_iter()
        .filter(|s| s["step"] == "call")
        .collect();
    let list = calls();
    assert_eq!(ran.len(), list.len(), "every call ran\n{report}");
    for (call, step) in list.iter().zip(&ran) {
        let tool = &call.tool;
        assert_eq!(step["tool"], tool.as_str(), "{report}");
        if sessionless && call.session {
            assert_eq!(step["is_error"], true, "{tool} needs a session\n{report}");
            let text = step["text"].as_str().unwrap_or_default();
            assert!(text.contains("session"), "{tool}: {text}\n{report}");
            continue;
        }
        assert_eq!(step["is_error"], false, "{tool}\n{report}");
        assert_eq!(step["image"], call.image, "{tool}\n{report}");
        assert_eq!(step["structured"], !call.image, "{tool}\n{report}");
    }
}

fn venv_python() -> std::path::PathBuf {
    let python = repo().join("target/test-env/venv/bin/python");
    require(&python, "the Python SDK venv target/test-env/venv");
    python
}

#[test]
fn the_list_names_every_tool_once() {
    let listed: Vec<String> = calls().into_iter().map(|c| c.tool).collect();
    let unique: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a tool is listed twice: {listed:?}"
    );
    let served: BTreeSet<&str> = axgate::mcp::tools::all().iter().map(|t| t.name).collect();
    assert_eq!(
        unique, served,
        "tests/clients/every_tool.json names every tool"
    );
}

async fn python(mode: &str) -> Run {
    let (server, ops, _theirs, tag) = serve().await;
    let script = repo().join("tests/clients/python/every_tool.py");
    run_script(
        &format!("python 2.x {mode}"),
        &venv_python(),
        &[script, mode.into(), server.url.clone().into()],
        &[("CLIENT_CHECK_TOKEN", &ops), ("OTHER_SESSION_TAG", &tag)],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_runs_every_tool_with_a_session() {
    let run = python("legacy").await;
    assert_eq!(
        run.step("connect")["protocol"],
        "2025-11-25",
        "{}",
        run.report()
    );
    check_calls(&run, false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_runs_every_tool_sessionless() {
    let run = python("auto").await;
    assert_eq!(
        run.step("connect")["protocol"],
        "2026-07-28",
        "{}",
        run.report()
    );
    check_calls(&run, true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_runs_every_tool() {
    require(
        &repo().join("tests/clients/ts/node_modules/@modelcontextprotocol/sdk/package.json"),
        "the TypeScript SDK (tests/clients/ts/node_modules)",
    );
    let (server, ops, _theirs, tag) = serve().await;
    let script = repo().join("tests/clients/ts/every_tool.mjs");
    let run = run_script(
        "typescript",
        std::path::Path::new("node"),
        &[script, server.url.clone().into()],
        &[("CLIENT_CHECK_TOKEN", &ops), ("OTHER_SESSION_TAG", &tag)],
    )
    .await;
    check_calls(&run, false);
}
