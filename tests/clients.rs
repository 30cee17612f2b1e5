//! Real MCP clients against a real server: the official Python SDK (2.x) and TypeScript SDK
//! (1.x) each initialize a session on an in-process axgate (demo backend), list the tools, read
//! the Form app's tree, press its "Subscribe" check box, see the change, and end the session.
//!
//! The client scripts live in `tests/clients/`; `scripts/test-env` installs the SDKs they need
//! (a venv under `target/test-env`, `node_modules` under `tests/clients/ts`). When those are
//! missing these tests fail, never skip: CI runs `scripts/test`, which prepares them first.

mod support;

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::TestServer;

/// How long one client script may take, SDK start-up included.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(120);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Fails the test, naming what is missing, unless `path` exists.
fn require(path: &Path, what: &str) {
    assert!(
        path.exists(),
        "{what} is missing ({}): run scripts/test-env first",
        path.display()
    );
}

/// What a finished script left behind.
struct Run {
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Runs `program args… url` with the repository as working directory, capturing its output,
/// and kills it after [`SCRIPT_TIMEOUT`]. The server lives on this runtime, so the wait polls
/// instead of blocking a worker thread.
async fn run_script(program: &Path, args: &[PathBuf], url: &str) -> Run {
    let mut out = tempfile::tempfile().expect("temp file for stdout");
    let mut err = tempfile::tempfile().expect("temp file for stderr");
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .arg(url)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("clone stdout file"))
        .stderr(err.try_clone().expect("clone stderr file"))
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e}; run scripts/test-env first",
                program.display()
            )
        });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the client script") {
            break status;
        }
        if started.elapsed() > SCRIPT_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            let (stdout, stderr) = (read_back(&mut out), read_back(&mut err));
            panic!(
                "{} {args:?} {url} did not finish within {SCRIPT_TIMEOUT:?}\n\
                 --- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
                program.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    Run {
        status,
        stdout: read_back(&mut out),
        stderr: read_back(&mut err),
        took: started.elapsed(),
    }
}

fn read_back(file: &mut std::fs::File) -> String {
    let mut bytes = Vec::new();
    file.rewind().expect("rewind captured output");
    file.read_to_end(&mut bytes).expect("read captured output");
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Starts a fresh server (the demo desktop's state is per server), runs the client script
/// against it, and requires exit status 0 and a clean shutdown afterwards.
async fn drive_the_form(name: &str, program: &Path, script: PathBuf) {
    require(&script, "the client script");
    let server = TestServer::start().await;
    let run = run_script(program, &[script], &server.url).await;
    let missing_sdk = ["ModuleNotFoundError", "ERR_MODULE_NOT_FOUND"]
        .iter()
        .any(|m| run.stderr.contains(m));
    let hint = if missing_sdk {
        " (the SDK is not installed: run scripts/test-env first)"
    } else {
        ""
    };
    let report = format!(
        "{name} client: {}{hint} after {:.1} s\n--- stdout ---\n{}\n--- stderr ---\n{}",
        run.status,
        run.took.as_secs_f64(),
        run.stdout,
        run.stderr
    );
    assert!(run.status.success(), "{report}");
    assert!(
        run.stdout.contains("PASS"),
        "exit 0 but no PASS line\n{report}"
    );
    println!("{report}");
    server.shutdown().await.expect("server stops cleanly");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_drives_the_form() {
    let python = repo().join("target/test-env/venv/bin/python");
    require(&python, "the Python SDK venv");
    let script = repo().join("tests/clients/python/client_check.py");
    drive_the_form("python", &python, script).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_drives_the_form() {
    require(
        &repo().join("tests/clients/ts/node_modules/@modelcontextprotocol/sdk/package.json"),
        "the TypeScript SDK (tests/clients/ts/node_modules)",
    );
    let script = repo().join("tests/clients/ts/client_check.mjs");
    drive_the_form("typescript", Path::new("node"), script).await;
}
