//! JWTs the tests sign themselves: an ES256 key generated per test, its JWK set served on a
//! port-0 loopback listener (axgate fetches it like any issuer's), so a test can choose every
//! header field and claim (`typ`, `crit`, a `sub` with a newline, a `sub` named like a static
//! token). Then: JWT hygiene (`typ`, `crit`, per-issuer `auth.accepted_typ`) and identity
//! namespacing (a JWT subject never shares a static token's limits, sessions or name).

use super::*;
use crate::support::config;

/// A loopback issuer: `iss` is `http://127.0.0.1:<port>`, its JWK set at `/jwks`.
pub(super) struct LocalIssuer {
    pub(super) issuer: String,
    key: jsonwebtoken::EncodingKey,
}

impl LocalIssuer {
    pub(super) async fn start() -> LocalIssuer {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256");
        let point = pair.public_key_raw();
        assert_eq!(point.len(), 65, "an uncompressed P-256 point");
        let jwks = json!({"keys": [{
            "kty": "EC", "crv": "P-256", "kid": "local", "use": "sig", "alg": "ES256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..]),
        }]})
        .to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let app = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                let jwks = jwks.clone();
                async move { ([("content-type", "application/json")], jwks) }
            }),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        LocalIssuer {
            issuer: format!("http://{addr}"),
            key: jsonwebtoken::EncodingKey::from_ec_der(&pair.serialize_der()),
        }
    }

    /// The `[auth]` lines accepting this issuer's tokens for [`AUD`].
    pub(super) fn section(&self, extra: &str) -> String {
        format!(
            "[auth]\nissuer = \"{0}\"\njwks_uri = \"{0}/jwks\"\naudience = \"{AUD}\"\n{extra}",
            self.issuer
        )
    }

    /// A token for `sub` with `scope`, its header `typ` and `crit` as given.
    pub(super) fn token(
        &self,
        sub: &str,
        scope: &str,
        typ: Option<&str>,
        crit: Option<&[&str]>,
    ) -> String {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some("local".into());
        header.typ = typ.map(str::to_owned);
        header.crit = crit.map(|c| c.iter().map(|s| s.to_string()).collect());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_secs();
        let claims = json!({"iss": self.issuer, "aud": AUD, "sub": sub, "scope": scope,
                            "iat": now, "exp": now + 600});
        jsonwebtoken::encode(&header, &claims, &self.key).expect("sign")
    }
}

/// The status and `error_description` of an initialize with `token`.
async fn answer(server: &TestServer, token: &str) -> (u16, String) {
    let response = post_initialize(server, Some(&format!("Bearer {token}"))).await;
    let status = response.status().as_u16();
    match status {
        200 => (status, String::new()),
        _ => (status, challenge(&response)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jwt_must_be_an_access_token_without_critical_extensions() {
    let issuer = LocalIssuer::start().await;
    let server = TestServer::with_config(config(&issuer.section(""))).await;
    let scope = "axgate:read";
    let access = issuer.token("ci", scope, Some("at+jwt"), None);
    assert_eq!(answer(&server, &access).await.0, 200, "typ at+jwt");
    let media = issuer.token("ci", scope, Some("application/at+jwt"), None);
    assert_eq!(answer(&server, &media).await.0, 200, "application/at+jwt");
    // An ID token (typ JWT) or a token without typ is not an access token for this server.
    for (token, says) in [
        (issuer.token("ci", scope, Some("JWT"), None), "JWT"),
        (issuer.token("ci", scope, None, None), "missing"),
    ] {
        let (status, challenge) = answer(&server, &token).await;
        assert_eq!(status, 401, "{challenge}");
        assert!(challenge.contains("invalid_token"), "{challenge}");
        assert!(challenge.contains(says), "{challenge}");
        assert!(challenge.contains("auth.accepted_typ"), "{challenge}");
    }
    // A critical extension axgate does not understand (it understands none).
    let critical = issuer.token("ci", scope, Some("at+jwt"), Some(&["exp"]));
    let (status, challenge) = answer(&server, &critical).await;
    assert_eq!(status, 401, "{challenge}");
    assert!(challenge.contains("crit"), "{challenge}");

    // An issuer configured to accept typ JWT (as GitHub Actions sends) gets it accepted.
    let relaxed = TestServer::with_config(config(
        &issuer.section("accepted_typ = [\"at+jwt\", \"JWT\"]\n"),
    ))
    .await;
    let github = issuer.token("ci", scope, Some("JWT"), None);
    assert_eq!(answer(&relaxed, &github).await.0, 200, "typ JWT accepted");
    assert_eq!(
        answer(&relaxed, &critical).await.0,
        401,
        "crit still refused"
    );
}

/// The `list_sessions` text an admin sees.
async fn sessions_text(server: &TestServer, admin: &str) -> String {
    let mut c = client_with(server, admin);
    c.initialize().await;
    let result = c.call("list_sessions", json!({})).await;
    crate::support::text_of(&result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jwt_subject_named_like_a_static_token_is_another_principal() {
    let issuer = LocalIssuer::start().await;
    let static_token = tokens::generate().expect("token");
    let admin = tokens::generate().expect("token");
    let entry = |name: &str, token: &str, scope: &str| {
        format!(
            "{{ name = \"{name}\", sha256 = \"{}\", scopes = [\"{scope}\"] }}",
            tokens::hex(&tokens::sha256(token))
        )
    };
    let server = TestServer::with_config(config(&format!(
        "{}tokens = [{}, {}]\n[limits]\ncalls_per_second = 1\n",
        issuer.section(""),
        entry("alice", &static_token, "axgate:act"),
        entry("ops", &admin, "axgate:admin"),
    )))
    .await;
    let jwt = issuer.token("alice", "axgate:act", Some("at+jwt"), None);

    // The static token spends its one call per second...
    let mut by_token = client_with(&server, &static_token);
    by_token.initialize().await;
    assert_eq!(
        by_token.call("list_apps", json!({})).await["isError"],
        false
    );
    let limited = by_token
        .rate_limited("tools/call", json!({"name": "list_apps"}))
        .await;
    assert!(limited["error"]["message"].is_string(), "{limited}");
    // ...and the JWT subject "alice" has an allowance of its own.
    let mut by_jwt = client_with(&server, &jwt);
    by_jwt.initialize().await;
    let own = by_jwt.call("list_apps", json!({})).await;
    assert_eq!(
        own["isError"], false,
        "shares the static token's limit: {own}"
    );

    // Each session belongs to its own principal: the token's id is unknown to the JWT (once
    // the JWT's allowance is back: a POST over the rate is refused as it arrives, 429).
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    by_jwt.session = by_token.session.clone();
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    let status = by_jwt.post(&body).send().await.expect("post").status();
    assert_eq!(status, 404, "another principal's session");

    // list_sessions names them apart.
    let text = sessions_text(&server, &admin).await;
    assert!(text.contains("principal=token:alice"), "{text}");
    assert!(
        text.contains(&format!("principal=jwt:{}#alice", issuer.issuer)),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_in_a_jwt_subject_are_escaped_in_list_sessions() {
    let issuer = LocalIssuer::start().await;
    let admin = tokens::generate().expect("token");
    let server = TestServer::with_config(config(&format!(
        "{}tokens = [{{ name = \"ops\", sha256 = \"{}\", scopes = [\"axgate:admin\"] }}]\n",
        issuer.section(""),
        tokens::hex(&tokens::sha256(&admin))
    )))
    .await;
    let forged = "mallory\nfa11e5ed principal=token:ops version=2025-11-25 age=0s idle=0s";
    let jwt = issuer.token(forged, "axgate:read", Some("at+jwt"), None);
    let mut c = client_with(&server, &jwt);
    c.initialize().await;
    let text = sessions_text(&server, &admin).await;
    assert!(
        text.contains(r"#mallory\nfa11e5ed principal=token:ops"),
        "the newline is escaped: {text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("fa11e5ed")),
        "no forged line: {text}"
    );
}
