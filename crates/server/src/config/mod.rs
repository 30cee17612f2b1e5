//! Configuration in stages: raw values from the TOML file, `AXGATE_*` environment variables
//! and command-line flags (flags > env > file > defaults) are gathered per key, then every
//! key is validated and *all* bad values are reported at once, then small typed structs
//! are handed to each module.
//!
//! Each key has one name: `server.bind` in the file, `AXGATE_SERVER_BIND` in the
//! environment. Lists are TOML arrays in the file and comma-separated in the environment.

/// The `[backend]` section parses into the engine's own settings (no loop back to here).
pub use axgate_engine::settings::{BackendChoice, BackendConfig};
use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::policy::PolicyConfig;
use crate::policy::claims::ClaimRule;

mod addrs;
mod issuers;
mod keys;
mod secrets;
#[cfg(test)]
mod tests;
mod tokens;
mod validate;

pub use addrs::AddrPrefix;
pub use keys::KEYS;
use validate::Validator;

/// Which backend to serve.
/// Where the listener's TLS certificate chain and its key are (`server.tls_cert`,
/// `server.tls_key`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Human,
    Json,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    pub bind: SocketAddr,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    pub shutdown_grace: Duration,
    /// A separate listener for `/metrics` (then absent from the main one).
    pub metrics_bind: Option<SocketAddr>,
    pub sse_keep_alive: Duration,
    /// A request head (and a TLS handshake) must arrive within this (`http::conn`).
    pub header_timeout: Duration,
    /// A connection with no traffic for this long is closed (`http::conn`).
    pub idle_timeout: Duration,
    /// A request body must arrive within this (`http::intake`).
    pub body_timeout: Duration,
    pub max_connections: usize,
    /// Connections one source address holds before any request on them is authenticated
    /// (`http::conn`); at it a newcomer takes the place of one of the address's own.
    pub max_unauthenticated_per_address: usize,
    /// Addresses exempt from that share (a balancer's): `server.trusted_proxies`.
    pub trusted_proxies: Vec<AddrPrefix>,
    /// MCP POSTs served at once (`http::inflight`); past it 503 with Retry-After.
    pub max_in_flight: usize,
    /// Most of them one caller holds (`server.max_in_flight_per_caller`).
    pub max_in_flight_per_caller: usize,
    /// `GET` streams open at once on `/mcp` (`http::inflight`); past it 503.
    pub max_streams: usize,
    /// Most of them one caller holds (`server.max_streams_per_caller`).
    pub max_streams_per_caller: usize,
    pub max_header_bytes: usize,
    pub sse_retry: Duration,
    /// TLS certificate chain and key; `None`: plain HTTP.
    pub tls: Option<TlsFiles>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionsConfig {
    pub max_sessions: usize,
    /// `sessions.max_per_principal`, with 0 resolved to half of `max_sessions` (at least 1).
    pub max_per_principal: usize,
    pub idle_timeout: Duration,
    pub idle_without_stream: Duration,
    pub evict_others_after: Duration,
    pub max_events_per_stream: usize,
    pub max_events_per_session: usize,
    pub max_stream_bytes: usize,
    pub max_session_bytes: usize,
    pub max_total_event_bytes: usize,
    pub finished_stream_ttl: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LogConfig {
    pub format: LogFormat,
    pub level: String,
}

/// The audit trail (`crate::audit`).
#[derive(Clone, Debug, PartialEq)]
pub struct AuditConfig {
    /// The current file of the trail; `None`: auditing is off.
    pub path: Option<PathBuf>,
    /// Size past which the current file is rotated to `<path>.<N>`.
    pub max_file_bytes: u64,
    /// Files kept in all, the current one included; older rotated files are removed.
    pub max_files: u64,
    /// Bytes kept in all files together; older rotated files are removed.
    pub max_total_bytes: u64,
    /// How long denied calls of one principal are coalesced into one summary line; zero:
    /// every denied call has its own line.
    pub deny_window: std::time::Duration,
}

impl AuditConfig {
    /// A trail at `path` with the default limits.
    pub fn at(path: PathBuf) -> AuditConfig {
        AuditConfig {
            path: Some(path),
            max_file_bytes: 64 << 20,
            max_files: 16,
            max_total_bytes: 1 << 30,
            deny_window: std::time::Duration::from_secs(10),
        }
    }
}

/// A static bearer token of `[auth] tokens`; only its SHA-256 is known (the credential
/// parsers' type, `axgate_parse::credentials::tokens::StaticToken`).
pub use axgate_parse::credentials::tokens::StaticToken as StaticTokenConfig;

/// OAuth 2.1 JWT access tokens from one issuer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JwtConfig {
    /// Compared exactly with the `iss` claim; listed in the resource metadata.
    pub issuer: String,
    pub jwks_uri: String,
    /// This server's resource URI, which `aud` must include (RFC 8707).
    pub audience: String,
    pub leeway: Duration,
    /// Least time between two JWKS fetches (an unknown `kid` asks for one).
    pub jwks_refresh_min: Duration,
    /// `auth.accepted_typ`: the JWT `typ` header values accepted.
    pub accepted_typ: Vec<String>,
}

/// One trusted JWT issuer: `auth.issuer` with the `auth.*` keys beside it, or an entry of
/// `[[auth.issuers]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssuerConfig {
    /// Where it is configured: `auth` (`auth.issuer`) or `auth.issuers[1]`; messages name it.
    pub path: String,
    pub jwt: JwtConfig,
    /// Its claim rules in file order (`crate::policy::claims`); empty: the token's scopes
    /// come from its `scope`/`scp` claim.
    pub rules: Vec<ClaimRule>,
}

/// Authentication (`crate::http::auth`): off when there are no tokens and no issuer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthConfig {
    pub tokens: Vec<StaticTokenConfig>,
    /// The trusted issuers, each `iss` once: `auth.issuer` first (when set), then
    /// `[[auth.issuers]]` in file order.
    pub issuers: Vec<IssuerConfig>,
    /// `auth.audience` when set (also without an issuer): the `resource` of the metadata.
    pub resource: Option<String>,
    /// The listener serves TLS (`server.tls_cert`): a resource URI derived from the Host
    /// header (no `auth.audience`) says `https://`.
    pub https: bool,
}

impl AuthConfig {
    pub fn enabled(&self) -> bool {
        !self.tokens.is_empty() || !self.issuers.is_empty()
    }
}

/// Behind a balancer (`crate::fleet`, docs/FLEET.md): exclusive mode, draining, the
/// HAProxy agent-check port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FleetConfig {
    /// One client session at a time holds the machine.
    pub exclusive: bool,
    /// Start draining.
    pub drain: bool,
    /// The agent-check listener; `None`: off.
    pub agent_listen: Option<SocketAddr>,
    /// The `Retry-After` of a refusal for exclusivity or draining.
    pub retry_after: Duration,
    /// A hold that no act of its holder renewed for this long ends (`fleet.max_hold_secs`).
    pub max_hold: Duration,
}

/// The WebDriver facade (`crate::wd`, docs/WEBDRIVER.md).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebDriverConfig {
    /// A session no command reached for this long is ended (`webdriver.idle_timeout_secs`).
    pub idle_timeout: Duration,
    /// Most WebDriver sessions at once (`webdriver.max_sessions`).
    pub max_sessions: usize,
    /// Whether `appium:prerun`/`postrun` and `macos: appleScript` may run
    /// (`webdriver.allow_scripts`; on macOS, through `osascript`).
    pub allow_scripts: bool,
}

/// The validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub server: ServerConfig,
    pub sessions: SessionsConfig,
    pub backend: BackendConfig,
    pub log: LogConfig,
    pub audit: AuditConfig,
    pub auth: AuthConfig,
    pub policy: PolicyConfig,
    pub fleet: FleetConfig,
    pub webdriver: WebDriverConfig,
}

/// Where a raw value came from, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Default,
    File(String),
    Env(String),
    Flag,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("the default"),
            Source::File(path) => write!(f, "{path}"),
            Source::Env(var) => write!(f, "${var}"),
            Source::Flag => f.write_str("the command line"),
        }
    }
}

/// A raw value before validation.
#[derive(Clone, Debug)]
pub enum Raw {
    Text(String),
    Toml(toml::Value),
}

/// Every bad value found, reported together.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration:\n{}", .0.iter().map(|e| format!("  - {e}")).collect::<Vec<_>>().join("\n"))]
pub struct ConfigErrors(pub Vec<String>);

/// One configuration key: its name, what it means and its default (TOML syntax).
pub struct Key {
    pub name: &'static str,
    pub doc: &'static str,
    pub default: &'static str,
}
/// The prefix of the client's environment variables (`axgate call` and the terminal
/// commands: `client::args`), which the server leaves alone. No key's variable starts with it
/// (no section is named `client`; `config::tests` checks).
pub const CLIENT_ENV_PREFIX: &str = "AXGATE_CLIENT_";

/// The environment variable of a key: `server.bind` → `AXGATE_SERVER_BIND`.
pub fn env_name(key: &str) -> String {
    format!("AXGATE_{}", key.replace('.', "_").to_uppercase())
}

/// Raw values gathered from the layers, highest precedence last written.
#[derive(Default)]
pub struct Layers {
    values: BTreeMap<&'static str, (Raw, Source)>,
    errors: Vec<String>,
}

impl Layers {
    /// Reads a TOML file; unknown keys are errors.
    pub fn file(&mut self, path: &Path) {
        let shown = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                self.errors
                    .push(format!("cannot read config file {shown}: {e}"));
                return;
            }
        };
        self.toml_text(&text, &shown);
    }

    pub fn toml_text(&mut self, text: &str, shown: &str) {
        let table: toml::Table = match text.parse() {
            Ok(t) => t,
            Err(e) => {
                self.errors.push(format!("{shown} is not valid TOML: {e}"));
                return;
            }
        };
        for (section, value) in table {
            let Some(inner) = value.as_table() else {
                self.errors
                    .push(format!("{shown}: `{section}` must be a [section]"));
                continue;
            };
            for (name, value) in inner {
                let full = format!("{section}.{name}");
                match key(&full) {
                    Some(k) => {
                        self.values.insert(
                            k.name,
                            (Raw::Toml(value.clone()), Source::File(shown.into())),
                        );
                    }
                    None => self.errors.push(format!("{shown}: unknown key `{full}`")),
                }
            }
        }
    }

    /// Reads `AXGATE_*` variables from `vars`; unknown `AXGATE_` names are errors, except
    /// the client's `AXGATE_CLIENT_*` family ([`CLIENT_ENV_PREFIX`]), which is not the
    /// server's to read: a CI job may set them for `axgate call` and start a server too;
    /// and secret values under `AXGATE_SECRET_` (`crate::secrets::ENV_PREFIX`).
    pub fn env(&mut self, vars: impl IntoIterator<Item = (String, String)>) {
        for (var, value) in vars {
            // Secret values (`crate::secrets`, `secrets.source = "env"`) are not keys either.
            if !var.starts_with("AXGATE_")
                || var.starts_with(CLIENT_ENV_PREFIX)
                || var.starts_with(crate::secrets::ENV_PREFIX)
            {
                continue;
            }
            match KEYS.iter().find(|k| env_name(k.name) == var) {
                Some(k) => {
                    self.values
                        .insert(k.name, (Raw::Text(value), Source::Env(var)));
                }
                None => self
                    .errors
                    .push(format!("unknown environment variable ${var}")),
            }
        }
    }

    /// A value given by a command-line flag.
    pub fn flag(&mut self, name: &str, value: String) {
        match key(name) {
            Some(k) => {
                self.values.insert(k.name, (Raw::Text(value), Source::Flag));
            }
            None => self.errors.push(format!("unknown key `{name}`")),
        }
    }

    /// Validates every key and builds the typed configuration.
    pub fn build(mut self) -> Result<Config, ConfigErrors> {
        let mut v = Validator {
            layers: &self.values,
            errors: std::mem::take(&mut self.errors),
        };
        let (auth, principals) = v.auth();
        let mut config = Config {
            server: ServerConfig {
                bind: v
                    .parse("server.bind", |s| {
                        s.parse().map(Some).map_err(|e| format!("{e}"))
                    })
                    .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 8741))),
                allowed_hosts: v.list("server.allowed_hosts"),
                allowed_origins: v.list("server.allowed_origins"),
                max_body_bytes: v.count("server.max_body_bytes", 1024, 1 << 30),
                shutdown_grace: v.secs("server.shutdown_grace_secs", 0, 3600),
                metrics_bind: v.parse("server.metrics_bind", |s| {
                    if s.is_empty() {
                        Ok(None)
                    } else {
                        s.parse().map(Some).map_err(|e| format!("{e}"))
                    }
                }),
                sse_keep_alive: v.secs("server.sse_keep_alive_secs", 1, 3600),
                sse_retry: v.millis("server.sse_retry_ms", 10, 600_000),
                header_timeout: v.millis("server.header_timeout_ms", 100, 600_000),
                idle_timeout: v.secs("server.idle_timeout_secs", 1, 86_400),
                body_timeout: v.millis("server.body_timeout_ms", 100, 3_600_000),
                max_connections: v.count("server.max_connections", 1, 1_000_000),
                max_unauthenticated_per_address: v.count(
                    "server.max_unauthenticated_per_address",
                    1,
                    1_000_000,
                ),
                trusted_proxies: v.prefixes("server.trusted_proxies"),
                max_in_flight: v.count("server.max_in_flight", 1, 1_000_000),
                max_in_flight_per_caller: v.count("server.max_in_flight_per_caller", 1, 1_000_000),
                max_streams: v.count("server.max_streams", 1, 1_000_000),
                max_streams_per_caller: v.count("server.max_streams_per_caller", 1, 1_000_000),
                max_header_bytes: v.count("server.max_header_bytes", 8192, 1 << 20),
                tls: v.tls(),
            },
            sessions: SessionsConfig {
                max_sessions: v.count("sessions.max", 1, 100_000),
                max_per_principal: v.count("sessions.max_per_principal", 0, 100_000),
                idle_timeout: v.secs("sessions.idle_timeout_secs", 1, 7 * 86_400),
                idle_without_stream: v.secs("sessions.idle_without_stream_secs", 1, 7 * 86_400),
                evict_others_after: v.secs("sessions.evict_others_after_secs", 0, 30 * 86_400),
                max_events_per_stream: v.count("sessions.max_events_per_stream", 4, 1_000_000),
                max_events_per_session: v.count("sessions.max_events_per_session", 4, 10_000_000),
                max_stream_bytes: v.count("sessions.max_stream_bytes", 4096, 1 << 40),
                max_session_bytes: v.count("sessions.max_session_bytes", 4096, 1 << 40),
                max_total_event_bytes: v.count("sessions.max_total_event_bytes", 4096, 1 << 40),
                finished_stream_ttl: v.secs("sessions.finished_stream_ttl_secs", 1, 86_400),
            },
            backend: BackendConfig {
                choice: v.parse("backend.kind", |s| {
                    BackendChoice::parse(s)
                        .ok_or_else(|| "expected auto, demo, atspi, macos or replay".into())
                }),
                call_timeout: v.millis("backend.call_timeout_ms", 10, 600_000),
                unresponsive_after: v.int("backend.unresponsive_after", 1, 100) as u32,
                probe_interval: v.millis("backend.probe_interval_ms", 10, 600_000),
                max_queued_calls: v.count("backend.max_queued_calls", 1, 100_000),
                handle_cap: v.count("backend.handle_cap", 16, 10_000_000),
                min_call_slice: v.millis("backend.min_call_slice_ms", 1, 60_000),
                enhanced_ui_apps: v.list("backend.enhanced_ui_apps"),
                recording: {
                    let (path, _) = v.text("backend.recording");
                    let path = path.trim();
                    (!path.is_empty()).then(|| std::path::PathBuf::from(path))
                },
            },
            log: LogConfig {
                format: v.parse("log.format", |s| match s {
                    "human" => Ok(LogFormat::Human),
                    "json" => Ok(LogFormat::Json),
                    _ => Err("expected human or json".into()),
                }),
                level: v.parse("log.level", |s| {
                    tracing_subscriber::EnvFilter::builder()
                        .parse(s)
                        .map(|_| s.to_owned())
                        .map_err(|e| e.to_string())
                }),
            },
            audit: AuditConfig {
                path: v.parse("audit.path", |s| match s {
                    "" => Ok(None),
                    _ if s.ends_with('/') || Path::new(s).is_dir() => {
                        Err("expected a file path, found a directory".into())
                    }
                    _ => Ok(Some(PathBuf::from(s))),
                }),
                max_file_bytes: v.int("audit.max_file_bytes", 4096, 1 << 40),
                max_files: v.int("audit.max_files", 2, 1 << 20),
                max_total_bytes: v.int("audit.max_total_bytes", 8192, 1 << 50),
                deny_window: v.secs("audit.deny_window_secs", 0, 3600),
            },
            auth,
            policy: PolicyConfig {
                principals,
                ..v.policy()
            },
            fleet: FleetConfig {
                exclusive: v.boolean("fleet.exclusive"),
                drain: v.boolean("fleet.drain"),
                agent_listen: v.parse("fleet.agent_listen", |s| {
                    if s.is_empty() {
                        Ok(None)
                    } else {
                        s.parse().map(Some).map_err(|e| {
                            format!("{e}; expected an address and port such as 127.0.0.1:8742")
                        })
                    }
                }),
                retry_after: v.secs("fleet.retry_after_secs", 1, 3600),
                max_hold: v.secs("fleet.max_hold_secs", 1, 86_400),
            },
            webdriver: WebDriverConfig {
                idle_timeout: v.secs("webdriver.idle_timeout_secs", 1, 7 * 86_400),
                max_sessions: v.count("webdriver.max_sessions", 1, 10_000),
                allow_scripts: v.boolean("webdriver.allow_scripts"),
            },
        };
        if config.server.idle_timeout <= config.server.sse_keep_alive {
            v.errors.push(format!(
                "server.idle_timeout_secs ({}) must be longer than server.sse_keep_alive_secs ({}), \
                 or idle streams are cut between keep-alive comments",
                config.server.idle_timeout.as_secs(),
                config.server.sse_keep_alive.as_secs()
            ));
        }
        config.auth.https = config.server.tls.is_some();
        let s = &mut config.sessions;
        if s.max_per_principal == 0 {
            s.max_per_principal = (s.max_sessions / 2).max(1);
        }
        if s.max_stream_bytes > s.max_session_bytes {
            v.errors.push(format!(
                "sessions.max_stream_bytes ({}) is larger than sessions.max_session_bytes ({}): one stream could never hold that much",
                s.max_stream_bytes, s.max_session_bytes
            ));
        }
        if s.max_session_bytes > s.max_total_event_bytes {
            v.errors.push(format!(
                "sessions.max_session_bytes ({}) is larger than sessions.max_total_event_bytes ({}): one session could never hold that much",
                s.max_session_bytes, s.max_total_event_bytes
            ));
        }
        if v.errors.is_empty() {
            Ok(config)
        } else {
            Err(ConfigErrors(v.errors))
        }
    }
}

fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}
