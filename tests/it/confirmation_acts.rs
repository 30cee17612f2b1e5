//! Every acting tool goes through the destructive-act decision point, decided on what the act
//! would really touch: a drop target, a check box written by `set_value`, an app's own Quit
//! command, a window's close button — and, for acts that activate nothing (focus, scroll,
//! launching, leasing, the clipboard), a decision that says so. The audit line of every act
//! records the outcome; `not_checked` on a completed act would mean a tool skipped the point.

use crate::confirmation::server_with;
use crate::support::{app_value, audit_lines, check, session, steps};
use axgate::ax::AxValue;
use serde_json::json;

/// Settings' "Launch at login" check box, whose value can be written.
const LOGIN: &str = r#"window[0]/tab_group[0]/group["General"]/check_box["Launch at login"]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_completed_act_records_a_decision() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let server = server_with("[policy]\nunconfirmed = \"allow\"\n", &audit).await;
    let mut c = session(&server).await;
    let volume = r#"window[0]/slider["Volume"]"#;
    steps(
        &mut c,
        &[
            ("launch_app", json!({"app": "Notes"}), &[]),
            ("activate_app", json!({"app": "Form"}), &[]),
            ("lease_app", json!({"app": "Form", "seconds": 60}), &[]),
            (
                "focus",
                json!({"app": "Form", "target": "window[0]/text_field[0]"}),
                &[],
            ),
            (
                "set_value",
                json!({"app": "Form", "target": "window[0]/text_field[0]", "value": "Ada"}),
                &[],
            ),
            (
                "set_value",
                json!({"app": "Settings", "target": LOGIN, "value": true}),
                &[],
            ),
            (
                "type_text",
                json!({"app": "Form", "target": "window[0]/text_field[1]", "text": "a@b.c"}),
                &[],
            ),
            ("press_key", json!({"app": "Form", "key": "tab"}), &[]),
            (
                "scroll",
                json!({"app": "List", "target": "window[0]/scroll_area[0]", "direction": "down"}),
                &[],
            ),
            (
                "drag",
                json!({"app": "Form", "from": volume, "to_x": 135, "to_y": 244}),
                &[],
            ),
            (
                "drag",
                json!({"app": "Form", "from": volume, "to": "window[0]/button[\"Clear\"]"}),
                &[],
            ),
            ("write_clipboard", json!({"text": "hello"}), &[]),
            (
                "window_action",
                json!({"app": "Notes", "target": "window[0]", "action": "minimize"}),
                &[],
            ),
            (
                "window_action",
                json!({"app": "Notes", "target": "window[0]", "action": "restore"}),
                &[],
            ),
            ("release_app", json!({"app": "Form"}), &[]),
            ("quit_app", json!({"app": "Notes"}), &["exited"]),
        ],
    )
    .await;
    let lines = audit_lines(&audit);
    let acts: Vec<_> = lines
        .iter()
        .filter(|l| l["outcome"] == "ok" && l.get("confirmation").is_some_and(|c| !c.is_null()))
        .collect();
    let tools: std::collections::BTreeSet<&str> =
        acts.iter().filter_map(|l| l["tool"].as_str()).collect();
    for tool in [
        "launch_app",
        "activate_app",
        "lease_app",
        "focus",
        "set_value",
        "type_text",
        "press_key",
        "scroll",
        "drag",
        "write_clipboard",
        "window_action",
        "release_app",
        "quit_app",
    ] {
        assert!(
            tools.contains(tool),
            "{tool} has an audit line with a decision: {lines:?}"
        );
    }
    for line in &acts {
        assert_ne!(
            line["confirmation"], "not_checked",
            "a completed act skipped the decision point: {line}"
        );
    }
    // Quitting is its app's Quit command: "quit" is a default confirm word, so it was
    // allowed by configuration, not passed as harmless.
    let quit = acts
        .iter()
        .find(|l| l["tool"] == "quit_app")
        .expect("quit line");
    assert_eq!(
        quit["confirmation"], "allowed_without_elicitation",
        "{quit}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drops_check_boxes_quits_and_closes_are_decided_on_what_they_touch() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let words = "[policy]\nconfirm_words = [\"clear\", \"login\", \"quit\", \"close button\"]\n";
    let server = server_with(words, &audit).await;
    let mut c = session(&server).await;
    let refused = ["looks destructive", "cannot ask the user"];
    let last_decision = || {
        let line = audit_lines(&audit).pop().expect("a line");
        (line["tool"].clone(), line["confirmation"].clone())
    };

    // A drop onto Clear (by element, or by the point over it) is a press of Clear.
    let volume = r#"window[0]/slider["Volume"]"#;
    let before = app_value(&server, "Form", "volume");
    for to in [
        json!({"to": "window[0]/button[\"Clear\"]"}),
        json!({"to_x": 205, "to_y": 414}),
    ] {
        let mut args = json!({"app": "Form", "from": volume});
        args.as_object_mut()
            .unwrap()
            .extend(to.as_object().unwrap().clone());
        let r = check(&mut c, "drag", args, true, &refused).await;
        assert!(crate::support::text_of(&r).contains("Clear"), "{r}");
        assert_eq!(
            last_decision(),
            (json!("drag"), json!("refused_without_elicitation"))
        );
    }
    assert_eq!(
        app_value(&server, "Form", "volume"),
        before,
        "nothing was dragged"
    );

    // Writing a check box's state clicks it; writing text does not.
    check(
        &mut c,
        "set_value",
        json!({"app": "Settings", "target": LOGIN, "value": true}),
        true,
        &refused,
    )
    .await;
    assert_eq!(
        app_value(&server, "Settings", "launch_at_login"),
        Some(AxValue::Bool(false))
    );
    check(
        &mut c,
        "set_value",
        json!({"app": "Form", "target": "window[0]/text_field[0]", "value": "Clear"}),
        false,
        &[],
    )
    .await;
    assert_eq!(
        last_decision(),
        (json!("set_value"), json!("not_destructive"))
    );

    // quit_app is the app's Quit command, polite or forced: the app keeps running.
    check(&mut c, "launch_app", json!({"app": "Notes"}), false, &[]).await;
    for force in [false, true] {
        let r = check(
            &mut c,
            "quit_app",
            json!({"app": "Notes", "force": force}),
            true,
            &refused,
        )
        .await;
        assert!(crate::support::text_of(&r).contains("quit Notes"), "{r}");
    }
    assert!(server.demo.pid_of("Notes").is_some(), "Notes still runs");

    // Closing a window presses its close button; minimizing presses nothing.
    check(
        &mut c,
        "window_action",
        json!({"app": "Notes", "target": "window[0]", "action": "close"}),
        true,
        &refused,
    )
    .await;
    assert_eq!(
        last_decision(),
        (json!("window_action"), json!("refused_without_elicitation"))
    );
    check(
        &mut c,
        "window_action",
        json!({"app": "Notes", "target": "window[0]", "action": "minimize"}),
        false,
        &[],
    )
    .await;
    assert_eq!(
        last_decision(),
        (json!("window_action"), json!("not_destructive"))
    );
}
