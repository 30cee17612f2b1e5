//! Tests of `[[auth.issuers]]`: the GitHub example, the policies of issuers and rules, and
//! every bad value named by its key path.

use super::super::Layers;
use crate::identity::Scope;
use crate::policy::confirm::Unconfirmed;
use crate::policy::principal::{Subject, Who};

const GITHUB: &str = r#"
[auth]
issuer = "https://login.example.com"
jwks_uri = "https://login.example.com/jwks"
audience = "https://mac-17.ci.example:8741/mcp"

[[auth.issuers]]
issuer = "https://token.actions.githubusercontent.com"
jwks_uri = "https://token.actions.githubusercontent.com/.well-known/jwks"
accepted_typ = ["JWT"]
calls_per_second = 20

[[auth.issuers.rules]]
claims = { repository = "acme/app", ref = "refs/heads/main", event_name = "{push,workflow_dispatch}" }
scopes = ["axgate:read", "axgate:act"]
unconfirmed = "allow"

[[auth.issuers.rules]]
claims = { repository_owner = "acme" }
scopes = ["axgate:read"]
"#;

fn build(text: &str) -> Result<crate::config::Config, String> {
    let mut layers = Layers::default();
    layers.toml_text(text, "f.toml");
    layers.build().map_err(|e| e.to_string())
}

#[test]
fn github_beside_the_legacy_issuer() {
    let config = build(GITHUB).expect("valid");
    let auth = &config.auth;
    assert_eq!(auth.issuers.len(), 2);
    assert_eq!(auth.issuers[0].path, "auth");
    assert!(auth.issuers[0].rules.is_empty());
    let github = &auth.issuers[1];
    assert_eq!(github.path, "auth.issuers[0]");
    assert_eq!(
        github.jwt.issuer,
        "https://token.actions.githubusercontent.com"
    );
    assert_eq!(
        github.jwt.audience, "https://mac-17.ci.example:8741/mcp",
        "auth.audience"
    );
    assert_eq!(github.jwt.accepted_typ, ["JWT"]);
    assert_eq!(github.rules.len(), 2);
    assert_eq!(github.rules[0].path, "auth.issuers[0].rules[0]");
    assert_eq!(
        github.rules[0].claims["event_name"],
        "{push,workflow_dispatch}"
    );
    assert_eq!(
        github.rules[1].scopes,
        [Scope::Read]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
    );

    // The rule's own policy comes first, with what it leaves unset from its issuer's.
    let own = &config.policy.principals;
    assert_eq!(own.len(), 2, "{own:?}");
    assert_eq!(own[0].who, Who::Rule("auth.issuers[0].rules[0]".into()));
    assert_eq!(own[0].unconfirmed, Some(Unconfirmed::Allow));
    assert_eq!(own[0].calls_per_second, Some(20), "the issuer's");
    assert_eq!(own[1].who, Who::Issuer(github.jwt.issuer.clone()));
    let policy = crate::policy::Policy::new(&config.policy);
    let key = "jwt:https://token.actions.githubusercontent.com#repo:acme/app:ref:refs/heads/main";
    let by_rule = |rule| Subject {
        key,
        rule: Some(rule),
    };
    assert_eq!(
        policy.unconfirmed_for(by_rule("auth.issuers[0].rules[0]")),
        Unconfirmed::Allow
    );
    assert_eq!(
        policy.unconfirmed_for(by_rule("auth.issuers[0].rules[1]")),
        Unconfirmed::Refuse
    );
}

#[test]
fn issuers_come_from_the_environment_too() {
    let mut layers = Layers::default();
    layers.env([(
        "AXGATE_AUTH_ISSUERS".to_owned(),
        r#"[{"issuer": "https://token.actions.githubusercontent.com",
             "jwks_uri": "https://token.actions.githubusercontent.com/.well-known/jwks",
             "audience": "https://mac.example/mcp", "accepted_typ": ["JWT"],
             "rules": [{"claims": {"repository": "acme/*"}, "scopes": ["axgate:read"]}]}]"#
            .to_owned(),
    )]);
    let config = layers.build().expect("valid");
    assert!(config.auth.enabled());
    assert_eq!(
        config.auth.issuers[0].rules[0].claims["repository"],
        "acme/*"
    );
}

#[test]
fn every_bad_value_is_named_by_its_key_path() {
    let err = build(
        r#"
[auth]
issuer = "https://token.actions.githubusercontent.com"
jwks_uri = "https://token.actions.githubusercontent.com/.well-known/jwks"
audience = "https://mac.example/mcp"

[[auth.issuers]]
issuer = "https://token.actions.githubusercontent.com"
jwks_uri = "http://jwks.example/keys"
accepted_typ = []
calls_per_second = 0
colour = "blue"

[[auth.issuers.rules]]
claims = {}
scopes = ["axgate:write"]

[[auth.issuers.rules]]
claims = { repository = "acme/[app", ref = 7 }
scopes = []
unconfirmed = "perhaps"

[[auth.issuers]]
jwks_uri = "https://other.example/jwks"

[[auth.issuers]]
issuer = "https://other.example"
jwks_uri = "https://other.example/jwks"
[[auth.issuers.rules]]
scopes = ["axgate:read"]
"#,
    )
    .expect_err("invalid");
    for needle in [
        "auth.issuers[0].issuer (from f.toml): \"https://token.actions.githubusercontent.com\" is already trusted by auth.issuer",
        "auth.issuers[0].jwks_uri (from f.toml): \"http://jwks.example/keys\": must be https (plain http only for a loopback host)",
        "auth.issuers[0].accepted_typ (from f.toml): is empty",
        "auth.issuers[0].calls_per_second (from f.toml): expected a whole number from 1 to 100000",
        "auth.issuers[0].colour (from f.toml): unknown field",
        "auth.issuers[0].rules[0].claims (from f.toml): is empty: a rule must check at least one claim",
        "auth.issuers[0].rules[0].scopes (from f.toml): unknown scope \"axgate:write\"",
        "auth.issuers[0].rules[1].claims.repository (from f.toml): \"acme/[app\" is not a valid glob",
        "auth.issuers[0].rules[1].claims.ref (from f.toml): expected a string",
        "auth.issuers[0].rules[1].scopes (from f.toml): is empty",
        "auth.issuers[0].rules[1].unconfirmed (from f.toml): expected \"refuse\", \"allow\" or \"ask\"",
        "auth.issuers[1].issuer (from f.toml): is required",
        "auth.issuers[2].rules[0].claims (from f.toml): is missing",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
    // Without auth.audience an entry must name its own.
    let err = build(
        "[[auth.issuers]]\nissuer = \"https://a.example\"\njwks_uri = \"https://a.example/jwks\"\n\
         [[auth.issuers]]\nissuer = \"https://a.example\"\njwks_uri = \"https://a.example/jwks\"\n\
         audience = \"https://mac.example/mcp\"\n",
    )
    .expect_err("invalid");
    assert!(
        err.contains("auth.issuers[0].audience (from f.toml): is required"),
        "{err}"
    );
    // Loopback JWKS over http is fine (tests, a local issuer).
    let config = build(
        "[[auth.issuers]]\nissuer = \"http://127.0.0.1:9\"\njwks_uri = \"http://127.0.0.1:9/jwks\"\n\
         audience = \"https://mac.example/mcp\"\n",
    )
    .expect("valid");
    assert!(
        config.auth.issuers[0].rules.is_empty(),
        "scopes from the scope claim"
    );
}
