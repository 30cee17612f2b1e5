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
//!
//! A second rule: a caller cannot forge or hide a log line. Bytes a caller controls (an
//! `app` argument, a header, a name) reach fields of log lines; every formatted event is
//! written as one line with its control characters escaped ([`inert_line`]): a newline, a
//! carriage return, ESC or NUL in a field shows as `\n`, `\r`, `\u{1b}`, `\u{0}`. Only the
//! formatter's own colour codes (SGR, when colour is on) pass.

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

/// One formatted event as one line: its control characters escaped (as in Rust strings),
/// but the final newline and, with `colour`, the formatter's SGR colour codes
/// (`ESC [ digits/; m`).
pub fn inert_line(event: &str, colour: bool) -> String {
    let (body, end) = match event.strip_suffix('\n') {
        Some(body) => (body, "\n"),
        None => (event, ""),
    };
    if !body.chars().any(char::is_control) {
        return event.to_owned();
    }
    let mut out = String::with_capacity(event.len() + 16);
    let mut rest = body;
    while let Some(c) = rest.chars().next() {
        if colour && c == '\u{1b}' {
            let sgr = rest[1..].strip_prefix('[').and_then(|after| {
                let params = after.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
                (after[params..].starts_with('m')).then_some(2 + params + 1)
            });
            if let Some(len) = sgr {
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out.push_str(end);
    out
}

/// Stderr, each formatted event (the formatter writes one event per `write`) made one inert
/// line ([`inert_line`]) and, for the capped targets (`scrub`), with session ids scrubbed.
#[derive(Clone, Copy)]
struct Inert {
    colour: bool,
    scrub: bool,
}

impl Write for Inert {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let mut line = inert_line(&text, self.colour);
        if self.scrub {
            line = scrub_ids(&line);
        }
        io::stderr().write_all(line.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

impl<'a> MakeWriter<'a> for Inert {
    type Writer = Inert;

    fn make_writer(&'a self) -> Self::Writer {
        *self
    }
}

type Boxed = Box<dyn Layer<Registry> + Send + Sync>;

fn fmt_layer(format: LogFormat, scrub: bool) -> Boxed {
    // Colour only for a person at a terminal: a file, a pipe or launchd's log gets plain text
    // (and `NO_COLOR` turns it off everywhere).
    let colour = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(Inert { colour, scrub })
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
    let ours = fmt_layer(format, false)
        .with_filter(EnvFilter::new(level).and(filter_fn(|meta| !capped(meta.target()))));
    let theirs = fmt_layer(format, true).with_filter(capped_filter(level));
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
    fn control_characters_in_an_event_are_escaped_but_its_end_and_colours() {
        let forged = "INFO tool call app=x\n2026 INFO forged\u{1b}]0;t\u{7}\u{0}\r\n";
        assert_eq!(
            inert_line(forged, false),
            "INFO tool call app=x\\n2026 INFO forged\\u{1b}]0;t\\u{7}\\u{0}\\r\n"
        );
        let coloured = "\u{1b}[2m2026\u{1b}[0m \u{1b}[32mINFO\u{1b}[0m app=\u{1b}[2J\n";
        assert_eq!(
            inert_line(coloured, true),
            "\u{1b}[2m2026\u{1b}[0m \u{1b}[32mINFO\u{1b}[0m app=\\u{1b}[2J\n"
        );
        assert_eq!(inert_line("plain\n", false), "plain\n");
    }

    #[test]
    fn rmcp_and_its_modules_are_capped() {
        assert!(capped("rmcp"));
        assert!(capped("rmcp::service"));
        assert!(!capped("rmcpx"));
        assert!(!capped("axgate::mcp::server"));
    }
}
