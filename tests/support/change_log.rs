//! A test app's change log: the lines a child process prints on its stdout, one per change it
//! sees, read by a thread of their own and kept in order, so a test can look at them or wait
//! for one. The GTK apps (`tests/desktop/harness.rs`) and the macOS contract fixture
//! (`tests/contract/macos.rs`) both report this way.

use std::io::{BufRead, BufReader};
use std::process::Child;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::wait::STEP;

/// Every line a child has printed so far.
pub struct ChangeLog(Arc<Mutex<Vec<String>>>);

impl ChangeLog {
    /// Takes `child`'s piped stdout and keeps each of its lines from now on.
    pub fn follow(child: &mut Child) -> ChangeLog {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let out = child.stdout.take().expect("the child's stdout, piped");
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                sink.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(line);
            }
        });
        ChangeLog(lines)
    }

    /// The lines so far, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The first line that satisfies `pred`, waited for up to `limit` (`None`: none came).
    pub fn wait_line(&self, pred: impl Fn(&str) -> bool, limit: Duration) -> Option<String> {
        let until = Instant::now() + limit;
        loop {
            if let Some(l) = self.lines().into_iter().find(|l| pred(l)) {
                return Some(l);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(STEP);
        }
    }

    /// Asserts that `who` logs `line` within `limit`, showing its log when it does not.
    pub fn expect(&self, line: &str, limit: Duration, who: &str) {
        if self.wait_line(|l| l == line, limit).is_none() {
            panic!("{who} never logged {line:?}; its log: {:?}", self.lines());
        }
    }
}
