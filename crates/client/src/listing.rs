//! `axgate tree` and `axgate find` as text: one line per element, its title path first (what
//! a scenario step or `--target` names: [`crate::paths`]), then its role, name, value, frame,
//! state and actions. No handles: they die with the command's session. `tree` pages with
//! `--max-nodes`/`--cursor` or follows every page with `--all`; `find` reads the app's tree
//! once more to name its matches by title. With `--format json` both print the server's
//! structured result (`tree --all` merges the pages' nodes into one).

use std::io::Write as _;

use serde_json::{Value, json};

use super::args::{FindArgs, Format, TreeArgs, app_value};
use super::output::{inert, print_result};
use super::paths::TitlePaths;
use super::{Client, ClientError, exit};

/// Most pages `tree --all` (and `find`'s naming read) follows.
const MAX_PAGES: usize = 200;

/// Nodes per page when `find` reads the tree to name its matches.
const NAMING_PAGE: u64 = 2_000;

/// `axgate tree`; the exit code.
pub(crate) async fn tree(client: &Client, args: &TreeArgs) -> Result<u8, ClientError> {
    let (app, format, images) = (
        app_value(&args.app),
        args.output.format_or(Format::Text),
        &args.output.images("tree"),
    );
    // The nodes carry the paths the listing prints (get_tree sends them only when asked).
    let mut arguments = json!({"app": app, "nodes": true});
    if let Some(depth) = args.depth {
        arguments["depth"] = json!(depth);
    }
    if let Some(max) = args.max_nodes {
        arguments["max_nodes"] = json!(max);
    }
    if let Some(cursor) = &args.cursor {
        arguments["cursor"] = json!(cursor);
    }
    let mut titles = TitlePaths::default();
    let mut merged: Option<Value> = None;
    let mut first = true;
    for _ in 0..MAX_PAGES {
        let result = client.call("get_tree", arguments.clone()).await?;
        let Some(page) = structured(&result) else {
            return print_result(&result, format, images);
        };
        let next = page["next_cursor"].as_str().map(str::to_owned);
        match format {
            Format::Text => print_nodes(&page, &mut titles, first)?,
            Format::Json if args.all => merge(&mut merged, page, &mut titles),
            _ => return print_result(&result, format, images),
        }
        first = false;
        match next {
            Some(cursor) if args.all => arguments["cursor"] = json!(cursor),
            Some(cursor) => {
                let mut err = std::io::stderr().lock();
                let _ = writeln!(
                    err,
                    "axgate: more nodes follow: add --cursor {cursor} for the next page, or --all"
                );
                return Ok(exit::OK);
            }
            None => break,
        }
    }
    if let Some(value) = merged {
        let result = json!({"content": [], "structuredContent": value});
        return print_result(&result, format, images);
    }
    Ok(exit::OK)
}

/// `axgate find`; the exit code.
pub(crate) async fn find(client: &Client, args: &FindArgs) -> Result<u8, ClientError> {
    let (app, format, images) = (
        app_value(&args.app),
        args.output.format_or(Format::Text),
        &args.output.images("find"),
    );
    let result = client
        .call("find", json!({"app": app, "text": args.query}))
        .await?;
    let (Format::Text, Some(found)) = (format, structured(&result)) else {
        return print_result(&result, format, images);
    };
    let matches = found["matches"].as_array().cloned().unwrap_or_default();
    let deepest = matches.iter().filter_map(|m| m["depth"].as_u64()).max();
    let mut titles = TitlePaths::default();
    if let Some(depth) = deepest {
        // The tree down to the deepest match, pre-order, so every match's ancestors and
        // earlier siblings are seen before it.
        let mut arguments =
            json!({"app": app, "depth": depth, "max_nodes": NAMING_PAGE, "nodes": true});
        for _ in 0..MAX_PAGES {
            let page = client.call("get_tree", arguments.clone()).await?;
            let Some(page) = structured(&page) else { break };
            for node in page["nodes"].as_array().into_iter().flatten() {
                titles.add(node);
            }
            let all_named = matches
                .iter()
                .all(|m| titles.of(m["path"].as_str().unwrap_or_default()).is_some());
            match page["next_cursor"].as_str() {
                Some(cursor) if !all_named => arguments["cursor"] = json!(cursor),
                _ => break,
            }
        }
    }
    let rows: Vec<(String, String)> = matches
        .iter()
        .map(|m| {
            let index = m["path"].as_str().unwrap_or_default();
            let path = titles.of(index).unwrap_or(index).to_owned();
            (path, describe(m))
        })
        .collect();
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str(&format!(
            "no element of {} contains {:?}\n",
            found["app"].as_str().unwrap_or("the app"),
            args.query
        ));
    }
    push_rows(&mut out, &rows);
    if found["truncated"].as_bool() == Some(true) {
        out.push_str(
            "(more matches: narrow the query or use `axgate call find` with max_results)\n",
        );
    }
    write_out(&out)
}

/// The result's structured content, when the call succeeded.
fn structured(result: &Value) -> Option<Value> {
    if result["isError"].as_bool() == Some(true) {
        return None;
    }
    result.get("structuredContent").cloned()
}

/// Appends a page's nodes to the merged result of `tree --all --format json`, leaving out
/// the ancestors a later page repeats.
fn merge(merged: &mut Option<Value>, mut page: Value, titles: &mut TitlePaths) {
    if let Some(object) = page.as_object_mut() {
        object.remove("next_cursor");
    }
    let fresh: Vec<Value> = page["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| titles.of(n["path"].as_str().unwrap_or_default()).is_none())
        .cloned()
        .collect();
    for node in &fresh {
        titles.add(node);
    }
    match merged {
        None => *merged = Some(page),
        Some(all) => {
            if let Some(nodes) = all["nodes"].as_array_mut() {
                nodes.extend(fresh);
            }
        }
    }
}

/// Prints one page of `tree` as text: a heading for the first page, then a row per node.
fn print_nodes(page: &Value, titles: &mut TitlePaths, first: bool) -> Result<(), ClientError> {
    let mut out = String::new();
    let mut rows = Vec::new();
    for node in page["nodes"].as_array().into_iter().flatten() {
        // A later page starts with the ancestors of where it resumes, already listed.
        if titles
            .of(node["path"].as_str().unwrap_or_default())
            .is_some()
        {
            continue;
        }
        let path = titles.add(node);
        if node["path"].as_str() == Some("") {
            if first {
                out.push_str(&format!(
                    "{} (pid {})  {}\n",
                    page["app"].as_str().unwrap_or_default(),
                    page["pid"],
                    describe(node)
                ));
            }
            continue;
        }
        rows.push((path, describe(node)));
    }
    push_rows(&mut out, &rows);
    write_out(&out).map(|_| ())
}

/// Rows of `path  description`, the paths in a column (up to 56 characters wide).
fn push_rows(out: &mut String, rows: &[(String, String)]) {
    let width = rows
        .iter()
        .map(|(p, _)| p.chars().count())
        .max()
        .unwrap_or(0)
        .min(56);
    for (path, description) in rows {
        out.push_str(&format!("{path:<width$}  {description}\n"));
    }
}

/// `[role] "name" = "value" (x,y w×h) disabled focused press,show_menu`.
fn describe(node: &Value) -> String {
    let mut text = format!("[{}]", node["role"].as_str().unwrap_or("unknown"));
    if let Some(name) = node["name"].as_str().filter(|n| !n.is_empty()) {
        text.push_str(&format!(" {name:?}"));
    }
    match &node["value"] {
        Value::Null => {}
        Value::String(value) => text.push_str(&format!(" = {value:?}")),
        value => text.push_str(&format!(" = {value}")),
    }
    let frame = &node["frame"];
    if let (Some(x), Some(y), Some(w), Some(h)) = (
        frame["x"].as_f64(),
        frame["y"].as_f64(),
        frame["w"].as_f64(),
        frame["h"].as_f64(),
    ) {
        text.push_str(&format!(" ({x},{y} {w}×{h})"));
    }
    if node["enabled"].as_bool() == Some(false) {
        text.push_str(" disabled");
    }
    if node["focused"].as_bool() == Some(true) {
        text.push_str(" focused");
    }
    let actions: Vec<&str> = node["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !actions.is_empty() {
        text.push_str(&format!(" {}", actions.join(",")));
    }
    text
}

/// Writes `text` to stdout, inert (a server's escape sequences shown escaped).
fn write_out(text: &str) -> Result<u8, ClientError> {
    let mut out = std::io::stdout().lock();
    out.write_all(inert(text).as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| ClientError::stdout(&e))?;
    Ok(exit::OK)
}
