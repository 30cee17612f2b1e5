//! The reading and inspecting tool families end to end over MCP on the demo backend:
//! `get_tree` (filters, depth, cursor continuation, deadline), `find` (modes, fields, case,
//! root, bad patterns), `get_element` (attributes and what is settable), `get_focused` and
//! `element_at`. Reading never changes an app, so most tests share one server per test.

use std::collections::HashSet;

use crate::support::{check, get_element, get_tree, refusals, start_session, steps, text_of};
use serde_json::{Value, json};

fn nodes(result: &Value) -> Vec<Value> {
    result["structuredContent"]["nodes"]
        .as_array()
        .unwrap_or_else(|| panic!("no nodes: {result}"))
        .clone()
}

fn field<'a>(list: &'a [Value], key: &str) -> Vec<&'a str> {
    list.iter().map(|n| n[key].as_str().unwrap_or("")).collect()
}

/// The nodes a continued `get_tree` page adds: it starts with its ancestors, shown on earlier
/// pages (`seen`), each an ancestor of the next; everything after them is new.
fn continued(seen: &HashSet<String>, page: &[Value]) -> Vec<Value> {
    let context = page
        .iter()
        .take_while(|n| seen.contains(n["path"].as_str().unwrap_or("")))
        .count();
    assert!(context > 0, "a continued page starts with its ancestors");
    let paths = field(page, "path");
    for pair in paths[..=context.min(paths.len() - 1)].windows(2) {
        let (above, below) = (pair[0], pair[1]);
        assert!(
            above.is_empty() || below.starts_with(&format!("{above}/")),
            "{above:?} is not an ancestor of {below:?}"
        );
    }
    let new = page[context..].to_vec();
    assert!(
        new.iter()
            .all(|n| !seen.contains(n["path"].as_str().unwrap_or(""))),
        "pages overlap"
    );
    new
}

/// (app, filter arguments, the roles shown nodes may have, titles shown, titles not shown)
type FilterCase<'a> = (&'a str, Value, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>);

/// (target, role, native role, settable, text needles)
type ElementCase<'a> = (&'a str, &'a str, &'a str, Vec<&'a str>, Vec<&'a str>);

fn matches(result: &Value) -> Vec<Value> {
    result["structuredContent"]["matches"]
        .as_array()
        .unwrap_or_else(|| panic!("no matches: {result}"))
        .clone()
}

mod element;
mod names;
mod pages;
mod query;
mod tree;
