//! `axgate call` and the terminal commands, end to end: the built binary run as a child
//! against a server on a port-0 loopback listener (in this process, the conformance fixture,
//! or the built binary itself). `cli/call.rs`: results, formats, images, exit codes, the
//! session's end (also on Ctrl-C), retries and resume; `cli/tokens.rs`: client credentials
//! against the real oidc-provider, the GitHub Actions OIDC token from a loopback runner
//! endpoint, and the client's variables beside `axgate serve`; `cli/terminal.rs`: `apps`,
//! `tree`, `find`, `click`, `type`, `screenshot` and `completions`; `cli/scenarios.rs`:
//! `axgate test` on the example scenarios (JUnit read by junitparser, artifacts, secrets in no
//! output, `--dry-run`, exit codes) and `axgate://session/audit`; `cli/pictures.rs`: its
//! HTML page, the outlined failure screenshot and baseline images; `cli/hostile.rs`: a
//! hostile server's escape sequences shown escaped, and a keep-alive-only stream given up;
//! `cli/pty.rs`: progress lines at a real terminal (a pseudo-terminal), not with `--quiet` or
//! a pipe.

mod call;
mod credentials;
mod hostile;
mod pictures;
mod pty;
mod scenarios;
mod terminal;
mod tokens;

use std::io::Read as _;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::support::TestServer;

/// How long one run of the client may take.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// A finished run of the client.
#[derive(Debug)]
pub(crate) struct Ran {
    /// The exit code (`None`: killed by a signal).
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Ran {
    /// The standard output as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// Asserts that no output contains `secret`.
    pub(crate) fn never_shown(&self, secret: &str) {
        assert!(
            !self.stdout.contains(secret) && !self.stderr.contains(secret),
            "a secret in the output: {self:?}"
        );
    }

    /// Asserts the exit code, showing the run when it differs.
    pub(crate) fn expect_code(&self, code: i32) -> &Ran {
        assert_eq!(self.code, Some(code), "exit code: {self:?}");
        self
    }
}

/// The client as a child process: `axgate ARGS`, with the test's `AXGATE_*` variables
/// removed (a job may set `AXGATE_*` for its own server) and `env` added; output piped.
pub(crate) fn start(args: &[&str], env: &[(&str, &str)]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_axgate"));
    crate::spawned::piped_without_job_env(command.args(args));
    command.envs(env.iter().copied());
    command.spawn().expect("start the axgate binary")
}

/// Waits (at most [`RUN_LIMIT`]) for a child started by [`start`] and collects its output.
pub(crate) async fn finish(mut child: Child) -> Ran {
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the client") {
            break status;
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the client ran past {RUN_LIMIT:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    Ran {
        code: status.code(),
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

/// Runs `axgate ARGS` to its end.
pub(crate) async fn run(args: &[&str], env: &[(&str, &str)]) -> Ran {
    finish(start(args, env)).await
}

/// Runs `axgate COMMAND --url <server> ARGS…`.
pub(crate) async fn run_on(server: &TestServer, command: &str, args: &[&str]) -> Ran {
    let mut all = vec![command, "--url", &server.url];
    all.extend_from_slice(args);
    run(&all, &[]).await
}

/// A scenario on the Form, named `name`, whose one case types `${secret:VAR}` where it shows
/// (the Email field) and then fails: `field`'s value is not `wrong`. Its teardown clears the
/// form. The failure's message, tree, diff and screenshot would all carry the secret if the
/// runner did not hide it.
pub(crate) fn secret_shown_then_failing(name: &str, var: &str, field: &str, wrong: &str) -> String {
    format!(
        r#"
name: {name}
app: Form
cases:
  - name: a secret typed where it shows
    steps:
      - tool: set_value
        args:
          target: window[0]/text_field["Email"]
          value: ${{secret:{var}}}
      - tool: get_element
        args:
          target: window[0]/text_field["{field}"]
        expect:
          fields:
            element.value: {wrong}
    teardown:
      - tool: click
        args:
          target: window[0]/button["Clear"]
"#
    )
}

/// The server's live sessions (what `axgate_sessions_active` reports).
pub(crate) fn sessions(server: &TestServer) -> usize {
    server.state.sessions.registry().len()
}

/// Waits (at most 10 s) until the server has `want` live sessions.
pub(crate) async fn sessions_become(server: &TestServer, want: usize) {
    for _ in 0..500 {
        if sessions(server) == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "the server has {} sessions, not {want}, after 10 s",
        sessions(server)
    );
}
