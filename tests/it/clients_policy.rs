//! Read-only mode and the app deny-list through a real MCP client: the official Python SDK
//! (2.x, from `scripts/test-env`), authenticated with a static bearer token, sees no write
//! tools, has a click refused by read-only mode, and has the denied app refused with the rule
//! that denies it, while an allowed app reads normally.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::support::{TestServer, config};
use axgate::http::auth::tokens;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_sees_read_only_mode_and_the_deny_list() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = repo.join("target/test-env/venv/bin/python");
    let script = repo.join("tests/clients/python/policy_check.py");
    assert!(
        python.exists(),
        "the Python SDK venv is missing ({}): run scripts/test-env first",
        python.display()
    );
    let token = tokens::generate().expect("token");
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{{ name = \"py\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}]\n\
         [policy]\nread_only = true\ndeny_apps = [\"Editor\"]\n",
        tokens::hex(&tokens::sha256(&token))
    )))
    .await;
    let mut command = std::process::Command::new(&python);
    command
        .arg(&script)
        .arg(&server.url)
        .env("CLIENT_CHECK_TOKEN", &token)
        .stdin(Stdio::null());
    // The script bounds itself (90 s); the server lives on this runtime, so wait off it.
    let run = tokio::task::spawn_blocking(move || command.output());
    let out = tokio::time::timeout(Duration::from_secs(150), run)
        .await
        .expect("the client finishes within 150 s")
        .expect("join")
        .expect("start the Python client (run scripts/test-env first)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let steps: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let step = |name: &str| {
        steps
            .iter()
            .find(|s| s["step"] == name)
            .unwrap_or_else(|| panic!("no {name} step in:\n{stdout}"))
            .clone()
    };
    let names: Vec<String> = step("tools/list")["names"]
        .as_array()
        .expect("names")
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"get_tree".into()), "{names:?}");
    for write in ["click", "set_value", "type_text", "launch_app"] {
        assert!(
            !names.contains(&write.into()),
            "read-only lists {write}: {names:?}"
        );
    }
    let click = step("click");
    assert_eq!(click["is_error"], true, "{click}");
    assert!(
        click["text"].as_str().unwrap().contains("read-only mode"),
        "{click}"
    );
    let editor = step("get_tree Editor");
    assert_eq!(editor["is_error"], true, "{editor}");
    assert!(
        editor["text"]
            .as_str()
            .unwrap()
            .contains("no running app matches \"Editor\""),
        "a refusal reads like no such app: {editor}"
    );
    assert_eq!(step("get_tree Form")["is_error"], false);
}

/// Runs `command` off the runtime (the server lives on it), bounded, and returns the JSON
/// step lines it printed; fails with its output when it exits non-zero.
async fn steps_of(mut command: std::process::Command, what: &str) -> Vec<Value> {
    command.stdin(Stdio::null());
    let run = tokio::task::spawn_blocking(move || command.output());
    let out = tokio::time::timeout(Duration::from_secs(150), run)
        .await
        .unwrap_or_else(|_| panic!("{what} finishes within 150 s"))
        .expect("join")
        .unwrap_or_else(|e| panic!("start {what}: {e} (run scripts/test-env first)"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{what}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A read-only token calling `set_value` gets a 403 whose JSON-RPC body names the scope and
/// how to get it: what the Python SDK 2.x and the TypeScript SDK 1.x then tell their user.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_and_typescript_sdks_show_the_scope_a_call_needs() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let token = tokens::generate().expect("token");
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{{ name = \"reader\", sha256 = \"{}\", scopes = [\"axgate:read\"] }}]\n",
        tokens::hex(&tokens::sha256(&token))
    )))
    .await;
    let mut python = std::process::Command::new(repo.join("target/test-env/venv/bin/python"));
    python
        .arg(repo.join("tests/clients/python/scope_check.py"))
        .arg(&server.url)
        .env("CLIENT_CHECK_TOKEN", &token);
    let mut node = std::process::Command::new("node");
    node.arg(repo.join("tests/clients/ts/scope_check.mjs"))
        .arg(&server.url)
        .env("CLIENT_CHECK_TOKEN", &token);
    for (command, what) in [(python, "the Python SDK"), (node, "the TypeScript SDK")] {
        let steps = steps_of(command, what).await;
        let step = steps
            .iter()
            .find(|s| s["step"] == "set_value")
            .unwrap_or_else(|| panic!("{what}: no set_value step in {steps:?}"));
        let message = step["message"].as_str().unwrap_or_default();
        println!("{what} reports: {step}");
        for needle in ["axgate:act", "set_value", "axgate token new"] {
            assert!(
                message.contains(needle),
                "{what} shows no {needle:?}: {step}"
            );
        }
        assert!(
            !message.contains(&token),
            "{what}: the token is never echoed: {step}"
        );
    }
}
