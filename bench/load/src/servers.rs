//! The servers under load, each a child process of the release build: axgate (`serve`,
//! demo backend, a generated config) and the references `axgate-ref-rmcp` and
//! `axgate-ref-axum`; their URL is read from their output. `/proc/<pid>` gives their CPU
//! time (utime + stime) and resident set. Also the credentials of the auth modes: a static
//! bearer token (its SHA-256 in the config) and ES256 JWTs checked against a JWKS the
//! harness serves on loopback.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use sha2::{Digest, Sha256};

/// A running server; killed when dropped.
pub(crate) struct Server {
    pub(crate) url: String,
    child: Child,
}

impl Server {
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU seconds (user + system) the process has used.
    pub(crate) fn cpu_secs(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap_or_default();
        // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<&str> = rest.split_whitespace().collect();
        let ticks: f64 = [11, 12]
            .iter()
            .filter_map(|&i| f.get(i).and_then(|v| v.parse::<f64>().ok()))
            .sum();
        ticks / clock_ticks()
    }

    /// Resident set size in KiB.
    pub(crate) fn rss_kib(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn clock_ticks() -> f64 {
    // sysconf(_SC_CLK_TCK) without libc: `getconf` once, 100 on every Linux we run on.
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// The directory of the release binaries: where this harness runs from.
pub(crate) fn bin_dir() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(exe.parent().context("exe dir")?.to_path_buf())
}

/// Starts `bin` with `args`, its output in files under `dir`, and waits for a line holding
/// `http://127.0.0.1:` in stdout or stderr.
pub(crate) fn spawn(name: &str, bin: &Path, args: &[&str], dir: &Path) -> anyhow::Result<Server> {
    let out = dir.join(format!("{name}.out"));
    let err = dir.join(format!("{name}.err"));
    let child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out)?)
        .stderr(std::fs::File::create(&err)?)
        .spawn()
        .with_context(|| format!("cannot start {}", bin.display()))?;
    let mut server = Server {
        url: String::new(),
        child,
    };
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        for file in [&out, &err] {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            if let Some(at) = text.find("http://127.0.0.1:") {
                let url: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || ":/.".contains(*c))
                    .collect();
                server.url = url;
                return Ok(server);
            }
        }
        if let Ok(Some(status)) = server.child.try_wait() {
            bail!(
                "{name} exited ({status}): {}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    bail!("{name} printed no URL within 20 s")
}

/// Authentication of the axgate under load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AuthMode {
    Off,
    Bearer,
    Jwt,
}

impl AuthMode {
    pub(crate) fn label(self) -> &'static str {
        match self {
            AuthMode::Off => "off",
            AuthMode::Bearer => "bearer",
            AuthMode::Jwt => "jwt",
        }
    }
}

/// The static token and the JWT signing key of this run.
pub(crate) struct Credentials {
    pub(crate) token: String,
    key: SigningKey,
    pub(crate) jwks_url: String,
}

pub(crate) const AUDIENCE: &str = "http://127.0.0.1/mcp";
const KID: &str = "bench";

impl Credentials {
    /// Fresh credentials; the JWKS is served on loopback until the runtime ends.
    pub(crate) async fn new() -> anyhow::Result<Credentials> {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
        let seed: [u8; 32] = Sha256::digest(format!("axgate-load {nanos}")).into();
        let key = SigningKey::from_bytes(&seed.into())?;
        let token = format!("axg_{}", hex::encode(Sha256::digest(seed)));
        let point = key.verifying_key().to_encoded_point(false);
        let jwk = serde_json::json!({"keys": [{"kty": "EC", "crv": "P-256", "alg": "ES256",
            "use": "sig", "kid": KID,
            "x": B64.encode(point.x().context("x")?), "y": B64.encode(point.y().context("y")?)}]});
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let jwks_url = format!("http://{}/jwks", listener.local_addr()?);
        let body = jwk.to_string();
        let app = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                let body = body.clone();
                async move { ([("content-type", "application/json")], body) }
            }),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Credentials {
            token,
            key,
            jwks_url,
        })
    }

    pub(crate) fn issuer(&self) -> String {
        self.jwks_url.trim_end_matches("/jwks").to_owned()
    }

    /// An ES256 access token valid for an hour.
    pub(crate) fn jwt(&self) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let header = B64.encode(r#"{"alg":"ES256","typ":"at+jwt","kid":"bench"}"#);
        let claims = B64.encode(
            serde_json::json!({"iss": self.issuer(), "aud": AUDIENCE, "sub": "bench",
                "client_id": "axgate-load", "scope": "axgate:read axgate:act",
                "iat": now, "nbf": now, "exp": now + 3600})
            .to_string(),
        );
        let signing_input = format!("{header}.{claims}");
        let sig: Signature = self.key.sign(signing_input.as_bytes());
        format!("{signing_input}.{}", B64.encode(sig.to_bytes()))
    }

    /// The `Authorization` header of `mode`.
    pub(crate) fn header(&self, mode: AuthMode) -> Option<String> {
        match mode {
            AuthMode::Off => None,
            AuthMode::Bearer => Some(format!("Bearer {}", self.token)),
            AuthMode::Jwt => Some(format!("Bearer {}", self.jwt())),
        }
    }

    /// The axgate configuration for `mode`: limits out of the way of the load (the session
    /// figures hold 1,000 GET streams of one caller), audit on.
    pub(crate) fn config(&self, mode: AuthMode, dir: &Path) -> String {
        let mut c = format!(
            "[server]\nbind = \"127.0.0.1:0\"\nmax_connections = 8192\n\
             max_streams = 8192\nmax_streams_per_caller = 8192\n\n\
             [sessions]\nmax = 5000\n\n\
             [limits]\ncalls_per_second = 100000\nwrites_per_second = 100000\n\n\
             [audit]\npath = \"{}\"\n\n[auth]\n",
            dir.join(format!("audit-{}.jsonl", mode.label())).display()
        );
        match mode {
            AuthMode::Off => {}
            AuthMode::Bearer => {
                let sha = hex::encode(Sha256::digest(self.token.as_bytes()));
                let _ = writeln!(
                    c,
                    "tokens = [{{ name = \"bench\", sha256 = \"{sha}\", scopes = [\"axgate:read\", \"axgate:act\", \"axgate:metrics\"] }}]"
                );
            }
            AuthMode::Jwt => {
                let _ = writeln!(
                    c,
                    "issuer = \"{}\"\njwks_uri = \"{}\"\naudience = \"{AUDIENCE}\"",
                    self.issuer(),
                    self.jwks_url
                );
            }
        }
        c
    }
}

/// Starts axgate (`serve --backend demo`) with the configuration of `mode`.
pub(crate) fn axgate(creds: &Credentials, mode: AuthMode, dir: &Path) -> anyhow::Result<Server> {
    axgate_binary(&bin_dir()?.join("axgate"), "axgate", creds, mode, dir)
}

/// Starts the axgate binary `bin` (`serve --backend demo`) under `name`, configured for
/// `mode`.
pub(crate) fn axgate_binary(
    bin: &Path,
    name: &str,
    creds: &Credentials,
    mode: AuthMode,
    dir: &Path,
) -> anyhow::Result<Server> {
    let config = dir.join(format!("{name}-{}.toml", mode.label()));
    std::fs::write(&config, creds.config(mode, dir))?;
    let config = config.to_string_lossy().into_owned();
    spawn(
        &format!("{name}-{}", mode.label()),
        bin,
        &["serve", "--backend", "demo", "--config", &config],
        dir,
    )
}

/// Starts a reference binary (`axgate-ref-rmcp` or `axgate-ref-axum`).
pub(crate) fn reference(name: &str, dir: &Path) -> anyhow::Result<Server> {
    spawn(name, &bin_dir()?.join(format!("axgate-{name}")), &[], dir)
}
