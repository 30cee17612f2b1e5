//! `axgate test`, end to end: the built binary runs the example scenarios
//! (`examples/scenarios/`) against `axgate serve --backend demo` with a generated static
//! token and an audit trail; the JUnit report is read by junitparser (a real consumer, from
//! `scripts/test-env`), the failed cases' artifacts are checked (files, PNG, tree, diff,
//! the case's own audit lines), and a secret given in the environment is in no output at
//! all. Also: `--dry-run` errors with file:line, the exit codes 0/1/2/3/4, OAuth client
//! credentials from the real oidc-provider, and `axgate://session/audit` showing a session
//! its own lines only.

use std::path::{Path, PathBuf};

use axgate::http::auth::tokens;
use serde_json::{Value, json};

use super::credentials::{Credentials, SECRET as CI_SECRET, run_owned};
use super::{run, secret_shown_then_failing};
use crate::auth::AUD;
use crate::spawned::{Axgate, repo};
use crate::support::{TestServer, config};

/// The password the Form example types; long and odd enough to be found if it leaks.
const SECRET: &str = "pw-Xq7!correct-horse-4411";

fn example(name: &str) -> String {
    repo()
        .join("examples/scenarios")
        .join(name)
        .display()
        .to_string()
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// junitparser's reading of `report` (tests/clients/python/junit_check.py).
fn junitparser(report: &Path) -> Value {
    let python = repo().join("target/test-env/venv/bin/python");
    assert!(
        python.exists(),
        "the Python venv is missing ({}): run scripts/test-env first",
        python.display()
    );
    let out = std::process::Command::new(python)
        .arg(repo().join("tests/clients/python/junit_check.py"))
        .arg(report)
        .output()
        .expect("run junit_check.py");
    assert!(
        out.status.success(),
        "junitparser failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("junit_check.py prints JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_examples_pass_and_fail_with_junit_artifacts_and_no_secret_anywhere() {
    let dir = tempfile::tempdir().expect("dir");
    let token = tokens::generate().expect("token");
    let trail = dir.path().join("audit/audit.jsonl");
    let config_file = dir.path().join("axgate.toml");
    std::fs::write(
        &config_file,
        format!(
            "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}]\n\
             [audit]\npath = \"{}\"\n[log]\nlevel = \"debug\"\n",
            tokens::hex(&tokens::sha256(&token)),
            trail.display()
        ),
    )
    .expect("write the config");
    let server = Axgate::serve(&[
        "--backend",
        "demo",
        "--config",
        config_file.to_str().expect("utf-8"),
    ]);
    let leak = dir.path().join("leak.yaml");
    let leak_yaml = secret_shown_then_failing("leak", "LOGIN_PASSWORD", "Email", "nothing");
    std::fs::write(&leak, leak_yaml).expect("write leak.yaml");
    let junit = dir.path().join("reports/junit.xml");
    let artifacts = dir.path().join("artifacts");
    let (junit_arg, artifacts_arg, leak_arg) = (
        junit.display().to_string(),
        artifacts.display().to_string(),
        leak.display().to_string(),
    );
    let files = [
        example("form.yaml"),
        example("editor.yaml"),
        example("failing/form-fails.yaml"),
        leak_arg,
    ];
    let mut argv = vec![
        "test",
        "--url",
        &server.url,
        "--junit",
        &junit_arg,
        "--artifacts",
        &artifacts_arg,
    ];
    argv.extend(files.iter().map(String::as_str));
    let env = [
        ("AXGATE_CLIENT_TOKEN", token.as_str()),
        ("LOGIN_PASSWORD", SECRET),
    ];
    let ran = run(&argv, &env).await;
    ran.expect_code(1);
    // The summary: every case, its verdict, the failure's step, line and reason.
    for line in [
        "  ✓ fill and submit the form",
        "  ✓ the Volume slider steps by ten",
        "  ✓ save as notes.txt",
        "  ✗ the status never says Saved",
        "  ✗ a secret typed where it shows",
        "axgate test FAILED: 5 cases in 4 files, 3 passed, 2 failed",
    ] {
        assert!(ran.stdout.contains(line), "{line:?} in {ran:?}");
    }
    let fails = example("failing/form-fails.yaml");
    let reason = format!(
        "step 3 (get_element) at {fails}:18: expected element.value to contain \"Saved\", got \"Submitted: Grace Hopper\""
    );
    assert!(ran.stdout.contains(&reason), "{reason} in {ran:?}");
    assert!(
        ran.stdout
            .contains("expected element.value to equal \"nothing\", got \"•••\""),
        "the secret is hidden in the failure: {ran:?}"
    );

    // The JUnit report, as junitparser reads it.
    let report = junitparser(&junit);
    assert_eq!(
        (report["tests"].clone(), report["failures"].clone()),
        (json!(5), json!(2)),
        "{report}"
    );
    let suites = report["suites"].as_array().expect("suites");
    let names: Vec<&str> = suites
        .iter()
        .map(|s| s["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["form", "editor", "form-fails", "leak"]);
    assert_eq!(suites[0]["tests"], 2);
    assert_eq!(suites[0]["failures"], 0);
    assert_eq!(suites[2]["failures"], 1);
    let failed = &suites[2]["cases"][0];
    assert_eq!(failed["name"], "the status never says Saved");
    assert_eq!(failed["classname"], "form-fails");
    assert_eq!(failed["results"][0]["kind"], "Failure", "{failed}");
    assert_eq!(failed["results"][0]["message"], reason.as_str());
    assert_eq!(failed["results"][0]["type"], "expectation");
    for suite in suites {
        for case in suite["cases"].as_array().expect("cases") {
            let time = case["time"].as_f64().expect("a time");
            assert!(time > 0.0 && time < 30.0, "{case}");
        }
        assert!(
            suite["time"].as_f64().expect("a suite time") > 0.0,
            "{suite}"
        );
    }
    let passed = &suites[0]["cases"][0];
    assert_eq!(passed["results"], json!([]), "{passed}");
    assert!(
        passed["system_out"]
            .as_str()
            .unwrap_or("")
            .contains("ok   step 3 \"type the password\" type_text"),
        "{passed}"
    );

    // The artifacts of the failed case.
    let case_dir = artifacts.join("form-fails/the-status-never-says-Saved");
    let failure = std::fs::read_to_string(case_dir.join("failure.txt")).expect("failure.txt");
    for part in [
        "step 3 (get_element)".to_owned(),
        format!("at {fails}:18"),
        "expected element.value to contain \"Saved\", got \"Submitted: Grace Hopper\"".to_owned(),
    ] {
        assert!(failure.contains(&part), "{part} in {failure}");
    }
    let png = std::fs::read(case_dir.join("screenshot-Form.png")).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    let tree = std::fs::read_to_string(case_dir.join("tree-Form.txt")).expect("the tree");
    assert!(
        tree.contains("[window] \"Demo Form\"") && tree.contains("[button] \"Submit\""),
        "{tree}"
    );
    let diff = std::fs::read_to_string(case_dir.join("diff-Form.txt")).expect("the diff");
    assert!(
        diff.contains("Submitted: Grace Hopper") && diff.contains("Grace Hopper"),
        "the diff since the case started: {diff}"
    );
    let audit = std::fs::read_to_string(case_dir.join("audit.jsonl")).expect("audit.jsonl");
    let lines: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let tools: Vec<&str> = lines
        .iter()
        .map(|l| l["tool"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        tools,
        ["set_value", "click"],
        "the case's own audited calls: {audit}"
    );
    assert_eq!(lines[0]["session"], lines[1]["session"]);
    assert_eq!(lines[0]["principal"], "token:ci");
    // Each is a line of the trail (less its chain link), and no other session's.
    let written: Vec<Value> = std::fs::read_to_string(&trail)
        .expect("the trail")
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("a trail line");
            v.as_object_mut().expect("object").remove("prev");
            v
        })
        .collect();
    for line in &lines {
        assert!(written.contains(line), "{line} is in the trail");
    }
    let of_session = written
        .iter()
        .filter(|w| w["session"] == lines[0]["session"])
        .count();
    assert_eq!(of_session, 3, "set_value, click and the teardown's click");
    // The leak case left artifacts too; the secret is hidden there as everywhere.
    assert!(
        artifacts
            .join("leak/a-secret-typed-where-it-shows/tree-Form.txt")
            .exists()
    );
    assert!(
        !artifacts.join("form").exists(),
        "no artifacts for passing cases"
    );

    // The secret is in no output: stdout, stderr, JUnit, artifacts, the server's log, the trail.
    ran.never_shown(SECRET);
    let mut searched = files_under(&artifacts);
    searched.push(junit.clone());
    searched.push(trail.clone());
    for file in &searched {
        let bytes = std::fs::read(file).expect("read");
        assert!(
            !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "the secret is in {}",
            file.display()
        );
    }
    let log = server.log();
    assert!(
        log.contains("tool call"),
        "the server logged at debug: {log}"
    );
    assert!(!log.contains(SECRET), "the secret is in the server's log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_points_at_file_and_line_and_each_outcome_has_its_exit_code() {
    let dir = tempfile::tempdir().expect("dir");
    // Valid files need no server and no secret for a dry run.
    let ran = run(
        &[
            "test",
            "--dry-run",
            &example("form.yaml"),
            &example("editor.yaml"),
            &example("failing/form-fails.yaml"),
        ],
        &[],
    )
    .await;
    ran.expect_code(0);
    assert!(ran.stdout.contains("3 files, 4 cases: valid"), "{ran:?}");
    // Every problem of every file, each with file:line and its step.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "name: bad\ncases:\n  - name: fill the form\n    steps:\n      - tool: click\n        \
         args: {target: x}\n        expcet: {error: true}\n      - args: {text: '${later}'}\n      \
         - tool: find\n        save: {later: 'matches[0].path'}\n        timeout: soon\n  - name: empty\n",
    )
    .expect("write");
    let ran = run(&["test", "--dry-run", bad.to_str().expect("utf-8")], &[]).await;
    ran.expect_code(2);
    let file = bad.display().to_string();
    for want in [
        format!(
            "{file}:7: case \"fill the form\", step 1: unknown key 'expcet' (did you mean 'expect'?)"
        ),
        format!("{file}:8: case \"fill the form\", step 2: the step names no `tool:`"),
        format!("{file}:11: case \"fill the form\", step 3: `timeout` is a duration"),
        format!("{file}:12: case \"empty\": the case has no `steps:`"),
    ] {
        assert!(ran.stderr.contains(&want), "{want} in {ran:?}");
    }
    let undefined = dir.path().join("undefined.yaml");
    std::fs::write(
        &undefined,
        "cases:\n  - name: order\n    steps:\n      - tool: find\n        args: {text: '${status}'}\n",
    )
    .expect("write");
    let ran = run(
        &["test", "--dry-run", undefined.to_str().expect("utf-8")],
        &[],
    )
    .await;
    ran.expect_code(2);
    assert!(
        ran.stderr
            .contains(":4: case \"order\", step 1: ${status} is not saved by any earlier step"),
        "{ran:?}"
    );

    // Brackets left unquoted (issue 32, item 8): the error says to quote, with an example.
    let unquoted = dir.path().join("unquoted.yaml");
    std::fs::write(
        &unquoted,
        "app: Form\ncases:\n  - name: c\n    steps:\n      - tool: get_element\n        \
         args: {target: x}\n        expect:\n          fields: {windows[0].title: x}\n",
    )
    .expect("write");
    let ran = run(
        &["test", "--dry-run", unquoted.to_str().expect("utf-8")],
        &[],
    )
    .await;
    ran.expect_code(2);
    assert!(
        ran.stderr.contains(":8: not valid YAML: ")
            && ran
                .stderr
                .contains("must be quoted, e.g. \"windows[0].title\": Editor"),
        "{ran:?}"
    );

    // A server with a static token: each outcome's exit code.
    let token = tokens::generate().expect("token");
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}]\n",
        tokens::hex(&tokens::sha256(&token))
    )))
    .await;
    let with_token = [
        ("AXGATE_CLIENT_TOKEN", token.as_str()),
        ("LOGIN_PASSWORD", SECRET),
    ];
    let form = example("form.yaml");
    let editor = example("editor.yaml");
    let passing = ["test", "--url", &server.url, &form, &editor];
    run(&passing, &with_token).await.expect_code(0);
    // A secret that is not set is named, with its line, before anything runs.
    let ran = run(&passing, &[("AXGATE_CLIENT_TOKEN", token.as_str())]).await;
    ran.expect_code(2);
    assert!(
        ran.stderr.contains(&format!(
            "{form}:23: the secret ${{secret:LOGIN_PASSWORD}} is not set"
        )),
        "{ran:?}"
    );
    // A tool the server does not have, at run time.
    let typo = dir.path().join("typo.yaml");
    std::fs::write(
        &typo,
        "cases:\n  - name: one\n    steps:\n      - tool: clik\n",
    )
    .expect("write");
    let ran = run(
        &["test", "--url", &server.url, typo.to_str().expect("utf-8")],
        &with_token,
    )
    .await;
    ran.expect_code(2);
    assert!(
        ran.stderr
            .contains(":4: case \"one\", step 1: unknown tool 'clik' (did you mean 'click'?)"),
        "{ran:?}"
    );
    // A refused token: 4; no server: 3.
    let ran = run(
        &passing,
        &[("AXGATE_CLIENT_TOKEN", "wrong"), ("LOGIN_PASSWORD", SECRET)],
    )
    .await;
    ran.expect_code(4);
    ran.never_shown(SECRET);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", closed.local_addr().expect("addr"));
    drop(closed);
    let ran = run(
        &["test", "--url", &url, "--retry-for", "1", &form],
        &with_token,
    )
    .await;
    ran.expect_code(3);
    assert_eq!(super::sessions(&server), 0, "every case ended its session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scenarios_run_with_oauth_client_credentials() {
    let ci = Credentials::start().await;
    let ran = run_owned(ci.argv("test", AUD, &[&example("editor.yaml")])).await;
    ran.expect_code(0);
    assert!(ran.stdout.contains("  ✓ save as notes.txt"), "{ran:?}");
    ran.never_shown(CI_SECRET);
    assert_eq!(super::sessions(&ci.server), 0);
}

#[tokio::test]
async fn the_session_audit_resource_shows_a_session_its_own_lines_only() {
    let server = TestServer::start().await;
    let mut mine = server.client();
    mine.initialize().await;
    let mut other = server.client();
    other.initialize().await;
    mine.call(
        "type_text",
        json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "text": "typed-secret-77"}),
    )
    .await;
    mine.call("get_tree", json!({"app": "Form", "depth": 1}))
        .await;
    let read = |text: &Value| -> Value {
        serde_json::from_str(
            text["result"]["contents"][0]["text"]
                .as_str()
                .expect("text"),
        )
        .expect("JSON")
    };
    let own = read(
        &mine
            .request("resources/read", json!({"uri": "axgate://session/audit"}))
            .await,
    );
    let lines = own["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 1, "the write only, not the read: {own}");
    assert_eq!(lines[0]["tool"], "type_text");
    assert_eq!(lines[0]["session"], own["session"]);
    assert!(
        !own.to_string().contains("typed-secret-77"),
        "typed text is redacted: {own}"
    );
    assert_eq!(own["trail"], false, "no audit.path here");
    let theirs = read(
        &other
            .request("resources/read", json!({"uri": "axgate://session/audit"}))
            .await,
    );
    assert_eq!(
        theirs["lines"],
        json!([]),
        "another session sees none of them: {theirs}"
    );
    let sub = mine
        .request(
            "resources/subscribe",
            json!({"uri": "axgate://session/audit"}),
        )
        .await;
    assert!(
        sub["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("is read, not subscribed"),
        "{sub}"
    );
}

/// The shipped Form example is re-runnable: its setup clicks Clear and its Submit runs again
/// with the same data, which used to fail the second run (the press showed no effect, so the
/// pointer clicked again and the call failed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_example_passes_three_times_in_a_row_against_one_server() {
    let token = tokens::generate().expect("token");
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}]\n",
        tokens::hex(&tokens::sha256(&token))
    )))
    .await;
    let env = [
        ("AXGATE_CLIENT_TOKEN", token.as_str()),
        ("LOGIN_PASSWORD", SECRET),
    ];
    let form = example("form.yaml");
    for round in 1..=3 {
        let ran = run(&["test", "--url", &server.url, &form], &env).await;
        assert_eq!(ran.code, Some(0), "run {round}: {ran:?}");
    }
}
