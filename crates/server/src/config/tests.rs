//! Tests of configuration layering and validation.

use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_are_valid() {
    let config = Layers::default().build().expect("defaults");
    assert_eq!(config.server.bind.to_string(), "127.0.0.1:8741");
    assert_eq!(config.backend.choice, BackendChoice::Auto);
    assert!(
        config
            .server
            .allowed_hosts
            .contains(&"localhost".to_owned())
    );
}

#[test]
fn flags_beat_env_beat_file() {
    let mut layers = Layers::default();
    layers.toml_text(
        "[server]\nbind = \"127.0.0.1:1\"\n[sessions]\nmax = 3\n",
        "file.toml",
    );
    layers.env(env(&[
        ("AXGATE_SERVER_BIND", "127.0.0.1:2"),
        ("AXGATE_SESSIONS_MAX", "5"),
    ]));
    layers.flag("server.bind", "127.0.0.1:3".into());
    let config = layers.build().expect("valid");
    assert_eq!(config.server.bind.port(), 3);
    assert_eq!(config.sessions.max_sessions, 5);
}

#[test]
fn every_bad_value_is_reported_at_once() {
    let mut layers = Layers::default();
    layers.toml_text(
        "[server]\nbind = \"nowhere\"\nmax_body_bytes = \"big\"\nbogus = 1\n",
        "f.toml",
    );
    layers.env(env(&[
        ("AXGATE_BACKEND_KIND", "windows"),
        ("AXGATE_NOPE", "1"),
    ]));
    layers.flag("log.format", "xml".into());
    let err = layers.build().expect_err("invalid").to_string();
    for needle in [
        "server.bind",
        "max_body_bytes",
        "unknown key `server.bogus`",
        "backend.kind",
        "$AXGATE_NOPE",
        "log.format",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
}

#[test]
fn example_file_documents_every_key_and_parses() {
    let text = include_str!("../../../../config/axgate.example.toml");
    for k in KEYS {
        let (section, name) = k.name.split_once('.').expect("dotted");
        assert!(text.contains(&format!("[{section}]")), "section {section}");
        assert!(text.contains(&format!("{name} =")), "key {}", k.name);
    }
    let mut layers = Layers::default();
    layers.toml_text(text, "example");
    layers.build().expect("the example is valid");
}

/// The complete member configuration of docs/FLEET.md parses and is valid as it stands.
#[test]
fn the_fleet_member_config_is_complete_and_valid() {
    let text = include_str!("../../../../deploy/haproxy/member.toml");
    let mut layers = Layers::default();
    layers.toml_text(text, "member");
    let config = layers.build().expect("the member config is valid");
    assert!(config.fleet.exclusive);
    assert_eq!(config.auth.issuers.len(), 1);
    assert_eq!(config.auth.issuers[0].rules.len(), 2);
}

#[test]
fn auth_section() {
    let hash = "ab".repeat(32);
    let mut layers = Layers::default();
    layers.toml_text(
        &format!(
            "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{hash}\", scopes = [\"axgate:read\", \"axgate:act\"] }}]\n\
             issuer = \"https://login.example.com\"\njwks_uri = \"https://login.example.com/jwks\"\n\
             audience = \"https://mac-17.ci.example:8741/mcp\"\n"
        ),
        "f.toml",
    );
    let auth = layers.build().expect("valid").auth;
    assert!(auth.enabled());
    assert_eq!(auth.tokens[0].name, "ci");
    assert_eq!(auth.tokens[0].sha256, [0xab; 32]);
    assert_eq!(auth.tokens[0].scopes.len(), 2);
    let jwt = &auth.issuers[0].jwt;
    assert_eq!(auth.issuers[0].path, "auth");
    assert_eq!(jwt.leeway, Duration::from_secs(30));
    assert_eq!(jwt.jwks_refresh_min, Duration::from_secs(30));
    assert!(!Layers::default().build().expect("defaults").auth.enabled());

    // The environment takes the list as inline TOML or as JSON.
    for text in [
        format!("[{{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]"),
        format!("[{{\"name\": \"a\", \"sha256\": \"{hash}\", \"scopes\": [\"axgate:read\"]}}]"),
    ] {
        let mut layers = Layers::default();
        layers.env(env(&[("AXGATE_AUTH_TOKENS", &text)]));
        let auth = layers.build().expect(&text).auth;
        assert_eq!(auth.tokens.len(), 1, "{text}");
    }
}

#[test]
fn every_bad_auth_value_is_reported_at_once() {
    let mut layers = Layers::default();
    layers.toml_text(
        "[auth]\ntokens = [{ name = \"a b\", sha256 = \"12\", scopes = [\"axgate:write\"], extra = 1 },\n\
         { sha256 = \"00\" }, \"loose\"]\n\
         issuer = \"http://idp.example.com\"\njwks_uri = \"ftp://x/jwks\"\n\
         audience = \"https://h/mcp#frag\"\nleeway_secs = -1\n",
        "f.toml",
    );
    layers.env(env(&[("AXGATE_AUTH_JWKS_REFRESH_MIN_SECS", "0")]));
    let err = layers.build().expect_err("invalid").to_string();
    for needle in [
        "entry 1: token name \"a b\"",
        "entry 1: `sha256` must be 64 hex digits",
        "entry 1: scopes: unknown scope \"axgate:write\"",
        "entry 1: unknown field `extra`",
        "entry 2: `name` (a string) is missing",
        "entry 2: `scopes`",
        "entry 3: expected a { name, sha256, scopes } table",
        "auth.issuer",
        "plain http only for a loopback host",
        "auth.jwks_uri",
        "auth.audience",
        "#fragment",
        "auth.leeway_secs",
        "auth.jwks_refresh_min_secs",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
    assert!(!err.contains("is required when"), "{err}");
    assert!(!err.contains("is set but"), "{err}");

    let mut layers = Layers::default();
    let hash = "cd".repeat(32);
    layers.toml_text(
        &format!(
            "[auth]\ntokens = [{{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }},\n\
             {{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]\n\
             issuer = \"http://127.0.0.1:9/\"\n"
        ),
        "f.toml",
    );
    layers.env(env(&[("AXGATE_AUTH_TOKENS", "{not a list")]));
    let err = layers.build().expect_err("invalid").to_string();
    for needle in [
        "auth.tokens (from $AXGATE_AUTH_TOKENS): expected an inline TOML or JSON list",
        "auth.jwks_uri is required when auth.issuer is set",
        "auth.audience is required when auth.issuer is set",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
    let mut layers = Layers::default();
    layers.toml_text(
        &format!(
            "[auth]\ntokens = [{{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }},\n\
             {{ name = \"a\", sha256 = \"{hash}\", scopes = [\"axgate:read\"] }}]\n\
             jwks_uri = \"https://x/jwks\"\n"
        ),
        "f.toml",
    );
    let err = layers.build().expect_err("invalid").to_string();
    for needle in [
        "the name \"a\" is used twice",
        "auth.jwks_uri is set but auth.issuer is not",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
}

#[test]
fn policy_defaults_match_the_policy_module_and_bad_values_are_named() {
    let config = Layers::default().build().expect("defaults");
    assert_eq!(config.policy, crate::policy::PolicyConfig::default());
    let mut layers = Layers::default();
    layers.toml_text(
        "[policy]\nread_only = \"maybe\"\ndeny_apps = [\"a*b\"]\nunconfirmed = \"sometimes\"\n\
         [limits]\nwrites_per_second = 0\n",
        "f.toml",
    );
    let err = layers.build().unwrap_err().to_string();
    for needle in [
        "policy.read_only",
        "policy.deny_apps: \"a*b\": `*` is allowed only at the end",
        "policy.unconfirmed",
        "expected refuse, allow or ask",
        "limits.writes_per_second",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
}

#[test]
fn booleans_parse_in_every_layer() {
    assert!(
        !Layers::default()
            .build()
            .expect("defaults")
            .policy
            .read_only
    );
    let mut layers = Layers::default();
    layers.toml_text("[policy]\nread_only = true\n", "f.toml");
    assert!(layers.build().expect("valid").policy.read_only);
    let mut layers = Layers::default();
    layers.env(env(&[("AXGATE_POLICY_READ_ONLY", "true")]));
    assert!(layers.build().expect("valid").policy.read_only);

    let mut layers = Layers::default();
    layers.toml_text("[policy]\nread_only = \"yes\"\n", "f.toml");
    layers.env(env(&[("AXGATE_POLICY_READ_ONLY", "maybe")]));
    let err = layers.build().expect_err("invalid").to_string();
    assert!(err.contains("expected true or false"), "{err}");
}

#[test]
fn a_token_or_the_issuer_may_set_its_own_policy_and_bad_values_are_named() {
    use crate::policy::confirm::Unconfirmed;
    use crate::policy::principal::Who;
    let hash = "ab".repeat(32);
    let issuer = "issuer = \"https://idp.example\"\njwks_uri = \"https://idp.example/jwks\"\n\
                  audience = \"https://mac.example/mcp\"\n";
    let mut layers = Layers::default();
    layers.toml_text(
        &format!(
            "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{hash}\", scopes = [\"axgate:act\"], \
             unconfirmed = \"allow\", writes_per_second = 40 }}]\n{issuer}jwt_calls_per_second = 5\n"
        ),
        "f.toml",
    );
    let config = layers.build().expect("valid");
    let own = &config.policy.principals;
    assert_eq!(own.len(), 2, "{own:?}");
    assert_eq!(own[0].who, Who::Token("ci".into()));
    assert_eq!(own[0].unconfirmed, Some(Unconfirmed::Allow));
    assert_eq!(
        (own[0].calls_per_second, own[0].writes_per_second),
        (None, Some(40))
    );
    assert_eq!(own[1].who, Who::Issuer("https://idp.example".into()));
    assert_eq!(
        (own[1].unconfirmed, own[1].calls_per_second),
        (None, Some(5))
    );
    let policy = crate::policy::Policy::new(&config.policy);
    assert_eq!(policy.unconfirmed_for("token:ci"), Unconfirmed::Allow);
    assert_eq!(policy.unconfirmed_for("token:other"), Unconfirmed::Refuse);
    assert_eq!(
        policy.unconfirmed_for("jwt:https://idp.example#ci"),
        Unconfirmed::Refuse
    );
    // Nothing set: no overrides, as strict as before.
    assert!(
        Layers::default()
            .build()
            .expect("defaults")
            .policy
            .principals
            .is_empty()
    );

    let mut layers = Layers::default();
    layers.toml_text(
        &format!(
            "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{hash}\", scopes = [\"axgate:act\"], \
             unconfirmed = \"often\", writes_per_second = 0, calls = 3 }}]\njwt_unconfirmed = \"allow\"\n"
        ),
        "f.toml",
    );
    let err = layers.build().expect_err("invalid").to_string();
    for needle in [
        "`unconfirmed`: expected \"refuse\", \"allow\" or \"ask\"",
        "`writes_per_second`: expected a whole number from 1 to 100000",
        "unknown field `calls`",
        "no issuer is configured",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
}

#[test]
fn the_clients_variables_are_left_to_the_client() {
    // No key of the server is read from the client's family...
    for k in KEYS {
        assert!(
            !env_name(k.name).starts_with(super::CLIENT_ENV_PREFIX),
            "{} would be read from the client's variables",
            k.name
        );
    }
    // ...and serving with them set is not an error.
    let mut layers = Layers::default();
    layers.env(env(&[
        ("AXGATE_CLIENT_URL", "http://127.0.0.1:8741/mcp"),
        ("AXGATE_CLIENT_TOKEN", "secret"),
        ("AXGATE_SESSIONS_MAX", "5"),
    ]));
    let config = layers.build().expect("valid");
    assert_eq!(config.sessions.max_sessions, 5);
}

/// `[secrets]`, `policy.secrets` and a token's own `secrets`: the store, who may use which
/// name (and where that was decided), and the secret values the environment holds, which are
/// no configuration keys.
#[test]
fn secrets_store_and_each_principals_names() {
    let hash = "ab".repeat(32);
    let mut layers = Layers::default();
    layers.toml_text(
        &format!(
            "[secrets]\nsource = \"env\"\n[policy]\nsecrets = [\"STAGING_*\"]\n\
             [auth]\ntokens = [{{ name = \"ci\", sha256 = \"{hash}\", scopes = [\"axgate:act\"], \
             secrets = [\"GITHUB_PW\"], secrets_into_plain_fields = true }}]\n"
        ),
        "f.toml",
    );
    layers.env(env(&[("AXGATE_SECRET_GITHUB_PW", "not a key")]));
    let config = layers.build().expect("valid");
    assert_eq!(
        config.policy.secret_source,
        crate::secrets::Source::Env {
            prefix: "AXGATE_SECRET_".into()
        }
    );
    let policy = crate::policy::Policy::new(&config.policy);
    let ci = policy.secrets_for("token:ci");
    assert_eq!(ci.names, ["GITHUB_PW"]);
    assert_eq!(ci.rule, "auth.tokens[ci].secrets");
    assert!(ci.plain_fields);
    let other = policy.secrets_for("token:other");
    assert_eq!(other.names, ["STAGING_*"]);
    assert_eq!(other.rule, "policy.secrets");
    assert!(!other.plain_fields);

    let mut bad = Layers::default();
    bad.toml_text(
        &format!(
            "[secrets]\nsource = \"file\"\n[policy]\nsecrets = [\"a/b\"]\n\
             [auth]\ntokens = [{{ name = \"ci\", sha256 = \"{hash}\", scopes = [\"axgate:act\"], \
             secrets = \"GITHUB_PW\" }}]\n"
        ),
        "f.toml",
    );
    let err = bad.build().expect_err("invalid").to_string();
    for needle in [
        "secrets.dir",
        "policy.secrets: \"a/b\" is not a secret name",
        "`secrets`: expected a list of secret names",
    ] {
        assert!(err.contains(needle), "missing {needle} in:\n{err}");
    }
}
