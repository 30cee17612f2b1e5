//! Claim rules: which JWTs of an issuer are admitted, with which scopes and whose policy
//! (`[[auth.issuers.rules]]`; docs/OPERATIONS.md). A GitHub Actions OIDC token carries no
//! scopes, only facts about the workflow (`repository`, `ref`, `event_name`, …): the rules
//! turn those facts into axgate scopes.
//!
//! - A rule checks a table of claims → patterns; **all** must match.
//! - A pattern is a glob (`globset`, case-sensitive): `*` and `?` never match `/`, `**`
//!   matches across `/`, `[abc]` a class, `{a,b}` alternatives, `\` escapes. A pattern
//!   without these characters matches its text exactly.
//! - A claim is compared as text: a string as is, a number or a boolean as written in JSON;
//!   a missing claim, `null`, a list or an object matches nothing.
//! - **The first rule in file order that matches wins**, like a firewall: its scopes are the
//!   token's, and its own policy (else its issuer's) applies. No rule matching: refused.
//!
//! The matching is pure; the HTTP layer feeds it verified claims and says 403 when no rule
//! admits a token.

use std::collections::{BTreeMap, BTreeSet};

use globset::{GlobBuilder, GlobMatcher};

use crate::identity::Scope;

/// A verified token's claims that can be compared: name → text.
pub type ClaimText = BTreeMap<String, String>;

/// One rule as configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimRule {
    /// Its key path (`auth.issuers[0].rules[1]`): names it in messages and in the policy
    /// (`principal::Who::Rule`).
    pub path: String,
    /// Claim name → pattern, every one of which must match.
    pub claims: BTreeMap<String, String>,
    /// The scopes a token it admits holds.
    pub scopes: BTreeSet<Scope>,
}

/// A pattern as a matcher, or why it is not one.
pub fn pattern(text: &str) -> Result<GlobMatcher, String> {
    if text.is_empty() {
        return Err("the pattern is empty; give the exact value or a glob".into());
    }
    GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| format!("{text:?} is not a valid glob: {}", e.kind()))
}

/// The claims of a verified token that rules can compare (strings, numbers, booleans).
pub fn claim_text(claims: &serde_json::Map<String, serde_json::Value>) -> ClaimText {
    claims
        .iter()
        .filter_map(|(name, value)| {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            Some((name.clone(), text))
        })
        .collect()
}

/// The compiled rules of one issuer, in file order.
pub struct Rules {
    rules: Vec<(ClaimRule, Vec<(String, GlobMatcher)>)>,
}

impl Rules {
    /// Compiles `rules`. Config validation has checked every pattern; one that still does
    /// not compile makes its rule match nothing.
    pub fn new(rules: &[ClaimRule]) -> Rules {
        let rules = rules
            .iter()
            .map(|rule| {
                let matchers = rule
                    .claims
                    .iter()
                    .map(|(name, text)| (name.clone(), pattern(text)))
                    .collect::<Vec<_>>();
                let compiled = if matchers.iter().all(|(_, m)| m.is_ok()) {
                    matchers
                        .into_iter()
                        .filter_map(|(name, m)| m.ok().map(|m| (name, m)))
                        .collect()
                } else {
                    Vec::new()
                };
                (rule.clone(), compiled)
            })
            .collect();
        Rules { rules }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The first rule whose every pattern matches `claims`.
    pub fn admit(&self, claims: &ClaimText) -> Option<&ClaimRule> {
        self.rules
            .iter()
            .find(|(_, matchers)| {
                !matchers.is_empty()
                    && matchers
                        .iter()
                        .all(|(name, m)| claims.get(name).is_some_and(|value| m.is_match(value)))
            })
            .map(|(rule, _)| rule)
    }

    /// The claim names the rules check, each once, in order of first use.
    pub fn claim_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (rule, _) in &self.rules {
            for name in rule.claims.keys() {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(path: &str, claims: &[(&str, &str)], scopes: &[Scope]) -> ClaimRule {
        ClaimRule {
            path: path.into(),
            claims: claims
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            scopes: scopes.iter().copied().collect(),
        }
    }

    fn github(repository: &str, git_ref: &str, event: &str) -> ClaimText {
        let claims = serde_json::json!({
            "iss": "https://token.actions.githubusercontent.com",
            "sub": format!("repo:{repository}:ref:{git_ref}"),
            "repository": repository,
            "repository_owner": repository.split('/').next(),
            "repository_id": 4242,
            "ref": git_ref,
            "event_name": event,
            "ref_protected": true,
            "job_workflow_ref": format!("{repository}/.github/workflows/ui.yml@{git_ref}"),
            "aud": ["https://mac.example/mcp"],
        });
        claim_text(claims.as_object().expect("object"))
    }

    /// `(claims, the path of the rule that admits them or None)`.
    fn check(rules: &Rules, cases: &[(ClaimText, Option<&str>)]) {
        for (claims, expect) in cases {
            let got = rules.admit(claims).map(|r| r.path.as_str());
            assert_eq!(got, *expect, "{claims:?}");
        }
    }

    #[test]
    fn the_first_matching_rule_wins_and_all_its_claims_must_match() {
        let rules = Rules::new(&[
            rule(
                "r0",
                &[("repository", "acme/app"), ("ref", "refs/heads/main")],
                &[Scope::Read, Scope::Act],
            ),
            rule("r1", &[("repository_owner", "acme")], &[Scope::Read]),
        ]);
        check(
            &rules,
            &[
                (github("acme/app", "refs/heads/main", "push"), Some("r0")),
                (github("acme/app", "refs/heads/dev", "push"), Some("r1")),
                (github("acme/other", "refs/heads/main", "push"), Some("r1")),
                (github("evil/app", "refs/heads/main", "push"), None),
                // Case matters: GitHub's names are compared as they are sent.
                (github("ACME/app", "refs/heads/main", "push"), None),
            ],
        );
        assert_eq!(
            rules.claim_names(),
            ["ref", "repository", "repository_owner"]
        );
    }

    #[test]
    fn globs_stop_at_slashes_unless_doubled() {
        let rules = Rules::new(&[
            rule("heads", &[("ref", "refs/heads/release-*")], &[Scope::Act]),
            rule(
                "workflows",
                &[("job_workflow_ref", "acme/**/ui.yml@refs/heads/{main,dev}")],
                &[Scope::Read],
            ),
        ]);
        check(
            &rules,
            &[
                (
                    github("acme/app", "refs/heads/release-1.2", "push"),
                    Some("heads"),
                ),
                // `*` does not cross `/`: a branch named release-x/y is not release-*.
                (github("acme/app", "refs/heads/release-x/y", "push"), None),
                (
                    github("acme/app", "refs/heads/main", "push"),
                    Some("workflows"),
                ),
                (
                    github("acme/app", "refs/heads/dev", "push"),
                    Some("workflows"),
                ),
                (github("acme/app", "refs/heads/other", "push"), None),
            ],
        );
    }

    #[test]
    fn claims_compare_as_text_and_missing_ones_never_match() {
        let rules = Rules::new(&[
            rule(
                "id",
                &[("repository_id", "4242"), ("ref_protected", "true")],
                &[Scope::Read],
            ),
            rule("absent", &[("environment", "*")], &[Scope::Act]),
            rule("list", &[("aud", "*")], &[Scope::Act]),
        ]);
        check(
            &rules,
            &[(github("acme/app", "refs/heads/main", "push"), Some("id"))],
        );
        let mut other = github("acme/app", "refs/heads/main", "push");
        other.insert("repository_id".into(), "4243".into());
        check(&rules, &[(other, None)]);
    }

    #[test]
    fn bad_patterns_are_named() {
        assert!(pattern("").unwrap_err().contains("empty"));
        let err = pattern("refs/heads/[main").unwrap_err();
        assert!(err.contains("not a valid glob"), "{err}");
        assert!(pattern("refs/heads/main").is_ok());
        // A rule with a pattern that does not compile matches nothing.
        let rules = Rules::new(&[rule("bad", &[("ref", "{a")], &[Scope::Read])]);
        check(&rules, &[(github("a/b", "{a", "push"), None)]);
    }
}
