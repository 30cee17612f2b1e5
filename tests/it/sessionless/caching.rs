//! Caching hints on list results (`ttlMs`, `cacheScope`: required on 2026-07-28 list results):
//! the tool list is private to the caller's scopes, the resource list stale at once, prompts
//! and templates public; a 2025-11-25 session gets the same hints.

use super::*;

/// `(ttlMs, cacheScope)` of a list result.
fn hint(result: &Value) -> (Option<u64>, Option<&str>) {
    (result["ttlMs"].as_u64(), result["cacheScope"].as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_results_say_how_long_and_by_whom_they_may_be_cached() {
    let callers = Callers::new();
    let server = TestServer::with_config(config(&callers.section())).await;
    let expected = [
        ("tools/list", (Some(60_000), Some("private"))),
        ("resources/list", (Some(0), Some("private"))),
        ("resources/templates/list", (Some(600_000), Some("public"))),
        ("prompts/list", (Some(600_000), Some("public"))),
    ];
    for (id, (method, want)) in (1..).zip(expected) {
        let (status, _, events) = exchange(modern(
            &server,
            Some(&callers.reader),
            id,
            method,
            json!({}),
        ))
        .await;
        assert_eq!(status, 200, "{method}: {events:?}");
        let result = &answer(&events, id)["result"];
        assert_eq!(hint(result), want, "{method} (2026-07-28): {result}");
        assert_eq!(result["resultType"], "complete", "{method}");
    }
    // A 2025-11-25 session sees the same hints (extra fields an older client ignores).
    let mut session = client_with(&server, &callers.reader);
    session.initialize().await;
    for (method, want) in expected {
        let answer = session.request(method, json!({})).await;
        assert_eq!(
            hint(&answer["result"]),
            want,
            "{method} (2025-11-25): {answer}"
        );
    }
}
