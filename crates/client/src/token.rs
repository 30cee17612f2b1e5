//! Where the client's bearer token comes from: none, given (`--token`), OAuth 2 client
//! credentials (the `oauth2` crate, with the RFC 8707 `resource` the token is for), or the
//! GitHub Actions job's OIDC ID token (`ACTIONS_ID_TOKEN_REQUEST_URL` with the audience,
//! authorised by `ACTIONS_ID_TOKEN_REQUEST_TOKEN`). A fetched token is kept in memory only,
//! and used until shortly before it expires (half its life, at most 60 s early), then
//! fetched again. No token or secret is ever printed: errors name the flag or the endpoint.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use oauth2::basic::BasicClient;
use oauth2::{ClientId, ClientSecret, Scope, TokenResponse, TokenUrl};
use serde_json::Value;
use tokio::sync::Mutex;

use super::ClientError;

/// How early a token is replaced, at most.
const MAX_MARGIN: Duration = Duration::from_secs(60);
/// Most bytes of an ID-token response read.
const MAX_TOKEN_RESPONSE: usize = 64 * 1024;

/// The OAuth client-credentials grant's settings.
pub struct ClientCredentials {
    pub client_id: String,
    pub client_secret: String,
    pub token_url: String,
    pub scopes: Vec<String>,
    /// RFC 8707 `resource`: the server's resource URI (by default its `/mcp` URL).
    pub resource: String,
}

/// The GitHub Actions runner's ID-token endpoint and the audience to ask for.
pub struct GithubOidc {
    pub request_url: String,
    pub request_token: String,
    pub audience: String,
}

impl GithubOidc {
    /// From the runner's environment; fails naming what the job lacks.
    pub fn from_env(audience: String) -> Result<GithubOidc, ClientError> {
        let var = |name: &str| {
            std::env::var(name).map_err(|_| {
                ClientError::Auth(format!(
                    "--github-oidc: ${name} is not set; it is set inside a GitHub Actions job \
                     whose workflow grants `permissions: id-token: write`"
                ))
            })
        };
        Ok(GithubOidc {
            request_url: var("ACTIONS_ID_TOKEN_REQUEST_URL")?,
            request_token: var("ACTIONS_ID_TOKEN_REQUEST_TOKEN")?,
            audience,
        })
    }
}

enum Kind {
    None,
    Given(String),
    ClientCredentials(ClientCredentials),
    GithubOidc(GithubOidc),
}

/// A token fetched earlier and until when it is used.
struct Cached {
    token: String,
    fresh_until: Option<Instant>,
}

/// The source of the `Authorization: Bearer` token of every request. Clones share the
/// settings and the cached token (the scenario runner opens one session per case).
#[derive(Clone)]
pub struct TokenSource {
    kind: Arc<Kind>,
    http: reqwest::Client,
    cached: Arc<Mutex<Option<Cached>>>,
}

impl TokenSource {
    fn of(kind: Kind) -> TokenSource {
        TokenSource {
            kind: Arc::new(kind),
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap_or_default(),
            cached: Arc::new(Mutex::new(None)),
        }
    }

    /// No `Authorization` header (a loopback server without `[auth]`).
    pub fn none() -> TokenSource {
        TokenSource::of(Kind::None)
    }

    /// A token given on the command line or in the environment.
    pub fn given(token: String) -> TokenSource {
        TokenSource::of(Kind::Given(token))
    }

    pub fn client_credentials(settings: ClientCredentials) -> TokenSource {
        TokenSource::of(Kind::ClientCredentials(settings))
    }

    pub fn github_oidc(settings: GithubOidc) -> TokenSource {
        TokenSource::of(Kind::GithubOidc(settings))
    }

    /// Whether a refused token could be replaced by fetching another.
    pub fn fetches(&self) -> bool {
        matches!(*self.kind, Kind::ClientCredentials(_) | Kind::GithubOidc(_))
    }

    /// The token for the next request: the cached one while fresh, else a new one.
    pub async fn bearer(&self) -> Result<Option<String>, ClientError> {
        match &*self.kind {
            Kind::None => return Ok(None),
            Kind::Given(token) => return Ok(Some(token.clone())),
            _ => {}
        }
        let mut cached = self.cached.lock().await;
        if let Some(c) = cached.as_ref()
            && c.fresh_until.is_none_or(|until| Instant::now() < until)
        {
            return Ok(Some(c.token.clone()));
        }
        let (token, lifetime) = match &*self.kind {
            Kind::ClientCredentials(settings) => self.client_credentials_token(settings).await?,
            Kind::GithubOidc(settings) => self.github_token(settings).await?,
            Kind::None | Kind::Given(_) => unreachable!("returned above"),
        };
        *cached = Some(Cached {
            token: token.clone(),
            fresh_until: lifetime.map(|life| Instant::now() + life - margin(life)),
        });
        Ok(Some(token))
    }

    /// Forgets a fetched token the server refused, so the next request fetches another.
    pub async fn forget(&self) {
        *self.cached.lock().await = None;
    }

    async fn client_credentials_token(
        &self,
        settings: &ClientCredentials,
    ) -> Result<(String, Option<Duration>), ClientError> {
        let token_url = TokenUrl::new(settings.token_url.clone())
            .map_err(|e| ClientError::Usage(format!("--token-url {}: {e}", settings.token_url)))?;
        let client = BasicClient::new(ClientId::new(settings.client_id.clone()))
            .set_client_secret(ClientSecret::new(settings.client_secret.clone()))
            .set_token_uri(token_url);
        let response = client
            .exchange_client_credentials()
            .add_scopes(settings.scopes.iter().cloned().map(Scope::new))
            .add_extra_param("resource", settings.resource.clone())
            .request_async(&self.http)
            .await
            .map_err(|e| {
                ClientError::Auth(format!(
                    "cannot get a token from {} for client {}: {}",
                    settings.token_url,
                    settings.client_id,
                    describe_token_error(&e)
                ))
            })?;
        Ok((
            response.access_token().secret().clone(),
            response.expires_in(),
        ))
    }

    async fn github_token(
        &self,
        settings: &GithubOidc,
    ) -> Result<(String, Option<Duration>), ClientError> {
        let mut url = reqwest::Url::parse(&settings.request_url).map_err(|e| {
            ClientError::Auth(format!(
                "$ACTIONS_ID_TOKEN_REQUEST_URL is not a URL ({e}); is this a GitHub Actions job?"
            ))
        })?;
        url.query_pairs_mut()
            .append_pair("audience", &settings.audience);
        let failed = |why: String| {
            ClientError::Auth(format!(
                "cannot get the job's OIDC token from $ACTIONS_ID_TOKEN_REQUEST_URL: {why}"
            ))
        };
        let response = self
            .http
            .get(url)
            .bearer_auth(&settings.request_token)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| failed(e.without_url().to_string()))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| failed(e.without_url().to_string()))?;
        if !status.is_success() {
            return Err(failed(format!(
                "HTTP {status}; the workflow needs `permissions: id-token: write`"
            )));
        }
        if body.len() > MAX_TOKEN_RESPONSE {
            return Err(failed(format!("a response of {} bytes", body.len())));
        }
        let value: Value = serde_json::from_slice(&body)
            .map_err(|e| failed(format!("the response is not JSON ({e})")))?;
        let token = value
            .get("value")
            .and_then(Value::as_str)
            .ok_or_else(|| failed("the response has no `value`".into()))?
            .to_owned();
        let lifetime = jwt_lifetime(&token);
        Ok((token, lifetime))
    }
}

/// How early before expiry a token of this lifetime is replaced.
fn margin(lifetime: Duration) -> Duration {
    (lifetime / 2).min(MAX_MARGIN)
}

/// What is left of a JWT's life by its `exp` claim (the signature is the server's to check).
fn jwt_lifetime(token: &str) -> Option<Duration> {
    let payload = token.split('.').nth(1)?;
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    let exp = claims.get("exp")?.as_u64()?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(exp.saturating_sub(now)))
}

/// The token endpoint's own words (`invalid_client`, its description), or why it was not
/// reached; never the request, which carries the secret.
fn describe_token_error<E: std::error::Error>(
    error: &oauth2::RequestTokenError<E, oauth2::basic::BasicErrorResponse>,
) -> String {
    match error {
        oauth2::RequestTokenError::ServerResponse(response) => {
            let mut text = response.error().to_string();
            if let Some(description) = response.error_description() {
                text.push_str(": ");
                text.push_str(description);
            }
            text
        }
        oauth2::RequestTokenError::Request(e) => format!("cannot reach it ({e})"),
        oauth2::RequestTokenError::Parse(e, _) => format!("its answer is not a token ({e})"),
        oauth2::RequestTokenError::Other(e) => e.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_replaced_half_its_life_early_at_most_a_minute() {
        assert_eq!(margin(Duration::from_secs(4)), Duration::from_secs(2));
        assert_eq!(margin(Duration::from_secs(300)), Duration::from_secs(60));
    }

    #[test]
    fn the_lifetime_of_a_jwt_is_read_from_exp() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock")
            .as_secs();
        let payload = URL_SAFE_NO_PAD.encode(format!("{{\"exp\":{}}}", now + 100));
        let life = jwt_lifetime(&format!("h.{payload}.s")).expect("a lifetime");
        assert!(life <= Duration::from_secs(100) && life >= Duration::from_secs(98));
        assert_eq!(jwt_lifetime("not a jwt"), None);
    }
}
