//! The audit trail through the real binary: `axgate audit verify` on trails written with the
//! library (exit 0 intact, 1 with the line number when tampered with), and durability under
//! `kill -9`: every line a writer acknowledged is in the trail, and the trail verifies once
//! reopened.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use axgate::audit::{Audit, AuditEvent, AuditLine, Outcome, redact_args, trail_files};
use axgate::config::AuditConfig;

fn axgate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_axgate"))
        .args(args)
        .output()
        .expect("runs axgate")
}

fn verify(files: &[PathBuf]) -> (i32, String) {
    let mut args = vec!["audit", "verify"];
    args.extend(files.iter().map(|f| f.to_str().expect("utf-8 path")));
    let out = axgate(&args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().expect("exited"), text)
}

fn open(path: &Path, max_file_bytes: u64) -> Audit {
    Audit::open(
        &AuditConfig {
            max_file_bytes,
            ..AuditConfig::at(path.to_owned())
        },
        None,
    )
    .expect("opens")
    .expect("enabled")
}

#[tokio::test]
async fn verify_exits_0_when_intact_and_1_with_the_line_when_tampered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = open(&path, 1200);
    for i in 0..10 {
        let args =
            serde_json::json!({"app": "Notes", "target": format!("e{i}"), "text": "secret words"});
        let (target, redacted) = redact_args("type_text", args.as_object().expect("object"));
        let mut event = AuditEvent::new("type_text", Outcome::Ok);
        event.app = Some("Notes".into());
        event.target = target;
        event.redacted = redacted;
        audit.record(event).await.expect("recorded");
    }
    drop(audit);
    let files = trail_files(&path).expect("files");
    assert!(files.len() > 1, "rotated: {files:?}");
    let (code, text) = verify(&files);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("intact: 10 lines"), "{text}");
    let trail = axgate(&["audit", "verify", "--trail", path.to_str().expect("utf-8")]);
    assert_eq!(trail.status.code(), Some(0));

    // Change one byte of line 3 of the first file's content.
    let first = &files[0];
    let original = std::fs::read_to_string(first).expect("read");
    assert!(original.lines().count() >= 4, "{original}");
    let tampered: Vec<String> = original
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 2 {
                l.replacen("Notes", "Nates", 1)
            } else {
                l.to_owned()
            }
        })
        .collect();
    std::fs::write(first, tampered.join("\n") + "\n").expect("write");
    let (code, text) = verify(&files);
    assert_eq!(code, 1, "{text}");
    // Line 3 still parses and its own prev matches: the chain breaks at line 4.
    let at = format!("{} line 4:", first.display());
    assert!(text.contains(&at), "expected {at:?} in:\n{text}");
    assert!(text.contains("BROKEN"), "{text}");
}

#[test]
fn verify_refuses_a_missing_file_with_exit_2() {
    let (code, text) = verify(&[PathBuf::from("/nonexistent/audit.jsonl")]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("cannot read"), "{text}");
}

#[test]
fn acknowledged_lines_survive_kill_9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_axgate"))
        .args([
            "audit",
            "stress",
            "--count",
            "1000000",
            "--max-file-bytes",
            "4096",
        ])
        .arg("--path")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns the writer");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut acked = Vec::new();
    let mut line = String::new();
    while acked.len() < 150 {
        line.clear();
        if stdout.read_line(&mut line).expect("reads") == 0 {
            panic!("the writer ended early after {} acks", acked.len());
        }
        acked.push(parse_ack(&line));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    // Acks already in the pipe count too.
    for rest in stdout.lines() {
        acked.push(parse_ack(&rest.expect("reads")));
    }
    assert_eq!(acked, (0..acked.len() as u64).collect::<Vec<_>>());

    // Reopening cuts a torn tail, if the kill left one.
    drop(open(&path, 4096));
    let files = trail_files(&path).expect("files");
    assert!(files.len() > 1, "the run rotated: {files:?}");
    let mut present = BTreeSet::new();
    for file in &files {
        let bytes = std::fs::read(file).expect("read");
        assert!(
            bytes.is_empty() || bytes.ends_with(b"\n"),
            "{} ends in a torn line",
            file.display()
        );
        for l in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let line: AuditLine = serde_json::from_slice(l).expect("every line is an audit line");
            let seq = line
                .target
                .as_deref()
                .and_then(|t| t.strip_prefix("stress/"));
            present.insert(
                seq.expect("a stress line")
                    .parse::<u64>()
                    .expect("a number"),
            );
        }
    }
    let missing: Vec<&u64> = acked.iter().filter(|i| !present.contains(i)).collect();
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");
    let (code, text) = verify(&files);
    assert_eq!(code, 0, "{text}");
}

fn parse_ack(line: &str) -> u64 {
    line.trim()
        .strip_prefix("acked ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected output {line:?}"))
}
