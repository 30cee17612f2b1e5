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
pub(super) fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
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
pub(super) fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(err) = child.stderr.take() {
        let _ = err.take(STDERR_LIMIT).read_to_string(&mut text);
    }
    text.trim().to_owned()
}
