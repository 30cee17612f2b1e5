//! AppleScript for Mac2 suites: `appium:prerun` (before a session starts; a failure means no
//! session), `appium:postrun` (when it ends) and `macos: appleScript` (its output answered).
//! A script can do anything the logged-in user can (`do shell script`), so it runs only when
//! an operator sets `webdriver.allow_scripts`, never in read-only mode, and only on macOS
//! (`/usr/bin/osascript`); each run is audited with the script's size, never its text or
//! output (either may hold secrets), and neither is logged.
//!
//! Mac2's shape is kept: `{"command": "…"}` (one statement, `osascript -e`) or `{"script":
//! "…"}` (a whole script, given on stdin), `language` `applescript` (default) or `javascript`,
//! `timeout` in ms, `cwd`. The output is bounded (1 MiB) and so is the time (10 minutes at
//! most); a script past its time is killed.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::audit::{AuditEvent, Outcome, session_tag};
use crate::identity::{Principal, Scope};
use crate::mcp::server::Shared;
use axgate_webdriver::{ErrorCode, WdError};

/// Where macOS keeps its script runner.
const OSASCRIPT: &str = "/usr/bin/osascript";
/// The most output a script may answer with.
const MAX_OUTPUT: u64 = 1 << 20;
/// The most of its error output kept for the error message.
const MAX_ERROR: u64 = 4 << 10;
/// The longest a script may be.
const MAX_SOURCE: usize = 256 << 10;
/// The time a script gets unless it says (Mac2's default), and the most it may ask for.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// One AppleScript (or JavaScript for Automation) run, as Mac2 takes it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Script {
    source: String,
    /// One statement given with `-e` (Mac2's `command`), else a whole script on stdin.
    statement: bool,
    javascript: bool,
    timeout: Duration,
    cwd: Option<PathBuf>,
}

fn bad(message: String) -> WdError {
    WdError::new(ErrorCode::InvalidArgument, message)
}

impl Script {
    /// The script of `args` (`what` names where it came from in errors).
    pub(super) fn from_args(args: &Value, what: &str) -> Result<Script, WdError> {
        let text = |key: &str| args.get(key).and_then(Value::as_str);
        let (source, statement) = match (text("command"), text("script")) {
            (Some(command), None) => (command, true),
            (None, Some(script)) => (script, false),
            _ => {
                return Err(bad(format!(
                    "{what} takes {{\"command\": \"…\"}} (one statement) or {{\"script\": \"…\"}} \
                     (a whole script), exactly one of them"
                )));
            }
        };
        if source.trim().is_empty() || source.len() > MAX_SOURCE {
            return Err(bad(format!(
                "{what}: the script is empty or longer than {MAX_SOURCE} bytes"
            )));
        }
        let javascript = match text("language").map(str::to_ascii_lowercase).as_deref() {
            None | Some("applescript") => false,
            Some("javascript") => true,
            Some(_) => {
                return Err(bad(format!(
                    "{what}: language is applescript (the default) or javascript"
                )));
            }
        };
        let timeout = match args.get("timeout") {
            None | Some(Value::Null) => DEFAULT_TIMEOUT,
            Some(ms) => {
                let ms = ms.as_u64().filter(|ms| *ms > 0).ok_or_else(|| {
                    bad(format!(
                        "{what}: timeout is a positive number of milliseconds"
                    ))
                })?;
                Duration::from_millis(ms).min(MAX_TIMEOUT)
            }
        };
        Ok(Script {
            source: source.to_owned(),
            statement,
            javascript,
            timeout,
            cwd: text("cwd").map(PathBuf::from),
        })
    }

    /// The script's size, for the audit line.
    pub(super) fn len(&self) -> usize {
        self.source.len()
    }

    /// The arguments of `osascript` for this script (a whole script comes on stdin).
    fn arguments(&self) -> Vec<&str> {
        let language = if self.javascript {
            "JavaScript"
        } else {
            "AppleScript"
        };
        let mut args = vec!["-l", language];
        if self.statement {
            args.extend(["-e", self.source.as_str()]);
        }
        args
    }

    /// Runs the script with `osascript`; its standard output, without the last newline.
    pub(super) async fn run(&self) -> Result<String, WdError> {
        if !cfg!(target_os = "macos") {
            return Err(WdError::new(
                ErrorCode::UnsupportedOperation,
                "AppleScript runs on macOS only: this axgate runs elsewhere; leave the script out \
                 or run the suite against a Mac",
            ));
        }
        let mut command = Command::new(OSASCRIPT);
        command.args(self.arguments());
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        let stdin = (!self.statement).then_some(self.source.as_bytes());
        bounded(command, stdin, self.timeout).await
    }
}

/// Whether `principal` may run scripts: the operator's `webdriver.allow_scripts`, not in
/// read-only mode, and the act scope (a script acts, and more).
pub(super) fn admit(
    allowed: bool,
    shared: &Shared,
    principal: Option<&Principal>,
) -> Result<(), WdError> {
    let refused = |why: &str| WdError::new(ErrorCode::UnsupportedOperation, why.to_owned());
    if !allowed {
        return Err(refused(
            "AppleScript is refused unless an operator sets webdriver.allow_scripts (a script \
             can run anything the logged-in user can); leave it out",
        ));
    }
    if shared.policy.load().read_only {
        return Err(refused(
            "AppleScript is refused in read-only mode (policy.read_only); leave it out",
        ));
    }
    if principal.is_some_and(|p| !p.allows(Scope::Act)) {
        return Err(WdError::new(
            ErrorCode::InsufficientScope,
            "AppleScript needs the axgate:act scope; use a token that has it",
        ));
    }
    Ok(())
}

/// Runs `script` for the WebDriver session `session` of `principal` (`what`: `prerun`,
/// `postrun`, `appleScript`), with its audit line: the script's size and the outcome, never
/// its text or output.
pub(super) async fn run_audited(
    shared: &Shared,
    principal: &str,
    session: &str,
    what: &'static str,
    script: &Script,
) -> Result<String, WdError> {
    let started = std::time::Instant::now();
    let result = script.run().await;
    if let Some(audit) = &shared.audit {
        let outcome = match &result {
            Ok(_) => Outcome::Ok,
            Err(e) if e.code == ErrorCode::ScriptTimeout => Outcome::Timeout,
            Err(_) => Outcome::ToolError,
        };
        let mut event = AuditEvent::new("webdriver:apple_script", outcome);
        event.principal = principal.to_owned();
        event.session = Some(session_tag(session));
        event.duration = started.elapsed();
        event.redacted.insert("run".into(), what.into());
        event
            .redacted
            .insert("script_bytes".into(), script.len().into());
        if let Err(error) = audit.record(event).await {
            tracing::error!(%error, "audit line of a script not written");
        }
    }
    result
}

/// Runs `command` with `stdin`, at most `timeout`, keeping at most [`MAX_OUTPUT`] bytes of its
/// output: the output, or an error with the exit status and the start of its error output.
/// The child is waited for on a blocking thread (the server's tokio has no process driver).
async fn bounded(
    command: Command,
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<String, WdError> {
    let stdin = stdin.map(<[u8]>::to_vec);
    tokio::task::spawn_blocking(move || bounded_blocking(command, stdin, timeout))
        .await
        .map_err(|e| {
            WdError::new(
                ErrorCode::JavascriptError,
                format!("the script runner stopped: {e}"),
            )
        })?
}

/// Reads all of `from`, keeping its first `cap` bytes (the rest is drained, so the child
/// never blocks on a full pipe).
fn keep(mut from: impl Read + Send + 'static, cap: u64) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = (&mut from).take(cap).read_to_end(&mut kept);
        let _ = std::io::copy(&mut from, &mut std::io::sink());
        kept
    })
}

fn bounded_blocking(
    mut command: Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
) -> Result<String, WdError> {
    let failed = |why: String| WdError::new(ErrorCode::JavascriptError, why);
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("the script runner did not start: {e}")))?;
    if let (Some(mut pipe), Some(bytes)) = (child.stdin.take(), stdin) {
        // A script that exits without reading its input is its own answer.
        thread::spawn(move || pipe.write_all(&bytes));
    }
    let output = keep(child.stdout.take().expect("piped"), MAX_OUTPUT + 1);
    let error = keep(child.stderr.take().expect("piped"), MAX_ERROR);
    let until = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(WdError::new(
                    ErrorCode::ScriptTimeout,
                    format!(
                        "the script ran past its {} ms and was stopped; give a larger timeout \
                         (at most {} ms)",
                        timeout.as_millis(),
                        MAX_TIMEOUT.as_millis()
                    ),
                ));
            }
            Err(e) => return Err(failed(format!("waiting for the script: {e}"))),
        }
    };
    let (output, error) = (
        output.join().unwrap_or_default(),
        error.join().unwrap_or_default(),
    );
    if output.len() as u64 > MAX_OUTPUT {
        return Err(failed(format!(
            "the script's output is larger than {MAX_OUTPUT} bytes; answer less"
        )));
    }
    if !status.success() {
        return Err(failed(format!(
            "the script failed ({status}): {}",
            String::from_utf8_lossy(&error).trim()
        )));
    }
    let text = String::from_utf8_lossy(&output);
    Ok(text.strip_suffix('\n').unwrap_or(&text).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mac2_shapes_are_read_and_bad_ones_named() {
        let command = Script::from_args(&json!({"command": "beep"}), "prerun").expect("ok");
        assert_eq!(command.arguments(), ["-l", "AppleScript", "-e", "beep"]);
        let script = json!({"script": "Application('Finder')", "language": "JavaScript",
                            "timeout": 900_000});
        let script = Script::from_args(&script, "macos: appleScript").expect("ok");
        assert_eq!(script.arguments(), ["-l", "JavaScript"]);
        assert_eq!(script.timeout, MAX_TIMEOUT, "bounded");
        for (args, says) in [
            (json!({}), "exactly one"),
            (json!({"command": "a", "script": "b"}), "exactly one"),
            (json!({"command": " "}), "empty"),
            (json!({"command": "a", "language": "perl"}), "language"),
            (json!({"command": "a", "timeout": -1}), "timeout"),
        ] {
            let error = Script::from_args(&args, "prerun").expect_err("refused");
            assert!(error.message.contains(says), "{args}: {}", error.message);
        }
    }

    #[cfg(not(target_os = "macos"))]
    #[tokio::test]
    async fn elsewhere_than_macos_a_script_is_refused_naming_why() {
        let script = Script::from_args(&json!({"command": "beep"}), "prerun").expect("ok");
        let error = script.run().await.expect_err("no osascript here");
        assert_eq!(error.code, ErrorCode::UnsupportedOperation);
        assert!(error.message.contains("macOS only"), "{}", error.message);
    }

    fn shell(line: &str) -> Command {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", line]);
        command
    }

    #[tokio::test]
    async fn the_runner_answers_output_and_bounds_time_size_and_failure() {
        let said = bounded(
            shell("cat; echo done"),
            Some(b"from stdin "),
            DEFAULT_TIMEOUT,
        )
        .await;
        assert_eq!(said.expect("ran"), "from stdin done");
        let slow = bounded(shell("sleep 5"), None, Duration::from_millis(200)).await;
        assert_eq!(slow.expect_err("stopped").code, ErrorCode::ScriptTimeout);
        let big = bounded(shell("head -c 2000000 /dev/zero"), None, DEFAULT_TIMEOUT).await;
        assert!(big.expect_err("too big").message.contains("larger than"));
        let failed = bounded(shell("echo nope >&2; exit 3"), None, DEFAULT_TIMEOUT).await;
        let failed = failed.expect_err("failed");
        assert!(failed.message.contains("nope"), "{}", failed.message);
    }
}
