//! The acting and input tool families end to end over MCP on the demo backend:
//! `perform_action`, `click` (the actuation ladder and its rungs), `focus`, `set_value`
//! (coercion, clamping, read-back, secure values), `select_option` (popups, lists, tabs,
//! radio groups), `type_text`, `press_key`, `scroll` and `drag`. Every effect is checked
//! twice: in the verified act result, and from the app's side through `server.demo`.
//! Each test that changes app state runs its own server (its own fresh demo backend).

use crate::support::{
    app_value, check, get_element, has_node, is_focused, refusals, start_session, steps, text_of,
};
use axgate::ax::AxValue;
use serde_json::{Value, json};

/// The app-side value of the element with this identifier (secure values included).
fn text(s: &str) -> Option<AxValue> {
    Some(AxValue::Text(s.to_owned()))
}

fn number(n: f64) -> Option<AxValue> {
    Some(AxValue::Number(n))
}

fn boolean(b: bool) -> Option<AxValue> {
    Some(AxValue::Bool(b))
}

/// The `fields` of the first change to the element at `path`, as `field: before → after`.
fn change_fields(result: &Value, path: &str) -> Vec<String> {
    result["structuredContent"]["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("no changes: {result}"))
        .iter()
        .filter(|c| c["path"] == path)
        .flat_map(|c| c["fields"].as_array().cloned().unwrap_or_default())
        .map(|f| {
            format!(
                "{}: {} → {}",
                f["field"].as_str().unwrap_or_default(),
                f["before"].as_str().unwrap_or_default(),
                f["after"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

mod input;
mod large;
mod once;
mod press;
mod values;
