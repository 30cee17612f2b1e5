//! `auth.tokens`: the static bearer tokens, each a `{ name, sha256, scopes }` table that may
//! also set the token's own policy (`unconfirmed`, `calls_per_second`, `writes_per_second`,
//! `secrets`, `secrets_into_plain_fields`;
//! `crate::policy::principal`), and the issuer's own policy (`auth.jwt_*`).

use std::collections::BTreeSet;

use super::StaticTokenConfig;
use super::validate::Validator;
use crate::identity::Scope;
use crate::policy::confirm::Unconfirmed;
use crate::policy::principal::{Override, Who};

/// The optional fields of a token table that set its own policy.
const OWN: [&str; 3] = ["unconfirmed", "calls_per_second", "writes_per_second"];

impl Validator<'_> {
    /// `auth.tokens`: a TOML array of tables in the file; inline TOML or JSON in the environment.
    pub(super) fn tokens(&mut self, name: &'static str) -> (Vec<StaticTokenConfig>, Vec<Override>) {
        let Some((items, src)) = self.tables(name, "{ name, sha256, scopes }") else {
            return Default::default();
        };
        let mut out: Vec<StaticTokenConfig> = Vec::new();
        let mut overrides = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match token_entry(item) {
                Ok((token, _)) if out.iter().any(|t| t.name == token.name) => {
                    let why = format!("entry {}: the name {:?} is used twice", i + 1, token.name);
                    self.fail::<()>(name, &src, why);
                }
                Ok((token, _)) if out.iter().any(|t| t.sha256 == token.sha256) => {
                    let why = format!("entry {}: the same sha256 is listed twice", i + 1);
                    self.fail::<()>(name, &src, why);
                }
                Ok((token, own)) => {
                    if !own.is_empty() {
                        overrides.push(own);
                    }
                    out.push(token);
                }
                Err(whys) => {
                    for why in whys {
                        self.fail::<()>(name, &src, format!("entry {}: {why}", i + 1));
                    }
                }
            }
        }
        (out, overrides)
    }

    /// `auth.jwt_unconfirmed`, `auth.jwt_calls_per_second`, `auth.jwt_writes_per_second`: the
    /// issuer's own policy, for every JWT it signs (empty or 0: the `[policy]`/`[limits]` value).
    pub(super) fn issuer_policy(&mut self, issuer: &str) -> Override {
        let unconfirmed = self.parse("auth.jwt_unconfirmed", |s| match s {
            "" => Ok(None),
            _ => Unconfirmed::parse(s).map(Some),
        });
        let mut rate = |key: &'static str| match self.int(key, 0, 100_000) {
            0 => None,
            n => Some(n as u32),
        };
        Override {
            who: Who::Issuer(issuer.to_owned()),
            unconfirmed,
            calls_per_second: rate("auth.jwt_calls_per_second"),
            writes_per_second: rate("auth.jwt_writes_per_second"),
            secrets: None,
            secrets_into_plain_fields: None,
        }
    }
}

/// One `{ name, sha256, scopes }` table (with the token's own policy, if any); every
/// problem of it.
fn token_entry(item: &toml::Value) -> Result<(StaticTokenConfig, Override), Vec<String>> {
    let Some(table) = item.as_table() else {
        return Err(vec![format!(
            "expected a {{ name, sha256, scopes }} table, found {item}"
        )]);
    };
    let mut errors = Vec::new();
    for key in table.keys() {
        let own = OWN.contains(&key.as_str()) || super::secrets::OWN.contains(&key.as_str());
        if !matches!(key.as_str(), "name" | "sha256" | "scopes") && !own {
            errors.push(format!(
                "unknown field `{key}` (expected name, sha256, scopes, and optionally {}, {})",
                OWN.join(", "),
                super::secrets::OWN.join(", ")
            ));
        }
    }
    let name = match table.get("name").and_then(toml::Value::as_str) {
        Some(n) => match crate::identity::check_name(n) {
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
        Some(hex) => crate::identity::parse_sha256(hex).unwrap_or_else(|why| {
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
    let rate = |field: &str, errors: &mut Vec<String>| match table.get(field) {
        None => None,
        Some(toml::Value::Integer(n)) if (1..=100_000).contains(n) => Some(*n as u32),
        Some(other) => {
            errors.push(format!(
                "`{field}`: expected a whole number from 1 to 100000, found {other}"
            ));
            None
        }
    };
    let calls_per_second = rate("calls_per_second", &mut errors);
    let writes_per_second = rate("writes_per_second", &mut errors);
    let unconfirmed = match table.get("unconfirmed") {
        None => None,
        Some(value) => match value.as_str().map(Unconfirmed::parse) {
            Some(Ok(choice)) => Some(choice),
            _ => {
                errors.push(format!(
                    "`unconfirmed`: expected \"refuse\", \"allow\" or \"ask\", found {value}"
                ));
                None
            }
        },
    };
    let mut found = Vec::new();
    let (secrets, secrets_into_plain_fields) = super::secrets::own_secrets(table, &mut found);
    errors.extend(
        found
            .into_iter()
            .map(|(field, why)| format!("`{field}`: {why}")),
    );
    if errors.is_empty() {
        let own = Override {
            who: Who::Token(name.clone()),
            unconfirmed,
            calls_per_second,
            writes_per_second,
            secrets,
            secrets_into_plain_fields,
        };
        Ok((
            StaticTokenConfig {
                name,
                sha256,
                scopes,
            },
            own,
        ))
    } else {
        Err(errors)
    }
}
