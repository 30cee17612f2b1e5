//! OAuth client credentials for the client's tests: a server that trusts the real
//! oidc-provider, the `axgate-ci` client's secret in a file, and the flags that name them.

use std::path::PathBuf;

use crate::auth::{Provider, generate_keys, jwt_server};
use crate::support::TestServer;

/// The secret of the provider's `axgate-ci` client.
pub(crate) const SECRET: &str = "axgate-ci-secret";

/// A server trusting the oidc-provider, and the CI client's secret file.
pub(crate) struct Credentials {
    pub(crate) server: TestServer,
    /// Kept: the provider runs while it lives.
    _provider: Provider,
    pub(crate) secret_file: PathBuf,
    pub(crate) token_url: String,
    _dir: tempfile::TempDir,
}

impl Credentials {
    pub(crate) async fn start() -> Credentials {
        let keys = generate_keys(&["k1"]).await;
        let provider = Provider::start(keys, "k1").await;
        let server = jwt_server(&provider.issuer, &provider.jwks_uri(), "").await;
        let dir = tempfile::tempdir().expect("dir");
        let secret_file = dir.path().join("secret");
        std::fs::write(&secret_file, format!("{SECRET}\n")).expect("write the secret");
        let token_url = format!("{}/token", provider.issuer);
        Credentials {
            server,
            _provider: provider,
            secret_file,
            token_url,
            _dir: dir,
        }
    }

    /// `COMMAND --url <server>`, the client-credential flags asking for `resource`, then `tail`.
    pub(crate) fn argv(&self, command: &str, resource: &str, tail: &[&str]) -> Vec<String> {
        let secret = self.secret_file.to_str().expect("utf-8");
        let mut argv: Vec<String> = [
            command,
            "--url",
            &self.server.url,
            "--client-id",
            "axgate-ci",
            "--client-secret-file",
            secret,
            "--token-url",
            &self.token_url,
            "--scope",
            "axgate:read axgate:act",
            "--resource",
            resource,
        ]
        .into_iter()
        .map(str::to_owned)
        .collect();
        argv.extend(tail.iter().map(|s| (*s).to_owned()));
        argv
    }
}

/// Runs the client with owned arguments.
pub(crate) async fn run_owned(argv: Vec<String>) -> super::Ran {
    super::run(&argv.iter().map(String::as_str).collect::<Vec<_>>(), &[]).await
}
