//! Mac2's AppleScript (`appium:prerun`, `appium:postrun`, `macos: appleScript`) once an
//! operator sets `webdriver.allow_scripts`: read-only mode and a read-only token still refuse
//! it; on this Linux machine the run itself is refused naming macOS, and every run is audited
//! with the script's size, never its text.

use serde_json::json;

use super::{Wd, assert_w3c, caps};
use crate::support::{TestServer, audit_lines, config};

/// A script's text that must never reach the audit trail.
const SECRET_SCRIPT: &str = "do shell script \"echo s3cr3t-ply-42\"";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_scripts_run_only_on_macos_and_are_audited_without_their_text() {
    let dir = tempfile::tempdir().expect("dir");
    let audit = dir.path().join("audit.jsonl");
    let server = TestServer::with_config(config(&format!(
        "[webdriver]\nallow_scripts = true\n[audit]\npath = {:?}\n",
        audit.display().to_string()
    )))
    .await;
    let wd = Wd::new(&server);
    let sid = wd.session("Form").await;
    let (status, body) = wd
        .exec(&sid, "appleScript", json!({"script": SECRET_SCRIPT}))
        .await;
    assert_w3c(status, &body, 500, "unsupported operation");
    let message = body["value"]["message"].as_str().expect("message");
    assert!(message.contains("macOS only"), "{body}");
    // Bad shapes are named before anything runs.
    let (status, body) = wd
        .exec(
            &sid,
            "appleScript",
            json!({"command": "beep", "script": "beep"}),
        )
        .await;
    assert_w3c(status, &body, 400, "invalid argument");
    // A prerun is run before the session exists: here it cannot, so there is no session.
    not_created(&wd, "appium:prerun", "macOS only").await;

    let lines = audit_lines(&audit);
    let runs: Vec<_> = lines
        .iter()
        .filter(|l| l["tool"] == "webdriver:apple_script")
        .collect();
    assert_eq!(runs.len(), 2, "{lines:?}");
    assert_eq!(runs[0]["redacted"]["run"], "appleScript", "{:?}", runs[0]);
    assert_eq!(
        runs[0]["redacted"]["script_bytes"],
        SECRET_SCRIPT.len(),
        "{:?}",
        runs[0]
    );
    assert_eq!(runs[1]["redacted"]["run"], "prerun", "{:?}", runs[1]);
    let trail = std::fs::read_to_string(&audit).expect("trail");
    assert!(
        !trail.contains("s3cr3t-ply-42"),
        "the script's text is never audited"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_mode_refuses_scripts_even_when_allowed() {
    let server = TestServer::with_config(config(
        "[webdriver]\nallow_scripts = true\n[policy]\nread_only = true\n",
    ))
    .await;
    let wd = Wd::new(&server);
    not_created(&wd, "appium:postrun", "policy.read_only").await;
}

/// Asserts a Form session with `key` (`appium:prerun` or `postrun`) is not created, saying
/// `why`.
async fn not_created(wd: &Wd, key: &str, why: &str) {
    let asked = json!({"appium:bundleId": "Form", key: {"command": "beep"}});
    let (status, body) = wd.send("POST", "/session", Some(caps(asked))).await;
    assert_w3c(status, &body, 500, "session not created");
    let message = body["value"]["message"].as_str().expect("message");
    assert!(message.contains(why), "{body}");
}
