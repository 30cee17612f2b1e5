//! Engine benchmarks, printed as figures (`cargo bench --bench engine`; set
//! `AXGATE_BENCH_QUICK=1` for the short CI mode):
//! - `get_tree` of the Huge demo app through MCP over HTTP: nodes/s, bytes per node of the
//!   compact text, backend round trips per node;
//! - `find` over the same 20,000 nodes;
//! - the tree diff of two 5,000-node snapshots;
//! - the WebDriver facade (`webdriver`): new session, find by each strategy, click, page
//!   source of Huge, each as p50/p99 beside the same work through MCP on the same server
//!   (the reference in the same run), with the ratio WebDriver/MCP.
//!
//! An argument names the one group to run (`cargo bench --bench engine -- webdriver`).

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

#[path = "engine/webdriver.rs"]
mod webdriver;

use axgate::ax::backend::Snapshot;
use axgate::ax::diff::{Picture, diff};
use axgate::ax::{AxValue, ElementPath, NodeId, RawNode, Role, tree};
use serde_json::json;
use support::{TestServer, config, text_of};

/// The group named on the command line (cargo passes `--bench` too), or every group.
fn wanted(group: &str) -> bool {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    named.is_empty() || named.iter().any(|n| n == group)
}

fn quick() -> bool {
    std::env::var_os("AXGATE_BENCH_QUICK").is_some()
}

fn runs() -> usize {
    if quick() { 3 } else { 15 }
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// One walk of an app's whole tree through `get_tree`: compact text, in pages of under 1 MiB
/// continued by their cursor, up to 20,000 nodes in all (the page source's budget too).
#[derive(Default)]
struct Walk {
    walked: u64,
    lines: usize,
    text_bytes: usize,
    round_trips: u64,
    pages: usize,
}

async fn whole_tree(client: &mut support::Client, app: &str) -> Walk {
    let mut args = json!({"app": app, "depth": 64, "max_nodes": 20000});
    let mut walk = Walk::default();
    loop {
        let page = client.call("get_tree", args.clone()).await;
        assert_ne!(page["isError"], true, "get_tree: {page}");
        let out = &page["structuredContent"];
        let text = text_of(&page);
        walk.walked += out["walked"].as_u64().unwrap_or(0);
        walk.round_trips += out["round_trips"].as_u64().unwrap_or(0);
        walk.lines += text
            .lines()
            .filter(|l| l.trim_start().starts_with('['))
            .count();
        walk.text_bytes += text.len();
        walk.pages += 1;
        match out["next_cursor"].as_str() {
            Some(cursor) if walk.walked < 20_000 => {
                args["cursor"] = json!(cursor);
                args["max_nodes"] = json!(20_000 - walk.walked);
            }
            _ => return walk,
        }
    }
}

async fn get_tree_huge(server: &TestServer) {
    let mut client = server.client();
    client.initialize().await;
    let mut times = Vec::new();
    let mut last = Walk::default();
    for _ in 0..runs() {
        let started = Instant::now();
        last = whole_tree(&mut client, "Huge").await;
        times.push(started.elapsed());
    }
    let t = median(times);
    let walked = last.walked as f64;
    println!(
        "get_tree Huge: {walked:.0} nodes walked in {} pages, {} shown, median {:.1} ms, {:.0} nodes/s, {:.1} bytes/node (compact text), {:.2} round trips/node",
        last.pages,
        last.lines,
        t.as_secs_f64() * 1e3,
        walked / t.as_secs_f64(),
        last.text_bytes as f64 / last.lines.max(1) as f64,
        last.round_trips as f64 / walked.max(1.0),
    );
}

async fn find_huge(server: &TestServer) {
    let mut client = server.client();
    client.initialize().await;
    let args = json!({"app": "Huge", "title": "Open 199."});
    let mut times = Vec::new();
    let mut last = serde_json::Value::Null;
    for _ in 0..runs() {
        let started = Instant::now();
        last = client.call("find", args.clone()).await;
        times.push(started.elapsed());
    }
    let t = median(times);
    let searched = last["structuredContent"]["searched"].as_u64().unwrap_or(0);
    let found = last["structuredContent"]["matches"]
        .as_array()
        .map_or(0, Vec::len);
    println!(
        "find over Huge: {searched} nodes searched, {found} match(es), median {:.1} ms, {:.0} nodes/s",
        t.as_secs_f64() * 1e3,
        searched as f64 / t.as_secs_f64()
    );
}

/// A synthetic 5,000-node window: 250 groups of 20 controls.
fn snapshot(variant: u64) -> Snapshot {
    let mut nodes = vec![RawNode::new(NodeId(0), Role::Window, "AXWindow")];
    let mut id = 1;
    for g in 0..250u64 {
        let mut group = RawNode::new(NodeId(id), Role::Group, "AXGroup");
        group.parent = Some(0);
        group.title = Some(format!("Group {g}"));
        let gi = nodes.len();
        nodes.push(group);
        id += 1;
        for c in 0..19u64 {
            let mut n = RawNode::new(NodeId(id), Role::StaticText, "AXStaticText");
            n.parent = Some(gi);
            // Every 50th control changes between variants.
            let changed = variant == 1 && (g * 19 + c) % 50 == 0;
            n.value = Some(AxValue::Text(format!(
                "cell {g}.{c}{}",
                if changed { "!" } else { "" }
            )));
            nodes.push(n);
            id += 1;
        }
    }
    Snapshot {
        nodes,
        truncated: false,
        skipped: Vec::new(),
    }
}

fn diff_5000() {
    let a = Picture::new(&tree::index(snapshot(0), &ElementPath::default()));
    let b = Picture::new(&tree::index(snapshot(1), &ElementPath::default()));
    let mut times = Vec::new();
    let mut changes = 0;
    for _ in 0..runs() * 4 {
        let started = Instant::now();
        changes = diff(&a, &b).len();
        times.push(started.elapsed());
    }
    let t = median(times);
    println!(
        "diff of two {}-node snapshots: {changes} changes, median {:.2} ms",
        a.len(),
        t.as_secs_f64() * 1e3
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let server = TestServer::with_config(config("[backend]\ncall_timeout_ms = 30000\n")).await;
        if wanted("engine") {
            get_tree_huge(&server).await;
            find_huge(&server).await;
        }
        if wanted("webdriver") {
            webdriver::run(&server, quick()).await;
        }
    });
    if wanted("engine") {
        diff_5000();
    }
}
