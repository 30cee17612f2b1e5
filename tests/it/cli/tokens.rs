//! The client's tokens: OAuth client credentials from the real oidc-provider (with the RFC
//! 8707 `resource` that makes its `aud`), the GitHub Actions job's OIDC token from a runner
//! endpoint served on loopback (fetched again before it expires), and `AXGATE_CLIENT_*`
//! variables beside `axgate serve`, which must start with them set. No token or secret is
//! ever in the output.

use std::sync::atomic::Ordering;

use axgate::http::auth::tokens;
use serde_json::json;

use super::credentials::{Credentials, SECRET, run_owned};
use super::{run, sessions};
use crate::auth::AUD;
use crate::auth::github::{GitHub, REQUEST_TOKEN, borrowed, oidc_argv};
use crate::spawned::Axgate;
use crate::support::{TestServer, config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_from_the_oidc_provider_with_the_resource() {
    let ci = Credentials::start().await;
    let with = |resource: &str, tail: &[&str]| ci.argv("call", resource, tail);
    let (server, token_url, secret_file) = (&ci.server, &ci.token_url, &ci.secret_file);
    // The resource axgate is configured with: accepted, and the act scope was granted.
    let ran = run_owned(with(
        AUD,
        &["click", "app=Form", "target=window[0]/button[0]"],
    ))
    .await;
    ran.expect_code(0);
    assert_eq!(ran.json()["element"]["title"], "Submit", "{ran:?}");
    ran.never_shown(SECRET);
    // Another resource: the provider makes that the audience, and axgate refuses it (4).
    let ran = run_owned(with("https://elsewhere.example/mcp", &["list_apps"])).await;
    ran.expect_code(4);
    assert!(ran.stderr.contains("refused the credentials"), "{ran:?}");
    // A wrong secret: the token endpoint's own error, and the secret is not repeated.
    std::fs::write(secret_file, "not-the-secret").expect("write");
    let ran = run_owned(with(AUD, &["list_apps"])).await;
    ran.expect_code(4);
    assert!(
        ran.stderr.contains("invalid_client") && ran.stderr.contains(token_url.as_str()),
        "{ran:?}"
    );
    ran.never_shown("not-the-secret");
    assert_eq!(sessions(server), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_oidc_tokens_come_from_the_runner_and_are_renewed_before_expiry() {
    let runner = GitHub::living("gh", 4).await;
    // The legacy single issuer below takes its scopes from the token's own claim.
    runner.job.lock().expect("job")["scope"] = json!("axgate:read axgate:act");
    let server = TestServer::with_config(config(&format!(
        "[auth]\nissuer = \"{0}\"\njwks_uri = \"{0}/jwks\"\naudience = \"{AUD}\"\n\
         accepted_typ = [\"at+jwt\", \"JWT\"]\n",
        runner.issuer
    )))
    .await;
    let env = runner.env();
    let env = borrowed(&env);
    // One quick call: one token, fetched for the audience asked.
    let ran = run(&oidc_argv("call", &server.url, AUD, &["list_apps"]), &env).await;
    ran.expect_code(0);
    assert_eq!(runner.fetches.load(Ordering::SeqCst), 1);
    ran.never_shown(REQUEST_TOKEN);
    // A call that outlives half the token's 4 s: the DELETE after it uses a fresh token.
    let slow = [
        "wait_for",
        "app=Form",
        "condition=gone",
        "target=window[0]/button[0]",
        "timeout_ms=2500",
    ];
    let ran = run(&oidc_argv("call", &server.url, AUD, &slow), &env).await;
    ran.expect_code(1);
    assert!(ran.stderr.contains("timed out after"), "{ran:?}");
    assert_eq!(
        runner.fetches.load(Ordering::SeqCst),
        3,
        "renewed before it expired"
    );
    assert_eq!(sessions(&server), 0, "the renewed token ended the session");
    // The wrong audience is refused by axgate; outside a job the flag says what is missing.
    let other = "https://other.example";
    let ran = run(&oidc_argv("call", &server.url, other, &["list_apps"]), &env).await;
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
    ran.never_shown(&token);
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

/// A part of the client-credentials set without `--client-id` (by flag or by variable) is a
/// usage error that names the missing flag, before anything is sent: the secret file and
/// the token endpoint mean nothing alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credentials_flag_without_the_client_id_is_a_usage_error() {
    for (args, env) in [
        (vec!["--token-url", "http://127.0.0.1:9/token"], vec![]),
        (vec!["--client-secret-file", "/nonexistent"], vec![]),
        (vec![], vec![("AXGATE_CLIENT_SCOPE", "axgate:read")]),
    ] {
        let argv: Vec<&str> = ["apps", "--url", "http://127.0.0.1:9/mcp"]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        let ran = run(&argv, &env).await;
        ran.expect_code(2);
        assert!(ran.stderr.contains("--client-id <CLIENT_ID>"), "{ran:?}");
    }
}
