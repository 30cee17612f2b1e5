//! Snapshot of the tool list as clients see it (names, titles, annotations, input and output
//! schemas), so that any change on the wire is a reviewed diff. Update with
//! `UPDATE_EXPECT=1 cargo test --test it tool_schemas::`.

use crate::support::TestServer;
use serde_json::json;

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
        tool["annotations"][key].as_bool()
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
    }
}
