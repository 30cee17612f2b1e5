//! No secret in any log at any level: the built binary, run at `--log-level trace` and,
//! separately, with `RUST_LOG=trace`, sets a secure field, types text and writes the
//! clipboard; none of those generated strings, and no full session id, may appear in what it
//! prints (rmcp's own request/response debug lines quote them; `axgate::logging` caps them).
//! And which tool calls the default level logs at all: acts and failures, not routine reads.
//! A secret typed by name from the environment store reaches no log either.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::json;

use crate::spawned::Axgate;
use crate::support::Client;
use crate::support::wait::until;

/// A string no log line could contain by chance.
fn secret(what: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{what}{nanos:x}zq")
}

/// The server's log once it holds a `tool call` line naming `marker` (a tool or an app)
/// (the log is read by a thread; lines come in order, so the lines before it are there too).
async fn logged(server: &Axgate, marker: &str) -> String {
    let line = |l: &str| l.contains("tool call") && l.contains(marker);
    until(&format!("the log line of the call of {marker}"), || {
        server.log().lines().any(line)
    })
    .await;
    server.log()
}

/// A raw client of the spawned server.
fn client_of(server: &Axgate) -> Client {
    Client {
        http: reqwest::Client::new(),
        url: server.url.clone(),
        session: None,
        next_id: 1,
    }
}

async fn drive(server: &Axgate) -> (Vec<String>, String) {
    let mut c = client_of(server);
    c.initialize().await;
    let session = c.session.clone().expect("a session id");
    let (password, typed, clip) = (secret("pw"), secret("typed"), secret("clip"));
    for (tool, args) in [
        (
            "set_value",
            json!({"app": "Form", "target": "window[0]/secure_text_field[0]", "value": password}),
        ),
        (
            "type_text",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "text": typed}),
        ),
        ("write_clipboard", json!({"text": clip})),
        ("read_clipboard", json!({})),
        ("get_tree", json!({"app": "Form"})),
    ] {
        let result = c.call(tool, args.clone()).await;
        assert_eq!(result["isError"], false, "{tool} {args}: {result}");
    }
    // Last, a call that fails, so that it is logged at info whatever the level of reads.
    let missing = c.call("get_tree", json!({"app": "Nowhere"})).await;
    assert_eq!(missing["isError"], true, "{missing}");
    logged(server, "Nowhere").await;
    (vec![password, typed, clip], session)
}

/// The arguments and the environment of one run of the binary.
type Run = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_or_session_id_in_logs_at_trace_level_or_with_rust_log() {
    let runs: [Run; 3] = [
        (&["--backend", "demo", "--log-level", "trace"], &[]),
        // The human format too, which colours its fields when written to a terminal.
        (
            &["--backend", "demo", "--log-format", "human"],
            &[("RUST_LOG", "trace")],
        ),
        (
            &["--backend", "demo", "--log-level", "trace,rmcp=trace"],
            &[("RUST_LOG", "rmcp=trace")],
        ),
    ];
    for (args, env) in runs {
        let server = Axgate::serve_with(args, env);
        let (secrets, session) = drive(&server).await;
        let log = server.log();
        assert!(
            log.contains("\"tool call\"") || log.contains("tool call"),
            "{args:?} {env:?}: the run logged its calls:\n{log}"
        );
        for s in &secrets {
            assert!(
                !log.contains(s.as_str()),
                "{args:?} {env:?}: a secret reached the log:\n{log}"
            );
        }
        // Written to a pipe, not a terminal: plain text, no colour codes (in human format the
        // old code wrote them).
        assert!(
            !log.contains('\u{1b}'),
            "{args:?} {env:?}: ANSI escape codes in a log that is not a terminal:\n{log}"
        );
        assert!(
            !log.contains(&session),
            "{args:?} {env:?}: a full session id reached the log:\n{log}"
        );
    }
}

/// At the default level (`info`) a read that went well leaves no `tool call` line (a busy
/// Mac serves thousands a second), while an act and a failed read each leave one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routine_reads_are_logged_at_debug_and_acts_and_failures_at_info() {
    let server = Axgate::serve(&["--backend", "demo"]);
    let mut c = client_of(&server);
    c.initialize().await;
    let listed = c.call("list_apps", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
    let missing = c.call("get_tree", json!({"app": "Photoshop"})).await;
    assert_eq!(missing["isError"], true, "{missing}");
    let set = c
        .call(
            "set_value",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": "x"}),
        )
        .await;
    assert_eq!(set["isError"], false, "{set}");
    let log = logged(&server, "set_value").await;
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("tool call")).collect();
    let of = |tool: &str| lines.iter().filter(|l| l.contains(tool)).count();
    assert_eq!(
        of("list_apps"),
        0,
        "a routine read was logged at info:\n{log}"
    );
    assert_eq!(of("get_tree"), 1, "a failed read was not logged:\n{log}");
    assert_eq!(of("set_value"), 1, "an act was not logged:\n{log}");
}

/// Issue 33, finding 7: a caller's newline, ESC and NUL in the `app` argument reached the
/// log raw, so a read-only token could forge a log line. Every event is one line, its
/// control characters escaped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_control_characters_cannot_forge_or_hide_a_log_line() {
    let server = Axgate::serve(&["--backend", "demo"]);
    let mut c = client_of(&server);
    c.initialize().await;
    let app = "Nowhere\n2026-11-27T00:00:00Z  INFO forged: admin logged in\u{1b}[2J\u{1b}]0;t\u{7}\u{0}\r";
    let missing = c.call("get_tree", json!({"app": app})).await;
    assert_eq!(missing["isError"], true, "{missing}");
    let log = logged(&server, "get_tree").await;
    assert!(
        log.lines()
            .any(|l| l.contains("tool call") && l.contains("Nowhere\\n2026")),
        "the call's line, escaped:\n{log}"
    );
    assert!(
        !log.lines()
            .any(|l| l.starts_with("2026-11-27T00:00:00Z  INFO forged")),
        "a forged line:\n{log}"
    );
    let raw: Vec<char> = log
        .chars()
        .filter(|&c| c.is_control() && c != '\n')
        .collect();
    assert!(raw.is_empty(), "raw control characters {raw:?} in:\n{log}");
}

/// Issue 32, item 7: a secret typed by name from the environment store (the built binary,
/// `secrets.source = "env"`) reaches the app's password field and no log line at trace
/// level, nor the call's result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_from_the_env_store_reaches_no_log() {
    let value = secret("envpw");
    let server = Axgate::serve_with(
        &["--backend", "demo", "--log-level", "trace"],
        &[
            ("AXGATE_SECRETS_SOURCE", "env"),
            ("AXGATE_POLICY_SECRETS", "CI_PW"),
            ("AXGATE_SECRET_CI_PW", value.as_str()),
        ],
    );
    let mut c = client_of(&server);
    c.initialize().await;
    for tool in ["type_text", "set_value"] {
        let result = c
            .call(
                tool,
                json!({"app": "Form", "target": "window[0]/secure_text_field[0]", "secret": "CI_PW"}),
            )
            .await;
        assert_eq!(result["isError"], false, "{tool}: {result}");
        assert!(!result.to_string().contains(&value), "{tool}: {result}");
    }
    let log = logged(&server, "set_value").await;
    assert!(
        log.contains("tool call"),
        "the run logged its calls:\n{log}"
    );
    assert!(!log.contains(&value), "the secret reached the log:\n{log}");
}
