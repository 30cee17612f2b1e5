//! OAuth 2.1 JWT access tokens against a real authorization server, and key rotation.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jwt_access_tokens_from_a_real_authorization_server() {
    let keys = generate_keys(&["k1"]).await;
    let mut provider = Provider::start(keys, "k1").await;
    let server = jwt_server(&provider.issuer, &provider.jwks_uri(), "").await;

    // The metadata documents, without credentials.
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let response = reqwest::get(format!("http://{}{path}", server.addr))
            .await
            .expect("metadata");
        assert_eq!(response.status(), 200, "{path}");
        let doc: Value = response.json().await.expect("json");
        assert_eq!(doc["resource"], AUD);
        assert_eq!(doc["authorization_servers"], json!([provider.issuer]));
        assert_eq!(
            doc["scopes_supported"],
            json!([
                "axgate:read",
                "axgate:act",
                "axgate:admin",
                "axgate:metrics"
            ])
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }

    // No token: the challenge that starts the OAuth flow.
    let response = post_initialize(&server, None).await;
    assert_eq!(response.status(), 401);
    assert_eq!(
        challenge(&response),
        format!("Bearer resource_metadata=\"{METADATA}\", scope=\"axgate:read axgate:act\"")
    );

    // A valid token works, for every request of the session.
    let valid = provider
        .token("axgate-ci", "axgate:read axgate:act", AUD)
        .await;
    works(&server, &valid).await;

    // A token minted for another resource (RFC 8707) is refused.
    let elsewhere = provider
        .token(
            "axgate-ci",
            "axgate:read axgate:act",
            "https://elsewhere.example/mcp",
        )
        .await;
    refused(&server, &elsewhere, "wrong_audience").await;

    // Tampering: claims changed under the issuer's signature, or the signature changed.
    let escalated = with_payload(&valid, |p| p["scope"] = json!("axgate:admin"));
    refused(&server, &escalated, "bad_signature").await;
    let retargeted = with_payload(&elsewhere, |p| p["aud"] = json!(AUD));
    refused(&server, &retargeted, "bad_signature").await;
    // (A character inside the signature: the last one also holds padding bits.)
    let mut flipped = valid.clone().into_bytes();
    let at = flipped.len() - 10;
    flipped[at] = if flipped[at] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).expect("ascii");
    refused(&server, &flipped, "bad_signature").await;

    // Algorithms other than RS256/ES256 never reach a key: `none`, and HS256 (key confusion).
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"at+jwt","kid":"k1"}"#);
    let payload = valid.split('.').nth(1).expect("payload");
    refused(&server, &format!("{header}.{payload}."), "bad_signature").await;
    let mut hs = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    hs.kid = Some("k1".into());
    let claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("b64")).expect("claims");
    let forged = jsonwebtoken::encode(
        &hs,
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(provider.jwks_uri().as_bytes()),
    )
    .expect("sign");
    refused(&server, &forged, "bad_signature").await;

    // Expired: the short-lived client's tokens live 1 s; leeway is 0 here.
    let short = provider.token("axgate-short", "axgate:read", AUD).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    refused(&server, &short, "expired").await;

    // A valid token without axgate:read: 403 insufficient_scope naming the scope needed.
    let unrelated = provider.token("axgate-ci", "unrelated:scope", AUD).await;
    let response = post_initialize(&server, Some(&format!("Bearer {unrelated}"))).await;
    assert_eq!(response.status(), 403);
    let c = challenge(&response);
    assert!(
        c.starts_with("Bearer error=\"insufficient_scope\", scope=\"axgate:read\""),
        "{c}"
    );
    assert!(
        c.contains(&format!("resource_metadata=\"{METADATA}\"")),
        "{c}"
    );
    assert_eq!(failures(&server, "insufficient_scope"), 1);

    // An axgate that trusts another issuer refuses the same, correctly signed token.
    let other = format!("{}/another-issuer", provider.issuer);
    let strict = jwt_server(&other, &provider.jwks_uri(), "").await;
    refused(&strict, &valid, "wrong_issuer").await;

    // When the issuer's keys cannot be fetched: 503 with Retry-After, not a 401.
    let unreachable = jwt_server(&provider.issuer, "http://127.0.0.1:1/jwks", "").await;
    let response = post_initialize(&unreachable, Some(&format!("Bearer {valid}"))).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    assert_eq!(failures(&unreachable, "jwks_unavailable"), 1);

    // The counters are on /metrics (axgate:admin includes axgate:metrics), by reason only.
    let admin = provider.token("axgate-ci", "axgate:admin", AUD).await;
    let metrics = client_with(&server, &admin)
        .http
        .get(format!("http://{}/metrics", server.addr))
        .send()
        .await
        .expect("metrics");
    assert_eq!(metrics.status(), 200);
    let text = metrics.text().await.expect("text");
    assert!(
        text.contains("axgate_auth_failures_total{reason=\"bad_signature\"} 5"),
        "{text}"
    );
    assert!(!text.contains(&valid), "no token in metrics");
    // The valid token was verified once and then served from the verified-token cache.
    let cached = text
        .lines()
        .find_map(|l| l.strip_prefix("axgate_jwt_cache_bytes "))
        .and_then(|v| v.trim().parse::<f64>().ok());
    assert!(cached.is_some_and(|b| b > 0.0), "{cached:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_key_rotation_and_unknown_keys() {
    let keys = generate_keys(&["k1", "k2", "k3"]).await;
    let mut provider = Provider::start(subset(&keys, &["k1"]), "k1").await;
    let issuer = provider.issuer.clone();
    let jwks = provider.jwks_uri();
    // `eager` may fetch the JWKS every second; `lazy` once an hour.
    let eager = jwt_server(&issuer, &jwks, "jwks_refresh_min_secs = 1").await;
    let lazy = jwt_server(&issuer, &jwks, "jwks_refresh_min_secs = 3600").await;

    let t1 = provider.token("axgate-ci", "axgate:read", AUD).await;
    works(&eager, &t1).await;
    works(&lazy, &t1).await;

    // Another provider's token (its own issuer and key k3): the token's issuer picks the keys
    // it is checked against (`[[auth.issuers]]`), and no trusted issuer is its: wrong_issuer.
    let mut stranger = Provider::start(subset(&keys, &["k3"]), "k3").await;
    let t3 = stranger.token("axgate-ci", "axgate:read", AUD).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    refused(&eager, &t3, "wrong_issuer").await;

    // Rotation: the issuer publishes k2 (new, signing) and k1 (old).
    provider.rotate(subset(&keys, &["k2", "k1"]), "k2").await;
    let t2 = provider.token("axgate-ci", "axgate:read", AUD).await;
    assert!(
        t2.starts_with(&URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","typ":"at+jwt","kid":"k2"}"#))
    );

    // The hourly one may not fetch again yet: k2 stays unknown there.
    refused(&lazy, &t2, "unknown_key").await;
    // The eager one fetches on the unknown kid and accepts the new key; the old still works.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    works(&eager, &t2).await;
    works(&eager, &t1).await;

    // Withdrawal: the issuer stops publishing k1. Once axgate has fetched the new set (an
    // unknown kid makes it fetch), k1's tokens are refused, even one verified (and cached,
    // `http::auth::verified`) a moment ago.
    provider.rotate(subset(&keys, &["k2"]), "k2").await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    // A token of this issuer with a kid it never published makes axgate fetch the set.
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","typ":"at+jwt","kid":"k9"}"#);
    let claims = URL_SAFE_NO_PAD.encode(
        serde_json::to_vec(&serde_json::json!({"iss": issuer, "aud": AUD, "sub": "x"}))
            .expect("claims"),
    );
    let unpublished = format!("{header}.{claims}.c2lnbmF0dXJl");
    refused(&eager, &unpublished, "unknown_key").await;
    refused(&eager, &t1, "unknown_key").await;
    works(&eager, &t2).await;
    drop((stranger, provider));
}
