//! A GitHub Actions runner and issuer stand-in on a port-0 loopback listener, shared by the
//! claim-rule tests (`issuers.rs`) and the client's token tests (`cli/tokens.rs`): `/jwks`
//! (one ES256 key generated per test, under a given kid) and `/idtoken` (the runner's
//! endpoint: wants [`REQUEST_TOKEN`], counts its fetches, signs the job's claims for the asked
//! audience, living a given time).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::AUD;

/// The runner's request token (what `ACTIONS_ID_TOKEN_REQUEST_TOKEN` holds in a job).
pub(crate) const REQUEST_TOKEN: &str = "runner-request-token-7f3a";

/// The claims of a GitHub Actions job's ID token (without iss, aud and times).
pub(crate) fn job(repository: &str, git_ref: &str, event: &str) -> Value {
    json!({
        "sub": format!("repo:{repository}:ref:{git_ref}"),
        "repository": repository,
        "repository_owner": repository.split('/').next().unwrap_or(""),
        "repository_id": "4242",
        "ref": git_ref,
        "ref_type": "branch",
        "event_name": event,
        "workflow": "ui-tests",
        "job_workflow_ref": format!("{repository}/.github/workflows/ui.yml@{git_ref}"),
        "runner_environment": "github-hosted",
        "actor": "octocat",
    })
}

/// A GitHub-shaped issuer and runner endpoint on loopback.
pub(crate) struct GitHub {
    /// The issuer (`iss`), which is also the base URL of `/jwks` and `/idtoken`.
    pub(crate) issuer: String,
    kid: String,
    key: jsonwebtoken::EncodingKey,
    /// What `/idtoken` hands out next.
    pub(crate) job: Arc<Mutex<Value>>,
    /// How many ID tokens `/idtoken` has handed out.
    pub(crate) fetches: Arc<AtomicU32>,
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

fn sign(key: &jsonwebtoken::EncodingKey, kid: &str, claims: &Value) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some(kid.to_owned());
    header.typ = Some("JWT".into());
    jsonwebtoken::encode(&header, claims, key).expect("sign")
}

impl GitHub {
    /// An issuer whose `/idtoken` tokens live five minutes.
    pub(crate) async fn start(kid: &str) -> GitHub {
        GitHub::living(kid, 300).await
    }

    /// An issuer whose `/idtoken` tokens live `life` seconds.
    pub(crate) async fn living(kid: &str, life: u64) -> GitHub {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256");
        let point = pair.public_key_raw();
        let jwks = json!({"keys": [{
            "kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "alg": "ES256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..]),
        }]})
        .to_string();
        let key = jsonwebtoken::EncodingKey::from_ec_der(&pair.serialize_der());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let issuer = format!("http://{}", listener.local_addr().expect("addr"));
        let job = Arc::new(Mutex::new(job("acme/app", "refs/heads/main", "push")));
        let fetches = Arc::new(AtomicU32::new(0));
        let (iss, signing, claims, kid_owned, counted) = (
            issuer.clone(),
            key.clone(),
            job.clone(),
            kid.to_owned(),
            fetches.clone(),
        );
        let idtoken = move |headers: axum::http::HeaderMap,
                            axum::extract::Query(query): axum::extract::Query<
            std::collections::HashMap<String, String>,
        >| {
            let (iss, signing, claims, kid, counted) = (
                iss.clone(),
                signing.clone(),
                claims.clone(),
                kid_owned.clone(),
                counted.clone(),
            );
            async move {
                let bearer = headers.get("authorization").and_then(|v| v.to_str().ok());
                if bearer != Some(&format!("Bearer {REQUEST_TOKEN}")) {
                    return (axum::http::StatusCode::UNAUTHORIZED, String::new());
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let mut claims = claims.lock().expect("job").clone();
                claims["iss"] = json!(iss);
                claims["aud"] = json!(query.get("audience"));
                claims["iat"] = json!(now());
                claims["nbf"] = json!(now());
                claims["exp"] = json!(now() + life);
                let jwt = sign(&signing, &kid, &claims);
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
        GitHub {
            issuer,
            kid: kid.to_owned(),
            key,
            job,
            fetches,
        }
    }

    /// The variables the runner gives a job with `id-token: write`.
    pub(crate) fn env(&self) -> [(&'static str, String); 2] {
        [
            (
                "ACTIONS_ID_TOKEN_REQUEST_URL",
                format!("{}/idtoken?api-version=2.0", self.issuer),
            ),
            ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", REQUEST_TOKEN.to_owned()),
        ]
    }

    /// A job token of this issuer for [`AUD`] with `claims` (from [`job`]).
    pub(crate) fn token(&self, claims: Value) -> String {
        self.token_signed_by(self, claims)
    }

    /// A token that names this issuer (`iss`) but is signed by `signer`'s key, under
    /// `signer`'s kid.
    pub(crate) fn token_signed_by(&self, signer: &GitHub, mut claims: Value) -> String {
        claims["iss"] = json!(self.issuer);
        claims["aud"] = json!(AUD);
        claims["iat"] = json!(now());
        claims["exp"] = json!(now() + 600);
        sign(&signer.key, &signer.kid, &claims)
    }

    /// The `[[auth.issuers]]` entry of this issuer with `rules` (TOML) after it.
    pub(crate) fn entry(&self, rules: &str) -> String {
        format!(
            "[[auth.issuers]]\nissuer = \"{0}\"\njwks_uri = \"{0}/jwks\"\naccepted_typ = [\"JWT\"]\n{rules}",
            self.issuer
        )
    }

    /// Its principal key for `sub`.
    pub(crate) fn principal(&self, claims: &Value) -> String {
        format!(
            "jwt:{}#{}",
            self.issuer,
            claims["sub"].as_str().expect("sub")
        )
    }
}

/// Pairs `env()`'s owned values as the `(&str, &str)` the CLI runner takes.
pub(crate) fn borrowed<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// `COMMAND --url URL --github-oidc --audience AUDIENCE TAIL…`: the client with a job's token.
pub(crate) fn oidc_argv<'a>(
    command: &'a str,
    url: &'a str,
    audience: &'a str,
    tail: &[&'a str],
) -> Vec<&'a str> {
    let mut argv = vec![
        command,
        "--url",
        url,
        "--github-oidc",
        "--audience",
        audience,
    ];
    argv.extend_from_slice(tail);
    argv
}
