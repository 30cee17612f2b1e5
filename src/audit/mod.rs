//! The audit trail: one append-only JSON line per mutating tool call and per denied call,
//! written and fsync'd before the call's result is returned, hash-chained so any change,
//! removal or insertion shows, rotated by size, and continued across restarts.
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
mod event;
mod redact;
mod trail;
pub mod verify;
mod writer;

use std::path::PathBuf;
use std::sync::mpsc;

use tokio::sync::oneshot;

use crate::config::AuditConfig;
use crate::metrics::Metrics;

pub use chain::{GENESIS, line_hash};
pub use event::{ANONYMOUS, AuditEvent, AuditLine, Outcome, session_tag};
pub use redact::redact_args;
pub use trail::trail_files;

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
        let mut writer = writer::Writer::open(path, config.max_file_bytes, metrics.clone())?;
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("axgate-audit".into())
            .spawn(move || {
                for Job { event, reply } in queue {
                    let result = writer.append(event);
                    if let Err(error) = &result {
                        tracing::error!(%error, "cannot write an audit line");
                    }
                    let _ = reply.send(result);
                }
            })
            .map_err(|source| AuditError::Io {
                path: path.clone(),
                action: "cannot start the writer thread",
                source,
            })?;
        Ok(Some(Audit { jobs, metrics }))
    }

    /// Appends `event` and returns once its line is written and fsync'd. Lines are written
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
            m.audit_failures.inc();
        }
        result
    }
}

#[cfg(test)]
mod tests;
