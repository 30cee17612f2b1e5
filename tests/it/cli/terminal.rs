//! The terminal commands, once each, against the demo apps: `apps`, `tree`, `find`, `click`
//! (by query and by path; a handle refused), `type`, `screenshot`, and `completions`.

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
    assert!(lines[0].starts_with("[application] \"Form\""), "{ran:?}");
    assert!(lines[1].contains("[window] \"Demo Form\""), "{ran:?}");
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
        let mut child = super::start(&args, &[]);
        // The reader leaves before anything is written.
        drop(child.stdout.take());
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
