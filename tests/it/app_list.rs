//! The running-app list under concurrent calls (crates/engine/src/shared.rs): calls that arrive while
//! a read of the list runs share the next read instead of queueing one each on the AX
//! Global worker, and every one of them still gets a whole, current list. Asserted over
//! HTTP through `axgate_backend_app_lists_shared_total`.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{TestServer, metric};

const SHARED: &str = "axgate_backend_app_lists_shared_total";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_share_app_list_reads_and_each_gets_the_whole_list() {
    let server = TestServer::start().await;
    let mut clients = Vec::new();
    for _ in 0..16 {
        let mut c = server.client();
        c.initialize().await;
        clients.push(c);
    }
    // Rounds of 16 calls at once until one of them shared a read: nearly always the first
    // round; bounded in rounds and time.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut rounds = 0;
    while metric(&server, SHARED).await == 0.0 {
        assert!(
            rounds < 50 && Instant::now() < deadline,
            "no call shared a read of the app list in {rounds} rounds of 16 concurrent calls"
        );
        rounds += 1;
        let calls = clients.drain(..).map(|mut c| {
            tokio::spawn(async move {
                let apps = c.call("list_apps", json!({})).await;
                (c, apps)
            })
        });
        for call in futures::future::join_all(calls).await {
            let (c, apps) = call.expect("call");
            let names: Vec<&str> = apps["structuredContent"]["apps"]
                .as_array()
                .expect("apps")
                .iter()
                .filter_map(|a| a["name"].as_str())
                .collect();
            // Shared or not, each answer is the whole list.
            assert!(names.contains(&"Form") && names.contains(&"Huge"), "{apps}");
            clients.push(c);
        }
    }
}
