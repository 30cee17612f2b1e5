//! The client at a real terminal (issue 32, item 3): `axgate call` run under a
//! pseudo-terminal (util-linux `script`) shows the server's progress of a long `wait_for` on
//! stderr; `--quiet` silences it, and so does a stderr that is a pipe, not a terminal.

use std::process::Command;

use super::{Ran, finish, run};
use crate::support::TestServer;

/// `text` quoted for `sh -c`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Runs `axgate ARGS` under a pseudo-terminal: its stdout and stderr are the terminal, whose
/// output `script` copies to its own stdout (the returned `stdout`, with `\r\n` lines).
async fn at_terminal(args: &[&str]) -> Ran {
    let mut line = quoted(env!("CARGO_BIN_EXE_axgate"));
    for arg in args {
        line.push(' ');
        line.push_str(&quoted(arg));
    }
    let mut command = Command::new("script");
    crate::spawned::piped_without_job_env(command.args(["-q", "-e", "-c", &line, "/dev/null"]));
    finish(command.spawn().expect("util-linux script runs")).await
}

/// A `wait_for` that waits 2 s for an element that never comes: the server sends progress.
fn long_wait(url: &str, quiet: bool) -> Vec<String> {
    let mut args: Vec<String> = ["call", "--url", url]
        .into_iter()
        .map(str::to_owned)
        .collect();
    if quiet {
        args.push("--quiet".into());
    }
    args.extend(
        [
            "wait_for",
            "app=Form",
            "condition=exists",
            r#"target=window[0]/button["Never"]"#,
            "timeout_ms=2000",
        ]
        .map(str::to_owned),
    );
    args
}

fn progress(text: &str) -> bool {
    // `axgate: working: 253 of 2000: waiting`
    text.lines()
        .any(|l| l.contains("working: ") && l.contains("waiting"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_shows_at_a_terminal_and_not_with_quiet_or_a_pipe() {
    let server = TestServer::start().await;
    let args = long_wait(&server.url, false);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let shown = at_terminal(&args).await;
    assert!(
        progress(&shown.stdout.replace('\r', "")),
        "a progress line at the terminal: {shown:?}"
    );
    assert!(
        shown.stdout.contains("timed out"),
        "the run reached the wait's end: {shown:?}"
    );

    let quiet = long_wait(&server.url, true);
    let quiet: Vec<&str> = quiet.iter().map(String::as_str).collect();
    let silenced = at_terminal(&quiet).await;
    assert!(
        silenced.stdout.contains("timed out"),
        "the quiet run reached the wait's end: {silenced:?}"
    );
    assert!(
        !progress(&silenced.stdout.replace('\r', "")),
        "--quiet shows no progress: {silenced:?}"
    );

    let piped = run(&args, &[]).await;
    assert!(
        format!("{}{}", piped.stdout, piped.stderr).contains("timed out"),
        "the piped run reached the wait's end: {piped:?}"
    );
    assert!(
        !progress(&piped.stderr),
        "a pipe gets no progress lines: {piped:?}"
    );
}
