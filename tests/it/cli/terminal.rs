//! The terminal commands, once each, against the demo apps: `apps`, `tree`, `find`, `click`
//! (by query and by path; a handle refused), `type`, `screenshot`, and `completions`; `tree`
//! and `find` print title paths that steps and targets take, and `tree` pages.

use axgate::ax::AxValue;

use super::{run, run_on, sessions};
use crate::support::{TestServer, app_value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apps_tree_and_find_print_the_tools_text() {
    let server = TestServer::start().await;
    let ran = run_on(&server, "apps", &[]).await;
    ran.expect_code(0);
    assert!(
        ran.stdout
            .starts_with("Form pid=41001 dev.axgate.demo.form frontmost\n"),
        "{ran:?}"
    );
    let ran = run_on(&server, "tree", &["Form", "--depth", "1"]).await;
    ran.expect_code(0);
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        lines[0].starts_with("Form (pid 41001)  [application] \"Form\""),
        "{ran:?}"
    );
    assert!(
        lines[1].starts_with("window[0]  [window] \"Demo Form\""),
        "{ran:?}"
    );
    assert!(
        !ran.stdout.contains("[button]"),
        "depth 1 stops above the buttons: {ran:?}"
    );
    let ran = run_on(
        &server,
        "find",
        &["Stubborn", "--app", "Form", "--format", "json"],
    )
    .await;
    let found = ran.expect_code(0).json();
    assert_eq!(
        found["matches"][0]["path"], "window[0]/button[3]",
        "{found}"
    );
    // An app named by its pid.
    let ran = run_on(
        &server,
        "tree",
        &["41001", "--depth", "0", "--format", "quiet"],
    )
    .await;
    assert_eq!(ran.expect_code(0).stdout, "");
    assert_eq!(sessions(&server), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn click_and_type_take_a_path_or_a_query_never_a_handle() {
    let server = TestServer::start().await;
    // A query naming one element.
    let ran = run_on(
        &server,
        "type",
        &["Ada", "--app", "Form", "--target", "Name"],
    )
    .await;
    ran.expect_code(0);
    assert_eq!(
        app_value(&server, "Form", "name"),
        Some(AxValue::Text("Ada".into()))
    );
    // A path.
    let ran = run_on(
        &server,
        "click",
        &[r#"window[0]/button["Submit"]"#, "--app", "Form"],
    )
    .await;
    ran.expect_code(0);
    assert!(
        ran.stdout.contains("click window[0]/button[\"Submit\"]"),
        "{ran:?}"
    );
    assert_eq!(
        app_value(&server, "Form", "status"),
        Some(AxValue::Text("Submitted: Ada".into()))
    );
    // A query naming several elements: the candidates, exit 1. None: exit 1 and the fix.
    let ran = run_on(&server, "click", &["a", "--app", "Form"]).await;
    ran.expect_code(1);
    assert!(
        ran.stderr.contains("names") && ran.stderr.contains("window[0]/"),
        "{ran:?}"
    );
    let ran = run_on(&server, "click", &["Nothing Like It", "--app", "Form"]).await;
    ran.expect_code(1);
    assert!(ran.stderr.contains("axgate tree Form"), "{ran:?}");
    // A handle is a usage error that says why.
    let ran = run_on(&server, "click", &["e1", "--app", "Form"]).await;
    ran.expect_code(2);
    assert!(
        ran.stderr.contains("is a handle") && ran.stderr.contains("path"),
        "{ran:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshot_writes_the_png_where_asked() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("form.png");
    let ran = run_on(
        &server,
        "screenshot",
        &["--app", "Form", "--output", file.to_str().unwrap()],
    )
    .await;
    ran.expect_code(0);
    assert!(
        ran.stdout.contains(&format!("wrote {}", file.display())),
        "{ran:?}"
    );
    assert!(
        std::fs::read(&file)
            .expect("the file")
            .starts_with(b"\x89PNG"),
        "a PNG"
    );
    // Without --app: the frontmost app, named in the file.
    let out = dir.path().to_str().unwrap();
    let ran = run_on(&server, "screenshot", &["--output-dir", out]).await;
    ran.expect_code(0);
    assert!(
        ran.stdout.contains("screenshot of Form") && ran.stdout.contains("screenshot-Form-"),
        "{ran:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_are_generated_for_each_shell() {
    for (shell, mark) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef axgate"),
        ("fish", "complete -c axgate"),
    ] {
        let ran = run(&["completions", shell], &[]).await;
        ran.expect_code(0);
        assert!(ran.stdout.contains(mark), "{shell}: {ran:?}");
        for word in ["call", "screenshot", "client-secret-file", "github-oidc"] {
            assert!(ran.stdout.contains(word), "{shell} completes {word}");
        }
    }
}

/// `axgate apps | head -1` and `axgate completions bash | head`: a reader that leaves early
/// ends the client quietly with 141 (128 + SIGPIPE, what a shell shows for such a writer).
/// Before, `apps` printed "cannot write to stdout: Broken pipe" and exited 2, and
/// `completions` panicked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_leaves_early_ends_the_client_quietly() {
    let server = TestServer::start().await;
    let url = server.url.clone();
    for args in [
        vec!["apps", "--url", &url],
        vec!["call", "--url", &url, "--list"],
        vec!["completions", "bash"],
    ] {
        // The reader leaves before the client starts, so no write can land in the pipe's
        // buffer first (a fast `completions` used to, and exited 0).
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_axgate"));
        crate::spawned::piped_without_job_env(command.args(&args));
        let mut child = command.stdout(writer).spawn().expect("start the client");
        drop(command);
        let (status, stderr) = tokio::task::spawn_blocking(move || {
            let mut stderr = String::new();
            let mut pipe = child.stderr.take().expect("stderr");
            std::io::Read::read_to_string(&mut pipe, &mut stderr).expect("read stderr");
            (child.wait().expect("wait"), stderr)
        })
        .await
        .expect("the waiting thread");
        assert_eq!(status.code(), Some(141), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}: nothing to say");
    }
}

/// The paths `tree` and `find` print are what a step or a TARGET takes: names where they
/// pick the element, no handles; a path copied from `tree` acts. Before, `tree` printed
/// handles (dead once the command ended) and no paths, `find` index paths.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tree_and_find_print_title_paths_that_targets_take() {
    let server = TestServer::start().await;
    let ran = run_on(&server, "tree", &["Form"]).await;
    ran.expect_code(0);
    for (path, described) in [
        (
            "window[0]/text_field[\"Name\"]",
            "[text_field] \"Name\" = \"\" (60,100 300×24)",
        ),
        (
            "window[0]/button[\"Submit\"]",
            "[button] \"Submit\" (60,400 90×28) press",
        ),
        (
            "window[0]/button[\"Disabled Action\"]",
            "[button] \"Disabled Action\" (260,400 130×28) disabled press",
        ),
    ] {
        let line = ran
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{path} ")))
            .unwrap_or_else(|| panic!("{path} in {ran:?}"));
        assert!(line.ends_with(described), "{described:?} in {line:?}");
    }
    let handle = regex::Regex::new(r"\be\d+\b").expect("regex");
    assert!(!handle.is_match(&ran.stdout), "no handles: {ran:?}");
    let clear = ran
        .stdout
        .lines()
        .find(|l| l.starts_with("window[0]/button[\"Clear\"]"))
        .and_then(|l| l.split("  ").next())
        .expect("the Clear row")
        .to_owned();
    let ran = run_on(&server, "click", &[clear.as_str(), "--app", "Form"]).await;
    ran.expect_code(0);

    let ran = run_on(&server, "find", &["Submit", "--app", "Form"]).await;
    ran.expect_code(0);
    assert!(
        ran.stdout.starts_with(
            "window[0]/button[\"Submit\"]  [button] \"Submit\" (60,400 90×28) press\n"
        ),
        "{ran:?}"
    );
    assert!(!handle.is_match(&ran.stdout), "no handles: {ran:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tree_pages_by_cursor_and_follows_them_all() {
    let server = TestServer::start().await;
    let ran = run_on(&server, "tree", &["Huge", "--max-nodes", "5"]).await;
    ran.expect_code(0);
    let first: Vec<String> = ran.stdout.lines().map(str::to_owned).collect();
    assert!(first.len() <= 5, "{ran:?}");
    let cursor = ran
        .stderr
        .split("--cursor ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the next page's cursor: {ran:?}"))
        .to_owned();
    let ran = run_on(
        &server,
        "tree",
        &["Huge", "--max-nodes", "5", "--cursor", &cursor],
    )
    .await;
    ran.expect_code(0);
    // The next page names its new nodes; the ancestors it resumes under lead it, as context.
    let second: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        second.iter().any(|l| !first.iter().any(|f| f == l)),
        "{ran:?}"
    );
    let all = run_on(&server, "tree", &["Huge", "--max-nodes", "200", "--all"]).await;
    all.expect_code(0);
    assert!(!all.stderr.contains("--cursor"), "{all:?}");
    let rows = all.stdout.lines().count();
    assert!(rows > 200, "every page: {rows} rows");
    let whole = run_on(
        &server,
        "tree",
        &["Huge", "--max-nodes", "200", "--all", "--format", "json"],
    )
    .await;
    let nodes = whole.expect_code(0).json()["nodes"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0);
    // The text's heading line carries the app node; every other node is a row.
    assert_eq!(
        nodes, rows,
        "the JSON pages merged: {nodes} nodes, {rows} rows"
    );
}
