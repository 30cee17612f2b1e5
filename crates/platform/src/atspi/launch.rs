//! Starting and stopping apps. `resolve_launch` says what a launch would run, for the app
//! policy, before anything runs. `launch_app` runs the command (no shell) with accessibility
//! on (`NO_AT_BRIDGE` removed) and waits until an app with the child's pid — or, when the
//! child handed over to an already running instance and exited, the program's name — is on
//! the AT-SPI desktop. `quit_app` asks the app's windows to close (`WM_DELETE_WINDOW`, as a
//! window manager would; again, then SIGTERM, if the app shows no reaction at all), or kills
//! it with `force`; the engine verifies the exit. Launched
//! children are reaped by a small thread each, so they never linger as zombies.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use axgate_engine::{AppInfo, AxError, CallCtx, LaunchRequest, Launchable, Pid};

use super::Core;
use super::command;
use super::x11::Display;

/// How often the desktop is checked while an app starts.
const POLL: Duration = Duration::from_millis(50);

/// What `launch_app(request)` would run, without running it: the program (looked up on
/// `PATH` when given bare), named by its file name, with the path it resolves to (links
/// followed) and, as aliases, that file's name and every other word of the command line and
/// every argument of the request — so that a denied program named through a link or as an
/// argument of another (`env`, `sh -c`) is still seen.
pub(super) fn resolve_launch(request: &LaunchRequest) -> Result<Launchable, AxError> {
    let spec = request.spec.as_str();
    let words =
        command::split(spec).map_err(|e| AxError::Unsupported(format!("cannot launch: {e}")))?;
    let not_found = || AxError::NotLaunchable {
        query: spec.to_owned(),
    };
    let program = words.first().ok_or_else(not_found)?;
    let found = if program.contains('/') {
        Some(PathBuf::from(program)).filter(|p| p.is_file())
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(program))
                .find(|p| p.is_file())
        })
    };
    let path = found.ok_or_else(not_found)?;
    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let name = command::program_name(program).to_owned();
    let mut aliases = vec![path.display().to_string()];
    if let Some(file) = real.file_name().and_then(|f| f.to_str()) {
        aliases.push(file.to_owned());
    }
    for word in words[1..].iter().chain(&request.arguments) {
        aliases.push(word.clone());
        aliases.push(command::program_name(word).to_owned());
    }
    Ok(Launchable {
        name,
        bundle_id: None,
        path: Some(real.display().to_string()),
        aliases,
    })
}

/// Runs the command with the request's arguments after the spec's own, and its environment
/// added to axgate's (the engine has refused variables that load code; `PATH` among them,
/// so the program found is the one `resolve_launch` named). A new process each time: an app
/// that hands over to its running instance (a `GApplication`) passes the arguments on its
/// own terms, and the environment does not reach that instance.
pub(super) fn launch_app(
    core: &Core,
    request: &LaunchRequest,
    ctx: &mut CallCtx,
) -> Result<AppInfo, AxError> {
    let words = command::split(&request.spec)
        .map_err(|e| AxError::Unsupported(format!("cannot launch: {e}")))?;
    let mut child = Command::new(&words[0])
        .args(&words[1..])
        .args(&request.arguments)
        .envs(request.environment.iter().map(|(n, v)| (n, v)))
        .env_remove("NO_AT_BRIDGE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| AxError::Unsupported(format!("cannot start {:?}: {e}", words[0])))?;
    let pid = child.id();
    let name = command::program_name(&words[0]).to_owned();
    let mut exited = None;
    loop {
        let apps = core.list(ctx)?;
        if let Some(app) = apps.iter().find(|a| a.pid == pid) {
            reap(child);
            return Ok(app.info(core.apps.frontmost()));
        }
        if exited.is_none()
            && let Ok(Some(status)) = child.try_wait()
        {
            exited = Some(status);
        }
        if let Some(status) = exited {
            if let Some(app) = apps.iter().find(|a| a.name == name) {
                return Ok(app.info(core.apps.frontmost()));
            }
            if !status.success() {
                return Err(AxError::Unsupported(format!(
                    "{name} exited ({status}) before it showed up on the accessibility bus"
                )));
            }
        }
        if ctx.remaining() < POLL {
            if exited.is_none() {
                reap(child);
            }
            return Err(AxError::Timeout {
                app: format!("{name} (pid {pid}) to appear on the AT-SPI desktop"),
                after: ctx.remaining(),
            });
        }
        std::thread::sleep(POLL);
    }
}

/// Waits for a launched child in the background, so it does not stay a zombie.
fn reap(mut child: std::process::Child) {
    let _ = std::thread::Builder::new()
        .name("axgate-atspi-reaper".into())
        .spawn(move || {
            let _ = child.wait();
        });
}

pub(super) fn quit_app(
    core: &Core,
    pid: Pid,
    force: bool,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let _known = core.app(pid, ctx)?;
    if force {
        return signal(pid, "KILL");
    }
    let display = Display::open()?;
    let mine = |d: &Display| -> Result<Vec<u32>, AxError> {
        Ok(d.top_windows()?
            .into_iter()
            .filter(|w| w.pid == Some(pid))
            .map(|w| w.id)
            .collect())
    };
    let before = mine(&display)?;
    if before.is_empty() {
        // Nothing to close: ask the process itself.
        return signal(pid, "TERM");
    }
    for &w in &before {
        display.close(w)?;
    }
    // GTK now and then drops a delete request; an app that reacted in no way (no window
    // closed, none opened — a "save changes?" dialog would be one) is asked again, then
    // sent SIGTERM.
    for round in 1..=QUIT_ROUNDS {
        std::thread::sleep(POLL);
        if super::apps::process_gone(pid) {
            return Ok(());
        }
        let now = mine(&display)?;
        if now != before {
            return Ok(());
        }
        if round == QUIT_ROUNDS / 2 {
            for &w in &before {
                display.close(w)?;
            }
        }
        if ctx.remaining() < POLL * 2 {
            break;
        }
    }
    signal(pid, "TERM")
}

/// Polls (of [`POLL`]) `quit_app` waits for an app to react to a close request.
const QUIT_ROUNDS: u32 = 30;

/// Sends a signal with `kill(1)` (this crate has no unsafe code for `kill(2)`).
fn signal(pid: Pid, name: &str) -> Result<(), AxError> {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| AxError::Backend(format!("cannot run kill: {e}")))?;
    if status.success() || super::apps::process_gone(pid) {
        Ok(())
    } else {
        Err(AxError::Backend(format!(
            "kill -{name} {pid} failed ({status})"
        )))
    }
}
