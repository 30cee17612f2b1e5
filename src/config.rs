//! Configuration in stages: raw values from the TOML file, `AXGATE_*` environment variables
//! and command-line flags (flags > env > file > defaults) are gathered per key, then every
//! key is validated and *all* bad values are reported at once, then small typed structs
//! are handed to each module.
//!
//! Each key has one name: `server.bind` in the file, `AXGATE_SERVER_BIND` in the
//! environment. Lists are TOML arrays in the file and comma-separated in the environment.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::http::auth::Scope;

/// Which backend to serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    #[default]
    Auto,
    Demo,
    Atspi,
    Macos,
}

impl BackendChoice {
    pub fn parse(text: &str) -> Option<BackendChoice> {
        match text {
            "auto" => Some(BackendChoice::Auto),
            "demo" => Some(BackendChoice::Demo),
            "atspi" => Some(BackendChoice::Atspi),
            "macos" => Some(BackendChoice::Macos),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Human,
    Json,
}

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub bind: SocketAddr,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    pub shutdown_grace: Duration,
    /// A separate listener for `/metrics` (then absent from the main one).
    pub metrics_bind: Option<SocketAddr>,
    pub sse_keep_alive: Duration,
    pub sse_retry: Duration,
}

#[derive(Clone, Debug)]
pub struct SessionsConfig {
    pub max_sessions: usize,
    pub idle_timeout: Duration,
    pub max_events_per_stream: usize,
    pub max_events_per_session: usize,
    pub finished_stream_ttl: Duration,
}

#[derive(Clone, Debug)]
pub struct BackendConfig {
    pub choice: BackendChoice,
    pub call_timeout: Duration,
    pub unresponsive_after: u32,
    pub probe_interval: Duration,
    pub handle_cap: usize,
}

#[derive(Clone, Debug)]
pub struct LogConfig {
    pub format: LogFormat,
    pub level: String,
}

/// The audit trail (`crate::audit`).
#[derive(Clone, Debug)]
pub struct AuditConfig {
    /// The current file of the trail; `None`: auditing is off.
    pub path: Option<PathBuf>,
    /// Size past which the current file is rotated to `<path>.<N>`.
    pub max_file_bytes: u64,
}

/// A static bearer token of `[auth] tokens`; only its SHA-256 is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticTokenConfig {
    pub name: String,
    pub sha256: [u8; 32],
    pub scopes: BTreeSet<Scope>,
}

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
}

/// Authentication (`crate::http::auth`): off when there are no tokens and no issuer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthConfig {
    pub tokens: Vec<StaticTokenConfig>,
    pub jwt: Option<JwtConfig>,
    /// `auth.audience` when set (also without an issuer): the `resource` of the metadata.
    pub resource: Option<String>,
}

impl AuthConfig {
    pub fn enabled(&self) -> bool {
        !self.tokens.is_empty() || self.jwt.is_some()
    }
}

/// The validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub server: ServerConfig,
    pub sessions: SessionsConfig,
    pub backend: BackendConfig,
    pub log: LogConfig,
    pub audit: AuditConfig,
    pub auth: AuthConfig,
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

/// The table of keys; `config/axgate.example.toml` documents the same list (a test checks).
pub const KEYS: &[Key] = &[
    Key {
        name: "server.bind",
        doc: "Address and port of the MCP listener.",
        default: "\"127.0.0.1:8741\"",
    },
    Key {
        name: "server.allowed_hosts",
        doc: "Host header values accepted (DNS-rebinding guard); host or host:port.",
        default: "[\"localhost\", \"127.0.0.1\", \"[::1]\"]",
    },
    Key {
        name: "server.allowed_origins",
        doc: "Origin header values accepted; scheme://host[:port|:*]. Requests without Origin are allowed.",
        default: "[\"http://localhost:*\", \"http://127.0.0.1:*\", \"http://[::1]:*\"]",
    },
    Key {
        name: "server.metrics_bind",
        doc: "Serve /metrics on this separate address instead of the main listener (empty: main listener).",
        default: "\"\"",
    },
    Key {
        name: "server.max_body_bytes",
        doc: "Largest accepted request body; larger gets 413.",
        default: "1048576",
    },
    Key {
        name: "server.shutdown_grace_secs",
        doc: "How long shutdown waits for requests to finish.",
        default: "10",
    },
    Key {
        name: "server.sse_keep_alive_secs",
        doc: "Interval of SSE keep-alive comments.",
        default: "15",
    },
    Key {
        name: "server.sse_retry_ms",
        doc: "Reconnect hint sent in every stream's priming event.",
        default: "1000",
    },
    Key {
        name: "sessions.max",
        doc: "Most live sessions; beyond it initialize gets 503 with Retry-After.",
        default: "64",
    },
    Key {
        name: "sessions.idle_timeout_secs",
        doc: "A session with no request for this long is ended.",
        default: "1800",
    },
    Key {
        name: "sessions.max_events_per_stream",
        doc: "Events kept for replay per SSE stream.",
        default: "512",
    },
    Key {
        name: "sessions.max_events_per_session",
        doc: "Events kept for replay per session, all streams.",
        default: "4096",
    },
    Key {
        name: "sessions.finished_stream_ttl_secs",
        doc: "How long a finished response stream stays resumable.",
        default: "300",
    },
    Key {
        name: "backend.kind",
        doc: "auto, demo, atspi or macos. auto: macos on macOS; atspi when an AT-SPI bus is reachable; else demo.",
        default: "\"auto\"",
    },
    Key {
        name: "backend.call_timeout_ms",
        doc: "Deadline of one backend call.",
        default: "5000",
    },
    Key {
        name: "backend.unresponsive_after",
        doc: "Consecutive timeouts that mark an app unresponsive.",
        default: "2",
    },
    Key {
        name: "backend.probe_interval_ms",
        doc: "How often an unresponsive app is probed.",
        default: "2000",
    },
    Key {
        name: "backend.handle_cap",
        doc: "Element handles kept per app connection (least recently used evicted).",
        default: "5000",
    },
    Key {
        name: "log.format",
        doc: "human or json.",
        default: "\"human\"",
    },
    Key {
        name: "log.level",
        doc: "A tracing filter such as info or axgate=debug.",
        default: "\"info\"",
    },
    Key {
        name: "audit.path",
        doc: "File of the audit trail (one hash-chained JSON line per mutating or denied tool call); empty: no audit.",
        default: "\"\"",
    },
    Key {
        name: "audit.max_file_bytes",
        doc: "Size past which the audit file is renamed to <path>.<N> and a new one started.",
        default: "67108864",
    },
    Key {
        name: "auth.tokens",
        doc: "Static bearer tokens: a list of { name, sha256, scopes } tables (`axgate token new` prints one); in the environment an inline TOML or JSON array.",
        default: "[]",
    },
    Key {
        name: "auth.issuer",
        doc: "OAuth issuer whose JWT access tokens are accepted (exact `iss`); empty: no JWTs.",
        default: "\"\"",
    },
    Key {
        name: "auth.jwks_uri",
        doc: "The issuer's JWK set; https (http only on loopback). Required with auth.issuer.",
        default: "\"\"",
    },
    Key {
        name: "auth.audience",
        doc: "This server's resource URI (RFC 8707), which a JWT's aud must include. Required with auth.issuer.",
        default: "\"\"",
    },
    Key {
        name: "auth.leeway_secs",
        doc: "Clock skew allowed on a JWT's exp and nbf.",
        default: "30",
    },
    Key {
        name: "auth.jwks_refresh_min_secs",
        doc: "Least time between two JWKS fetches; a token with an unknown kid asks for one.",
        default: "30",
    },
];

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

    /// Reads `AXGATE_*` variables from `vars`; unknown `AXGATE_` names are errors.
    pub fn env(&mut self, vars: impl IntoIterator<Item = (String, String)>) {
        for (var, value) in vars {
            if !var.starts_with("AXGATE_") {
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
        let config = Config {
            server: ServerConfig {
                bind: v
                    .parse("server.bind", |s| {
                        s.parse().map(Some).map_err(|e| format!("{e}"))
                    })
                    .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 8741))),
                allowed_hosts: v.list("server.allowed_hosts"),
                allowed_origins: v.list("server.allowed_origins"),
                max_body_bytes: v.int("server.max_body_bytes", 1024, 1 << 30) as usize,
                shutdown_grace: Duration::from_secs(v.int("server.shutdown_grace_secs", 0, 3600)),
                metrics_bind: v.parse("server.metrics_bind", |s| {
                    if s.is_empty() {
                        Ok(None)
                    } else {
                        s.parse().map(Some).map_err(|e| format!("{e}"))
                    }
                }),
                sse_keep_alive: Duration::from_secs(v.int("server.sse_keep_alive_secs", 1, 3600)),
                sse_retry: Duration::from_millis(v.int("server.sse_retry_ms", 10, 600_000)),
            },
            sessions: SessionsConfig {
                max_sessions: v.int("sessions.max", 1, 100_000) as usize,
                idle_timeout: Duration::from_secs(v.int(
                    "sessions.idle_timeout_secs",
                    1,
                    7 * 86_400,
                )),
                max_events_per_stream: v.int("sessions.max_events_per_stream", 4, 1_000_000)
                    as usize,
                max_events_per_session: v.int("sessions.max_events_per_session", 4, 10_000_000)
                    as usize,
                finished_stream_ttl: Duration::from_secs(v.int(
                    "sessions.finished_stream_ttl_secs",
                    1,
                    86_400,
                )),
            },
            backend: BackendConfig {
                choice: v.parse("backend.kind", |s| {
                    BackendChoice::parse(s)
                        .ok_or_else(|| "expected auto, demo, atspi or macos".into())
                }),
                call_timeout: Duration::from_millis(v.int("backend.call_timeout_ms", 10, 600_000)),
                unresponsive_after: v.int("backend.unresponsive_after", 1, 100) as u32,
                probe_interval: Duration::from_millis(v.int(
                    "backend.probe_interval_ms",
                    10,
                    600_000,
                )),
                handle_cap: v.int("backend.handle_cap", 16, 10_000_000) as usize,
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
            },
            auth: v.auth(),
        };
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

struct Validator<'a> {
    layers: &'a BTreeMap<&'static str, (Raw, Source)>,
    errors: Vec<String>,
}

impl Validator<'_> {
    fn raw(&self, name: &'static str) -> (Raw, Source) {
        if let Some(found) = self.layers.get(name) {
            return found.clone();
        }
        let default = key(name).map_or("\"\"", |k| k.default);
        let value: toml::Value = toml::from_str::<toml::Table>(&format!("v = {default}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or(toml::Value::String(String::new()));
        (Raw::Toml(value), Source::Default)
    }

    fn fail<T: Default>(&mut self, name: &str, source: &Source, why: impl fmt::Display) -> T {
        self.errors.push(format!("{name} (from {source}): {why}"));
        T::default()
    }

    fn text(&mut self, name: &'static str) -> (String, Source) {
        match self.raw(name) {
            (Raw::Text(s), src) => (s, src),
            (Raw::Toml(toml::Value::String(s)), src) => (s, src),
            (Raw::Toml(other), src) => {
                let shown = other.to_string();
                (
                    self.fail(name, &src, format!("expected a string, found {shown}")),
                    src,
                )
            }
        }
    }

    fn parse<T: Default>(
        &mut self,
        name: &'static str,
        f: impl Fn(&str) -> Result<T, String>,
    ) -> T {
        let (text, src) = self.text(name);
        match f(text.trim()) {
            Ok(v) => v,
            Err(why) => self.fail(name, &src, format!("{text:?}: {why}")),
        }
    }

    fn int(&mut self, name: &'static str, min: u64, max: u64) -> u64 {
        let (value, src) = match self.raw(name) {
            (Raw::Text(s), src) => (
                s.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("{s:?} is not a whole number")),
                src,
            ),
            (Raw::Toml(toml::Value::Integer(i)), src) => (
                u64::try_from(i).map_err(|_| format!("{i} is negative")),
                src,
            ),
            (Raw::Toml(other), src) => {
                (Err(format!("expected a whole number, found {other}")), src)
            }
        };
        match value {
            Ok(v) if (min..=max).contains(&v) => v,
            Ok(v) => self.fail(name, &src, format!("{v} is outside {min}..={max}")),
            Err(why) => self.fail(name, &src, why),
        }
    }

    fn list(&mut self, name: &'static str) -> Vec<String> {
        match self.raw(name) {
            (Raw::Text(s), _) => s
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            (Raw::Toml(toml::Value::Array(items)), src) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        toml::Value::String(s) => out.push(s),
                        other => {
                            self.fail::<()>(name, &src, format!("expected strings, found {other}"))
                        }
                    }
                }
                out
            }
            (Raw::Toml(other), src) => self.fail(
                name,
                &src,
                format!("expected a list of strings, found {other}"),
            ),
        }
    }
}

/// The `[auth]` section.
impl Validator<'_> {
    fn auth(&mut self) -> AuthConfig {
        let tokens = self.tokens("auth.tokens");
        let url = |loopback_http_only: bool| {
            move |s: &str| -> Result<Option<String>, String> {
                if s.is_empty() {
                    Ok(None)
                } else {
                    check_url(s, loopback_http_only).map(|()| Some(s.to_owned()))
                }
            }
        };
        let errors_before = self.errors.len();
        let issuer = self.parse("auth.issuer", url(true));
        let jwks_uri = self.parse("auth.jwks_uri", url(true));
        let audience = self.parse("auth.audience", url(false));
        // An invalid URL is already reported; do not also call it missing.
        let urls_valid = self.errors.len() == errors_before;
        let leeway = Duration::from_secs(self.int("auth.leeway_secs", 0, 600));
        let jwks_refresh_min =
            Duration::from_secs(self.int("auth.jwks_refresh_min_secs", 1, 86_400));
        let jwt = match (issuer, jwks_uri, audience.clone()) {
            (Some(issuer), Some(jwks_uri), Some(audience)) => Some(JwtConfig {
                issuer,
                jwks_uri,
                audience,
                leeway,
                jwks_refresh_min,
            }),
            _ if !urls_valid => None,
            (Some(_), jwks_uri, audience) => {
                for (key, value) in [("auth.jwks_uri", jwks_uri), ("auth.audience", audience)] {
                    if value.is_none() {
                        self.errors
                            .push(format!("{key} is required when auth.issuer is set"));
                    }
                }
                None
            }
            (None, Some(_), _) => {
                self.errors.push(
                    "auth.jwks_uri is set but auth.issuer is not: set both to accept JWTs".into(),
                );
                None
            }
            (None, None, _) => None,
        };
        AuthConfig {
            tokens,
            jwt,
            resource: audience,
        }
    }

    /// `auth.tokens`: a TOML array of tables in the file; inline TOML or JSON in the environment.
    fn tokens(&mut self, name: &'static str) -> Vec<StaticTokenConfig> {
        let (value, src) = match self.raw(name) {
            (Raw::Toml(value), src) => (value, src),
            (Raw::Text(text), src) => match inline_list(&text) {
                Ok(value) => (value, src),
                Err(why) => return self.fail(name, &src, why),
            },
        };
        let items = match value {
            toml::Value::Array(items) => items,
            other => {
                let why =
                    format!("expected a list of {{ name, sha256, scopes }} tables, found {other}");
                return self.fail(name, &src, why);
            }
        };
        let mut out: Vec<StaticTokenConfig> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match token_entry(item) {
                Ok(token) if out.iter().any(|t| t.name == token.name) => {
                    let why = format!("entry {}: the name {:?} is used twice", i + 1, token.name);
                    self.fail::<()>(name, &src, why);
                }
                Ok(token) if out.iter().any(|t| t.sha256 == token.sha256) => {
                    let why = format!("entry {}: the same sha256 is listed twice", i + 1);
                    self.fail::<()>(name, &src, why);
                }
                Ok(token) => out.push(token),
                Err(whys) => {
                    for why in whys {
                        self.fail::<()>(name, &src, format!("entry {}: {why}", i + 1));
                    }
                }
            }
        }
        out
    }
}

/// An environment value of `auth.tokens`: `[{ name = "ci", … }]` or `[{"name": "ci", …}]`.
fn inline_list(text: &str) -> Result<toml::Value, String> {
    if let Some(value) = toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
    {
        return Ok(value);
    }
    serde_json::from_str::<toml::Value>(text).map_err(|e| {
        format!("expected an inline TOML or JSON list of {{ name, sha256, scopes }} tables ({e})")
    })
}

/// One `{ name, sha256, scopes }` table; every problem of it.
fn token_entry(item: &toml::Value) -> Result<StaticTokenConfig, Vec<String>> {
    let Some(table) = item.as_table() else {
        return Err(vec![format!(
            "expected a {{ name, sha256, scopes }} table, found {item}"
        )]);
    };
    let mut errors = Vec::new();
    for key in table.keys() {
        if !matches!(key.as_str(), "name" | "sha256" | "scopes") {
            errors.push(format!(
                "unknown field `{key}` (expected name, sha256, scopes)"
            ));
        }
    }
    let name = match table.get("name").and_then(toml::Value::as_str) {
        Some(n) => match crate::http::auth::tokens::check_name(n) {
            Ok(()) => n.to_owned(),
            Err(why) => {
                errors.push(why);
                String::new()
            }
        },
        None => {
            errors.push("`name` (a string) is missing".into());
            String::new()
        }
    };
    let sha256 = match table.get("sha256").and_then(toml::Value::as_str) {
        Some(hex) => crate::http::auth::tokens::parse_sha256(hex).unwrap_or_else(|why| {
            errors.push(why);
            [0; 32]
        }),
        None => {
            errors.push("`sha256` (64 hex digits) is missing".into());
            [0; 32]
        }
    };
    let mut scopes = BTreeSet::new();
    match table.get("scopes").and_then(toml::Value::as_array) {
        Some(items) => {
            for item in items {
                match item.as_str().map(str::parse::<Scope>) {
                    Some(Ok(scope)) => {
                        scopes.insert(scope);
                    }
                    Some(Err(why)) => errors.push(format!("scopes: {why}")),
                    None => errors.push(format!("scopes: expected strings, found {item}")),
                }
            }
            if items.is_empty() {
                errors.push("`scopes` is empty; give at least axgate:read".into());
            }
        }
        None => errors.push("`scopes` (a list such as [\"axgate:read\"]) is missing".into()),
    }
    if errors.is_empty() {
        Ok(StaticTokenConfig {
            name,
            sha256,
            scopes,
        })
    } else {
        Err(errors)
    }
}

/// An absolute http(s) URL without a fragment; with `loopback_http_only`, plain http only
/// for a loopback host.
fn check_url(text: &str, loopback_http_only: bool) -> Result<(), String> {
    if text.contains('#') {
        return Err("a URL here must not have a #fragment".into());
    }
    let uri: http::Uri = text.parse().map_err(|e| format!("not a URL: {e}"))?;
    let host = uri.host().unwrap_or_default();
    if host.is_empty() {
        return Err("expected an absolute URL such as https://host/path".into());
    }
    let loopback = host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match uri.scheme_str() {
        Some("https") => Ok(()),
        Some("http") if !loopback_http_only || loopback => Ok(()),
        Some("http") => Err("must be https (plain http only for a loopback host)".into()),
        _ => Err("expected an https URL".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_are_valid() {
        let config = Layers::default().build().expect("defaults");
        assert_eq!(config.server.bind.to_string(), "127.0.0.1:8741");
        assert_eq!(config.backend.choice, BackendChoice::Auto);
        assert!(
            config
                .server
                .allowed_hosts
                .contains(&"localhost".to_owned())
        );
    }

    #[test]
    fn flags_beat_env_beat_file() {
        let mut layers = Layers::default();
        layers.toml_text(
            "[server]\nbind = \"127.0.0.1:1\"\n[sessions]\nmax = 3\n",
            "file.toml",
        );
        layers.env(env(&[
            ("AXGATE_SERVER_BIND", "127.0.0.1:2"),
            ("AXGATE_SESSIONS_MAX", "5"),
        ]));
        layers.flag("server.bind", "127.0.0.1:3".into());
        let config = layers.build().expect("valid");
        assert_eq!(config.server.bind.port(), 3);
        assert_eq!(config.sessions.max_sessions, 5);
    }

    #[test]
    fn every_bad_value_is_reported_at_once() {
        let mut layers = Layers::default();
        layers.toml_text(
            "[server]\nbind = \"nowhere\"\nmax_body_bytes = \"big\"\nbogus = 1\n",
            "f.toml",
        );
        layers.env(env(&[
            ("AXGATE_BACKEND_KIND", "windows"),
            ("AXGATE_NOPE", "1"),
        ]));
        layers.flag("log.format", "xml".into());
        let err = layers.build().expect_err("invalid").to_string();
        for needle in [
            "server.bind",
            "max_body_bytes",
            "unknown key `server.bogus`",
            "backend.kind",
            "$AXGATE_NOPE",
            "log.format",
        ] {
            assert!(err.contains(needle), "missing {needle} in:\n{err}");
        }
    }

    #[test]
    fn example_file_documents_every_key_and_parses() {
        let text = include_str!("../config/axgate.example.toml");
        for k in KEYS {
            let (section, name) = k.name.split_once('.').expect("dotted");
            assert!(text.contains(&format!("[{section}]")), "section {section}");
            assert!(text.contains(&format!("{name} =")), "key {}", k.name);
        }
        let mut layers = Layers::default();
        layers.toml_text(text, "example");
        layers.build().expect("the example is valid");
    }

    #[test]
    fn auth_section() {
        let hash = "ab".repeat(32);
        let mut layers = Layers::default();
        layers.toml_text(
            &format!(
                "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{hash}\", scopes = [\"axgate:read\", \"axgate:act\"] }}]\n\
                 issuer = \"https://login.example.com\"\njwks_uri = \"https://login.example.com/jwks\"\n\
                 audience = \"https://mac-17.ci.example:8741/mcp\"\n"
            ),
            "f.toml",
        );
        let auth = layers.build().expect("valid").auth;
        assert!(auth.enabled());
        assert_eq!(auth.tokens[0].name, "ci");
        assert_eq!(auth.tokens[0].sha256, [0xab; 32]);
        assert_eq!(auth.tokens[0].scopes.len(), 2);
        let jwt = auth.jwt.expect("jwt");
        assert_eq!(jwt.leeway, Duration::from_secs(30));
        assert_eq!(jwt.jwks_refresh_min, Duration::from_secs(30));
        assert!(!Layers::default().build().expect("defaults").auth.enabled());

        // The environment takes the list as inline TOML or as JSON.
        for text in [
            format!("[{{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]"),
            format!("[{{\"name\": \"a\", \"sha256\": \"{hash}\", \"scopes\": [\"axgate:read\"]}}]"),
        ] {
            let mut layers = Layers::default();
            layers.env(env(&[("AXGATE_AUTH_TOKENS", &text)]));
            let auth = layers.build().expect(&text).auth;
            assert_eq!(auth.tokens.len(), 1, "{text}");
        }
    }

    #[test]
    fn every_bad_auth_value_is_reported_at_once() {
        let mut layers = Layers::default();
        layers.toml_text(
            "[auth]\ntokens = [{ name = \"a b\", sha256 = \"12\", scopes = [\"axgate:write\"], extra = 1 },\n\
             { sha256 = \"00\" }, \"loose\"]\n\
             issuer = \"http://idp.example.com\"\njwks_uri = \"ftp://x/jwks\"\n\
             audience = \"https://h/mcp#frag\"\nleeway_secs = -1\n",
            "f.toml",
        );
        layers.env(env(&[("AXGATE_AUTH_JWKS_REFRESH_MIN_SECS", "0")]));
        let err = layers.build().expect_err("invalid").to_string();
        for needle in [
            "entry 1: token name \"a b\"",
            "entry 1: `sha256` must be 64 hex digits",
            "entry 1: scopes: unknown scope \"axgate:write\"",
            "entry 1: unknown field `extra`",
            "entry 2: `name` (a string) is missing",
            "entry 2: `scopes`",
            "entry 3: expected a { name, sha256, scopes } table",
            "auth.issuer",
            "plain http only for a loopback host",
            "auth.jwks_uri",
            "auth.audience",
            "#fragment",
            "auth.leeway_secs",
            "auth.jwks_refresh_min_secs",
        ] {
            assert!(err.contains(needle), "missing {needle} in:\n{err}");
        }
        assert!(!err.contains("is required when"), "{err}");
        assert!(!err.contains("is set but"), "{err}");

        let mut layers = Layers::default();
        let hash = "cd".repeat(32);
        layers.toml_text(
            &format!(
                "[auth]\ntokens = [{{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }},\n\
                 {{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]\n\
                 issuer = \"http://127.0.0.1:9/\"\n"
            ),
            "f.toml",
        );
        layers.env(env(&[("AXGATE_AUTH_TOKENS", "{not a list")]));
        let err = layers.build().expect_err("invalid").to_string();
        for needle in [
            "auth.tokens (from $AXGATE_AUTH_TOKENS): expected an inline TOML or JSON list",
            "auth.jwks_uri is required when auth.issuer is set",
            "auth.audience is required when auth.issuer is set",
        ] {
            assert!(err.contains(needle), "missing {needle} in:\n{err}");
        }
        let mut layers = Layers::default();
        layers.toml_text(
            &format!(
                "[auth]\ntokens = [{{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }},\n\
                 {{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]\n\
                 jwks_uri = \"https://x/jwks\"\n"
            ),
            "f.toml",
        );
        let err = layers.build().expect_err("invalid").to_string();
        for needle in [
            "the name \"a\" is used twice",
            "auth.jwks_uri is set but auth.issuer is not",
        ] {
            assert!(err.contains(needle), "missing {needle} in:\n{err}");
        }
    }
}
