//! Acts in a large window (Rows: over 300 elements) picture what the act can change, not
//! the whole window each time: the window's last picture is kept with the app's events
//! since, so the next act re-reads only what those events named and the target. Effects on
//! other elements are still seen, and a change that landed between two acts (Later's effect,
//! 800 ms after its press) belongs to neither.

use super::*;

/// Elements the engine has read so far (`axgate_nodes_walked_total`).
fn walked(server: &crate::support::TestServer) -> f64 {
    server
        .state
        .metrics
        .render()
        .lines()
        .find_map(|l| l.strip_prefix("axgate_nodes_walked_total "))
        .and_then(|v| v.parse().ok())
        .expect("nodes walked")
}

#[tokio::test]
async fn acts_in_a_large_window_reread_what_changed_and_see_every_effect() {
    let (server, mut c) = start_session().await;
    check(&mut c, "launch_app", json!({"app": "Rows"}), false, &[]).await;
    let mark = json!({"app": "Rows", "target": r#"window[0]/button["Mark"]"#});
    let marks = "window[0]/static_text[0]";
    let before = walked(&server);
    let first = check(&mut c, "click", mark.clone(), false, &[]).await;
    assert_eq!(first["structuredContent"]["verified"], true, "{first}");
    assert_eq!(change_fields(&first, marks), ["value: 0 → 1"], "{first}");
    let whole = walked(&server) - before;
    assert!(whole >= 300.0, "the first act pictures the window: {whole}");

    let before = walked(&server);
    let second = check(&mut c, "click", mark.clone(), false, &[]).await;
    assert_eq!(second["structuredContent"]["verified"], true, "{second}");
    assert_eq!(change_fields(&second, marks), ["value: 1 → 2"], "{second}");
    let kept = walked(&server) - before;
    assert!(
        kept * 10.0 < whole,
        "the next act re-reads what changed, not the window: {kept} elements against {whole}"
    );

    // An effect that lands between two acts is not the next act's.
    let later = json!({"app": "Rows", "target": r#"window[0]/button["Later"]"#});
    let pressed = check(&mut c, "click", later, false, &[]).await;
    assert_eq!(pressed["structuredContent"]["verified"], false, "{pressed}");
    crate::support::wait::until("Later's effect", || {
        app_value(&server, "Rows", "late") == text("done")
    })
    .await;
    let third = check(&mut c, "click", mark, false, &[]).await;
    assert_eq!(change_fields(&third, marks), ["value: 2 → 3"], "{third}");
    let changes = third["structuredContent"]["changes"].to_string();
    assert!(!changes.contains("Late"), "{third}");
}
