//! Tests of what bounds the trail: denied calls coalesced per principal, long arguments cut,
//! retention by files and bytes with a chain that still verifies (and fails when more is
//! removed), owner-only files in a folder created when missing, and the exported head that
//! catches a cut tail.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::verify::{Problem, VerifyOptions, read_anchor, verify};
use super::*;

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

fn denied(principal: &str, app: String) -> AuditEvent {
    let mut event = AuditEvent::new("click", Outcome::Denied);
    event.principal = principal.into();
    event.app = Some(app);
    event.reason = Some("insufficient_scope: needs axgate:act".into());
    event
}

#[tokio::test]
async fn a_flood_of_denied_calls_with_huge_arguments_stays_small() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let config = AuditConfig {
        deny_window: Duration::from_millis(300),
        ..AuditConfig::at(path.clone())
    };
    let audit = Audit::open(&config, None).expect("opens").expect("on");
    let huge = "N".repeat(100_000);
    for _ in 0..500 {
        audit.record(denied("ro", huge.clone())).await.expect("ok");
    }
    audit
        .record(denied("other", "Form".into()))
        .await
        .expect("ok");
    assert_eq!(lines(&path).len(), 2, "the first denial of each principal");
    // The summary is written once the deny window has passed: waited for, not slept for.
    let all = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let all = lines(&path);
            if all.len() >= 3 {
                return all;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the summary line within 20 s");
    assert_eq!(all.len(), 3, "{all:?}");
    let summary = &all[2];
    assert_eq!(summary["tool"], coalesce::SUMMARY_TOOL);
    assert_eq!(summary["principal"], "ro");
    assert_eq!(summary["count"], 499);
    assert_eq!(summary["redacted"]["tools"]["click"], 499);
    let size = std::fs::metadata(&path).expect("meta").len();
    assert!(size < 4_096, "{size} bytes for 501 denied calls");
    let report = verify(
        &trail_files(&path).expect("files"),
        VerifyOptions::default(),
    )
    .expect("readable");
    assert!(report.intact(), "{report}");
}

fn bounded_config(path: &Path) -> AuditConfig {
    AuditConfig {
        max_file_bytes: 4_096,
        max_files: 3,
        max_total_bytes: 1 << 20,
        ..AuditConfig::at(path.to_owned())
    }
}

async fn record_oks(audit: &Audit, n: u64) {
    for i in 0..n {
        let mut event = AuditEvent::new("click", Outcome::Ok);
        event.target = Some(format!("window[0]/button[{i}]"));
        audit.record(event).await.expect("recorded");
    }
}

#[tokio::test]
async fn retention_bounds_the_files_and_the_chain_still_verifies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = Audit::open(&bounded_config(&path), None)
        .expect("opens")
        .expect("on");
    record_oks(&audit, 400).await;
    let files = trail_files(&path).expect("files");
    assert_eq!(files.len(), 3, "{files:?}");
    let total: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).expect("meta").len())
        .sum();
    assert!(total <= 3 * 4_096, "{total}");
    let report = verify(&files, VerifyOptions::default()).expect("readable");
    assert!(report.intact(), "{report}");
    let (marker_file, _) = report
        .retained_at
        .clone()
        .expect("a marker explains the head");
    let markers: Vec<_> = lines(&marker_file)
        .into_iter()
        .filter(|l| l["tool"] == retention::MARKER_TOOL)
        .collect();
    assert_eq!(markers[0]["principal"], retention::SYSTEM);
    assert!(
        report.to_string().contains("removed by retention"),
        "{report}"
    );

    // Removing one more file leaves a head no marker names.
    std::fs::remove_file(&files[0]).expect("remove");
    let rest: Vec<PathBuf> = files[1..].to_vec();
    let report = verify(&rest, VerifyOptions::default()).expect("readable");
    let broken = report.broken.expect("broken");
    assert_eq!((broken.path, broken.line), (rest[0].clone(), 1));
}

#[tokio::test]
async fn retention_by_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let config = AuditConfig {
        max_files: 1_000,
        max_total_bytes: 10_000,
        ..bounded_config(&path)
    };
    let audit = Audit::open(&config, None).expect("opens").expect("on");
    record_oks(&audit, 400).await;
    let files = trail_files(&path).expect("files");
    let total: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).expect("meta").len())
        .sum();
    assert!(total <= 10_000 + 4_096, "{total} bytes in {files:?}");
    let report = verify(&files, VerifyOptions::default()).expect("readable");
    assert!(report.intact(), "{report}");
}

#[cfg(unix)]
#[tokio::test]
async fn files_are_owner_only_and_a_missing_folder_is_created() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("missing/deeper/audit.jsonl");
    let audit = Audit::open(&AuditConfig::at(path.clone()), None)
        .expect("opens")
        .expect("on");
    record_oks(&audit, 1).await;
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(path.parent().expect("folder")), 0o700);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&anchor_path(&path)), 0o600);
    // An existing file is made owner-only when opened.
    let loose = dir.path().join("loose.jsonl");
    std::fs::write(&loose, "").expect("write");
    std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    drop(Audit::open(&AuditConfig::at(loose.clone()), None).expect("opens"));
    assert_eq!(mode(&loose), 0o600);
    // A folder that cannot be created is a clear error, not a crash.
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "").expect("write");
    let error = Audit::open(&AuditConfig::at(blocker.join("sub/audit.jsonl")), None)
        .err()
        .expect("fails");
    assert!(
        error.to_string().contains("cannot create its folder"),
        "{error}"
    );
}

#[tokio::test]
async fn the_exported_head_catches_a_cut_tail() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let metrics = crate::metrics::Metrics::new(prometheus::Registry::new()).expect("metrics");
    let audit = Audit::open(&AuditConfig::at(path.clone()), Some(metrics.clone()))
        .expect("opens")
        .expect("on");
    record_oks(&audit, 5).await;
    let head = read_anchor(&anchor_path(&path)).expect("anchor");
    let bytes = std::fs::read(&path).expect("read");
    let last = bytes[..bytes.len() - 1]
        .split(|&b| b == b'\n')
        .next_back()
        .expect("a line");
    assert_eq!(head, line_hash(last), "the anchor is the last line's hash");
    let top = i64::from_str_radix(&head[..12], 16).expect("hex");
    assert_eq!(metrics.audit.head.get(), top);

    let with_anchor = VerifyOptions {
        anchor: Some(head),
        ..VerifyOptions::default()
    };
    let files = vec![path.clone()];
    assert!(verify(&files, with_anchor.clone()).expect("ok").intact());
    // Cut the last two lines: the chain alone still verifies; the anchor does not.
    let text = String::from_utf8(bytes).expect("utf-8");
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(&path, format!("{}\n", kept.join("\n"))).expect("write");
    assert!(
        verify(&files, VerifyOptions::default())
            .expect("ok")
            .intact()
    );
    let report = verify(&files, with_anchor).expect("ok");
    match report.broken.map(|b| b.problem) {
        Some(Problem::CutTail { .. }) => {}
        other => panic!("expected a cut tail, got {other:?}"),
    }
}
