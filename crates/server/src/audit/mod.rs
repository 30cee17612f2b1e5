//! The audit trail: one append-only JSON line per mutating tool call and per denied call,
//! written and fsync'd before the call's result is returned, hash-chained so any change,
//! removal or insertion shows, rotated by size, and continued across restarts. Bounded
//! against flooding: denied calls are coalesced per principal and window (`coalesce.rs`),
//! every string field is cut to 256 bytes, and retention bounds files and bytes with a marker
//! line that keeps the chain verifiable (`retention.rs`). The head of the chain is exported
//! (anchor file, gauge) so a cut tail is detectable (`writer.rs`).
//!
//! - [`Audit::open`] starts the writer (or returns `None` when `audit.path` is empty);
//!   [`Audit::record`] appends one [`AuditEvent`] and returns once it is durable.
//! - [`redact_args`] is the only way arguments should reach an event: typed text, values and
//!   anything not known to be safe are kept as lengths only.
//! - [`verify`] checks a trail (`axgate audit verify FILE…`).
//!
//! Layout, chain and crash rules: `trail.rs`, `chain.rs`, `writer.rs`. A torn last line left
//! by a crash is cut away when the trail is opened (it was never acknowledged); `verify`
//! reports one it finds as a break of its own kind, so check a trail after the server has
//! reopened it, or expect that report after a crash.

mod chain;
pub mod coalesce;
mod event;
mod redact;
pub mod retention;
mod trail;
pub mod verify;
mod writer;

use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

use tokio::sync::oneshot;

use crate::config::AuditConfig;
use crate::metrics::Metrics;

pub use chain::{GENESIS, line_hash};
pub use event::{ANONYMOUS, AuditEvent, AuditLine, MAX_FIELD_BYTES, Outcome, session_tag};
pub use redact::{has_rule, redact_args, ruled_names};
pub use trail::trail_files;
pub use writer::anchor_path;

/// Why a line could not be recorded or the trail opened. Messages name the file and the
/// operation, never the event's content.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("audit trail {}: {action}: {source}", path.display())]
    Io {
        path: PathBuf,
        action: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode an audit line: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("the audit writer has stopped")]
    Closed,
}

struct Job {
    event: AuditEvent,
    reply: oneshot::Sender<Result<(), AuditError>>,
}

/// A handle to the trail's writer thread; cheap to clone. The thread ends when the last
/// handle is dropped.
#[derive(Clone)]
pub struct Audit {
    jobs: mpsc::Sender<Job>,
    metrics: Option<Metrics>,
}

impl Audit {
    /// Opens the trail at `config.path`, continuing its chain, and starts the writer.
    /// `None` when auditing is disabled (no path). `metrics`, when given, receives
    /// `axgate_audit_write_duration_seconds` and `axgate_audit_failures_total`.
    pub fn open(
        config: &AuditConfig,
        metrics: Option<Metrics>,
    ) -> Result<Option<Audit>, AuditError> {
        let Some(path) = &config.path else {
            return Ok(None);
        };
        let limits = retention::Limits {
            max_files: config.max_files,
            max_total_bytes: config.max_total_bytes,
        };
        let mut writer =
            writer::Writer::open(path, config.max_file_bytes, limits, metrics.clone())?;
        let mut coalescer = coalesce::Coalescer::new(config.deny_window);
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("axgate-audit".into())
            .spawn(move || {
                let mut write = |event| {
                    let result = writer.append(event);
                    if let Err(error) = &result {
                        tracing::error!(%error, "cannot write an audit line");
                    }
                    result
                };
                loop {
                    // Wakes up when a coalescing window ends, to write its summary.
                    let job = match coalescer.next_end() {
                        Some(end) => {
                            queue.recv_timeout(end.saturating_duration_since(Instant::now()))
                        }
                        None => queue.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    };
                    for summary in coalescer.due(Instant::now()) {
                        let _ = write(summary);
                    }
                    match job {
                        Ok(Job { event, reply }) => {
                            let result = if coalescer.admit(&event, Instant::now()) {
                                write(event)
                            } else {
                                Ok(())
                            };
                            let _ = reply.send(result);
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => {
                            for summary in coalescer.drain() {
                                let _ = write(summary);
                            }
                            break;
                        }
                    }
                }
            })
            .map_err(|source| AuditError::Io {
                path: path.clone(),
                action: "cannot start the writer thread",
                source,
            })?;
        Ok(Some(Audit { jobs, metrics }))
    }

    /// Appends `event` and returns once its line is written and fsync'd — or, for a denied
    /// call coalesced into its principal's window, once it is counted there. Lines are written
    /// one at a time in the order calls reach the writer. A caller that stops waiting does
    /// not stop its line being written.
    pub async fn record(&self, event: AuditEvent) -> Result<(), AuditError> {
        let (reply, answer) = oneshot::channel();
        let result = match self.jobs.send(Job { event, reply }) {
            Ok(()) => answer.await.unwrap_or(Err(AuditError::Closed)),
            Err(_) => Err(AuditError::Closed),
        };
        if result.is_err()
            && let Some(m) = &self.metrics
        {
            m.audit.failures.inc();
        }
        result
    }
}

#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
mod tests;
