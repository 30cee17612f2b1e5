//! What `axgate token new` prints: a fresh static token and the `[auth] tokens` entry for it.
//! The static-token table (SHA-256, constant-time lookup) and token minting are
//! `axgate_parse::credentials::tokens`, re-exported here.

use std::collections::BTreeSet;

pub use axgate_parse::credentials::tokens::{
    PREFIX, StaticToken, StaticTokens, generate, hex, sha256,
};

use crate::identity::{Scope, format_scopes};

/// The `[auth] tokens` entry for a token, as one TOML inline table.
pub fn config_entry(name: &str, digest: &[u8; 32], scopes: &BTreeSet<Scope>) -> String {
    let scopes = format_scopes(scopes)
        .split(' ')
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{{ name = {name:?}, sha256 = \"{}\", scopes = [{scopes}] }}",
        hex(digest)
    )
}

/// What `axgate token new` prints on stdout: the token alone on the first line, then a config
/// snippet to paste (which is also a valid config file by itself).
pub fn new_token_output(token: &str, name: &str, scopes: &BTreeSet<Scope>) -> String {
    let entry = config_entry(name, &sha256(token), scopes);
    format!(
        "{token}\n\
         # Paste into the config file; if [auth] tokens already exists, add the entry to its list.\n\
         # Only the SHA-256 is stored: the token above is not kept anywhere and cannot be shown again.\n\
         [auth]\n\
         tokens = [{entry}]\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_entry_is_toml() {
        let scopes = [Scope::Read, Scope::Act].into_iter().collect();
        let out = new_token_output("axg_t", "ci", &scopes);
        let (token, snippet) = out.split_once('\n').expect("two parts");
        assert_eq!(token, "axg_t");
        let table: toml::Table = snippet.parse().expect("toml");
        let entry = &table["auth"]["tokens"][0];
        assert_eq!(entry["name"].as_str(), Some("ci"));
        assert_eq!(
            entry["sha256"].as_str(),
            Some(hex(&sha256("axg_t")).as_str())
        );
        assert_eq!(
            entry["scopes"].as_array().map(Vec::len),
            Some(2),
            "{snippet}"
        );
    }
}
