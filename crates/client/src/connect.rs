//! What every command and the scenario runner check before they connect: the client's own
//! environment variables (a misspelt one is an error), and the token source that the
//! connection flags name (given, OAuth client credentials, or GitHub Actions OIDC).

use super::args::{Connect, ENV_PREFIX};
use super::token::{ClientCredentials, GithubOidc};
use super::{ClientError, TokenSource};

/// The `AXGATE_CLIENT_*` variables the client reads (`args::Connect`).
const KNOWN_ENV: [&str; 8] = [
    "URL",
    "TOKEN",
    "ID",
    "SECRET_FILE",
    "TOKEN_URL",
    "SCOPE",
    "RESOURCE",
    "AUDIENCE",
];
/// A misspelt `AXGATE_CLIENT_*` variable is an error rather than silently ignored.
pub(crate) fn check_env() -> Result<(), ClientError> {
    for (name, _) in std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v))) {
        if let Some(rest) = name.strip_prefix(ENV_PREFIX)
            && !KNOWN_ENV.contains(&rest)
        {
            return Err(ClientError::Usage(format!(
                "unknown environment variable ${name}; the client reads {}",
                KNOWN_ENV.map(|k| format!("${ENV_PREFIX}{k}")).join(", ")
            )));
        }
    }
    Ok(())
}

pub(crate) fn token_source(connect: &Connect) -> Result<TokenSource, ClientError> {
    if let Some(token) = &connect.token {
        if token.trim().is_empty() {
            return Err(ClientError::Usage(
                "--token (or $AXGATE_CLIENT_TOKEN) is empty".into(),
            ));
        }
        return Ok(TokenSource::given(token.trim().to_owned()));
    }
    if let Some(client_id) = &connect.client_id {
        let (Some(file), Some(token_url)) = (&connect.client_secret_file, &connect.token_url)
        else {
            return Err(ClientError::Usage(
                "--client-id needs --client-secret-file and --token-url".into(),
            ));
        };
        let secret = std::fs::read_to_string(file).map_err(|e| {
            ClientError::Usage(format!(
                "--client-secret-file {}: cannot read it ({e})",
                file.display()
            ))
        })?;
        let secret = secret.trim_end_matches(['\r', '\n']).to_owned();
        if secret.is_empty() {
            return Err(ClientError::Usage(format!(
                "--client-secret-file {} is empty",
                file.display()
            )));
        }
        let scopes = connect
            .scope
            .as_deref()
            .unwrap_or("")
            .split([' ', ','])
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        return Ok(TokenSource::client_credentials(ClientCredentials {
            client_id: client_id.clone(),
            client_secret: secret,
            token_url: token_url.clone(),
            scopes,
            resource: connect.resource(),
        }));
    }
    if connect.github_oidc {
        let audience = connect
            .audience
            .clone()
            .unwrap_or_else(|| connect.resource());
        return Ok(TokenSource::github_oidc(GithubOidc::from_env(audience)?));
    }
    Ok(TokenSource::none())
}
