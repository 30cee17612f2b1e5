//! Running a client script and reading its structured output: each script prints one JSON
//! line per step (`{"step": "call", ...}`), which the tests assert on field by field.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::spawned::Captured;
pub use crate::spawned::{repo, require};

/// How long one client script may take, SDK start-up included.
pub const SCRIPT_TIMEOUT: Duration = Duration::from_secs(240);

/// What a finished script left behind.
pub struct Run {
    pub name: String,
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
}

impl Run {
    /// The whole output, for failure messages.
    pub fn report(&self) -> String {
        let missing_sdk = ["ModuleNotFoundError", "ERR_MODULE_NOT_FOUND"]
            .iter()
            .any(|m| self.stderr.contains(m));
        let hint = if missing_sdk {
            " (the SDK is not installed: run scripts/test-env first)"
        } else {
            ""
        };
        format!(
            "{} client: {}{hint} after {:.1} s\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.name,
            self.status,
            self.took.as_secs_f64(),
            self.stdout,
            self.stderr
        )
    }

    /// The JSON lines of stdout, in order.
    pub fn steps(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| l.starts_with('{'))
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The one line of step `name`; fails the test (with the whole output) when absent.
    pub fn step(&self, name: &str) -> Value {
        let found: Vec<Value> = self
            .steps()
            .into_iter()
            .filter(|s| s["step"] == name)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "expected one {name:?} step\n{}",
            self.report()
        );
        found.into_iter().next().unwrap_or_default()
    }
}

/// The steps every client takes: it exited 0 ending with `pass`, initialized with axgate on
/// 2025-11-25, listed exactly the served tools, and pressed the check box with the effect read
/// back (`before` off, `pressed` and `after` on). Returns the `initialize` step.
pub fn check_common_steps(run: &Run) -> Value {
    let report = run.report();
    assert!(run.status.success(), "{report}");
    let last = run.steps().last().map(|s| s["step"].clone());
    assert_eq!(last, Some(json!("pass")), "{report}");
    let hello = run.step("initialize");
    assert_eq!(hello["protocol"], "2025-11-25", "{report}");
    assert_eq!(hello["server"], "axgate", "{report}");
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(hello["server_version"], version, "{report}");
    let listed: BTreeSet<String> =
        serde_json::from_value(run.step("tools/list")["tools"].clone()).expect("tool names");
    // Read and act scopes over HTTP, and stdio (no sessions to administer): every tool but the
    // admin ones.
    let served: BTreeSet<String> = axgate::mcp::tools::all()
        .iter()
        .filter(|t| !t.profile.effect.administers())
        .map(|t| t.name.to_owned())
        .collect();
    assert_eq!(listed, served, "tools/list as the client saw it\n{report}");
    let call = run.step("call");
    assert_eq!(
        (&call["before"], &call["pressed"], &call["after"]),
        (&json!(false), &json!(true), &json!(true)),
        "the press took effect and reads back\n{report}"
    );
    hello
}

/// Runs `program args…` with the repository as working directory and `env` added, capturing
/// its output, and kills it after [`SCRIPT_TIMEOUT`]. The server lives on this runtime, so the
/// wait polls instead of blocking a worker thread.
pub async fn run_script(name: &str, program: &Path, args: &[PathBuf], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(program);
    command.args(args).current_dir(repo());
    // axgate refuses unknown AXGATE_* variables; cargo sets some for tests.
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("AXGATE_")) {
        command.env_remove(key);
    }
    command.envs(env.iter().copied());
    let mut child = Captured::spawn(&mut command, program);
    let what = format!("{} {args:?}", program.display());
    let status = loop {
        if let Some(status) = child.exited(&what, SCRIPT_TIMEOUT) {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    let (stdout, stderr, took) = child.output();
    Run {
        name: name.to_owned(),
        status,
        stdout,
        stderr,
        took,
    }
}
