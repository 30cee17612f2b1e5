//! Validation of the gathered raw values: typed values per key, every problem collected.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use super::TlsFiles;
use super::{AuthConfig, IssuerConfig, JwtConfig, PolicyConfig, Raw, Source, key};
use crate::policy::confirm::Unconfirmed;
use crate::policy::principal::Override;
use axgate_engine::app_rules::AppRules;

/// What an `auth.issuers` entry takes from `[auth]` when it does not say.
pub(super) struct Defaults {
    /// `auth.audience`.
    pub(super) audience: Option<String>,
    /// `auth.leeway_secs`.
    pub(super) leeway: Duration,
    /// `auth.jwks_refresh_min_secs`.
    pub(super) jwks_refresh_min: Duration,
}

pub(super) struct Validator<'a> {
    pub(super) layers: &'a BTreeMap<&'static str, (Raw, Source)>,
    pub(super) errors: Vec<String>,
}

impl Validator<'_> {
    pub(super) fn raw(&self, name: &'static str) -> (Raw, Source) {
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

    /// A list of tables: an array of tables in a file, an inline TOML or JSON list in the
    /// environment. `None` (the problem recorded, naming `shape`, e.g. `{ name, sha256,
    /// scopes }`) when it is something else.
    pub(super) fn tables(
        &mut self,
        name: &'static str,
        shape: &str,
    ) -> Option<(Vec<toml::Value>, Source)> {
        let (value, src) = match self.raw(name) {
            (Raw::Toml(value), src) => (value, src),
            (Raw::Text(text), src) => match inline_list(&text) {
                Ok(value) => (value, src),
                Err(e) => {
                    let why =
                        format!("expected an inline TOML or JSON list of {shape} tables ({e})");
                    return self.fail(name, &src, why);
                }
            },
        };
        match value {
            toml::Value::Array(items) => Some((items, src)),
            other => self.fail(
                name,
                &src,
                format!("expected a list of {shape} tables, found {other}"),
            ),
        }
    }

    pub(super) fn fail<T: Default>(
        &mut self,
        name: &str,
        source: &Source,
        why: impl fmt::Display,
    ) -> T {
        self.errors.push(format!("{name} (from {source}): {why}"));
        T::default()
    }

    pub(super) fn text(&mut self, name: &'static str) -> (String, Source) {
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

    pub(super) fn parse<T: Default>(
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

    /// A whole number of seconds within `[min, max]`, as a duration.
    pub(super) fn secs(&mut self, name: &'static str, min: u64, max: u64) -> Duration {
        Duration::from_secs(self.int(name, min, max))
    }

    /// A whole number of milliseconds within `[min, max]`, as a duration.
    pub(super) fn millis(&mut self, name: &'static str, min: u64, max: u64) -> Duration {
        Duration::from_millis(self.int(name, min, max))
    }

    /// A count or size within `[min, max]`.
    pub(super) fn count(&mut self, name: &'static str, min: u64, max: u64) -> usize {
        self.int(name, min, max) as usize
    }

    pub(super) fn int(&mut self, name: &'static str, min: u64, max: u64) -> u64 {
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

    pub(super) fn boolean(&mut self, name: &'static str) -> bool {
        match self.raw(name) {
            (Raw::Toml(toml::Value::Boolean(b)), _) => b,
            (Raw::Text(s), src) => match s.trim() {
                "true" | "1" => true,
                "false" | "0" | "" => false,
                other => self.fail(name, &src, format!("{other:?}: expected true or false")),
            },
            (Raw::Toml(other), src) => {
                self.fail(name, &src, format!("expected true or false, found {other}"))
            }
        }
    }

    /// A list of addresses and CIDR prefixes.
    pub(super) fn prefixes(&mut self, name: &'static str) -> Vec<super::AddrPrefix> {
        let src = self.raw(name).1;
        let mut out = Vec::new();
        for item in self.list(name) {
            match super::AddrPrefix::parse(&item) {
                Ok(prefix) => out.push(prefix),
                Err(why) => self.fail::<()>(name, &src, why),
            }
        }
        out
    }

    pub(super) fn list(&mut self, name: &'static str) -> Vec<String> {
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

/// The `[policy]` and `[limits]` sections.
impl Validator<'_> {
    fn app_rules(&mut self, name: &'static str) -> Vec<String> {
        let rules = self.list(name);
        for rule in &rules {
            if let Err(why) = AppRules::check_rule(rule) {
                self.errors.push(format!("{name}: {why}"));
            }
        }
        rules
    }

    /// `server.tls_cert` and `server.tls_key`: both or neither.
    pub(super) fn tls(&mut self) -> Option<TlsFiles> {
        let (cert, _) = self.text("server.tls_cert");
        let (key, _) = self.text("server.tls_key");
        match (cert.trim(), key.trim()) {
            ("", "") => None,
            (cert, key) if !cert.is_empty() && !key.is_empty() => Some(TlsFiles {
                cert: cert.into(),
                key: key.into(),
            }),
            _ => {
                self.errors.push(
                    "server.tls_cert and server.tls_key go together: set both for TLS, or neither"
                        .into(),
                );
                None
            }
        }
    }

    pub(super) fn policy(&mut self) -> PolicyConfig {
        PolicyConfig {
            read_only: self.boolean("policy.read_only"),
            allow_apps: self.app_rules("policy.allow_apps"),
            deny_apps: self.app_rules("policy.deny_apps"),
            confirm_words: self.list("policy.confirm_words"),
            unconfirmed: self.parse("policy.unconfirmed", Unconfirmed::parse),
            calls_per_second: self.int("limits.calls_per_second", 1, 100_000) as u32,
            writes_per_second: self.int("limits.writes_per_second", 1, 100_000) as u32,
            max_listens_per_principal: self.int("limits.max_listens_per_principal", 1, 100_000)
                as usize,
            max_tasks_per_principal: self.int("limits.max_tasks_per_principal", 1, 100_000)
                as usize,
            max_task_bytes: self.int("limits.max_task_bytes", 1024, 1 << 40) as usize,
            task_ttl_secs: self.int("limits.task_ttl_secs", 1, 86_400),
            secret_source: self.secret_source(),
            secrets: self.secret_names("policy.secrets"),
            secrets_into_plain_fields: self.boolean("policy.secrets_into_plain_fields"),
            // Filled from `[auth]` (`Validator::auth`).
            principals: Vec::new(),
        }
    }
}

/// The `[auth]` section.
impl Validator<'_> {
    /// The section, and the policies tokens and the issuer set for themselves.
    pub(super) fn auth(&mut self) -> (AuthConfig, Vec<Override>) {
        let (tokens, mut overrides) = self.tokens("auth.tokens");
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
        let accepted_typ = self.list("auth.accepted_typ");
        if accepted_typ.is_empty() {
            self.errors.push(
                "auth.accepted_typ is empty: every JWT would be refused; list at least \"at+jwt\""
                    .into(),
            );
        }
        let jwt = match (issuer, jwks_uri, audience.clone()) {
            (Some(issuer), Some(jwks_uri), Some(audience)) => Some(JwtConfig {
                issuer,
                jwks_uri,
                audience,
                leeway,
                jwks_refresh_min,
                accepted_typ,
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
        let own = self.issuer_policy(jwt.as_ref().map_or("", |j| j.issuer.as_str()));
        let mut issuers: Vec<IssuerConfig> = jwt
            .map(|jwt| IssuerConfig {
                path: "auth".into(),
                jwt,
                rules: Vec::new(),
            })
            .into_iter()
            .collect();
        let defaults = Defaults {
            audience: audience.clone(),
            leeway,
            jwks_refresh_min,
        };
        let (more, mut own_more) = self.issuers("auth.issuers", &defaults, &issuers);
        issuers.extend(more);
        overrides.append(&mut own_more);
        if !own.is_empty() {
            if issuers.first().is_some_and(|i| i.path == "auth") {
                overrides.push(own);
            } else if urls_valid {
                self.errors.push(
                    "auth.jwt_unconfirmed / auth.jwt_calls_per_second / auth.jwt_writes_per_second \
                     are set but no issuer is configured: set auth.issuer, or remove them"
                        .into(),
                );
            }
        }
        let auth = AuthConfig {
            tokens,
            issuers,
            resource: audience,
            https: false,
        };
        (auth, overrides)
    }
}

/// An absolute http(s) URL without a fragment; with `loopback_http_only`, plain http only
/// for a loopback host.
pub(super) fn check_url(text: &str, loopback_http_only: bool) -> Result<(), String> {
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

/// An environment value of a list of tables: `[{ name = "ci", … }]` or `[{"name": "ci", …}]`.
fn inline_list(text: &str) -> Result<toml::Value, serde_json::Error> {
    match toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
    {
        Some(value) => Ok(value),
        None => serde_json::from_str::<toml::Value>(text),
    }
}
