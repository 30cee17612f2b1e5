//! App leases between sessions, and `session_info`.

use super::*;
use crate::support::PROTOCOL;
use crate::support::wait::eventually;
use std::time::Duration;

#[tokio::test]
async fn a_lease_blocks_other_sessions_changes_until_released() {
    let server = TestServer::start().await;
    let mut a = session(&server).await;
    let mut b = session(&server).await;
    let lease = check(
        &mut a,
        "lease_app",
        json!({"app": "Form", "seconds": 120}),
        false,
        &["Form is leased to this session until "],
    )
    .await;
    let until = lease["structuredContent"]["until"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(lease["structuredContent"]["pid"], 41001);
    assert!(
        humantime::parse_rfc3339(&until).is_ok(),
        "until is RFC 3339: {until}"
    );
    let refusal = format!(
        "Form is leased by another session until {until}; wait for the lease to end, or coordinate with its holder"
    );
    // Every change B tries is refused, and nothing happens.
    let changes: Vec<(&str, Value)> = vec![
        (
            "click",
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
        ),
        (
            "perform_action",
            json!({"app": "Form", "target": "window[0]/check_box[0]", "action": "press"}),
        ),
        (
            "focus",
            json!({"app": "Form", "target": "window[0]/text_field[0]"}),
        ),
        (
            "set_value",
            json!({"app": "Form", "target": "window[0]/text_field[0]", "value": "B"}),
        ),
        (
            "type_text",
            json!({"app": "Form", "target": "window[0]/text_field[0]", "text": "B"}),
        ),
        ("type_text", json!({"app": "Form", "text": "B"})),
        ("press_key", json!({"app": "Form", "key": "tab"})),
        (
            "select_option",
            json!({"app": "Form", "target": "window[0]/popup_button[0]", "option": "Blue"}),
        ),
        (
            "scroll",
            json!({"app": "Form", "target": "window[0]", "direction": "down"}),
        ),
        (
            "drag",
            json!({"app": "Form", "from": "window[0]/slider[0]", "to_x": 100, "to_y": 244}),
        ),
        (
            "window_action",
            json!({"app": "Form", "target": "window[0]", "action": "minimize"}),
        ),
        ("activate_app", json!({"app": "Form"})),
        ("quit_app", json!({"app": "Form"})),
        ("lease_app", json!({"app": "Form"})),
    ];
    for (tool, args) in changes {
        check(&mut b, tool, args, true, &[&refusal]).await;
    }
    assert!(server.demo.pid_of("Form").is_some());
    let status = server.demo.node_by_identifier("Form", "status").unwrap();
    assert_eq!(status.value, Some(AxValue::Text("Ready".into())));
    // B can still read, launch (activate) and use the clipboard.
    for (tool, args) in [
        (
            "get_element",
            json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
        ),
        ("get_tree", json!({"app": "Form"})),
        ("find", json!({"app": "Form", "role": "button"})),
        (
            "assert",
            json!({"app": "Form", "target": "window[0]/static_text[0]", "value": "Ready"}),
        ),
        ("screenshot", json!({"app": "Form"})),
        ("diff", json!({"app": "Form"})),
        ("write_clipboard", json!({"text": "b"})),
        ("launch_app", json!({"app": "Form"})),
    ] {
        check(&mut b, tool, args, false, &[]).await;
    }
    // Other apps are not leased.
    check(
        &mut b,
        "click",
        json!({"app": "Settings", "target": "window[0]/tab_group[0]/tab[\"Advanced\"]"}),
        false,
        &[],
    )
    .await;
    // The holder acts freely, and can extend its lease.
    steps(
        &mut a,
        &[
            (
                "click",
                json!({"app": "Form", "target": "window[0]/check_box[0]"}),
                &["value: \"false\" → \"true\""],
            ),
            (
                "lease_app",
                json!({"app": "41001", "seconds": 60}),
                &["Form is leased to this session until"],
            ),
        ],
    )
    .await;
    let info = check(
        &mut a,
        "session_info",
        json!({}),
        false,
        &["Form pid=41001 handles=", " leased until "],
    )
    .await;
    let form = info["structuredContent"]["connections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|conn| conn["app"] == "Form")
        .unwrap()
        .clone();
    assert!(form["leased_until"].is_string(), "{form}");
    // B's session_info shows no lease of its own.
    let info_b = check(&mut b, "session_info", json!({}), false, &[]).await;
    assert!(!text_of(&info_b).contains("leased"), "{info_b}");
    // Released, B may act.
    let again = steps(
        &mut a,
        &[
            ("release_app", json!({"app": "Form"}), &["released Form"]),
            (
                "release_app",
                json!({"app": "Form"}),
                &["this session held no lease on Form"],
            ),
        ],
    )
    .await;
    assert_eq!(
        again["structuredContent"],
        json!({"app": "Form", "released": false})
    );
    check(
        &mut b,
        "click",
        json!({"app": "Form", "target": "window[0]/button[\"Submit\"]"}),
        false,
        &["(rung: press)"],
    )
    .await;
    assert_eq!(
        server
            .demo
            .node_by_identifier("Form", "status")
            .unwrap()
            .value,
        Some(AxValue::Text("Submitted: ".into()))
    );
    // Now B holds it, and A is refused.
    check(
        &mut b,
        "lease_app",
        json!({"app": "Form", "seconds": 1}),
        false,
        &[],
    )
    .await;
    check(
        &mut a,
        "click",
        json!({"app": "Form", "target": "window[0]/button[0]"}),
        true,
        &["Form is leased by another session until"],
    )
    .await;
    // A lease expires by itself: A's act is refused until it has, and then done.
    let act = json!({"app": "Form", "target": "window[0]/slider[0]", "action": "increment"});
    eventually(Duration::from_secs(10), "the lease's expiry", async || {
        let result = a.call("perform_action", act.clone()).await;
        let refused = result["isError"] == true;
        if refused {
            let text = crate::support::text_of(&result);
            assert!(text.contains("Form is leased by another session"), "{text}");
        }
        !refused
    })
    .await;
    for (args, needle) in [
        (
            json!({"app": "Form", "seconds": 0}),
            "invalid argument `seconds`: 1 to 3600",
        ),
        (
            json!({"app": "Form", "seconds": 3601}),
            "invalid argument `seconds`: 1 to 3600",
        ),
        (
            json!({"app": "Photoshop"}),
            "no running app matches \"Photoshop\"",
        ),
    ] {
        check(&mut a, "lease_app", args, true, &[needle]).await;
    }
}

#[tokio::test]
async fn session_info_reports_connections_and_handles() {
    let (server, mut c) = start_session().await;
    let r = check(&mut c, "session_info", json!({}), false, &["backend: demo"]).await;
    assert_eq!(
        r["structuredContent"],
        json!({"backend": "demo", "connections": []})
    );
    steps(
        &mut c,
        &[
            ("get_tree", json!({"app": "Form"}), &[]),
            (
                "find",
                json!({"app": "List", "role": "list_item", "max_results": 5}),
                &[],
            ),
        ],
    )
    .await;
    let r = check(
        &mut c,
        "session_info",
        json!({}),
        false,
        &["Form pid=41001 handles=13", "List pid=41006 handles=5"],
    )
    .await;
    let mut conns: Vec<(String, u64, u64, bool)> = r["structuredContent"]["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["app"].as_str().unwrap().to_owned(),
                c["pid"].as_u64().unwrap(),
                c["handles"].as_u64().unwrap(),
                c["unresponsive"].as_bool().unwrap(),
            )
        })
        .collect();
    conns.sort();
    assert_eq!(
        conns,
        [
            ("Form".to_owned(), 41001, 13, false),
            ("List".to_owned(), 41006, 5, false)
        ]
    );
    // Sessions are separate.
    let mut other = session(&server).await;
    let r = check(&mut other, "session_info", json!({}), false, &[]).await;
    assert_eq!(r["structuredContent"]["connections"], json!([]));
    check(
        &mut c,
        "session_info",
        json!({"verbose": true}),
        true,
        &["unexpected argument `verbose`: this tool takes none"],
    )
    .await;
}

#[tokio::test]
async fn ending_the_session_releases_its_leases() {
    let server = TestServer::start().await;
    let mut a = session(&server).await;
    let mut b = session(&server).await;
    let lease = json!({"app": "Form", "seconds": 600});
    check(
        &mut a,
        "lease_app",
        lease,
        false,
        &["leased to this session"],
    )
    .await;
    let write = json!({"app": "Form", "target": "window[0]/text_field[0]", "value": "B"});
    check(
        &mut b,
        "set_value",
        write.clone(),
        true,
        &["leased by another"],
    )
    .await;
    let sid = a.session.clone().expect("session id");
    let ended = a
        .http
        .delete(&a.url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", PROTOCOL)
        .send()
        .await
        .expect("DELETE");
    assert_eq!(ended.status(), 200);
    // The session's state goes with it, and its leases with that: within moments B may write.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let r = b.call("set_value", write.clone()).await;
        if r["isError"] != true {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the ended session's lease still holds Form: {r}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
