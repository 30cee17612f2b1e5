//! `axgate call`: structured results and text, `key=value` and JSON arguments, images to
//! files, the exit codes (tool error, usage, connection, auth), `--list`, the session ended
//! with DELETE (also on Ctrl-C), 503 + Retry-After and "rate limited … retry after" retried,
//! and a dropped SSE stream resumed with `Last-Event-ID`.

use std::time::Duration;

use axgate::http::auth::tokens;

use super::{finish, run, run_on, sessions, sessions_become, start};
use crate::support::{TestServer, config, metric};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_prints_structured_content_and_key_values_become_json() {
    let server = TestServer::start().await;
    // max_results=2 is the number 2 (a string would be refused), role=button a string.
    let ran = run_on(
        &server,
        "call",
        &["find", "app=Form", "role=button", "max_results=2"],
    )
    .await;
    let found = ran.expect_code(0).json();
    let matches = found["matches"].as_array().expect("matches");
    assert_eq!(matches.len(), 2, "{found}");
    assert_eq!(matches[0]["title"], "Submit");
    assert_eq!(found["truncated"], true, "four buttons, two shown");
    // One JSON object, then a word.
    let ran = run_on(
        &server,
        "call",
        &["get_tree", r#"{"app": "Form", "nodes": true}"#, "depth=1"],
    )
    .await;
    let tree = ran.expect_code(0).json();
    assert_eq!(tree["nodes"][0]["role"], "application", "{tree}");
    // --format text prints the tool's own lines.
    let ran = run_on(
        &server,
        "call",
        &["find", "app=Form", "title=Submit", "--format", "text"],
    )
    .await;
    ran.expect_code(0);
    assert!(
        ran.stdout.starts_with("[button] \"Submit\"") && ran.stdout.contains("window[0]/button[0]"),
        "{ran:?}"
    );
    // quiet prints nothing.
    let ran = run_on(&server, "call", &["list_apps", "--format", "quiet"]).await;
    assert_eq!(ran.expect_code(0).stdout, "");
    // Every run ended its session.
    assert_eq!(sessions(&server), 0, "no session left behind");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_of_failure_has_its_exit_code_and_says_why_on_stderr() {
    let secret = tokens::generate().expect("token");
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{}\", scopes = [\"axgate:read\"] }}]\n",
        tokens::hex(&tokens::sha256(&secret))
    )))
    .await;
    let token = ["--token", secret.as_str()];
    // The tool ran and failed: 1, its message on stderr, nothing on stdout.
    let ran = run_on(
        &server,
        "call",
        &[&token[..], &["get_element", "app=Form", "target=nope"]].concat(),
    )
    .await;
    ran.expect_code(1);
    assert_eq!(ran.stdout, "");
    assert!(ran.stderr.contains("unknown role \"nope\""), "{ran:?}");
    // Usage: an unknown tool (the server's message names the tools), a bad word.
    let ran = run_on(&server, "call", &[&token[..], &["no_such_tool"]].concat()).await;
    ran.expect_code(2);
    assert!(
        ran.stderr.contains("unknown tool \"no_such_tool\""),
        "{ran:?}"
    );
    let ran = run_on(&server, "call", &[&token[..], &["find", "Form"]].concat()).await;
    ran.expect_code(2);
    assert!(ran.stderr.contains("write key=value"), "{ran:?}");
    // Authentication: no token, a wrong token, a scope the token lacks.
    let ran = run_on(&server, "call", &["list_apps"]).await;
    ran.expect_code(4);
    assert!(ran.stderr.contains("refused the credentials"), "{ran:?}");
    let ran = run_on(&server, "call", &["--token", "wrong", "list_apps"]).await;
    ran.expect_code(4);
    assert!(
        !ran.stderr.contains("wrong"),
        "the token is never printed: {ran:?}"
    );
    let ran = run_on(
        &server,
        "call",
        &[
            &token[..],
            &["click", "app=Form", "target=window[0]/button[0]"],
        ]
        .concat(),
    )
    .await;
    ran.expect_code(4);
    assert!(
        ran.stderr.contains("axgate:act"),
        "names the scope: {ran:?}"
    );
    // Connection: nothing listens on this machine's port. That no wait changes, so it fails
    // at once (well within the default --retry-for of 30 s) and says what to do.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", closed.local_addr().expect("addr"));
    drop(closed);
    let started = std::time::Instant::now();
    let ran = run(&["call", "--url", &url, "list_apps"], &[]).await;
    ran.expect_code(3);
    assert!(
        ran.stderr.contains("nothing listens there")
            && ran.stderr.contains("Is `axgate serve` running?"),
        "{ran:?}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "it waited: {:?}",
        started.elapsed()
    );
    // --help names the variable but never shows the token it holds.
    let ran = run(&["call", "--help"], &[("AXGATE_CLIENT_TOKEN", &secret)]).await;
    ran.expect_code(0);
    assert!(ran.stdout.contains("AXGATE_CLIENT_TOKEN"), "{ran:?}");
    assert!(
        !ran.stdout.contains(&secret),
        "the token in --help: {ran:?}"
    );
    // A misspelt client variable.
    let ran = run(&["call", "list_apps"], &[("AXGATE_CLIENT_TOKN", "x")]).await;
    ran.expect_code(2);
    assert!(
        ran.stderr.contains("$AXGATE_CLIENT_TOKN") && ran.stderr.contains("$AXGATE_CLIENT_TOKEN"),
        "{ran:?}"
    );
    assert_eq!(sessions(&server), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_each_tool_with_its_first_line() {
    let server = TestServer::start().await;
    let ran = run_on(&server, "call", &["--list", "--format", "text"]).await;
    ran.expect_code(0);
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(lines.len(), 35, "every tool, one line each: {ran:?}");
    assert!(
        lines[0].starts_with("list_apps ") && lines[0].contains("Lists running apps"),
        "{ran:?}"
    );
    let ran = run_on(&server, "call", &["--list"]).await;
    let tools = ran.expect_code(0).json();
    assert!(
        tools
            .as_array()
            .expect("a list")
            .iter()
            .any(|t| t["name"] == "screenshot"),
        "{tools}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_are_written_to_files_whose_names_are_printed() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().to_str().expect("utf-8");
    let ran = run_on(
        &server,
        "call",
        &["screenshot", "app=Form", "--output-dir", out],
    )
    .await;
    let printed = ran.expect_code(0).json();
    let image = &printed["content"][0];
    assert_eq!(image["type"], "image", "{printed}");
    assert!(
        image.get("data").is_none(),
        "no base64 on the terminal: {printed}"
    );
    let file = image["file"].as_str().expect("a file name");
    assert!(file.starts_with(out) && file.ends_with(".png"), "{file}");
    let bytes = std::fs::read(file).expect("the file");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    let ran = run_on(
        &server,
        "call",
        &[
            "screenshot",
            "app=Form",
            "--output-dir",
            out,
            "--format",
            "text",
        ],
    )
    .await;
    ran.expect_code(0);
    assert!(
        ran.stdout.contains("screenshot of Form") && ran.stdout.contains(&format!("wrote {out}")),
        "{ran:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_ends_the_session_before_exiting() {
    let server = TestServer::start().await;
    let child = start(
        &[
            "call",
            "--url",
            &server.url,
            "wait_for",
            "app=Form",
            "condition=exists",
            r#"target=window[0]/button["Never"]"#,
            "timeout_ms=30000",
        ],
        &[],
    );
    sessions_become(&server, 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await; // the call is waiting now
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let ran = finish(child).await;
    ran.expect_code(130);
    assert!(
        ran.stderr.contains("interrupted; the session was ended"),
        "{ran:?}"
    );
    assert_eq!(sessions(&server), 0, "DELETE was sent before exiting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_503_with_retry_after_is_retried_until_the_machine_is_free() {
    let server =
        TestServer::with_config(config("[fleet]\nexclusive = true\nretry_after_secs = 1\n")).await;
    let mut holder = server.client();
    holder.initialize().await;
    // Without retries the refusal is the answer: exit 3, the server's reason.
    let ran = run_on(&server, "call", &["--retry-attempts", "1", "list_apps"]).await;
    ran.expect_code(3);
    assert!(
        ran.stderr.contains("HTTP 503") && ran.stderr.contains("fleet.exclusive"),
        "{ran:?}"
    );
    let refused = "axgate_busy_refusals_total{reason=\"exclusive\"}";
    let before = metric(&server, refused).await;
    let child = start(&["call", "--url", &server.url, "list_apps"], &[]);
    for _ in 0..250 {
        if metric(&server, refused).await > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        metric(&server, refused).await > before,
        "the client was refused at first"
    );
    let end = holder
        .http
        .delete(&holder.url)
        .header("mcp-session-id", holder.session.clone().unwrap());
    assert!(end.send().await.expect("DELETE").status().is_success());
    let ran = finish(child).await;
    ran.expect_code(0);
    assert_eq!(ran.json()["apps"][0]["name"], "Form");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limited_call_is_retried_after_the_hint() {
    // One call per second: `click` by a query makes two (find, then click).
    let server = TestServer::with_config(config("[limits]\ncalls_per_second = 1\n")).await;
    let ran = run_on(
        &server,
        "click",
        &["Submit", "--app", "Form", "--format", "json"],
    )
    .await;
    let clicked = ran.expect_code(0).json();
    assert_eq!(clicked["element"]["title"], "Submit", "{clicked}");
    assert_eq!(
        crate::support::app_value(&server, "Form", "status"),
        Some(axgate::ax::AxValue::Text("Submitted: ".into()))
    );
    // With one attempt the refusal is the answer: a POST over the rate is refused as it
    // arrives (429), so exit 3 (busy past the retry budget) with the server's words.
    let ran = run_on(
        &server,
        "click",
        &["Submit", "--app", "Form", "--retry-attempts", "1"],
    )
    .await;
    ran.expect_code(3);
    assert!(
        ran.stderr.contains("rate limited") && ran.stderr.contains("retry after"),
        "{ran:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_is_resumed_with_last_event_id() {
    // The conformance fixture's test_reconnection closes its response stream before the
    // result; the result comes only on a GET resuming from the last event id.
    let fixture = crate::conformance::fixture();
    let ran = run(
        &[
            "call",
            "--url",
            &fixture.url,
            "test_reconnection",
            "--format",
            "text",
        ],
        &[],
    )
    .await;
    ran.expect_code(0);
    assert_eq!(
        ran.stdout.trim(),
        "Reconnection test completed successfully",
        "{ran:?}"
    );
}
