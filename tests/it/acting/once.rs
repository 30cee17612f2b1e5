//! An act happens once: a click whose press the app accepted is not followed by a pointer
//! click unless the caller asks (`fallback: true`), so an effect that comes after the wait
//! (Counter's Submit counts 800 ms late, as a network call would) is actuated exactly once;
//! a click whose effect is invisible (Clear on a clear form) is ok with `verified: false`
//! unless `require_effect: true` was asked.

use super::*;

#[tokio::test]
async fn a_click_whose_effect_comes_after_the_wait_acts_exactly_once() {
    let (server, mut c) = start_session().await;
    check(&mut c, "launch_app", json!({"app": "Counter"}), false, &[]).await;
    let submit = r#"window[0]/button["Submit"]"#;
    let r = check(
        &mut c,
        "click",
        json!({"app": "Counter", "target": submit}),
        false,
        &[
            "no observable effect",
            "No other rung ran",
            "fallback: true",
            "require_effect: true",
        ],
    )
    .await;
    let out = &r["structuredContent"];
    assert_eq!(out["verified"], false, "{r}");
    assert_eq!(out["rung"], "press", "{r}");
    // The late effect lands, once.
    check(
        &mut c,
        "wait_for",
        json!({"app": "Counter", "target": r#"window[0]/static_text["Submitted"]"#,
               "condition": "value_contains", "value": "1", "timeout_ms": 3000}),
        false,
        &[],
    )
    .await;
    // Long enough for a second actuation's late effect to land too.
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    assert_eq!(app_value(&server, "Counter", "submitted"), number(1.0));
}

#[tokio::test]
async fn clear_on_a_clear_form_is_ok_unverified_unless_an_effect_is_required() {
    let (server, mut c) = start_session().await;
    let clear = r#"window[0]/button["Clear"]"#;
    let first = check(
        &mut c,
        "click",
        json!({"app": "Form", "target": clear}),
        false,
        &[],
    )
    .await;
    assert_eq!(first["structuredContent"]["verified"], true, "{first}");
    assert_eq!(app_value(&server, "Form", "status"), text("Cleared"));
    let again = check(
        &mut c,
        "click",
        json!({"app": "Form", "target": clear}),
        false,
        &[
            "(rung: press)",
            "no observable effect: the press was accepted",
        ],
    )
    .await;
    assert_eq!(again["structuredContent"]["verified"], false, "{again}");
    assert_eq!(again["structuredContent"]["rung"], "press", "{again}");
    let cases: &[(Value, &[&str])] = &[(
        json!({"app": "Form", "target": clear, "require_effect": true}),
        &[
            "no rung produced an observable effect",
            "tried press (no effect)",
            "require_effect was asked",
        ],
    )];
    refusals(&mut c, "click", cases).await;
}

#[tokio::test]
async fn the_pointer_follows_an_accepted_press_only_when_fallback_is_asked() {
    let (server, mut c) = start_session().await;
    let stubborn = r#"window[0]/button["Stubborn"]"#;
    // Stubborn accepts the press and ignores it: without the fallback, nothing else runs.
    let r = check(
        &mut c,
        "click",
        json!({"app": "Form", "target": stubborn}),
        false,
        &["(rung: press)"],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], false, "{r}");
    assert_eq!(app_value(&server, "Form", "status"), text("Ready"));
    let r = check(
        &mut c,
        "click",
        json!({"app": "Form", "target": stubborn, "fallback": true}),
        false,
        &["(rung: pointer)", "\"Ready\" → \"Stubborn clicked\""],
    )
    .await;
    assert_eq!(r["structuredContent"]["verified"], true, "{r}");
    assert_eq!(
        app_value(&server, "Form", "status"),
        text("Stubborn clicked")
    );
}
