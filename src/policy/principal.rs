//! Per-principal policy: a static token, or every JWT of an issuer, may carry its own
//! `unconfirmed` setting and its own rate limits (an unattended CI token can be allowed
//! destructive presses and a higher write rate while agents' tokens are asked and held to the
//! defaults). Whatever a principal does not override comes from `[policy]` and `[limits]`, so
//! a configuration without overrides is exactly as strict as one that predates them.
//!
//! A principal is matched by its identity key (`axgate_parse::identity::Principal::key`):
//! `token:<name>` exactly for a static token, the prefix `jwt:<issuer>#` for an issuer.

use super::confirm::Unconfirmed;

/// Whom an override applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// The static token of `[auth] tokens` with this name.
    Token(String),
    /// Every JWT subject of this issuer (its exact `iss`).
    Issuer(String),
}

impl Who {
    /// Whether the principal whose identity key is `key` is this one.
    pub fn matches(&self, key: &str) -> bool {
        match self {
            Who::Token(name) => key == crate::identity::token_key(name),
            Who::Issuer(issuer) => key.starts_with(&crate::identity::jwt_key_prefix(issuer)),
        }
    }
}

/// What one token or issuer sets for itself; `None`: the `[policy]` / `[limits]` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    pub who: Who,
    pub unconfirmed: Option<Unconfirmed>,
    pub calls_per_second: Option<u32>,
    pub writes_per_second: Option<u32>,
}

impl Override {
    /// Whether it changes anything.
    pub fn is_empty(&self) -> bool {
        self.unconfirmed.is_none()
            && self.calls_per_second.is_none()
            && self.writes_per_second.is_none()
    }
}

/// The first override that applies to `key`.
pub fn find<'a>(overrides: &'a [Override], key: &str) -> Option<&'a Override> {
    overrides.iter().find(|o| o.who.matches(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_match_exactly_and_issuers_by_prefix() {
        let token = Who::Token("ci".into());
        assert!(token.matches("token:ci"));
        assert!(!token.matches("token:ci2"));
        assert!(
            !token.matches("jwt:https://idp#ci"),
            "a JWT sub never passes for a token"
        );
        let issuer = Who::Issuer("https://idp".into());
        assert!(issuer.matches("jwt:https://idp#alice"));
        assert!(!issuer.matches("jwt:https://idp2#alice"));
        assert!(!issuer.matches("token:alice"));
    }
}
