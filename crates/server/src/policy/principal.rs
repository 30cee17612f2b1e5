//! Per-principal policy: a static token, or every JWT of an issuer, may carry its own
//! `unconfirmed` setting and its own rate limits (an unattended CI token can be allowed
//! destructive presses and a higher write rate while agents' tokens are asked and held to the
//! defaults). Whatever a principal does not override comes from `[policy]` and `[limits]`, so
//! a configuration without overrides is exactly as strict as one that predates them.
//!
//! A principal is matched by its identity key (`axgate_parse::identity::Principal::key`):
//! `token:<name>` exactly for a static token, the prefix `jwt:<issuer>#` for an issuer; and
//! a JWT admitted by a claim rule (`crate::policy::claims`) by that rule's key path
//! (`Principal::rule`). A rule's override comes before its issuer's in the list (config puts
//! it there, with what the rule leaves unset taken from the issuer's), so the first match is
//! the most specific.

use super::confirm::Unconfirmed;
use crate::identity::Principal;

/// The key of calls without authentication (rate limits, audit): every one is the local user.
pub const LOCAL: &str = "local";

/// Whom a policy decision is about: a principal's identity key, and the claim rule that
/// admitted it, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subject<'a> {
    pub key: &'a str,
    pub rule: Option<&'a str>,
}

impl<'a> Subject<'a> {
    pub fn of(principal: &'a Principal) -> Subject<'a> {
        Subject {
            key: principal.key(),
            rule: principal.rule.as_deref(),
        }
    }
}

/// A principal known by its key alone (no claim rule).
impl<'a> From<&'a str> for Subject<'a> {
    fn from(key: &'a str) -> Subject<'a> {
        Subject { key, rule: None }
    }
}

/// Whom an override applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// The static token of `[auth] tokens` with this name.
    Token(String),
    /// Every JWT subject of this issuer (its exact `iss`).
    Issuer(String),
    /// Every JWT the claim rule at this key path admitted (`auth.issuers[0].rules[1]`).
    Rule(String),
}

impl Who {
    /// Whether `subject` is this one.
    pub fn matches<'a>(&self, subject: impl Into<Subject<'a>>) -> bool {
        let subject = subject.into();
        match self {
            Who::Token(name) => subject.key == crate::identity::token_key(name),
            Who::Issuer(issuer) => subject
                .key
                .starts_with(&crate::identity::jwt_key_prefix(issuer)),
            Who::Rule(path) => subject.rule == Some(path.as_str()),
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
    /// The secret names and `PREFIX*` patterns it may use (`crate::secrets`).
    pub secrets: Option<Vec<String>>,
    /// May type a secret into a field that is not a secure text field.
    pub secrets_into_plain_fields: Option<bool>,
}

impl Override {
    /// Whether it changes anything.
    pub fn is_empty(&self) -> bool {
        self.unconfirmed.is_none()
            && self.calls_per_second.is_none()
            && self.writes_per_second.is_none()
            && self.secrets.is_none()
            && self.secrets_into_plain_fields.is_none()
    }

    /// Where its settings are configured, for refusals that name the rule.
    pub fn path(&self) -> String {
        match &self.who {
            Who::Token(name) => format!("auth.tokens[{name}]"),
            Who::Issuer(issuer) => format!("the issuer {issuer}'s policy"),
            Who::Rule(path) => path.clone(),
        }
    }
}

/// The first override that applies to `subject`.
pub fn find<'a>(overrides: &'a [Override], subject: Subject<'_>) -> Option<&'a Override> {
    overrides.iter().find(|o| o.who.matches(subject))
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
        let rule = Who::Rule("auth.issuers[0].rules[1]".into());
        let admitted = Subject {
            key: "jwt:https://idp#alice",
            rule: Some("auth.issuers[0].rules[1]"),
        };
        assert!(rule.matches(admitted));
        assert!(
            issuer.matches(admitted),
            "the issuer's own policy still applies"
        );
        assert!(!rule.matches("jwt:https://idp#alice"));
        let other = Subject {
            rule: Some("auth.issuers[0].rules[0]"),
            ..admitted
        };
        assert!(!rule.matches(other));
    }
}
