//! Static bearer tokens, `axgate token new`, the route sweep, tokens in query strings, and
//! the non-loopback refusal.

use super::*;

#[tokio::test]
async fn static_tokens() {
    let ci = "axg_ci-token-for-tests-only-0123456789abcdefghij";
    let reader = "axg_reader-token-for-tests-only-0123456789abcdef";
    let entry = |name: &str, token: &str, scopes: &str| {
        format!(
            "{{ name = \"{name}\", sha256 = \"{}\", scopes = [{scopes}] }}",
            tokens::hex(&tokens::sha256(token))
        )
    };
    let server = TestServer::with_config(crate::support::config(&format!(
        "[auth]\ntokens = [{}, {}]\n",
        entry("ci", ci, "\"axgate:read\", \"axgate:act\""),
        entry("reader", reader, "\"axgate:read\""),
    )))
    .await;
    works(&server, ci).await;
    works(&server, reader).await;

    // Near misses all take the same path: hash, compare with every entry, refuse.
    let mut near = vec![
        ci[..ci.len() - 1].to_owned(),
        format!("{ci}x"),
        ci.replace("axg_", "axh_"),
        ci.to_uppercase(),
        "axg_".to_owned(),
    ];
    let mut last = ci.to_owned();
    last.pop();
    last.push('k');
    near.push(last);
    for token in &near {
        refused(&server, token, "unknown_token").await;
    }
    assert_eq!(failures(&server, "unknown_token"), near.len() as u64);

    // Without a Bearer token: 401 with the plain challenge; a broken header: 400.
    for value in ["Basic Y2k6c2VjcmV0", "Token abc"] {
        let response = post_initialize(&server, Some(value)).await;
        assert_eq!(response.status(), 401, "{value}");
        assert!(!challenge(&response).contains("error="), "{value}");
    }
    for value in ["Bearer", "Bearer a b", "Bearer \"quoted\""] {
        let response = post_initialize(&server, Some(value)).await;
        assert_eq!(response.status(), 400, "{value}");
        assert!(
            challenge(&response).starts_with("Bearer error=\"invalid_request\""),
            "{value}"
        );
    }

    // Without an audience, the metadata names this server by its Host and lists no issuer.
    let doc: Value = reqwest::get(format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    ))
    .await
    .expect("metadata")
    .json()
    .await
    .expect("json");
    assert_eq!(doc["resource"], format!("http://{}/mcp", server.addr));
    assert!(doc.get("authorization_servers").is_none(), "{doc}");
    let response = post_initialize(&server, None).await;
    assert!(challenge(&response).contains(&format!(
        "resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\"",
        server.addr
    )));
}

#[tokio::test]
async fn token_new_prints_a_working_token_and_config() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_axgate"))
            .args(args)
            .env_remove("AXGATE_CONFIG")
            .output()
            .expect("run axgate")
    };
    let out = run(&[
        "token",
        "new",
        "--name",
        "ci",
        "--scopes",
        "axgate:read,axgate:act",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let (token, snippet) = stdout.split_once('\n').expect("token line, then config");
    let body = token.strip_prefix("axg_").expect("axg_ prefix");
    assert_eq!(URL_SAFE_NO_PAD.decode(body).expect("base64url").len(), 32);
    assert!(!snippet.contains(token), "the config holds only the hash");
    assert!(out.stderr.is_empty(), "nothing logged");

    let again = run(&["token", "new", "--name", "ci"]);
    let again = String::from_utf8(again.stdout).expect("utf-8");
    assert_ne!(again.lines().next(), Some(token), "every token is fresh");

    let server = TestServer::with_config(crate::support::config(snippet)).await;
    works(&server, token).await;

    let bad = run(&["token", "new", "--name", "ci", "--scopes", "axgate:write"]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("axgate:read, axgate:act, axgate:admin or axgate:metrics")
    );
    let bad = run(&["token", "new", "--name", "two words"]);
    assert!(!bad.status.success());
}

#[tokio::test]
async fn route_sweep_without_credentials() {
    let token = "axg_sweep-token-for-tests-only-0123456789abcdefgh";
    let server = TestServer::with_config(crate::support::config(&format!(
        "[auth]\ntokens = [{{ name = \"sweep\", sha256 = \"{}\", scopes = [\"axgate:read\", \"axgate:metrics\"] }}]\n",
        tokens::hex(&tokens::sha256(token))
    )))
    .await;
    let http = reqwest::Client::new();
    let public = [
        "/healthz",
        "/readyz",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ];
    for path in public {
        let response = http
            .get(format!("http://{}{path}", server.addr))
            .send()
            .await
            .expect("get");
        assert_eq!(response.status(), 200, "{path} is public");
    }
    let protected = [
        "/mcp",
        "/metrics",
        "/",
        "/nope",
        "/mcp/extra",
        "/healthz/x",
        "/.well-known/oauth-protected-resource/other",
        "/.well-known/openid-configuration",
        // The WebDriver facade (docs/WEBDRIVER.md), refused in its own W3C shape.
        "/status",
        "/session",
        "/wd/hub/session/abc/source",
    ];
    for path in protected {
        for method in [
            reqwest::Method::GET,
            reqwest::Method::POST,
            reqwest::Method::DELETE,
        ] {
            let response = http
                .request(method.clone(), format!("http://{}{path}", server.addr))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body("{}")
                .send()
                .await
                .expect("send");
            assert_eq!(response.status(), 401, "{method} {path}");
            assert!(
                challenge(&response).contains("resource_metadata="),
                "{method} {path}"
            );
        }
    }
    // With a token the same routes answer normally.
    let response = http
        .get(format!("http://{}/metrics", server.addr))
        .bearer_auth(token)
        .send()
        .await
        .expect("metrics");
    assert_eq!(response.status(), 200);
    assert!(
        response
            .text()
            .await
            .expect("text")
            .contains("axgate_auth_failures_total{reason=\"missing\"}")
    );
}

#[tokio::test]
async fn tokens_in_the_query_string_are_refused() {
    let token = "axg_query-token-for-tests-only-0123456789abcdefgh";
    let server = TestServer::with_config(crate::support::config(&format!(
        "[auth]\ntokens = [{{ name = \"q\", sha256 = \"{}\", scopes = [\"axgate:read\"] }}]\n",
        tokens::hex(&tokens::sha256(token))
    )))
    .await;
    let http = reqwest::Client::new();
    for (method, path) in [
        (reqwest::Method::POST, format!("/mcp?access_token={token}")),
        (
            reqwest::Method::GET,
            format!("/mcp?x=1&access_token={token}"),
        ),
        (
            reqwest::Method::GET,
            format!("/healthz?access%5Ftoken={token}"),
        ),
    ] {
        // Refused even alongside a valid header: the token has already leaked into a URL.
        let response = http
            .request(method.clone(), format!("http://{}{path}", server.addr))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .expect("send");
        assert_eq!(response.status(), 400, "{method} {path}");
        assert!(challenge(&response).contains("error=\"invalid_request\""));
        let body = response.text().await.expect("body");
        assert!(body.contains("Authorization: Bearer"), "{body}");
        assert!(!body.contains(token), "the token is not echoed");
    }
    assert_eq!(failures(&server, "query_token"), 3);
}

#[tokio::test]
async fn listening_beyond_loopback_needs_auth() {
    let state = |config: Config| {
        let metrics = Metrics::new(prometheus::Registry::new()).expect("metrics");
        let engine = Engine::new(
            std::sync::Arc::new(DemoBackend::new()),
            EngineConfig::default(),
            metrics.engine.clone(),
        );
        AppState::new(config, engine, metrics)
    };
    let errors = state(crate::support::config(
        "[server]\nbind = \"0.0.0.0:8741\"\n",
    ))
    .err()
    .expect("refused");
    assert!(errors[0].contains("not a loopback address"), "{errors:?}");
    assert!(errors[0].contains("axgate token new"), "{errors:?}");
    let hash = tokens::hex(&tokens::sha256("axg_x"));
    let with_auth = crate::support::config(&format!(
        "[server]\nbind = \"0.0.0.0:8741\"\n[auth]\ntokens = [{{ name = \"n\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]\n"
    ));
    assert!(state(with_auth).is_ok());
    assert!(
        state(crate::support::config(
            "[server]\nbind = \"127.0.0.1:8741\"\n"
        ))
        .is_ok()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metrics_token_reads_metrics_and_nothing_else() {
    let [scrape, reader, admin] =
        ["scrape", "reader", "admin"].map(|_| tokens::generate().expect("token"));
    let entry = |name: &str, token: &str, scope: &str| {
        format!(
            "{{ name = \"{name}\", sha256 = \"{}\", scopes = [\"{scope}\"] }}",
            tokens::hex(&tokens::sha256(token))
        )
    };
    let server = TestServer::with_config(crate::support::config(&format!(
        "[auth]\ntokens = [{}, {}, {}]\n",
        entry("prometheus", &scrape, "axgate:metrics"),
        entry("agent", &reader, "axgate:read"),
        entry("ops", &admin, "axgate:admin"),
    )))
    .await;
    let http = reqwest::Client::new();
    let metrics = |token: &str| {
        http.get(format!("http://{}/metrics", server.addr))
            .bearer_auth(token)
            .send()
    };
    for (token, status) in [(&scrape, 200), (&admin, 200), (&reader, 403)] {
        let response = metrics(token).await.expect("scrape");
        assert_eq!(response.status(), status);
        if status == 403 {
            assert!(
                challenge(&response).contains("scope=\"axgate:metrics\""),
                "{}",
                challenge(&response)
            );
        }
    }
    // Without a token, or with an unknown one, the challenge of /metrics asks for the scope
    // that reads it, not the `axgate:read axgate:act` of /mcp (issue 32, item 4).
    let bare = http
        .get(format!("http://{}/metrics", server.addr))
        .send()
        .await
        .expect("scrape");
    assert_eq!(bare.status(), 401);
    assert!(
        challenge(&bare).ends_with("scope=\"axgate:metrics\""),
        "{}",
        challenge(&bare)
    );
    let unknown = metrics("not-a-token").await.expect("scrape");
    assert_eq!(unknown.status(), 401);
    assert!(
        challenge(&unknown).contains("scope=\"axgate:metrics\""),
        "{}",
        challenge(&unknown)
    );
    // The scrape token reaches nothing on /mcp: no tree, no clipboard, no screenshot.
    let response = post_initialize(&server, Some(&format!("Bearer {scrape}"))).await;
    assert_eq!(response.status(), 403);
    assert!(challenge(&response).contains("scope=\"axgate:read\""));
}
