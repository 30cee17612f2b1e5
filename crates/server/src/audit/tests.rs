//! Tests of the audit trail through its public API: the chain across appends, restarts and
//! rotation, torn tails, redaction on disk, metrics, and what `verify` reports for each kind
//! of damage.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::verify::{Chained, Problem, Report, VerifyOptions, verify};
use super::*;

fn config(path: &Path, max_file_bytes: u64) -> AuditConfig {
    AuditConfig {
        max_file_bytes,
        ..AuditConfig::at(path.to_owned())
    }
}

fn open(path: &Path, max_file_bytes: u64) -> Audit {
    Audit::open(&config(path, max_file_bytes), None)
        .expect("opens")
        .expect("enabled")
}

async fn record_n(audit: &Audit, from: u64, n: u64) {
    for i in from..from + n {
        let mut event = AuditEvent::new("click", Outcome::Ok);
        event.app = Some("Notes".into());
        event.target = Some(format!("window[0]/button[{i}]"));
        audit.record(event).await.expect("recorded");
    }
}

fn lines(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).expect("read");
    assert!(
        bytes.is_empty() || bytes.ends_with(b"\n"),
        "ends in a newline"
    );
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn prev_of(line: &[u8]) -> String {
    serde_json::from_slice::<AuditLine>(line)
        .expect("an audit line")
        .prev
}

fn check(paths: &[PathBuf]) -> Report {
    verify(paths, VerifyOptions::default()).expect("readable")
}

fn assert_intact(paths: &[PathBuf], lines: u64) {
    let report = check(paths);
    assert!(report.intact(), "{report}");
    assert_eq!(report.files.iter().map(|f| f.lines).sum::<u64>(), lines);
}

const BIG: u64 = 64 << 20;

#[tokio::test]
async fn disabled_without_a_path() {
    let off = AuditConfig {
        path: None,
        max_file_bytes: BIG,
        ..AuditConfig::at(PathBuf::new())
    };
    assert!(Audit::open(&off, None).expect("fine").is_none());
}

#[tokio::test]
async fn appends_chain_from_genesis_and_each_other() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = open(&path, BIG);
    record_n(&audit, 0, 5).await;
    let lines = lines(&path);
    assert_eq!(lines.len(), 5);
    assert_eq!(prev_of(&lines[0]), GENESIS);
    for pair in lines.windows(2) {
        assert_eq!(prev_of(&pair[1]), line_hash(&pair[0]));
    }
    assert_intact(&[path], 5);
}

#[tokio::test]
async fn concurrent_records_never_interleave() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = open(&path, 2048);
    let calls = (0..40).map(|i| {
        let audit = audit.clone();
        tokio::spawn(async move { record_n(&audit, i, 1).await })
    });
    for call in futures::future::join_all(calls).await {
        call.expect("joined");
    }
    let files = trail_files(&path).expect("files");
    assert!(files.len() > 1, "rotated: {files:?}");
    assert_intact(&files, 40);
}

#[tokio::test]
async fn a_restart_continues_the_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    record_n(&open(&path, BIG), 0, 3).await;
    record_n(&open(&path, BIG), 3, 2).await;
    assert_intact(std::slice::from_ref(&path), 5);
    let lines = lines(&path);
    assert_eq!(prev_of(&lines[3]), line_hash(&lines[2]));
}

#[tokio::test]
async fn rotation_keeps_one_chain_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let max = 600;
    record_n(&open(&path, max), 0, 12).await;
    let files = trail_files(&path).expect("files");
    assert!(files.len() >= 3, "{files:?}");
    assert_eq!(files[0], dir.path().join("audit.jsonl.1"));
    assert_eq!(files[1], dir.path().join("audit.jsonl.2"));
    for file in &files {
        let size = std::fs::metadata(file).expect("stat").len();
        assert!(size <= max, "{} is {size} bytes", file.display());
    }
    for pair in files.windows(2) {
        let last = lines(&pair[0]).pop().expect("a line");
        let first = lines(&pair[1]).remove(0);
        assert_eq!(prev_of(&first), line_hash(&last), "{}", pair[1].display());
    }
    assert_intact(&files, 12);

    // A restart after rotation continues the same chain and numbering.
    record_n(&open(&path, max), 12, 12).await;
    let files = trail_files(&path).expect("files");
    assert_intact(&files, 24);

    // A crash between the rename and the first line of the new file: the current file is
    // missing, so the chain continues from the newest rotated file.
    let next = files.len() as u64;
    std::fs::rename(&path, dir.path().join(format!("audit.jsonl.{next}"))).expect("rename");
    record_n(&open(&path, max), 24, 1).await;
    let files = trail_files(&path).expect("files");
    assert_intact(&files, 25);
    assert_eq!(lines(&path).len(), 1);
}

#[tokio::test]
async fn a_torn_tail_is_cut_on_open_and_reported_by_verify() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    record_n(&open(&path, BIG), 0, 3).await;
    let intact = std::fs::read(&path).expect("read");
    let mut torn = intact.clone();
    torn.extend_from_slice(b"{\"time\":\"2026-05-01T09:");
    std::fs::write(&path, &torn).expect("write");

    let report = check(std::slice::from_ref(&path));
    assert_eq!(
        report.broken.as_ref().map(|b| (b.line, b.problem.clone())),
        Some((
            4,
            Problem::Torn {
                bytes: 23,
                last_file: true
            }
        ))
    );
    assert!(report.to_string().contains("torn last line"), "{report}");

    let audit = open(&path, BIG);
    assert_eq!(std::fs::read(&path).expect("read"), intact, "cut back");
    record_n(&audit, 3, 1).await;
    assert_intact(&[path], 4);
}

#[tokio::test]
async fn typed_text_and_secure_values_never_reach_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = open(&path, BIG);
    let calls = [
        (
            "type_text",
            json!({"app": "Notes", "target": "e7", "text": "correct horse battery staple"}),
        ),
        (
            "set_value",
            json!({"app": "Safari", "target": "secure_text_field[0]", "value": "Sup3r-s3cret!"}),
        ),
        ("write_clipboard", json!({"text": "ghp_tokenTOKENtoken"})),
        (
            "press_key",
            json!({"app": "Notes", "key": "q", "modifiers": ["shift"]}),
        ),
    ];
    for (tool, args) in calls {
        let args = args.as_object().expect("object");
        let (target, redacted) = redact_args("target", args);
        let mut event = AuditEvent::new(tool, Outcome::Ok);
        event.app = args.get("app").and_then(|a| a.as_str()).map(str::to_owned);
        event.target = target;
        event.redacted = redacted;
        audit.record(event).await.expect("recorded");
    }
    let bytes = std::fs::read(&path).expect("read");
    let text = String::from_utf8(bytes.clone()).expect("utf-8");
    for secret in [
        "correct horse",
        "battery",
        "Sup3r-s3cret!",
        "s3cret",
        "ghp_token",
        "\"q\"",
    ] {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "{secret} leaked:\n{text}"
        );
    }
    for kept in [
        "\"text_len\":28",
        "\"value_len\":13",
        "\"text_len\":19",
        "\"key_len\":1",
        "\"target\":\"secure_text_field[0]\"",
    ] {
        assert!(text.contains(kept), "{kept} missing:\n{text}");
    }
}

#[tokio::test]
async fn metrics_count_writes_and_failures() {
    let metrics = crate::metrics::Metrics::new(prometheus::Registry::new()).expect("metrics");
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("trail");
    std::fs::create_dir(&sub).expect("mkdir");
    let path = sub.join("audit.jsonl");
    let audit = Audit::open(&config(&path, 600), Some(metrics.clone()))
        .expect("opens")
        .expect("enabled");
    record_n(&audit, 0, 2).await;
    assert_eq!(metrics.audit.write_duration.get_sample_count(), 2);
    assert_eq!(metrics.audit.failures.get(), 0);

    // Rotation needs the directory, which is gone: the line fails, and says so.
    std::fs::remove_dir_all(&sub).expect("rm");
    let mut failed = 0;
    for i in 0..10 {
        let mut event = AuditEvent::new("click", Outcome::Ok);
        event.target = Some(format!("window[0]/button[{i}]"));
        if let Err(error) = audit.record(event).await {
            assert!(error.to_string().contains("audit.jsonl"), "{error}");
            failed += 1;
        }
    }
    assert!(failed > 0);
    assert_eq!(metrics.audit.failures.get(), failed);
}

/// Five lines written through the API; returns the file and its lines.
async fn five(dir: &Path) -> (PathBuf, Vec<Vec<u8>>) {
    let path = dir.join("audit.jsonl");
    record_n(&open(&path, BIG), 0, 5).await;
    let lines = lines(&path);
    (path, lines)
}

fn write_lines(path: &Path, lines: &[Vec<u8>]) {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    std::fs::write(path, bytes).expect("write");
}

fn broken_at(path: &Path) -> (u64, Problem, String) {
    let report = check(&[path.to_owned()]);
    let text = report.to_string();
    let b = report.broken.expect("broken");
    assert_eq!(b.path, path);
    (b.line, b.problem, text)
}

#[tokio::test]
async fn verify_pinpoints_a_changed_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (path, original) = five(dir.path()).await;

    // A byte of line 3's content: line 3 still parses and its own prev still matches, so
    // the chain breaks at line 4, whose message names the previous line as altered.
    let mut lines = original.clone();
    let at = lines[2]
        .windows(6)
        .position(|w| w == b"button")
        .expect("found");
    lines[2][at] = b'B';
    write_lines(&path, &lines);
    let (line, problem, text) = broken_at(&path);
    assert_eq!(line, 4);
    assert!(matches!(
        problem,
        Problem::PrevMismatch {
            after: Chained::PreviousLine,
            ..
        }
    ));
    assert!(text.contains("line 4:"), "{text}");
    assert!(text.contains("previous line was altered"), "{text}");

    // A byte that breaks line 3's JSON: line 3 itself.
    let mut lines = original.clone();
    lines[2][0] = b'[';
    write_lines(&path, &lines);
    let (line, problem, text) = broken_at(&path);
    assert_eq!(line, 3);
    assert!(matches!(problem, Problem::BadJson(_)), "{problem:?}");
    assert!(
        text.contains("line 3: the line is not valid JSON"),
        "{text}"
    );

    // A byte of line 3's own prev: line 3.
    let mut lines = original.clone();
    let len = lines[2].len();
    lines[2][len - 3] = if lines[2][len - 3] == b'0' {
        b'1'
    } else {
        b'0'
    };
    write_lines(&path, &lines);
    assert_eq!(broken_at(&path).0, 3);

    write_lines(&path, &original);
    assert_intact(&[path], 5);
}

#[tokio::test]
async fn verify_pinpoints_a_deleted_or_duplicated_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (path, original) = five(dir.path()).await;
    let mut lines = original.clone();
    lines.remove(2);
    write_lines(&path, &lines);
    let (line, problem, _) = broken_at(&path);
    assert_eq!(line, 3, "the line after the gap");
    assert!(matches!(problem, Problem::PrevMismatch { .. }));

    let mut lines = original.clone();
    lines.insert(3, original[2].clone());
    write_lines(&path, &lines);
    assert_eq!(broken_at(&path).0, 4);

    // Removing the first line is a break too: the trail must start at genesis.
    write_lines(&path, &original[1..]);
    let (line, problem, text) = broken_at(&path);
    assert_eq!(line, 1);
    assert!(matches!(
        problem,
        Problem::PrevMismatch {
            after: Chained::Genesis,
            ..
        }
    ));
    assert!(text.contains("--partial"), "{text}");
    let partial = verify(
        std::slice::from_ref(&path),
        VerifyOptions {
            partial: true,
            ..VerifyOptions::default()
        },
    )
    .expect("readable");
    assert!(partial.intact(), "{partial}");
    assert!(partial.to_string().contains("note: the first line chains"));
}

#[tokio::test]
async fn verify_follows_files_in_the_order_given() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    record_n(&open(&path, 600), 0, 12).await;
    let mut files = trail_files(&path).expect("files");
    assert_intact(&files, 12);
    files.swap(0, 1);
    let report = check(&files);
    let b = report.broken.as_ref().expect("broken");
    assert_eq!((b.path.clone(), b.line), (files[0].clone(), 1));
    files.swap(0, 1);
    files.remove(1);
    let report = check(&files);
    let b = report.broken.as_ref().expect("broken");
    assert_eq!(b.line, 1);
    assert!(
        matches!(&b.problem, Problem::PrevMismatch { after: Chained::PreviousFile(p), .. } if *p == files[0]),
        "{report}"
    );
}
