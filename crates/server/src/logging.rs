//! Logging set-up for the binary: `log.level` (a tracing filter) and `log.format`, with one
//! rule no filter can change: **no secret reaches a log, at any level**.
//!
//! rmcp's own debug lines ("received request", "response message") carry whole requests and
//! results — typed text, values set into secure fields, clipboard text — and its INFO lines
//! and spans carry full MCP session ids. So rmcp's events go to their own layer, capped at
//! ERROR whatever `log.level` says, and that layer replaces anything shaped like a session
//! id (a UUID) by its [`session_tag`](crate::audit::session_tag) before it is written. Every
//! other target follows `log.level`. `RUST_LOG` is not read: the only filter is `log.level`
//! (`--log-level`, `AXGATE_LOG_LEVEL`, `[log] level`), and even a filter such as `trace` or
//! `rmcp=trace` leaves rmcp at ERROR.

use std::io::{self, IsTerminal, Write};
use std::sync::LazyLock;

use regex::Regex;
use tracing::Level;
use tracing_subscriber::filter::{EnvFilter, FilterExt, Targets, filter_fn};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::registry::Registry;
use tracing_subscriber::util::SubscriberInitExt;

use crate::audit::session_tag;
use crate::config::LogFormat;

/// The log targets whose events may quote requests, results or session ids.
pub const CAPPED_TARGETS: &[&str] = &["rmcp"];

/// The most verbose level a capped target is ever logged at.
pub const CAPPED_LEVEL: Level = Level::ERROR;

fn capped(target: &str) -> bool {
    CAPPED_TARGETS
        .iter()
        .any(|t| target == *t || target.strip_prefix(t).is_some_and(|r| r.starts_with("::")))
}

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
        .unwrap_or_else(|_| unreachable!("a valid pattern"))
});

/// `text` with every UUID-shaped id replaced by `session:<tag>`.
pub fn scrub_ids(text: &str) -> String {
    UUID.replace_all(text, |c: &regex::Captures<'_>| {
        format!("session:{}", session_tag(&c[0]))
    })
    .into_owned()
}

/// Stderr, with session ids scrubbed from each formatted event (the formatter writes one
/// event per `write`).
struct Scrubbed;

impl Write for Scrubbed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        io::stderr().write_all(scrub_ids(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

impl<'a> MakeWriter<'a> for Scrubbed {
    type Writer = Scrubbed;

    fn make_writer(&'a self) -> Self::Writer {
        Scrubbed
    }
}

type Boxed = Box<dyn Layer<Registry> + Send + Sync>;

fn fmt_layer<W>(format: LogFormat, writer: W) -> Boxed
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    // Colour only for a person at a terminal: a file, a pipe or launchd's log gets plain text
    // (and `NO_COLOR` turns it off everywhere).
    let colour = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(colour);
    match format {
        LogFormat::Human => layer.boxed(),
        LogFormat::Json => layer.json().boxed(),
    }
}

/// The filter of the capped targets' own layer: only their events, at most
/// [`CAPPED_LEVEL`], and only what `level` lets through too.
fn capped_filter(level: &str) -> impl tracing_subscriber::layer::Filter<Registry> + use<> {
    let mut only = Targets::new();
    for t in CAPPED_TARGETS {
        only = only.with_target(*t, CAPPED_LEVEL);
    }
    only.and(EnvFilter::new(level))
}

/// Installs the global subscriber (once; later calls do nothing).
pub fn init(level: &str, format: LogFormat) {
    let ours = fmt_layer(format, io::stderr)
        .with_filter(EnvFilter::new(level).and(filter_fn(|meta| !capped(meta.target()))));
    let theirs = fmt_layer(format, Scrubbed).with_filter(capped_filter(level));
    let _ = tracing_subscriber::registry()
        .with(vec![ours.boxed(), theirs.boxed()])
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_replaced_by_their_tags() {
        let id = "7b0c0bd2-1a2b-4c3d-8e4f-0123456789ab";
        let out = scrub_ids(&format!("Failed to close session {id}: gone"));
        assert!(!out.contains(id), "{out}");
        assert_eq!(
            out,
            format!("Failed to close session session:{}: gone", session_tag(id))
        );
        assert_eq!(scrub_ids("no ids here"), "no ids here");
    }

    #[test]
    fn rmcp_and_its_modules_are_capped() {
        assert!(capped("rmcp"));
        assert!(capped("rmcp::service"));
        assert!(!capped("rmcpx"));
        assert!(!capped("axgate::mcp::server"));
    }
}
