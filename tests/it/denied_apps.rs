//! A denied app stays out of reach however it is named, and a refusal does not reveal that
//! it exists: `launch_app` applies the app rules to every name of what would start (name,
//! bundle id, path) before starting anything; refusals read exactly like "no such app";
//! a screenshot of a region is cut from the named app's own window, so it shows no other app.

use std::path::Path;

use crate::support::{TestServer, audit_lines, check, config, session, text_of};
use serde_json::json;

async fn server_with(extra: &str, audit_extra: &str, audit: &Path) -> TestServer {
    TestServer::with_config(config(&format!(
        "{extra}\n[audit]\npath = {:?}\n{audit_extra}\n",
        audit.display().to_string()
    )))
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_app_is_never_launched_by_path_bundle_id_or_name() {
    let dir = tempfile::tempdir().unwrap();
    for (rule, specs) in [
        (
            "Notes",
            &[
                "/Applications/Notes.app",
                "/Applications/Notes.app/",
                "dev.axgate.demo.notes",
                "notes",
            ][..],
        ),
        (
            "dev.axgate.demo.notes",
            &["Notes", "/Applications/Notes.app"][..],
        ),
    ] {
        let audit = dir.path().join(format!("{rule}.jsonl"));
        let server = server_with(
            &format!("[policy]\ndeny_apps = [{rule:?}]"),
            "deny_window_secs = 0",
            &audit,
        )
        .await;
        let mut c = session(&server).await;
        for spec in specs {
            let result = check(&mut c, "launch_app", json!({"app": spec}), true, &[]).await;
            assert!(
                server.demo.pid_of("Notes").is_none(),
                "{rule}: launch_app {spec:?} started the denied app"
            );
            // Word for word what an app that is not installed gets.
            let unknown = check(&mut c, "launch_app", json!({"app": "Photoshop"}), true, &[]).await;
            assert_eq!(
                text_of(&result).replace(spec, "?"),
                text_of(&unknown).replace("Photoshop", "?"),
                "{rule}: the refusal of {spec:?} reveals the app"
            );
        }
        let lines = audit_lines(&audit);
        let denied: Vec<_> = lines
            .iter()
            .filter(|l| l["tool"] == "launch_app" && l["outcome"] == "denied")
            .collect();
        assert_eq!(denied.len(), specs.len(), "{lines:?}");
        let reason = denied[0]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("policy.deny_apps rule"),
            "the trail keeps the rule: {reason}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_reads_like_no_such_app() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let server = server_with("[policy]\ndeny_apps = [\"List\"]", "", &audit).await;
    let mut c = session(&server).await;
    for (tool, args) in [
        ("get_tree", json!({"app": "List"})),
        ("press_key", json!({"app": "list", "key": "tab"})),
    ] {
        let denied = check(&mut c, tool, args.clone(), true, &[]).await;
        let mut other = args.clone();
        other["app"] = json!("Nonesuch");
        let unknown = check(&mut c, tool, other, true, &[]).await;
        let query = args["app"].as_str().unwrap_or_default();
        assert_eq!(
            text_of(&denied).replace(&format!("{query:?}"), "?"),
            text_of(&unknown).replace("\"Nonesuch\"", "?"),
            "{tool}: the refusal reveals that List exists"
        );
        assert!(!text_of(&denied).contains("policy"), "{}", text_of(&denied));
    }
    let read = c
        .request("resources/read", json!({"uri": "axgate://app/List/tree"}))
        .await;
    let message = read["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no running app matches"), "{read}");
    assert!(!message.contains("policy"), "{read}");
    let lines = audit_lines(&audit);
    assert_eq!(lines[0]["outcome"], "denied");
    assert_eq!(lines[0]["reason"], "policy.deny_apps rule \"list\"");
}

/// Issue 33, finding 6: a region was captured from the screen as it was, and refused when a
/// denied window lay in it, so where the refusals started mapped the hidden window. A region
/// is now cut from the named app's own window: the answer is the same wherever (and whether)
/// a denied window lies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_region_screenshot_shows_the_named_apps_window_only_and_maps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let server = server_with("[policy]\ndeny_apps = [\"List\"]", "", &audit).await;
    let mut c = session(&server).await;
    // List's window lies at (1380, 560) 400×320; Form's at (40, 60) 480×440.
    let over_list = json!({"app": "Form", "region": [1400.0, 600.0, 100.0, 100.0]});
    let over_nothing = json!({"app": "Form", "region": [900.0, 100.0, 100.0, 100.0]});
    let a = check(
        &mut c,
        "screenshot",
        over_list,
        true,
        &["outside Form's window"],
    )
    .await;
    let b = check(
        &mut c,
        "screenshot",
        over_nothing,
        true,
        &["outside Form's window"],
    )
    .await;
    let shape = |v: &serde_json::Value| {
        text_of(v)
            .replace("1400, 600", "?")
            .replace("900, 100", "?")
    };
    assert_eq!(shape(&a), shape(&b), "a denied window changes the answer");
    assert!(!text_of(&a).contains("List"), "{a}");

    // The whole screen as a region is Form's window, the same picture as without a region.
    let screen = json!({"app": "Form", "region": [0.0, 0.0, 1920.0, 1080.0]});
    let shot = check(&mut c, "screenshot", screen, false, &[]).await;
    let window = check(&mut c, "screenshot", json!({"app": "Form"}), false, &[]).await;
    assert_eq!(shot["content"][0]["type"], "image");
    assert_eq!(shot["content"][0]["data"], window["content"][0]["data"]);
    let geometry = |v: &serde_json::Value| {
        v["content"][2]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        geometry(&shot).contains("frame x=40 y=60 w=480 h=440"),
        "{shot}"
    );
    // A region inside the window is cut from it.
    let part = json!({"app": "Form", "region": [40.0, 60.0, 200.0, 100.0]});
    let part = check(&mut c, "screenshot", part, false, &[]).await;
    assert!(
        geometry(&part).contains("frame x=40 y=60 w=200 h=100"),
        "{part}"
    );
    let lines = audit_lines(&audit);
    assert!(
        lines
            .iter()
            .filter(|l| l["tool"] == "screenshot")
            .all(|l| l["outcome"] != "denied"),
        "nothing about List is decided: {lines:?}"
    );
}

/// Issue 33, finding 5: `resources/read` and `resources/subscribe` answered a denied app
/// that runs with `app_denied` (an internal error) and an absent one with `app_not_found`
/// (−32002). Both now read the same: code, message and kind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_reads_and_subscriptions_answer_a_denied_app_as_an_absent_one() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    // A bundle-id rule: the name passes, the app is found running, then refused.
    let server = server_with(
        "[policy]\ndeny_apps = [\"dev.axgate.demo.list\"]",
        "",
        &audit,
    )
    .await;
    let mut c = session(&server).await;
    for method in ["resources/read", "resources/subscribe"] {
        let answer = |app: &str| json!({"uri": format!("axgate://app/{app}/tree")});
        let denied = c.request(method, answer("List")).await;
        let absent = c.request(method, answer("Nonesuch")).await;
        let shape = |v: &serde_json::Value, name: &str| {
            let mut error = v["error"].clone();
            let message = error["message"].as_str().unwrap_or_default().to_owned();
            error["message"] = json!(message.replace(&format!("{name:?}"), "?"));
            error["data"]["uri"] = json!("?");
            error
        };
        assert_eq!(
            shape(&denied, "List"),
            shape(&absent, "Nonesuch"),
            "{method}: the answer tells that List runs: {denied} vs {absent}"
        );
        assert_eq!(denied["error"]["code"], -32002, "{denied}");
        assert_eq!(denied["error"]["data"]["kind"], "app_not_found", "{denied}");
    }
}
