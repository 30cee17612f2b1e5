//! Secrets an agent never sees: `type_text` and `set_value` take `secret: NAME` instead of
//! their text, and the server types the value it resolves from the operator's store.
//!
//! - [`Source`]: where values come from (`[secrets]`: the environment under a prefix, a
//!   directory of one file per secret, or the macOS Keychain), resolved in [`store`] at the
//!   moment a call needs the value and dropped (zeroed) when the call ends;
//! - [`Access`]: which names a principal may use (`policy.secrets`, a token's or an issuer's
//!   own `secrets`) and whether it may type them into a field that is not a secure text field;
//! - [`mask`]: a value typed into a plain field is replaced by `•••` in that call's result and,
//!   within a small bound, in the session's later results.
//!
//! Nothing here logs: a value is only ever handed to the backend that types it.

mod keychain;
pub mod mask;
pub mod store;

use zeroize::Zeroizing;

/// Where secret values come from (`secrets.source`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Source {
    /// No store: every `secret:` argument is refused with the fix.
    #[default]
    None,
    /// Environment variables `<prefix><NAME>` of the server process.
    Env { prefix: String },
    /// One file per secret, `<dir>/<NAME>`, readable by the owner only.
    File { dir: std::path::PathBuf },
    /// Generic passwords of the login Keychain: service `service`, account `NAME` (macOS).
    Keychain { service: String },
}

/// The environment prefix `secrets.env_prefix` defaults to. The configuration leaves
/// variables under it alone (they are values, not keys: `config::Layers::env`).
pub const ENV_PREFIX: &str = "AXGATE_SECRET_";

/// A resolved value: zeroed when dropped, never printed.
pub struct Secret(Zeroizing<String>);

impl Secret {
    pub fn new(value: String) -> Secret {
        Secret(Zeroizing::new(value))
    }

    /// The value, for the backend that types it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(•••)")
    }
}

/// Whether `name` can name a secret: 1 to 64 of `A-Z a-z 0-9 _ . -`, starting with a letter
/// (so it is a file name without a path and an environment variable suffix).
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = (1..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{:?} is not a secret name: use 1 to 64 letters, digits, `_`, `.` or `-`, starting \
             with a letter (such as GITHUB_PW)",
            shorten(name)
        ))
    }
}

/// Whether `pattern` can be a policy entry: a name, or a name prefix ending in `*`
/// (`STAGING_*`), or `*` alone.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    match pattern.strip_suffix('*') {
        Some("") => Ok(()),
        Some(prefix) => check_name(prefix).map_err(|_| {
            format!(
                "{:?} is not a secret pattern: a name, or a name prefix ending in `*` (STAGING_*)",
                shorten(pattern)
            )
        }),
        None => check_name(pattern),
    }
}

fn shorten(text: &str) -> String {
    text.chars().take(70).collect()
}

/// Which secrets one principal may use: the first of its claim rule's, its issuer's or its
/// token's own `secrets`, else `policy.secrets`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// Names and `PREFIX*` patterns.
    pub names: Vec<String>,
    /// Where `names` was configured, for refusals (`policy.secrets`, `auth.tokens[ci].secrets`).
    pub rule: String,
    /// May type a secret into a field that is not a secure text field.
    pub plain_fields: bool,
    /// Where `plain_fields` was configured.
    pub plain_rule: String,
}

impl Access {
    /// Whether `name` is allowed.
    pub fn permits(&self, name: &str) -> bool {
        self.names.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => p == name,
        })
    }

    /// Checks `name` against the principal's names; the refusal names the rule and the fix.
    pub fn check(&self, name: &str) -> Result<(), String> {
        if self.permits(name) {
            return Ok(());
        }
        let listed = if self.names.is_empty() {
            "lists no secrets".to_owned()
        } else {
            format!("allows {}", self.names.join(", "))
        };
        Err(format!(
            "refused by {}: this caller may not use the secret {name} ({} {listed}); ask the \
             operator to add {name} to {}",
            self.rule, self.rule, self.rule
        ))
    }

    /// Checks that a secret may go into an element that is (`secure`) or is not a secure
    /// text field.
    pub fn check_field(&self, secure: bool, element: &str) -> Result<(), String> {
        if secure || self.plain_fields {
            return Ok(());
        }
        Err(format!(
            "refused by {}: {element} is not a secure text field, and a secret typed there \
             could be read back; target the password field, or ask the operator to set {} = \
             true",
            self.plain_rule, self.plain_rule
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(names: &[&str]) -> Access {
        Access {
            names: names.iter().map(|s| s.to_string()).collect(),
            rule: "auth.tokens[ci].secrets".into(),
            plain_fields: false,
            plain_rule: "policy.secrets_into_plain_fields".into(),
        }
    }

    #[test]
    fn names_are_file_and_variable_safe() {
        for good in ["GITHUB_PW", "staging.db-1", "a"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "../x",
            "a/b",
            "1PW",
            "PW X",
            "PW\n",
            &"A".repeat(65),
            ".hidden",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(check_pattern("STAGING_*"), Ok(()));
        assert_eq!(check_pattern("*"), Ok(()));
        assert!(check_pattern("*_PW").is_err());
        assert!(check_pattern("A*B").is_err());
    }

    #[test]
    fn a_principal_uses_only_its_names_and_prefixes() {
        let a = access(&["GITHUB_PW", "STAGING_*"]);
        assert!(a.permits("GITHUB_PW"));
        assert!(a.permits("STAGING_DB"));
        assert!(!a.permits("GITHUB_PW2"));
        assert!(!a.permits("PROD_DB"));
        let refused = a.check("PROD_DB").unwrap_err();
        assert!(refused.contains("auth.tokens[ci].secrets"), "{refused}");
        assert!(refused.contains("add PROD_DB"), "{refused}");
        let none = access(&[]).check("X").unwrap_err();
        assert!(none.contains("lists no secrets"), "{none}");
        assert!(access(&["*"]).permits("ANY"));
    }

    #[test]
    fn plain_fields_need_the_policy() {
        let mut a = access(&["PW"]);
        assert_eq!(a.check_field(true, "the field"), Ok(()));
        let refused = a.check_field(false, "text_field \"Name\"").unwrap_err();
        assert!(
            refused.contains("set policy.secrets_into_plain_fields = true"),
            "{refused}"
        );
        a.plain_fields = true;
        assert_eq!(a.check_field(false, "the field"), Ok(()));
    }

    #[test]
    fn a_secret_never_prints_its_value() {
        let s = Secret::new("hunter2".into());
        assert_eq!(format!("{s:?}"), "Secret(•••)");
        assert_eq!(s.expose(), "hunter2");
    }
}
