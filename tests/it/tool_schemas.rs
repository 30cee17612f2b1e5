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
