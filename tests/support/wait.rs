//! Waiting on an event in a test: a condition polled with a short step until it holds, and a
//! failure naming what did not happen once a generous deadline has passed. Tests wait this
//! way instead of sleeping for a guessed time, so they take as long as the event and no
//! longer, and a loaded machine makes them slower, never flaky.

use std::time::{Duration, Instant};

/// How often a condition is looked at again.
pub const STEP: Duration = Duration::from_millis(10);

/// How long an event a test causes may take on a loaded machine.
pub const WITHIN: Duration = Duration::from_secs(20);

/// Polls `holds` every [`STEP`] until it is true; panics naming `what` after `within`.
pub async fn eventually(within: Duration, what: &str, mut holds: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !holds().await {
        assert!(Instant::now() < deadline, "{what}: not within {within:?}");
        tokio::time::sleep(STEP).await;
    }
}

/// [`eventually`] for a condition that needs no waiting to look at (a gauge, a log, the
/// demo's state).
pub async fn until(what: &str, holds: impl Fn() -> bool) {
    eventually(WITHIN, what, async || holds()).await;
}

/// How many calls of `tool` have ended, whatever their outcome (`axgate_tool_calls_total`,
/// counted before the result is sent).
pub async fn tool_calls(server: &super::TestServer, tool: &str) -> f64 {
    let text = super::scrape(server.addr, None).await;
    let label = format!("tool=\"{tool}\"");
    text.lines()
        .filter(|l| l.starts_with("axgate_tool_calls_total{") && l.contains(&label))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}
