//! The one writer of a trail: it owns the current file and the chain's last hash, and runs
//! on its own thread, taking one event at a time, so lines never interleave. Each line is
//! written and fsync'd before its caller is answered; a file that would grow past
//! `max_file_bytes` is first renamed to `<path>.<N>` and a fresh one started, whose first
//! line chains from the last line of the renamed one; then retention (`retention.rs`) may
//! remove the oldest rotated files, after a marker line naming them.
//!
//! After each line the writer exports the chain's head — the hash of the last line — as the
//! anchor file `<path>.anchor` (`{"head": …, "time": …}`, replaced by rename) and as the
//! gauge `axgate_audit_head` (its first 48 bits). A copy of either kept elsewhere makes a cut
//! tail detectable: `axgate audit verify --anchor FILE` fails when the anchored line is gone.
//!
//! A failed write is undone (the file is cut back to its last complete line) so a half
//! line never stays in the middle of the chain; if even that fails, the file is reopened
//! before the next line, which cuts the torn tail the same way a restart does.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::AuditError;
use super::chain::line_hash;
use super::event::{AuditEvent, AuditLine};
use super::retention::{self, Limits};
use super::trail::{self, Current};
use crate::metrics::Metrics;

pub(super) struct Writer {
    path: PathBuf,
    max_file_bytes: u64,
    limits: Limits,
    /// `None` after a failure that could not be undone: reopened before the next line.
    file: Option<std::fs::File>,
    size: u64,
    prev: String,
    next_rotation: u64,
    metrics: Option<Metrics>,
}

fn io(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> AuditError {
    let path = path.to_owned();
    move |source| AuditError::Io {
        path,
        action,
        source,
    }
}

impl Writer {
    /// Opens the trail at `path`, continuing its chain (see the module doc of `trail`).
    pub(super) fn open(
        path: &Path,
        max_file_bytes: u64,
        limits: Limits,
        metrics: Option<Metrics>,
    ) -> Result<Writer, AuditError> {
        trail::ensure_folder(path).map_err(io(
            path,
            "cannot create its folder (create it, owned by the user axgate runs as, or fix \
             audit.path)",
        ))?;
        let rotated =
            trail::rotated_numbers(path).map_err(io(path, "cannot list rotated files"))?;
        let next_rotation = rotated.last().map_or(1, |n| n + 1);
        let mut writer = Writer {
            path: path.to_owned(),
            max_file_bytes,
            limits,
            file: None,
            size: 0,
            prev: String::new(),
            next_rotation,
            metrics,
        };
        writer.prev = trail::chain_start(path, &rotated).map_err(io(path, "cannot read"))?;
        writer.reopen()?;
        Ok(writer)
    }

    /// Opens the current file, cutting a torn tail, and takes its last line as `prev`.
    fn reopen(&mut self) -> Result<(), AuditError> {
        let Current {
            file,
            size,
            last_hash,
            truncated,
            created,
        } = trail::open_current(&self.path).map_err(io(&self.path, "cannot open"))?;
        if truncated > 0 {
            tracing::warn!(
                path = %self.path.display(),
                bytes = truncated,
                "the audit trail ended in a torn line (a write cut short by a crash, never \
                 acknowledged); cut it away"
            );
        }
        if created {
            tracing::info!(path = %self.path.display(), "started an audit trail file");
        }
        if let Some(hash) = last_hash {
            self.prev = hash;
        }
        self.file = Some(file);
        self.size = size;
        Ok(())
    }

    /// Appends one line and makes it durable.
    pub(super) fn append(&mut self, event: AuditEvent) -> Result<(), AuditError> {
        let started = Instant::now();
        if self.file.is_none() {
            self.reopen()?;
        }
        // `prev` has a fixed length, so the size is known before rotation changes it.
        let len =
            serde_json::to_vec(&AuditLine::new(event.clone(), self.prev.clone()))?.len() as u64 + 1;
        if self.size > 0 && self.size + len > self.max_file_bytes {
            self.rotate()?;
        }
        self.write_line(event)?;
        if let Some(m) = &self.metrics {
            m.audit
                .write_duration
                .observe(started.elapsed().as_secs_f64());
        }
        Ok(())
    }

    /// Writes one line at the end of the current file, fsync'd, and exports the new head.
    fn write_line(&mut self, event: AuditEvent) -> Result<(), AuditError> {
        let mut bytes = serde_json::to_vec(&AuditLine::new(event, self.prev.clone()))?;
        let hash = line_hash(&bytes);
        bytes.push(b'\n');
        let len = bytes.len() as u64;
        let Some(file) = self.file.as_mut() else {
            return Err(AuditError::Closed);
        };
        let written = file.write_all(&bytes).and_then(|()| file.sync_data());
        if let Err(source) = written {
            self.undo();
            return Err(AuditError::Io {
                path: self.path.clone(),
                action: "cannot append",
                source,
            });
        }
        self.size += len;
        self.prev = hash;
        self.export_head();
        Ok(())
    }

    /// The anchor file and the head gauge. A failure is logged: the line itself is durable.
    fn export_head(&self) {
        if let Some(m) = &self.metrics {
            let top = u64::from_str_radix(self.prev.get(..12).unwrap_or("0"), 16).unwrap_or(0);
            m.audit.head.set(top as i64);
        }
        let anchor = anchor_path(&self.path);
        let mut tmp = anchor.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let body = serde_json::json!({
            "head": self.prev,
            "time": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        });
        let written = trail::open_owner_only(
            &tmp,
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true),
        )
        .and_then(|mut f| writeln!(f, "{body}"))
        .and_then(|()| std::fs::rename(&tmp, &anchor));
        if let Err(error) = written {
            tracing::warn!(path = %anchor.display(), %error, "cannot update the audit anchor");
        }
    }
    /// Cuts the file back to its last complete line after a failed append.
    fn undo(&mut self) {
        let undone = self
            .file
            .as_ref()
            .is_some_and(|f| f.set_len(self.size).and_then(|()| f.sync_all()).is_ok());
        if !undone {
            self.file = None;
        }
    }

    /// Renames the current file to the next `<path>.<N>` and starts a fresh one.
    fn rotate(&mut self) -> Result<(), AuditError> {
        let mut n = self.next_rotation;
        while trail::rotated_path(&self.path, n).exists() {
            n += 1;
        }
        let rotated = trail::rotated_path(&self.path, n);
        std::fs::rename(&self.path, &rotated).map_err(io(&self.path, "cannot rotate"))?;
        self.next_rotation = n + 1;
        // Whatever happens next, the old handle now names the rotated file.
        self.file = None;
        trail::sync_dir(trail::parent(&self.path)).map_err(io(&self.path, "cannot rotate"))?;
        tracing::info!(
            path = %self.path.display(),
            rotated = %rotated.display(),
            "rotated the audit trail"
        );
        self.reopen()?;
        self.retain()
    }

    /// Applies retention after a rotation: marker line first, then the files go.
    fn retain(&mut self) -> Result<(), AuditError> {
        let plan = retention::plan(&self.path, self.size, self.limits)
            .map_err(io(&self.path, "cannot apply retention"))?;
        let Some(plan) = plan else {
            return Ok(());
        };
        self.write_line(retention::marker(&self.path, &plan))?;
        for &n in &plan.numbers {
            let old = trail::rotated_path(&self.path, n);
            std::fs::remove_file(&old).map_err(io(&old, "cannot remove (retention)"))?;
        }
        trail::sync_dir(trail::parent(&self.path))
            .map_err(io(&self.path, "cannot apply retention"))?;
        tracing::info!(
            path = %self.path.display(),
            files = plan.numbers.len(),
            bytes = plan.bytes,
            "audit retention removed the oldest rotated files (a marker line names them)"
        );
        Ok(())
    }
}

/// The anchor file of the trail at `path`: `<path>.anchor`.
pub fn anchor_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".anchor");
    PathBuf::from(name)
}
