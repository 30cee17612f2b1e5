//! The client's tokens: OAuth client credentials from the real oidc-provider (with the RFC
//! 8707 `resource` that makes its `aud`), the GitHub Actions job's OIDC token from a runner
//! endpoint served on loopback (fetched again before it expires), and `AXGATE_CLIENT_*`
//! variables beside `axgate serve`, which must start with them set. No token or secret is
//! ever in the output.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use axgate::http::auth::tokens;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

use super::{run, sessions};
use crate::auth::{AUD, Provider, generate_keys, jwt_server};
use crate::spawned::Axgate;
use crate::support::{TestServer, config};

/// Asserts that no output of `ran` contains `secret`.
fn never_shown(ran: &super::Ran, secret: &str) {
    assert!(
        !ran.stdout.contains(secret) && !ran.stderr.contains(secret),
        "a secret in the output: {ran:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_from_the_oidc_provider_with_the_resource() {
    let keys = generate_keys(&["k1"]).await;
    let provider = Provider::start(keys, "k1").await;
    let server = jwt_server(&provider.issuer, &provider.jwks_uri(), "").await;
    let dir = tempfile::tempdir().expect("dir");
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, "axgate-ci-secret\n").expect("write the secret");
    let token_url = format!("{}/token", provider.issuer);
    let secret_path = secret_file.display().to_string();
    let with = |resource: &str, tail: &[&str]| {
        let mut argv = vec![
            "call",
            "--url",
            &server.url,
            "--client-id",
            "axgate-ci",
            "--client-secret-file",
            &secret_path,
            "--token-url",
            &token_url,
            "--scope",
            "axgate:read axgate:act",
            "--resource",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
        argv.push(resource.to_owned());
        argv.extend(tail.iter().map(|s| s.to_string()));
        argv
    };
    let run_owned = |argv: Vec<String>| async move {
        run(&argv.iter().map(String::as_str).collect::<Vec<_>>(), &[]).await
    };
    // The resource axgate is configured with: accepted, and the act scope was granted.
    let ran = run_owned(with(
        AUD,
        &["click", "app=Form", "target=window[0]/button[0]"],
    ))
    .await;
    ran.expect_code(0);
    assert_eq!(ran.json()["element"]["title"], "Submit", "{ran:?}");
    never_shown(&ran, "axgate-ci-secret");
    // Another resource: the provider makes that the audience, and axgate refuses it (4).
    let ran = run_owned(with("https://elsewhere.example/mcp", &["list_apps"])).await;
    ran.expect_code(4);
    assert!(ran.stderr.contains("refused the credentials"), "{ran:?}");
    // A wrong secret: the token endpoint's own error, and the secret is not repeated.
    std::fs::write(&secret_file, "not-the-secret").expect("write");
    let ran = run_owned(with(AUD, &["list_apps"])).await;
    ran.expect_code(4);
    assert!(
        ran.stderr.contains("invalid_client") && ran.stderr.contains(&token_url),
        "{ran:?}"
    );
    never_shown(&ran, "not-the-secret");
    assert_eq!(sessions(&server), 0);
}

/// A loopback stand-in for the GitHub Actions runner: `/jwks` (an ES256 key) and `/idtoken`,
/// which wants the request token and hands out ID tokens of GitHub's shape living `life` s.
struct Runner {
    base: String,
    fetches: Arc<AtomicU32>,
}

const REQUEST_TOKEN: &str = "runner-request-token";

impl Runner {
    async fn start(life: u64) -> Runner {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256");
        let point = pair.public_key_raw();
        let jwks = json!({"keys": [{
            "kty": "EC", "crv": "P-256", "kid": "gh", "use": "sig", "alg": "ES256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..]),
        }]})
        .to_string();
        let key = jsonwebtoken::EncodingKey::from_ec_der(&pair.serialize_der());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let fetches = Arc::new(AtomicU32::new(0));
        let (issuer, counted) = (base.clone(), fetches.clone());
        let idtoken = move |headers: axum::http::HeaderMap,
                            axum::extract::Query(query): axum::extract::Query<
            std::collections::HashMap<String, String>,
        >| {
            let (issuer, key, counted) = (issuer.clone(), key.clone(), counted.clone());
            async move {
                let bearer = headers.get("authorization").and_then(|v| v.to_str().ok());
                if bearer != Some(&format!("Bearer {REQUEST_TOKEN}")) {
                    return (axum::http::StatusCode::UNAUTHORIZED, String::new());
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .expect("clock")
                    .as_secs();
                let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
                header.kid = Some("gh".into());
                header.typ = Some("JWT".into());
                let claims = json!({
                    "iss": issuer, "aud": query.get("audience"), "iat": now, "exp": now + life,
                    "sub": "repo:acme/app:ref:refs/heads/main", "repository": "acme/app",
                    "repository_owner": "acme", "ref": "refs/heads/main",
                    "workflow": "ui-tests", "scope": "axgate:read axgate:act",
                });
                let jwt = jsonwebtoken::encode(&header, &claims, &key).expect("sign");
                (
                    axum::http::StatusCode::OK,
                    json!({"count": 1, "value": jwt}).to_string(),
                )
            }
        };
        let app = axum::Router::new()
            .route(
                "/jwks",
                axum::routing::get(move || {
                    let jwks = jwks.clone();
                    async move { ([("content-type", "application/json")], jwks) }
                }),
            )
            .route("/idtoken", axum::routing::get(idtoken));
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Runner { base, fetches }
    }

    /// The variables the runner gives a job with `id-token: write`.
    fn env(&self) -> [(&'static str, String); 2] {
        [
            (
                "ACTIONS_ID_TOKEN_REQUEST_URL",
                format!("{}/idtoken?api-version=2.0", self.base),
            ),
            ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", REQUEST_TOKEN.to_owned()),
        ]
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_oidc_tokens_come_from_the_runner_and_are_renewed_before_expiry() {
    let runner = Runner::start(4).await;
    let server = TestServer::with_config(config(&format!(
        "[auth]\nissuer = \"{0}\"\njwks_uri = \"{0}/jwks\"\naudience = \"{AUD}\"\n\
         accepted_typ = [\"at+jwt\", \"JWT\"]\n",
        runner.base
    )))
    .await;
    let env = runner.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // One quick call: one token, fetched for the audience asked.
    let ran = run(
        &[
            "call",
            "--url",
            &server.url,
            "--github-oidc",
            "--audience",
            AUD,
            "list_apps",
        ],
        &env,
    )
    .await;
    ran.expect_code(0);
    assert_eq!(runner.fetches.load(Ordering::SeqCst), 1);
    never_shown(&ran, REQUEST_TOKEN);
    // A call that outlives half the token's 4 s: the DELETE after it uses a fresh token.
    let ran = run(
        &[
            "call",
            "--url",
            &server.url,
            "--github-oidc",
            "--audience",
            AUD,
            "wait_for",
            "app=Form",
            "condition=gone",
            "target=window[0]/button[0]",
            "timeout_ms=2500",
        ],
        &env,
    )
    .await;
    ran.expect_code(1);
    assert!(ran.stderr.contains("timed out after"), "{ran:?}");
    assert_eq!(
        runner.fetches.load(Ordering::SeqCst),
        3,
        "renewed before it expired"
    );
    assert_eq!(sessions(&server), 0, "the renewed token ended the session");
    // The wrong audience is refused by axgate; outside a job the flag says what is missing.
    let ran = run(
        &[
            "call",
            "--url",
            &server.url,
            "--github-oidc",
            "--audience",
            "https://other.example",
            "list_apps",
        ],
        &env,
    )
    .await;
    ran.expect_code(4);
    let ran = run(
        &["call", "--url", &server.url, "--github-oidc", "list_apps"],
        &[],
    )
    .await;
    ran.expect_code(4);
    assert!(
        ran.stderr.contains("$ACTIONS_ID_TOKEN_REQUEST_URL")
            && ran.stderr.contains("id-token: write"),
        "{ran:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clients_variables_do_not_stop_axgate_serve() {
    // A CI job sets the client's variables, then starts a server in the same environment.
    let token = tokens::generate().expect("token");
    let entry = format!(
        "[{{ name = \"ci\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}]",
        tokens::hex(&tokens::sha256(&token))
    );
    let server_env = [
        ("AXGATE_CLIENT_TOKEN", token.as_str()),
        ("AXGATE_CLIENT_URL", "http://127.0.0.1:9/mcp"),
        ("AXGATE_AUTH_TOKENS", &entry),
    ];
    let axgate = Axgate::serve_with(&["--backend", "demo"], &server_env);
    // The client reads its URL and token from the same family.
    let ran = run(
        &["apps"],
        &[
            ("AXGATE_CLIENT_TOKEN", &token),
            ("AXGATE_CLIENT_URL", &axgate.url),
        ],
    )
    .await;
    ran.expect_code(0);
    assert!(ran.stdout.starts_with("Form pid=41001"), "{ran:?}");
    never_shown(&ran, &token);
}

/// The client and the server's `config` are separate crates, each with its own name for the
/// client's variable prefix: `axgate serve` must leave exactly the client's variables alone.
#[test]
fn the_server_leaves_alone_exactly_the_prefix_the_client_reads() {
    assert_eq!(
        axgate::client::args::ENV_PREFIX,
        axgate::config::CLIENT_ENV_PREFIX
    );
}
