//! `[[auth.issuers]]`: more trusted JWT issuers beside `auth.issuer`, each with its JWK set,
//! audience, accepted `typ`, own policy and claim rules (`[[auth.issuers.rules]]`,
//! `crate::policy::claims`). Every problem is reported with its key path,
//! `auth.issuers[1].rules[0].claims.repository: …` (indexes from 0, in file order).

use std::collections::{BTreeMap, BTreeSet};

use super::validate::{Defaults, Validator, check_url};
use super::{IssuerConfig, JwtConfig};
use crate::identity::Scope;
use crate::policy::claims::{ClaimRule, pattern};
use crate::policy::confirm::Unconfirmed;
use crate::policy::principal::{Override, Who};

/// The fields of an `[[auth.issuers]]` entry.
const ISSUER_FIELDS: [&str; 10] = [
    "issuer",
    "jwks_uri",
    "audience",
    "accepted_typ",
    "unconfirmed",
    "calls_per_second",
    "writes_per_second",
    "secrets",
    "secrets_into_plain_fields",
    "rules",
];
/// The fields of a rule.
const RULE_FIELDS: [&str; 7] = [
    "claims",
    "scopes",
    "unconfirmed",
    "calls_per_second",
    "writes_per_second",
    "secrets",
    "secrets_into_plain_fields",
];

/// The problems of one entry, each with the key path it concerns.
#[derive(Default)]
struct Problems(Vec<(String, String)>);

impl Problems {
    fn add(&mut self, path: impl Into<String>, why: impl Into<String>) {
        self.0.push((path.into(), why.into()));
    }
}

impl Validator<'_> {
    /// `auth.issuers`: the entries, and the policies they and their rules set for
    /// themselves (each rule's before its issuer's). `before`: issuers already trusted
    /// (`auth.issuer`), which an entry may not repeat.
    pub(super) fn issuers(
        &mut self,
        name: &'static str,
        defaults: &Defaults,
        before: &[IssuerConfig],
    ) -> (Vec<IssuerConfig>, Vec<Override>) {
        let Some((items, src)) = self.tables(name, "[[auth.issuers]] ({ issuer, jwks_uri, … })")
        else {
            return Default::default();
        };
        let mut out: Vec<IssuerConfig> = Vec::new();
        let mut overrides = Vec::new();
        // Each `iss` once: (the issuer, where it was first named).
        let mut seen: Vec<(String, String)> = before
            .iter()
            .map(|t| (t.jwt.issuer.clone(), format!("{}.issuer", t.path)))
            .collect();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{name}[{i}]");
            let mut problems = Problems::default();
            let entry = issuer_entry(&path, item, defaults, &mut problems);
            if let Some(issuer) = item.get("issuer").and_then(toml::Value::as_str) {
                match seen.iter().find(|(iss, _)| iss == issuer) {
                    Some((_, first)) => problems.add(
                        format!("{path}.issuer"),
                        format!(
                            "{issuer:?} is already trusted by {first}; each issuer is listed once"
                        ),
                    ),
                    None => seen.push((issuer.to_owned(), format!("{path}.issuer"))),
                }
            }
            for (at, why) in &problems.0 {
                self.errors.push(format!("{at} (from {src}): {why}"));
            }
            if let (Some((issuer, mut own)), true) = (entry, problems.0.is_empty()) {
                overrides.append(&mut own);
                out.push(issuer);
            }
        }
        (out, overrides)
    }
}

/// One entry, and its own policy and its rules' (rules first); `None` when it is unusable.
fn issuer_entry(
    path: &str,
    item: &toml::Value,
    defaults: &Defaults,
    problems: &mut Problems,
) -> Option<(IssuerConfig, Vec<Override>)> {
    let Some(table) = item.as_table() else {
        problems.add(path, format!("expected a table, found {item}"));
        return None;
    };
    unknown_fields(path, table, &ISSUER_FIELDS, problems);
    let url =
        |field: &str, loopback_http_only: bool, problems: &mut Problems| match table.get(field) {
            None => None,
            Some(toml::Value::String(s)) => match check_url(s, loopback_http_only) {
                Ok(()) => Some(s.clone()),
                Err(why) => {
                    problems.add(format!("{path}.{field}"), format!("{s:?}: {why}"));
                    None
                }
            },
            Some(other) => {
                problems.add(
                    format!("{path}.{field}"),
                    format!("expected a URL string, found {other}"),
                );
                None
            }
        };
    let issuer = url("issuer", true, problems);
    let jwks_uri = url("jwks_uri", true, problems);
    let audience = url("audience", false, problems).or_else(|| defaults.audience.clone());
    for (field, value, hint) in [
        ("issuer", issuer.is_some(), "the exact iss of its tokens"),
        ("jwks_uri", jwks_uri.is_some(), "the URL of its JWK set"),
        (
            "audience",
            audience.is_some(),
            "the aud its tokens must carry, here or as auth.audience",
        ),
    ] {
        if !value && !table.contains_key(field) {
            problems.add(format!("{path}.{field}"), format!("is required: {hint}"));
        }
    }
    let accepted_typ = match table.get("accepted_typ") {
        None => vec![axgate_parse::credentials::jwt::DEFAULT_TYP.to_owned()],
        Some(toml::Value::Array(items)) if !items.is_empty() => {
            let mut out = Vec::new();
            for item in items {
                match item.as_str() {
                    Some(s) => out.push(s.to_owned()),
                    None => problems.add(
                        format!("{path}.accepted_typ"),
                        format!("expected strings, found {item}"),
                    ),
                }
            }
            out
        }
        Some(toml::Value::Array(_)) => {
            problems.add(
                format!("{path}.accepted_typ"),
                "is empty: every token would be refused; GitHub Actions sends typ JWT",
            );
            Vec::new()
        }
        Some(other) => {
            problems.add(
                format!("{path}.accepted_typ"),
                format!("expected a list such as [\"JWT\"], found {other}"),
            );
            Vec::new()
        }
    };
    let own = own_policy(path, table, problems);
    let mut rules = Vec::new();
    match table.get("rules") {
        None => {}
        Some(toml::Value::Array(items)) => {
            for (j, item) in items.iter().enumerate() {
                if let Some(rule) = rule_entry(&format!("{path}.rules[{j}]"), item, problems) {
                    rules.push(rule);
                }
            }
        }
        Some(other) => problems.add(
            format!("{path}.rules"),
            format!("expected [[auth.issuers.rules]] tables, found {other}"),
        ),
    }
    let (issuer, jwks_uri, audience) = (issuer?, jwks_uri?, audience?);
    let mut overrides = Vec::new();
    let mut configs = Vec::new();
    for (rule, rule_own) in rules {
        let merged = Override {
            who: Who::Rule(rule.path.clone()),
            unconfirmed: rule_own.unconfirmed.or(own.unconfirmed),
            calls_per_second: rule_own.calls_per_second.or(own.calls_per_second),
            writes_per_second: rule_own.writes_per_second.or(own.writes_per_second),
            secrets: rule_own.secrets.clone().or_else(|| own.secrets.clone()),
            secrets_into_plain_fields: rule_own
                .secrets_into_plain_fields
                .or(own.secrets_into_plain_fields),
        };
        if !rule_own.is_empty() {
            overrides.push(merged);
        }
        configs.push(rule);
    }
    if !own.is_empty() {
        overrides.push(Override {
            who: Who::Issuer(issuer.clone()),
            ..own
        });
    }
    let config = IssuerConfig {
        path: path.to_owned(),
        jwt: JwtConfig {
            issuer,
            jwks_uri,
            audience,
            leeway: defaults.leeway,
            jwks_refresh_min: defaults.jwks_refresh_min,
            accepted_typ,
        },
        rules: configs,
    };
    Some((config, overrides))
}

/// One rule, and the policy it sets for itself (its `who` not yet final).
fn rule_entry(
    path: &str,
    item: &toml::Value,
    problems: &mut Problems,
) -> Option<(ClaimRule, Override)> {
    let Some(table) = item.as_table() else {
        problems.add(
            path,
            format!("expected a table {{ claims, scopes }}, found {item}"),
        );
        return None;
    };
    let before = problems.0.len();
    unknown_fields(path, table, &RULE_FIELDS, problems);
    let mut claims = BTreeMap::new();
    match table.get("claims") {
        Some(toml::Value::Table(patterns)) if patterns.is_empty() => problems.add(
            format!("{path}.claims"),
            "is empty: a rule must check at least one claim (e.g. repository)",
        ),
        Some(toml::Value::Table(patterns)) => {
            for (name, value) in patterns {
                let at = format!("{path}.claims.{name}");
                match value.as_str() {
                    Some(text) => match pattern(text) {
                        Ok(_) => {
                            claims.insert(name.clone(), text.to_owned());
                        }
                        Err(why) => problems.add(at, why),
                    },
                    None => problems.add(
                        at,
                        format!("expected a string (the value or a glob), found {value}"),
                    ),
                }
            }
        }
        Some(other) => problems.add(
            format!("{path}.claims"),
            format!("expected a table of claim = \"pattern\", found {other}"),
        ),
        None => problems.add(
            format!("{path}.claims"),
            "is missing: a table such as { repository = \"acme/app\" }",
        ),
    }
    let mut scopes = BTreeSet::new();
    match table.get("scopes").and_then(toml::Value::as_array) {
        Some(items) if items.is_empty() => problems.add(
            format!("{path}.scopes"),
            "is empty; give at least axgate:read",
        ),
        Some(items) => {
            for item in items {
                match item.as_str().map(str::parse::<Scope>) {
                    Some(Ok(scope)) => {
                        scopes.insert(scope);
                    }
                    Some(Err(why)) => problems.add(format!("{path}.scopes"), why.to_string()),
                    None => problems.add(
                        format!("{path}.scopes"),
                        format!("expected strings, found {item}"),
                    ),
                }
            }
        }
        None => problems.add(
            format!("{path}.scopes"),
            "is missing: a list such as [\"axgate:read\"]",
        ),
    }
    let own = own_policy(path, table, problems);
    if problems.0.len() > before {
        return None;
    }
    let rule = ClaimRule {
        path: path.to_owned(),
        claims,
        scopes,
    };
    Some((rule, own))
}

fn unknown_fields(path: &str, table: &toml::Table, known: &[&str], problems: &mut Problems) {
    for key in table.keys() {
        if !known.contains(&key.as_str()) {
            problems.add(
                format!("{path}.{key}"),
                format!("unknown field (expected {})", known.join(", ")),
            );
        }
    }
}

/// `unconfirmed`, `calls_per_second`, `writes_per_second`, `secrets` and
/// `secrets_into_plain_fields` of a table.
fn own_policy(path: &str, table: &toml::Table, problems: &mut Problems) -> Override {
    let mut rate = |field: &str| match table.get(field) {
        None => None,
        Some(toml::Value::Integer(n)) if (1..=100_000).contains(n) => Some(*n as u32),
        Some(other) => {
            problems.add(
                format!("{path}.{field}"),
                format!("expected a whole number from 1 to 100000, found {other}"),
            );
            None
        }
    };
    let calls_per_second = rate("calls_per_second");
    let writes_per_second = rate("writes_per_second");
    let unconfirmed = match table.get("unconfirmed") {
        None => None,
        Some(value) => match value.as_str().map(Unconfirmed::parse) {
            Some(Ok(choice)) => Some(choice),
            _ => {
                problems.add(
                    format!("{path}.unconfirmed"),
                    format!("expected \"refuse\", \"allow\" or \"ask\", found {value}"),
                );
                None
            }
        },
    };
    let mut found = Vec::new();
    let (secrets, secrets_into_plain_fields) = super::secrets::own_secrets(table, &mut found);
    for (field, why) in found {
        problems.add(format!("{path}.{field}"), why);
    }
    Override {
        who: Who::Issuer(String::new()),
        unconfirmed,
        calls_per_second,
        writes_per_second,
        secrets,
        secrets_into_plain_fields,
    }
}

#[cfg(test)]
#[path = "issuers_tests.rs"]
mod tests;
