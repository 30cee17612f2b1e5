//! The audit trail through the server cannot be flooded: a client refused by read-only mode
//! calling a write tool hundreds of times with a 100 KB app name adds one short line (the
//! rest are counted into a summary when the window ends), and a missing audit folder is
//! created (owner-only) instead of stopping the server.

use crate::support::{TestServer, audit_lines, config, session};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_calls_with_huge_arguments_do_not_flood_the_trail() {
    let dir = tempfile::tempdir().unwrap();
    // The folder does not exist yet: it is created.
    let audit = dir.path().join("missing/folder/audit.jsonl");
    let server = TestServer::with_config(config(&format!(
        "[policy]\nread_only = true\n[audit]\npath = {:?}\n",
        audit.display().to_string()
    )))
    .await;
    let mut c = session(&server).await;
    let huge = "N".repeat(100_000);
    for _ in 0..200 {
        let result = c
            .call("click", json!({"app": huge, "target": "window[0]"}))
            .await;
        assert_eq!(result["isError"], true);
    }
    let lines = audit_lines(&audit);
    assert_eq!(lines.len(), 1, "one line for the first refusal");
    assert_eq!(lines[0]["outcome"], "denied");
    let size = std::fs::metadata(&audit).expect("the trail").len();
    assert!(size < 2_048, "{size} bytes for 200 refused calls");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode =
            |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&audit), 0o600);
        assert_eq!(mode(audit.parent().expect("folder")), 0o700);
    }
}
