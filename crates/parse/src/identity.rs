//! Who is calling: the [`Principal`] an authenticated request carries in its extensions, and
//! the [`Scope`]s that decide what it may do. Shared vocabulary: `http::auth` makes
//! principals, `config` parses scopes, `session`, `mcp` and `policy` read them; this module
//! knows none of them.
//!
//! Scopes are not one chain: `axgate:admin` includes `axgate:act`, which includes
//! `axgate:read`; `axgate:metrics` (reading `/metrics` and nothing else) is included in
//! `axgate:admin` only ([`Scope::grants`], [`Principal::allows`]). A token only needs the
//! highest scope it is meant to use; a Prometheus scrape token needs `axgate:metrics`.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// One permission of axgate's OAuth scope vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Read trees, values, screenshots, resources; reach `/mcp` at all.
    Read,
    /// Act on apps: press, type, set values, launch and quit (includes `Read`).
    Act,
    /// Operate the server itself (includes every other scope).
    Admin,
    /// Read `/metrics`, and nothing else (not `/mcp`).
    Metrics,
}

/// Every scope.
pub const ALL_SCOPES: [Scope; 4] = [Scope::Read, Scope::Act, Scope::Admin, Scope::Metrics];

impl Scope {
    /// The wire name, e.g. `axgate:read`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "axgate:read",
            Scope::Act => "axgate:act",
            Scope::Admin => "axgate:admin",
            Scope::Metrics => "axgate:metrics",
        }
    }

    /// `Some` for an axgate scope name; other names (an issuer's own scopes) are `None`.
    pub fn parse(text: &str) -> Option<Scope> {
        ALL_SCOPES.into_iter().find(|s| s.as_str() == text)
    }

    /// Whether holding `self` grants `needed`: admin ⊇ act ⊇ read, and admin ⊇ metrics;
    /// metrics grants nothing else, and read or act do not grant metrics.
    pub fn grants(self, needed: Scope) -> bool {
        use Scope::{Act, Admin, Metrics, Read};
        matches!(
            (self, needed),
            (Admin, _) | (Act, Act | Read) | (Read, Read) | (Metrics, Metrics)
        )
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`Scope::from_str`]: names the valid scopes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope {0:?}; expected axgate:read, axgate:act, axgate:admin or axgate:metrics")]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(text: &str) -> Result<Scope, UnknownScope> {
        Scope::parse(text.trim()).ok_or_else(|| UnknownScope(text.trim().to_owned()))
    }
}

/// Space-separated scope names, as in the `scope` claim and `WWW-Authenticate`.
pub fn format_scopes<'a>(scopes: impl IntoIterator<Item = &'a Scope>) -> String {
    scopes
        .into_iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The scope a tool call needs: `axgate:read` for read-only tools, `axgate:act` otherwise.
/// For the MCP layer's per-tool checks; the HTTP layer only requires `axgate:read`.
pub fn required_scope(tool_read_only: bool) -> Scope {
    if tool_read_only {
        Scope::Read
    } else {
        Scope::Act
    }
}

/// How a principal proved who it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrincipalKind {
    /// A static bearer token from `[auth] tokens`.
    Static,
    /// A JWT access token from the configured OAuth issuer.
    Jwt,
}

/// An authenticated caller. The auth middleware inserts it into the request's extensions;
/// the entry that admits an MCP request copies it into the call's origin (the server's
/// `mcp::origin::CallOrigin`), which every later stage reads instead.
///
/// Its identity is [`Principal::key`], namespaced by how it authenticated — `token:alice`
/// for the static token named `alice`, `jwt:<issuer>#alice` for a JWT whose subject is
/// `alice` — so a JWT subject can never pass for a static token (or another issuer's
/// subject) in rate limits, audit lines, sessions or leases. Made only by
/// [`Principal::static_token`] and [`Principal::jwt`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Principal {
    /// The static token's configured name, or the JWT's `sub` (else `client_id`), with
    /// control characters escaped ([`printable`]): for people, not an identity.
    pub name: String,
    /// The axgate scopes granted (other scopes in a JWT are ignored).
    pub scopes: BTreeSet<Scope>,
    pub kind: PrincipalKind,
    /// The claim rule that admitted this JWT (its key path, `auth.issuers[0].rules[1]`),
    /// whose own policy applies; `None` for static tokens and for issuers without rules.
    pub rule: Option<String>,
    key: String,
}

impl Principal {
    /// The principal of the static token named `name` (a checked token name).
    pub fn static_token(name: &str, scopes: BTreeSet<Scope>) -> Principal {
        Principal {
            name: name.to_owned(),
            scopes,
            kind: PrincipalKind::Static,
            rule: None,
            key: token_key(name),
        }
    }

    /// The principal of a JWT from `issuer` naming `subject`.
    pub fn jwt(issuer: &str, subject: &str, scopes: BTreeSet<Scope>) -> Principal {
        let name = printable(subject);
        Principal {
            key: format!("{}{name}", jwt_key_prefix(issuer)),
            name,
            scopes,
            kind: PrincipalKind::Jwt,
            rule: None,
        }
    }

    /// This principal as admitted by the claim rule at `rule` (its key path).
    pub fn admitted_by(mut self, rule: &str) -> Principal {
        self.rule = Some(rule.to_owned());
        self
    }

    /// The canonical identity: what rate limits, audit lines, session owners, leases and
    /// `list_sessions` use. Printable (control characters escaped).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether any granted scope includes `needed`.
    pub fn allows(&self, needed: Scope) -> bool {
        self.scopes.iter().any(|s| s.grants(needed))
    }
}

/// The [`Principal::key`] of the static token named `name`.
pub fn token_key(name: &str) -> String {
    format!("token:{name}")
}

/// What the [`Principal::key`] of every JWT subject of `issuer` starts with.
pub fn jwt_key_prefix(issuer: &str) -> String {
    format!("jwt:{}#", printable(issuer))
}

/// `text` with backslashes and control characters escaped as in Rust strings (`\n`,
/// `\u{1b}`, `\\`): safe to put in a log line or a text result, and distinct texts stay
/// distinct. Other characters, non-ASCII included, are kept.
pub fn printable(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() || c == '\\') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() || c == '\\' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// 64 hex digits → the digest.
pub fn parse_sha256(text: &str) -> Result<[u8; 32], String> {
    let bytes = text.as_bytes();
    let digit = |c: u8| (c as char).to_digit(16);
    if bytes.len() != 64 || !bytes.iter().all(|c| digit(*c).is_some()) {
        return Err("`sha256` must be 64 hex digits (the SHA-256 of the token)".into());
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let (hi, lo) = (digit(pair[0]).unwrap_or(0), digit(pair[1]).unwrap_or(0));
        out[i] = (hi * 16 + lo) as u8;
    }
    Ok(out)
}

/// A token name: 1–64 of `A-Z a-z 0-9 . _ -` (it appears in logs and in config lines).
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "token name {name:?} must be 1-64 characters of letters, digits, '.', '_' or '-'"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_round_trip_and_order() {
        for s in ALL_SCOPES {
            assert_eq!(s.as_str().parse::<Scope>(), Ok(s));
            assert_eq!(Scope::parse(&s.to_string()), Some(s));
        }
        assert!(" axgate:act ".parse::<Scope>().is_ok());
        let err = "axgate:write".parse::<Scope>().unwrap_err();
        assert!(
            err.to_string()
                .contains("axgate:read, axgate:act, axgate:admin or axgate:metrics")
        );
        assert_eq!(Scope::parse("openid"), None);
        assert_eq!(
            format_scopes(&[Scope::Read, Scope::Act]),
            "axgate:read axgate:act"
        );
    }

    #[test]
    fn higher_scopes_include_lower_ones() {
        let p = |scopes: &[Scope]| Principal::static_token("t", scopes.iter().copied().collect());
        assert!(p(&[Scope::Admin]).allows(Scope::Read));
        assert!(p(&[Scope::Act]).allows(Scope::Read));
        assert!(!p(&[Scope::Read]).allows(Scope::Act));
        assert!(!p(&[Scope::Act]).allows(Scope::Admin));
        assert!(!p(&[]).allows(Scope::Read));
        // Metrics is not on the chain: only itself and admin grant it, and it grants nothing.
        assert!(p(&[Scope::Admin]).allows(Scope::Metrics));
        assert!(p(&[Scope::Metrics]).allows(Scope::Metrics));
        for other in [Scope::Read, Scope::Act] {
            assert!(!p(&[other]).allows(Scope::Metrics), "{other}");
            assert!(!p(&[Scope::Metrics]).allows(other), "{other}");
        }
        assert!(!p(&[Scope::Metrics]).allows(Scope::Admin));
        assert_eq!(required_scope(true), Scope::Read);
        assert_eq!(required_scope(false), Scope::Act);
    }

    #[test]
    fn identities_are_namespaced_and_printable() {
        let token = Principal::static_token("alice", BTreeSet::new());
        let jwt = Principal::jwt("https://login.example", "alice", BTreeSet::new());
        assert_eq!(token.key(), "token:alice");
        assert_eq!(jwt.key(), "jwt:https://login.example#alice");
        assert_ne!(
            token.key(),
            jwt.key(),
            "a JWT subject never passes for a token"
        );
        assert_eq!(token.name, jwt.name);
        let odd = Principal::jwt("i", "a\nprincipal=admin\u{1b}[2J\\", BTreeSet::new());
        assert_eq!(odd.name, r"a\nprincipal=admin\u{1b}[2J\\");
        assert!(!odd.key().chars().any(char::is_control), "{}", odd.key());
        assert_ne!(
            printable("a\n"),
            printable(r"a\n"),
            "escaping keeps texts apart"
        );
        assert_eq!(printable("Zoë"), "Zoë");
    }

    #[test]
    fn token_digests_parse_from_hex() {
        assert!(parse_sha256("abc").is_err());
        assert!(parse_sha256(&"g".repeat(64)).is_err());
        assert_eq!(parse_sha256(&"0f".repeat(32)), Ok([15u8; 32]));
    }

    #[test]
    fn names() {
        assert!(check_name("ci-runner_2.mac").is_ok());
        for bad in ["", "a b", "x\"y", &"n".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }
}
