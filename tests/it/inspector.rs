//! The MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, pinned in
//! `tests/inspector/package-lock.json`, on Node 22 — both from `scripts/test-env`) against the
//! built binary on the demo backend with authentication on: a static bearer token generated
//! here, passed with `--header`. The Inspector runs one method per invocation; each prints the
//! result as JSON, which the tests read. Without the token the Inspector fails on axgate's 401.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::spawned::{Axgate, node22, repo, require, run};
use axgate::http::auth::tokens;
use serde_json::Value;

/// How long one Inspector invocation may take.
const INSPECTOR_TIMEOUT: Duration = Duration::from_secs(120);

fn inspector() -> PathBuf {
    let cli = repo().join(
        "tests/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
    );
    require(&cli, "the MCP Inspector (tests/inspector/node_modules)");
    cli
}

/// axgate on the demo backend with one static token; returns the server and the token.
fn serve_with_token(dir: &Path) -> (Axgate, String) {
    serve_with_scopes(dir, r#""axgate:read", "axgate:act""#)
}

/// axgate on the demo backend with one static token holding `scopes` (TOML strings).
fn serve_with_scopes(dir: &Path, scopes: &str) -> (Axgate, String) {
    let token = tokens::generate().expect("random token");
    let config = dir.join("axgate.toml");
    std::fs::write(
        &config,
        format!(
            "[backend]\nkind = \"demo\"\n[auth]\ntokens = [{{ name = \"inspector\", sha256 = \"{}\", scopes = [{}] }}]\n",
            tokens::hex(&tokens::sha256(&token)),
            scopes
        ),
    )
    .expect("write the config");
    let server = Axgate::serve(&["--config", config.to_str().expect("utf-8 path")]);
    (server, token)
}

/// One Inspector invocation: `--cli <url> --transport http <args…>`. Its home and catalog
/// are in `dir`, so nothing is written outside the test's temporary directory.
fn inspect(dir: &Path, url: &str, args: &[&str]) -> crate::spawned::Run {
    let cli = inspector();
    let mut all = vec![
        cli.to_str().expect("utf-8 path"),
        "--cli",
        url,
        "--transport",
        "http",
    ];
    all.extend_from_slice(args);
    let catalog = dir.join("catalog.json");
    run(
        &node22(),
        &all,
        dir,
        &[("HOME", dir), ("MCP_CATALOG_PATH", &catalog)],
        INSPECTOR_TIMEOUT,
    )
}

/// The JSON a successful invocation printed.
fn json_of(run: &crate::spawned::Run, what: &str) -> Value {
    assert!(run.status.success(), "{}", run.report(what));
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.report(what)))
}

/// `tools/call` of one tool with `key=value` arguments and the bearer header: the JSON
/// result it printed.
fn call_tool(dir: &Path, url: &str, bearer: &str, tool: &str, tool_args: &[&str]) -> Value {
    let mut args = vec!["--method", "tools/call", "--tool-name", tool];
    for arg in tool_args {
        args.extend(["--tool-arg", arg]);
    }
    args.extend(["--header", bearer]);
    let run = inspect(dir, url, &args);
    json_of(&run, &format!("tools/call {tool}"))
}

#[test]
fn inspector_lists_calls_and_reads_with_a_bearer_token() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, token) = serve_with_token(dir.path());
    let bearer = format!("Authorization: Bearer {token}");

    let run = inspect(
        dir.path(),
        &server.url,
        &["--method", "tools/list", "--header", &bearer],
    );
    let listed = json_of(&run, "tools/list");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in ["list_apps", "find", "get_element", "perform_action"] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }

    let found = call_tool(
        dir.path(),
        &server.url,
        &bearer,
        "find",
        &["app=Form", "title=Subscribe"],
    );
    assert_eq!(found["isError"], false, "{found}");
    let matches = found["structuredContent"]["matches"]
        .as_array()
        .expect("matches");
    assert_eq!(matches.len(), 1, "{found}");
    assert_eq!(matches[0]["role"], "check_box");
    assert_eq!(matches[0]["identifier"], "subscribe");
    let path = matches[0]["path"].as_str().expect("path").to_owned();

    let target = format!("target={path}");
    let value = call_tool(
        dir.path(),
        &server.url,
        &bearer,
        "get_element",
        &["app=Form", &target],
    );
    assert_eq!(value["isError"], false, "{value}");
    assert_eq!(
        value["structuredContent"]["element"]["title"], "Subscribe",
        "{value}"
    );
    assert_eq!(
        value["structuredContent"]["element"]["value"], false,
        "{value}"
    );

    let run = inspect(
        dir.path(),
        &server.url,
        &[
            "--method",
            "resources/read",
            "--uri",
            "axgate://apps",
            "--header",
            &bearer,
        ],
    );
    let read = json_of(&run, "resources/read");
    assert_eq!(read["contents"][0]["uri"], "axgate://apps");
    let apps: Value =
        serde_json::from_str(read["contents"][0]["text"].as_str().expect("text")).expect("JSON");
    assert!(
        apps["apps"]
            .as_array()
            .expect("apps")
            .iter()
            .any(|a| a["name"] == "Form"),
        "{apps}"
    );
    // The token is never logged.
    assert!(
        !server.log().contains(&token),
        "the token is in axgate's log"
    );
}

/// The Inspector's `--strict` schema lint (type arrays, remote `$ref`s, untyped subschemas,
/// bare boolean schemas) finds nothing in any tool, the admin tools included: before the
/// schemas were made portable it reported 154 warnings.
#[test]
fn inspector_strict_lint_finds_nothing_in_the_tool_schemas() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, token) = serve_with_scopes(dir.path(), r#""axgate:admin""#);
    let bearer = format!("Authorization: Bearer {token}");
    let run = inspect(
        dir.path(),
        &server.url,
        &[
            "--method",
            "tools/list",
            "--strict",
            "--format",
            "json",
            "--header",
            &bearer,
        ],
    );
    let envelope = json_of(&run, "tools/list --strict");
    let tools = envelope["result"]["tools"].as_array().expect("tools");
    assert_eq!(
        tools.len(),
        axgate::mcp::tools::all().len(),
        "every tool is linted"
    );
    assert!(
        envelope.get("schemaFindings").is_none(),
        "{:#}",
        envelope["schemaFindings"]
    );
    assert!(
        !run.stderr.contains("Warning") && !run.stderr.contains("Schema portability"),
        "{}",
        run.report("tools/list --strict")
    );
}

#[test]
fn inspector_without_the_token_fails_on_401() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, _token) = serve_with_token(dir.path());
    // --stored-auth-only: no interactive OAuth flow, so axgate's refusal is what it reports.
    let run = inspect(
        dir.path(),
        &server.url,
        &["--method", "tools/list", "--stored-auth-only"],
    );
    assert!(
        !run.status.success(),
        "{}",
        run.report("tools/list without a token")
    );
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("auth_required"), "{}", run.report("no token"));
    assert!(
        out.contains("requires an access token"),
        "{}",
        run.report("no token")
    );
    assert!(!out.contains("\"tools\""), "{}", run.report("no token"));
    let run = inspect(
        dir.path(),
        &server.url,
        &[
            "--method",
            "tools/list",
            "--stored-auth-only",
            "--header",
            "Authorization: Bearer axg_not-the-token",
        ],
    );
    assert!(
        !run.status.success(),
        "{}",
        run.report("tools/list with a wrong token")
    );
    assert!(
        !run.stdout.contains("\"tools\""),
        "{}",
        run.report("wrong token")
    );
}

/// The Inspector's `--tool-arg key=value` words for a call's arguments: strings as they are,
/// anything else as JSON (which the Inspector parses back).
fn tool_args(args: &Value, other_tag: &str) -> Vec<String> {
    let Value::Object(map) = args else {
        return Vec::new();
    };
    map.iter()
        .map(|(key, value)| match value {
            Value::String(s) => format!("{key}={}", s.replace("$OTHER_SESSION_TAG", other_tag)),
            other => format!("{key}={other}"),
        })
        .collect()
}

/// Issue 32: every tool through the Inspector CLI, from `tests/clients/every_tool.json`, one
/// Inspector session per call (the demo apps keep their state between calls). The Inspector
/// declares the tasks extension and calls tools plainly: axgate once answered `get_tree`,
/// `wait_for`, `wait_idle` and `launch_app` with a task, and the Inspector failed with "declares
/// an output schema but returned no structured content". Each call must succeed with structured
/// content (which the Inspector checks against the output schema), or an image where the list
/// says so, and no task. The list runs in two halves on two servers, beside each other.
fn inspector_runs(half: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (ops, other) = (
        tokens::generate().expect("random token"),
        tokens::generate().expect("random token"),
    );
    let config = dir.path().join("axgate.toml");
    let toml = format!(
        "[backend]\nkind = \"demo\"\n{}",
        crate::every_tool::two_tokens(&ops, &other)
    );
    std::fs::write(&config, toml).expect("write the config");
    let server = Axgate::serve(&["--config", config.to_str().expect("utf-8 path")]);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (_theirs, tag) =
        runtime.block_on(crate::every_tool::other_session(&server.url, &ops, &other));
    let bearer = format!("Authorization: Bearer {ops}");
    let calls = crate::every_tool::calls();
    let middle = calls.len() / 2;
    let part = if half == 0 {
        &calls[..middle]
    } else {
        &calls[middle..]
    };
    for call in part {
        let words = tool_args(&call.args, &tag);
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let tool = call.tool.as_str();
        let result = call_tool(dir.path(), &server.url, &bearer, tool, &words);
        assert_eq!(result["isError"], false, "{tool}: {result}");
        assert!(result.get("taskId").is_none(), "{tool}: {result}");
        if call.image {
            assert_eq!(result["content"][0]["type"], "image", "{tool}: {result}");
        } else {
            assert!(result["structuredContent"].is_object(), "{tool}: {result}");
        }
    }
}

#[test]
fn inspector_runs_the_first_half_of_every_tool() {
    inspector_runs(0);
}

#[test]
fn inspector_runs_the_second_half_of_every_tool() {
    inspector_runs(1);
}
