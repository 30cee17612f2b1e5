//! `get_tree`'s frontier cursor: a walk of any size comes in results under 1 MiB, each page
//! starts with its ancestors, all pages together read every node once (O(n), not a re-walk
//! from the start per page), and a cursor used with other arguments is refused with the fix.

use super::*;

/// The most bytes a result may take: what clients accept for one message.
const MIB: usize = 1024 * 1024;

#[tokio::test]
async fn a_whole_huge_tree_comes_in_pages_under_1_mib_each_and_reads_every_node_once() {
    let (_server, mut c) = start_session().await;
    let whole_args = json!({"app": "Huge", "depth": 64, "max_nodes": 20000});
    let mut cursor: Option<String> = None;
    let mut seen: HashSet<String> = HashSet::new();
    let mut order: Vec<String> = Vec::new();
    let (mut pages, mut walked, mut trips) = (0, 0u64, 0u64);
    loop {
        let mut args = whole_args.clone();
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let r = get_tree(&mut c, args, &[]).await;
        let bytes = serde_json::to_vec(&r).unwrap().len();
        assert!(bytes < MIB, "page {pages}: a result of {bytes} bytes");
        let page = nodes(&r);
        let new = if pages == 0 {
            page
        } else {
            // Each later page starts at the app's root and walks down to where it goes on.
            assert_eq!(page[0]["path"], "", "page {pages} starts with the root");
            continued(&seen, &page)
        };
        for n in &new {
            let path = n["path"].as_str().unwrap().to_owned();
            assert!(seen.insert(path.clone()), "{path} shown twice");
            order.push(path);
        }
        let out = &r["structuredContent"];
        walked += out["walked"].as_u64().unwrap();
        trips += out["round_trips"].as_u64().unwrap();
        pages += 1;
        cursor = out["next_cursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
        assert!(
            text_of(&r).contains("result size limit reached"),
            "the byte budget cut page {pages}"
        );
        assert!(pages < 40, "the pages never end");
    }
    assert!(pages >= 3, "7 MB of tree in {pages} pages");
    // Every element once (collapsed groups are walked, not shown), in one walk's order; a
    // page reads at most one chunk (512 nodes) past what it can hold.
    assert!(
        (20_203..=20_203 + pages * 512).contains(&walked),
        "{walked} nodes read over {pages} pages"
    );
    assert!(seen.len() > 20_000 - 500, "{} shown", seen.len());
    // O(n): the reads are the nodes plus, per page, the chain of ancestors read again.
    assert!(
        trips <= walked + pages * 70,
        "{trips} round trips for {walked} nodes in {pages} pages"
    );
    let sample = get_tree(
        &mut c,
        json!({"app": "Huge", "depth": 64, "max_nodes": 300}),
        &[],
    )
    .await;
    let sample = nodes(&sample);
    let first: Vec<&str> = field(&sample, "path");
    let same = order
        .iter()
        .zip(first.iter())
        .take_while(|(a, b)| a == b)
        .count();
    assert_eq!(
        same,
        first.len().min(order.len()),
        "pages follow one walk's order"
    );
}

#[tokio::test]
async fn a_cursor_with_other_arguments_is_refused_with_the_fix() {
    let (_server, mut c) = start_session().await;
    let r = get_tree(
        &mut c,
        json!({"app": "Huge", "depth": 5, "max_nodes": 50}),
        &[],
    )
    .await;
    let cursor = r["structuredContent"]["next_cursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    // A depth other than the walk's: refused, naming the depth to pass.
    check(
        &mut c,
        "get_tree",
        json!({"app": "Huge", "depth": 3, "cursor": cursor}),
        true,
        &[
            "invalid argument `cursor`",
            "walk of depth 5, not 3",
            "pass depth 5",
        ],
    )
    .await;
    // Another root, another app: refused.
    check(
        &mut c,
        "get_tree",
        json!({"app": "Huge", "root": "window[0]", "cursor": cursor}),
        true,
        &["invalid argument `cursor`", "leave root out"],
    )
    .await;
    check(
        &mut c,
        "get_tree",
        json!({"app": "Form", "cursor": cursor}),
        true,
        &["invalid argument `cursor`", "pass the same app"],
    )
    .await;
    // Without depth the cursor's own applies; with the same depth it goes on.
    for args in [
        json!({"app": "Huge", "cursor": cursor, "max_nodes": 50}),
        json!({"app": "Huge", "cursor": cursor, "max_nodes": 50, "depth": 5}),
    ] {
        let r = get_tree(&mut c, args, &[]).await;
        assert_eq!(r["structuredContent"]["walked"], 50, "{r}");
        assert!(nodes(&r).iter().all(|n| n["depth"].as_u64().unwrap() <= 5));
    }
}

/// docs/TOOLS.md's `get_tree` example is what `get_tree` prints, indentation included.
#[tokio::test]
async fn the_documented_get_tree_example_is_the_real_output() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/TOOLS.md"))
        .expect("docs/TOOLS.md");
    let from = doc
        .find("**Example:** `{\"app\": \"Form\"}`\n\n```\n")
        .expect("the get_tree example");
    let block = &doc[from..];
    let block = &block[block.find("```\n").unwrap() + 4..];
    let documented = &block[..block.find("```").unwrap()];
    let (_server, mut c) = start_session().await;
    let real = text_of(&get_tree(&mut c, json!({"app": "Form"}), &[]).await);
    assert_eq!(documented, real, "docs/TOOLS.md's get_tree example");
}
