//! `[secrets]` (where secret values come from) and the `secrets` and
//! `secrets_into_plain_fields` a token, an issuer or a claim rule may set for itself
//! (`crate::secrets`).

use super::validate::Validator;
use crate::secrets::{ENV_PREFIX, Source, check_pattern};

impl Validator<'_> {
    /// `secrets.source` with the keys of the chosen source.
    pub(super) fn secret_source(&mut self) -> Source {
        let source = self.parse("secrets.source", |s| match s {
            "" | "none" | "env" | "file" | "keychain" => Ok(s.to_owned()),
            _ => Err("expected env, file or keychain (or empty: no store)".into()),
        });
        let (prefix, prefix_src) = self.text("secrets.env_prefix");
        let (dir, dir_src) = self.text("secrets.dir");
        let (service, service_src) = self.text("secrets.keychain_service");
        match source.as_str() {
            "env" => {
                let prefix = prefix.trim().to_owned();
                // Other `AXGATE_*` variables are configuration keys, and an unknown one is an
                // error (`Layers::env`); only the default prefix is set aside for values.
                if prefix.is_empty()
                    || (prefix.starts_with("AXGATE_") && !prefix.starts_with(ENV_PREFIX))
                {
                    let why = format!(
                        "{prefix:?}: expected a non-empty prefix outside AXGATE_ (other than \
                         {ENV_PREFIX}), such as {ENV_PREFIX} or CI_SECRET_"
                    );
                    return self.fail("secrets.env_prefix", &prefix_src, why);
                }
                Source::Env { prefix }
            }
            "file" => {
                let dir = dir.trim();
                if dir.is_empty() {
                    let why = "secrets.source = \"file\" needs a directory of one file per secret"
                        .to_owned();
                    return self.fail("secrets.dir", &dir_src, why);
                }
                Source::File { dir: dir.into() }
            }
            "keychain" => {
                let service = service.trim().to_owned();
                if service.is_empty() {
                    let why = "expected the Keychain service name of the secrets".to_owned();
                    return self.fail("secrets.keychain_service", &service_src, why);
                }
                Source::Keychain { service }
            }
            _ => Source::None,
        }
    }

    /// `policy.secrets`: names and `PREFIX*` patterns.
    pub(super) fn secret_names(&mut self, name: &'static str) -> Vec<String> {
        let names = self.list(name);
        for pattern in &names {
            if let Err(why) = check_pattern(pattern) {
                self.errors.push(format!("{name}: {why}"));
            }
        }
        names
    }
}

/// The table fields that set a principal's own secrets policy.
pub(super) const OWN: [&str; 2] = ["secrets", "secrets_into_plain_fields"];

/// A token's, issuer's or rule's own `secrets` and `secrets_into_plain_fields`; each problem
/// as (field, why).
pub(super) fn own_secrets(
    table: &toml::Table,
    problems: &mut Vec<(&'static str, String)>,
) -> (Option<Vec<String>>, Option<bool>) {
    let names = table.get("secrets").map(|value| {
        let Some(items) = value.as_array() else {
            problems.push((
                "secrets",
                format!("expected a list of secret names such as [\"GITHUB_PW\"], found {value}"),
            ));
            return Vec::new();
        };
        let mut names = Vec::new();
        for item in items {
            match item.as_str().map(|s| (s, check_pattern(s))) {
                Some((s, Ok(()))) => names.push(s.to_owned()),
                Some((_, Err(why))) => problems.push(("secrets", why)),
                None => problems.push(("secrets", format!("expected strings, found {item}"))),
            }
        }
        names
    });
    let plain = match table.get("secrets_into_plain_fields") {
        None => None,
        Some(toml::Value::Boolean(b)) => Some(*b),
        Some(other) => {
            problems.push((
                "secrets_into_plain_fields",
                format!("expected true or false, found {other}"),
            ));
            None
        }
    };
    (names, plain)
}
