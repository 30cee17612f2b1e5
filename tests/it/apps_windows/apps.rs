//! Apps: `launch_app`, `quit_app` (with its save dialog) and `activate_app`.

use super::*;

/// A server set up as for an unattended CI job (`policy.unconfirmed = "allow"`): quitting is
/// the app's own Quit command, which the default confirm words treat as destructive, so a
/// client that cannot be asked is refused otherwise (`confirmation_acts`).
async fn unattended_session() -> (TestServer, Client) {
    let server = TestServer::with_config(crate::support::config(
        "[policy]\nunconfirmed = \"allow\"\n",
    ))
    .await;
    let client = crate::support::session(&server).await;
    (server, client)
}

#[tokio::test]
async fn launch_app_waits_for_the_window_and_is_idempotent() {
    let (server, mut c) = start_session().await;
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Notes"));
    let r = check(
        &mut c,
        "launch_app",
        json!({"app": "Notes"}),
        false,
        &["Notes is ready (pid 41101, 1 window(s)) after"],
    )
    .await;
    let out = &r["structuredContent"];
    assert_eq!(
        out["app"],
        json!({"name": "Notes", "pid": 41101, "bundle_id": "dev.axgate.demo.notes", "frontmost": true})
    );
    assert_eq!(out["windows"], 1);
    // The window is there as soon as launch_app returns.
    check(
        &mut c,
        "list_windows",
        json!({"app": "Notes"}),
        false,
        &["window[0] \"Notes\""],
    )
    .await;
    assert!(has_node(&server, "Notes", "note"));
    // Launching again, by any name, activates the same process.
    for app in [
        "Notes",
        "notes",
        "dev.axgate.demo.notes",
        "/Applications/Notes.app",
    ] {
        let r = check(
            &mut c,
            "launch_app",
            json!({"app": app}),
            false,
            &["Notes is ready (pid 41101"],
        )
        .await;
        assert_eq!(r["structuredContent"]["app"]["pid"], 41101, "{app}");
    }
    let notes: Vec<_> = running(&mut c)
        .await
        .into_iter()
        .filter(|(n, _, _)| n == "Notes")
        .collect();
    assert_eq!(notes, [("Notes".to_owned(), 41101, true)]);
    // A built-in app that is running is just activated.
    let r = check(
        &mut c,
        "launch_app",
        json!({"app": "dev.axgate.demo.form"}),
        false,
        &["Form is ready (pid 41001"],
    )
    .await;
    assert_eq!(r["structuredContent"]["app"]["frontmost"], true);
    for (args, needle) in [
        (json!({"app": "Photoshop"}), "Photoshop"),
        (json!({}), "missing field `app`"),
        (
            json!({"app": "Notes", "timeout_ms": "soon"}),
            "invalid argument `timeout_ms`",
        ),
    ] {
        check(&mut c, "launch_app", args, true, &[needle]).await;
    }
}

/// launch_app's not-found text spoke of "running apps" (and pointed at list_apps, which
/// shows running apps) for something that was never running: it names what can be launched.
#[tokio::test]
async fn launch_app_not_found_names_what_can_be_launched_not_running_apps() {
    let (_server, mut c) = start_session().await;
    let r = check(
        &mut c,
        "launch_app",
        json!({"app": "Photoshop"}),
        true,
        &[
            "nothing that can be launched matches \"Photoshop\"",
            "bundle id or its path, such as /Applications/Name.app",
        ],
    )
    .await;
    let text = text_of(&r);
    assert!(!text.contains("running"), "{text}");
}

#[tokio::test]
async fn quit_app_verifies_the_exit_and_reports_a_refusal() {
    let (server, mut c) = unattended_session().await;
    steps(
        &mut c,
        &[
            ("launch_app", json!({"app": "Notes"}), &[]),
            ("get_tree", json!({"app": "Notes"}), &["[window] \"Notes\""]),
        ],
    )
    .await;
    let r = check(
        &mut c,
        "quit_app",
        json!({"app": "Notes"}),
        false,
        &["Notes (pid 41101) exited"],
    )
    .await;
    assert_eq!(
        r["structuredContent"],
        json!({"app": "Notes", "pid": 41101, "exited": true, "forced": false})
    );
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Notes"));
    check(
        &mut c,
        "get_tree",
        json!({"app": "Notes"}),
        true,
        &["no running app matches \"Notes\""],
    )
    .await;
    let info = check(&mut c, "session_info", json!({}), false, &[]).await;
    assert!(
        !text_of(&info).contains("Notes"),
        "the connection closed with the app: {info}"
    );
    // A relaunch is a new process.
    let r = check(&mut c, "launch_app", json!({"app": "Notes"}), false, &[]).await;
    let pid = r["structuredContent"]["app"]["pid"].as_u64().unwrap();
    assert_ne!(pid, 41101);
    steps(
        &mut c,
        &[
            (
                "quit_app",
                json!({"app": pid.to_string(), "force": true}),
                &[&format!("Notes (pid {pid}) exited")],
            ),
            // Editor with unsaved text asks first, and stays running.
            (
                "type_text",
                json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "draft"}),
                &[],
            ),
        ],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Editor", "timeout_ms": 1000}),
        true,
        &[
            "Editor is still running after 1000 ms",
            "it may be showing a dialog (check get_tree)",
            "use force: true",
        ],
    )
    .await;
    assert!(running(&mut c).await.iter().any(|(n, _, _)| n == "Editor"));
    check(
        &mut c,
        "list_windows",
        json!({"app": "Editor"}),
        false,
        &["dialog[0] \"Save Changes\"", "focused"],
    )
    .await;
    assert_eq!(app_text(&server, "Editor", "document"), "draft");
    let r = check(
        &mut c,
        "quit_app",
        json!({"app": "Editor", "force": true}),
        false,
        &["Editor (pid 41002) exited"],
    )
    .await;
    assert_eq!(r["structuredContent"]["forced"], true);
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Editor"));
    assert!(server.demo.pid_of("Editor").is_none());

    // A hung app ignores a polite quit; force kills it.
    check(
        &mut c,
        "quit_app",
        json!({"app": "Hung", "timeout_ms": 300}),
        true,
        &["Hung is still running after 300 ms"],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Hung", "force": true}),
        false,
        &["Hung (pid 41004) exited"],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Hung"}),
        true,
        &["no running app matches \"Hung\""],
    )
    .await;
}

/// Quitting politely, then answering the save dialog with "Don't Save", lets the quit carry
/// on: the app exits. The click that made it exit did what it was asked, so it should be
/// reported as done, not as a failure.
#[tokio::test]
async fn dont_save_in_the_quit_dialog_lets_the_app_exit() {
    let (server, mut c) = unattended_session().await;
    check(
        &mut c,
        "type_text",
        json!({"app": "Editor", "target": "window[0]/text_area[0]", "text": "draft"}),
        false,
        &[],
    )
    .await;
    check(
        &mut c,
        "quit_app",
        json!({"app": "Editor", "timeout_ms": 300}),
        true,
        &["still running"],
    )
    .await;
    let r = c
        .call(
            "click",
            json!({"app": "Editor", "target": "dialog[0]/button[\"Don't Save\"]"}),
        )
        .await;
    // The app is gone either way.
    assert!(running(&mut c).await.iter().all(|(n, _, _)| n != "Editor"));
    assert!(server.demo.pid_of("Editor").is_none());
    assert_eq!(
        r["isError"], false,
        "a click that quit the app is reported as a failure: {r}"
    );
}

#[tokio::test]
async fn activate_app_brings_an_app_to_the_front() {
    let (_server, mut c) = start_session().await;
    let front = |apps: &[(String, u64, bool)]| -> Vec<String> {
        apps.iter().filter(|a| a.2).map(|a| a.0.clone()).collect()
    };
    assert_eq!(front(&running(&mut c).await), ["Form"]);
    // (app as named, the app that comes to the front)
    for (app, name) in [
        ("Editor", "Editor"),
        ("41005", "Settings"),
        ("dev.axgate.demo.list", "List"),
        ("form", "Form"),
    ] {
        let r = check(
            &mut c,
            "activate_app",
            json!({"app": app}),
            false,
            &[&format!("{name} is frontmost")],
        )
        .await;
        assert_eq!(r["structuredContent"]["name"], name);
        assert_eq!(r["structuredContent"]["frontmost"], true);
        assert_eq!(front(&running(&mut c).await), [name], "after {app}");
    }
    check(
        &mut c,
        "activate_app",
        json!({"app": "Photoshop"}),
        true,
        &["no running app matches \"Photoshop\""],
    )
    .await;
}
