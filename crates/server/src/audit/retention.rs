//! Retention: the trail's disk use is bounded by files and bytes (`audit.max_files`, the
//! current file included, and `audit.max_total_bytes`, every file together). After each
//! rotation the oldest rotated files are removed until both hold, and the chain stays
//! verifiable: before anything is removed, a marker line (tool `audit_retention`) is written
//! at the head of the new current file naming what goes and `dropped_head`, the hash of the
//! last line removed — which is what the oldest kept line chains from. `axgate audit verify`
//! accepts a first line that does not chain from the genesis value only when a marker in the
//! trail names exactly that hash; removing any further file leaves a head no marker names.

use std::io;
use std::path::Path;

use super::event::{AuditEvent, Outcome};
use super::trail::{last_hash, rotated_numbers, rotated_path};

/// The tool name of a retention marker line.
pub const MARKER_TOOL: &str = "audit_retention";

/// The principal of lines axgate writes about the trail itself.
pub const SYSTEM: &str = "axgate";

/// How much of the trail to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Files in all, the current one included (at least 2).
    pub max_files: u64,
    /// Bytes in all files together.
    pub max_total_bytes: u64,
}

/// What retention removes: the rotated files (oldest first) and the hash of the last line of
/// the newest of them.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) numbers: Vec<u64>,
    pub(super) bytes: u64,
    pub(super) dropped_head: String,
}

/// The rotated files of `path` to remove so that `limits` hold with a current file of
/// `current_size` bytes; `None` when nothing need go (or nothing removable has a line).
pub(super) fn plan(path: &Path, current_size: u64, limits: Limits) -> io::Result<Option<Plan>> {
    let mut rotated: Vec<(u64, u64)> = Vec::new();
    for n in rotated_numbers(path)? {
        let size = std::fs::metadata(rotated_path(path, n))?.len();
        rotated.push((n, size));
    }
    let mut files = rotated.len() as u64 + 1;
    let mut total = current_size + rotated.iter().map(|(_, s)| s).sum::<u64>();
    let mut drop = Vec::new();
    let mut bytes = 0;
    for &(n, size) in &rotated {
        if files <= limits.max_files.max(2) && total <= limits.max_total_bytes {
            break;
        }
        drop.push(n);
        bytes += size;
        files -= 1;
        total -= size;
    }
    // The head is the last line of the newest removed file that has one.
    for &n in drop.iter().rev() {
        if let Some(hash) = last_hash(&rotated_path(path, n))? {
            return Ok(Some(Plan {
                numbers: drop,
                bytes,
                dropped_head: hash,
            }));
        }
    }
    Ok(None)
}

/// The marker line written before the files of `plan` are removed.
pub(super) fn marker(path: &Path, plan: &Plan) -> AuditEvent {
    let mut event = AuditEvent::new(MARKER_TOOL, Outcome::Ok);
    event.principal = SYSTEM.to_owned();
    let first = plan.numbers.first().copied().unwrap_or_default();
    let last = plan.numbers.last().copied().unwrap_or_default();
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    event.reason = Some(format!(
        "retention (audit.max_files, audit.max_total_bytes): removed {} file(s), {} bytes, \
         {name}.{first} to {name}.{last}",
        plan.numbers.len(),
        plan.bytes
    ));
    event.dropped_head = Some(plan.dropped_head.clone());
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_files_go_until_both_limits_hold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.jsonl");
        for (n, line) in [(1, "one"), (2, "two"), (3, "three")] {
            std::fs::write(rotated_path(&path, n), format!("{line}\n")).expect("write");
        }
        let loose = Limits {
            max_files: 10,
            max_total_bytes: 1 << 20,
        };
        assert_eq!(plan(&path, 100, loose).expect("plan"), None);
        let by_files = Limits {
            max_files: 2,
            ..loose
        };
        let p = plan(&path, 100, by_files).expect("plan").expect("some");
        assert_eq!(p.numbers, [1, 2]);
        assert_eq!(p.dropped_head, super::super::line_hash(b"two"));
        let by_bytes = Limits {
            max_files: 10,
            max_total_bytes: 107,
        };
        let p = plan(&path, 100, by_bytes).expect("plan").expect("some");
        assert_eq!(
            p.numbers,
            [1, 2],
            "100 + 6 bytes of .3 fit, not 4 more of .2"
        );
        assert!(
            marker(&path, &p)
                .reason
                .expect("reason")
                .contains("audit.jsonl.1 to audit.jsonl.2")
        );
    }
}
