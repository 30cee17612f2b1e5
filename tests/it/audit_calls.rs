//! The audit trail on the tool-call path, through MCP over HTTP: every mutating call leaves
//! one line before its result returns, read-only calls leave none, typed text and secure
//! values are redacted to their length, and the written trail verifies.

use crate::support::{TestServer, audit_lines, config};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_calls_are_audited_before_their_result_and_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let server = TestServer::with_config(config(&format!(
        "[audit]\npath = {:?}\n",
        path.display().to_string()
    )))
    .await;
    let mut client = server.client();
    client.initialize().await;

    client
        .call("get_tree", json!({"app": "Form", "depth": 2}))
        .await;
    assert!(
        audit_lines(&path).is_empty(),
        "read-only calls are not audited"
    );

    let pressed = client
        .call(
            "click",
            json!({"app": "Form", "target": "window[0]/check_box[0]"}),
        )
        .await;
    assert_eq!(pressed["isError"], false, "{pressed}");
    // The line is durable by the time the result arrived.
    let after_click = audit_lines(&path);
    assert_eq!(after_click.len(), 1);
    assert_eq!(after_click[0]["tool"], "click");
    assert_eq!(after_click[0]["app"], "Form");
    assert_eq!(after_click[0]["outcome"], "ok");
    assert_eq!(after_click[0]["rung"], "press");
    assert_eq!(after_click[0]["target"], "window[0]/check_box[0]");

    let secret = "correct horse battery staple";
    let typed = client
        .call(
            "type_text",
            json!({"app": "Form", "target": "window[0]/secure_text_field[0]", "text": secret}),
        )
        .await;
    assert_eq!(typed["isError"], false, "{typed}");
    let denied = client
        .call("perform_action", json!({"app": "Form", "target": "window[0]/button[\"Disabled Action\"]", "action": "press"}))
        .await;
    assert_eq!(denied["isError"], true);

    let all = audit_lines(&path);
    assert_eq!(all.len(), 3, "{all:?}");
    assert_eq!(all[1]["tool"], "type_text");
    assert_eq!(all[1]["redacted"]["text_len"], secret.len());
    assert_eq!(all[2]["outcome"], "tool_error");
    let bytes = std::fs::read_to_string(&path).unwrap();
    assert!(
        !bytes.contains("horse"),
        "typed text reached the audit trail"
    );
    // Each line chains from the one before.
    for pair in all.windows(2) {
        assert!(pair[1]["prev"].as_str().is_some_and(|p| p.len() == 64));
    }
    let verify = std::process::Command::new(env!("CARGO_BIN_EXE_axgate"))
        .args(["audit", "verify"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}
