//! Snapshot of the tool list as clients see it (names, titles, annotations, input and output
//! schemas), so that any change on the wire is a reviewed diff, and its size, which a model
//! pays for in every session. Update with
//! `UPDATE_EXPECT=1 cargo test --test it tool_schemas::`.

use crate::support::{TestServer, client_with, config};
use axgate::http::auth::tokens;
use serde_json::{Value, json};

/// The most bytes the serialized `tools/list` result may take for an admin principal (all
/// tools). Measured: 79,393 bytes before the compaction (long descriptions, `$defs`
/// repeated per tool, prose on every output field), 29,973 after (docs/TOOLS.md); 29,990 with the caching hints.
const TOOL_LIST_BUDGET: usize = 30_000;

#[tokio::test]
async fn the_tool_list_for_an_admin_fits_in_30_kb() {
    let token = tokens::generate().expect("random token");
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{{ name = \"ops\", sha256 = \"{}\", scopes = [\"axgate:admin\"] }}]\n",
        tokens::hex(&tokens::sha256(&token))
    )))
    .await;
    let mut client = client_with(&server, &token);
    client.initialize().await;
    let list = client.request("tools/list", json!({})).await;
    let result = &list["result"];
    let tools = result["tools"].as_array().expect("tools");
    assert_eq!(
        tools.len(),
        axgate::mcp::tools::all().len(),
        "every tool is listed"
    );
    assert!(
        tools.iter().any(|t| t["name"] == "set_draining"),
        "the admin tools are listed"
    );
    let bytes = serde_json::to_string(result).expect("json").len();
    println!("tools/list result: {bytes} bytes for {} tools", tools.len());
    assert!(
        bytes <= TOOL_LIST_BUDGET,
        "tools/list is {bytes} bytes, over the budget of {TOOL_LIST_BUDGET}"
    );
}

/// Every schema is portable: no type arrays, no `$ref`, no untyped (un-constraining)
/// subschema — the rules the Inspector's `--strict` lint applies (tests/it/inspector.rs runs
/// the lint itself).
#[tokio::test]
async fn schemas_have_no_type_arrays_refs_or_untyped_fields() {
    fn walk(tool: &str, at: &str, schema: &Value, found: &mut Vec<String>) {
        let Value::Object(map) = schema else {
            found.push(format!("{tool} {at}: not an object schema"));
            return;
        };
        if map.get("type").is_some_and(Value::is_array) {
            found.push(format!("{tool} {at}: type array"));
        }
        if map.contains_key("$ref") || map.contains_key("$defs") {
            found.push(format!("{tool} {at}: $ref/$defs"));
        }
        let constrains = ["type", "enum", "const", "anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| map.contains_key(*k));
        if !constrains {
            found.push(format!("{tool} {at}: untyped"));
        }
        if let Some(Value::Object(props)) = map.get("properties") {
            for (name, p) in props {
                walk(tool, &format!("{at}.{name}"), p, found);
            }
        }
        if let Some(items) = map.get("items") {
            walk(tool, &format!("{at}[]"), items, found);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for (i, b) in map
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                walk(tool, &format!("{at}.{key}[{i}]"), b, found);
            }
        }
    }
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let list = client.request("tools/list", json!({})).await;
    let mut found = Vec::new();
    for tool in list["result"]["tools"].as_array().expect("tools") {
        let name = tool["name"].as_str().expect("name");
        walk(name, "input", &tool["inputSchema"], &mut found);
        if let Some(output) = tool.get("outputSchema") {
            walk(name, "output", output, &mut found);
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[tokio::test]
async fn tool_list_matches_the_snapshot() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let list = client.request("tools/list", json!({})).await;
    let tools = &list["result"]["tools"];
    let text = serde_json::to_string_pretty(tools).expect("json");
    expect_test::expect_file!["snapshots/tools.json"].assert_eq(&format!("{text}\n"));
}

#[tokio::test]
async fn annotations_mark_destructive_and_read_only_tools() {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let list = client.request("tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().expect("tools");
    let hint = |name: &str, key: &str| {
        let tool = tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} is listed"));
        // An absent hint is the spec's default (the server leaves defaults out).
        let default = matches!(key, "destructiveHint" | "openWorldHint");
        Some(tool["annotations"][key].as_bool().unwrap_or(default))
    };
    for name in ["quit_app", "window_action", "end_session"] {
        assert_eq!(hint(name, "destructiveHint"), Some(true), "{name}");
        assert_eq!(hint(name, "readOnlyHint"), Some(false), "{name}");
    }
    for name in [
        "list_sessions",
        "session_info",
        "get_tree",
        "find",
        "assert",
    ] {
        assert_eq!(hint(name, "readOnlyHint"), Some(true), "{name}");
    }
    for name in ["click", "type_text", "set_value", "launch_app"] {
        assert_eq!(hint(name, "destructiveHint"), Some(false), "{name}");
        assert_eq!(hint(name, "readOnlyHint"), Some(false), "{name}");
    }
    for tool in tools {
        assert_eq!(tool["annotations"]["openWorldHint"], false, "{tool}");
        for (key, default) in [
            ("readOnlyHint", false),
            ("destructiveHint", true),
            ("idempotentHint", false),
        ] {
            assert_ne!(
                tool["annotations"][key], default,
                "a hint equal to the spec's default is left out: {tool}"
            );
        }
    }
}
