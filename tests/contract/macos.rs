//! The contract suite on the macOS backend, for a Mac (compiled for Apple targets only, and
//! type-checked here by `.ci/apple-check`): the AppKit fixture
//! `tests/contract/macos/ContractApp.swift`, built into an app bundle
//! (`CONTRACT_APP`, default `target/contract/ContractApp.app`; docs/TESTING.md shows the
//! `swiftc` line), runs as a child whose stdout is its change log; axgate runs as
//! `axgate serve --backend macos`, a child process, because the macOS backend needs the main
//! thread's run loop, which a test thread does not have. The Mac needs the Accessibility and
//! Screen Recording grants for the `axgate` binary (docs/MACOS.md).
//!
//! With `AXGATE_CONTRACT_SERVER` set (an MCP URL such as `http://127.0.0.1:8741/mcp`), the
//! contracts that need no configuration of their own run against that server instead: the
//! LaunchAgent that `deploy/launchd/install.sh` installed, as `.github/workflows/macos-e2e.yml`
//! does, so the grants of the installed binary, the process macOS holds responsible, are what
//! the suite proves. Its config must allow what [`CONFIG`] allows. A contract with a
//! configuration of its own still spawns its server.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use axgate::ax::{Backend, Capabilities};
use axgate::platform::macos::MacBackend;

use crate::run::{AppSide, Run, Target};
use crate::spawned::Axgate;
use crate::support::change_log::ChangeLog;

/// The macOS backend's contract target.
pub(crate) struct Macos;

/// The fixture's process name, which is its app name.
const APP: &str = "ContractApp";

/// The configuration the spawned server reads: what [`crate::run::config`] gives in-process.
const CONFIG: &str = "[limits]\ncalls_per_second = 100000\nwrites_per_second = 100000\n\
                      [policy]\nunconfirmed = \"allow\"\n";

fn bundle() -> PathBuf {
    std::env::var_os("CONTRACT_APP").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/contract/ContractApp.app"),
        PathBuf::from,
    )
}

/// The running server the contracts use, if one is named (`AXGATE_CONTRACT_SERVER`).
fn installed_server() -> Option<String> {
    std::env::var("AXGATE_CONTRACT_SERVER")
        .ok()
        .filter(|url| !url.is_empty())
}

impl Target for Macos {
    async fn start(&self, toml: &str) -> Run {
        let app = Fixture::start();
        // `key_receiver` has no tool: the flag is checked on a backend of this process.
        let direct = Arc::new(MacBackend::new());
        if let Some(url) = installed_server().filter(|_| toml.is_empty()) {
            return Run::new(url, APP, Box::new(app), Some(direct), Vec::new()).await;
        }
        let dir = tempfile::tempdir().expect("a temporary folder");
        let config = dir.path().join("axgate.toml");
        std::fs::write(&config, format!("{CONFIG}{toml}")).expect("write the config");
        let config = config.to_str().expect("a UTF-8 path").to_owned();
        let server = Axgate::serve(&["--backend", "macos", "--config", &config]);
        Run::new(
            server.url.clone(),
            APP,
            Box::new(app),
            Some(direct),
            vec![Box::new(server), Box::new(dir)],
        )
        .await
    }

    fn launch_spec(&self) -> String {
        bundle().display().to_string()
    }

    fn capabilities(&self) -> Capabilities {
        MacBackend::new().capabilities()
    }
}

/// The fixture app as a child, with its change log and its command channel.
struct Fixture {
    child: Child,
    stdin: Option<ChildStdin>,
    log: ChangeLog,
}

impl Fixture {
    fn start() -> Fixture {
        let program = bundle().join("Contents/MacOS").join(APP);
        let mut child = Command::new(&program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start the contract fixture {} ({e}): build it first (docs/TESTING.md)",
                    program.display()
                )
            });
        let fixture = Fixture {
            stdin: child.stdin.take(),
            log: ChangeLog::follow(&mut child),
            child,
        };
        fixture.wait_line("ready");
        fixture
    }

    fn wait_line(&self, line: &str) {
        self.log
            .expect(line, Duration::from_secs(20), "the fixture");
    }
}

impl AppSide for Fixture {
    fn field(&self, field: &str) -> Option<String> {
        let prefix = format!("{field}=");
        self.log
            .lines()
            .iter()
            .rev()
            .find_map(|l| l.strip_prefix(&prefix).map(str::to_owned))
    }

    fn hang(&mut self) -> String {
        let stdin = self.stdin.as_mut().expect("stdin");
        writeln!(stdin, "freeze 8").expect("write to the fixture");
        stdin.flush().expect("flush");
        self.wait_line("freeze-start");
        APP.to_owned()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.kill();
    }
}

every_contract!(Macos);
