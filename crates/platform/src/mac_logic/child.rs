//! Running a helper program (`screencapture`, `open`) with a deadline: the child is checked
//! every few milliseconds and killed when the deadline passes. Standard library only.

use std::io::{self, Read};
use std::process::{Child, ExitStatus};
use std::thread;
use std::time::{Duration, Instant};

/// How often a running child is checked for completion.
const WAIT_STEP: Duration = Duration::from_millis(20);

/// The most of a child's error output kept for a message.
const STDERR_LIMIT: u64 = 4096;

/// Waits for the child until `deadline`; on timeout kills it and returns `None`.
pub(crate) fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        thread::sleep(WAIT_STEP.min(left));
    }
}

/// The start of a finished child's piped error output, trimmed.
pub(crate) fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(err) = child.stderr.take() {
        let _ = err.take(STDERR_LIMIT).read_to_string(&mut text);
    }
    text.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn a_quick_child_is_waited_for() {
        let mut child = Command::new("sh")
            .args(["-c", "echo oops >&2; exit 3"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = wait_until(&mut child, deadline).unwrap().expect("finished");
        assert_eq!(status.code(), Some(3));
        assert_eq!(stderr_of(&mut child), "oops");
    }

    #[test]
    fn a_child_past_the_deadline_is_killed() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let started = Instant::now();
        let status = wait_until(&mut child, started + Duration::from_millis(50)).unwrap();
        assert_eq!(status, None);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(child.try_wait().unwrap().is_some(), "killed and reaped");
    }
}
