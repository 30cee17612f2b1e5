//! The waiting and verification tool family end to end over MCP on the demo backend:
//! `wait_for` (satisfied by another session's act, timing out with expected vs actual, by
//! target and by query), `wait_idle`, `assert` (pass, and fail as an error with FAIL lines)
//! and `diff` (baseline, then changes); plus how element targets behave over time: handles
//! that survive unrelated changes, are re-resolved after their element was replaced, or
//! fail closed as stale or unknown, and path or app errors that say what exists instead.

use std::time::Duration;

use crate::support::{
    TestServer, app_value, check, config, get_tree, has_node, session, start_session, steps,
    text_of,
};
use axgate::ax::AxValue;
use serde_json::{Value, json};

/// `base` with the fields of `extra` added.
fn with(base: Value, extra: &Value) -> Value {
    let mut out = base;
    for (k, v) in extra.as_object().expect("an object") {
        out[k] = v.clone();
    }
    out
}

fn handle_of(result: &Value, pointer: &str) -> String {
    result
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no handle at {pointer}: {result}"))
        .to_owned()
}

/// (condition, how the waiter names the element, the act (tool, arguments) that satisfies
/// it, the path of the element seen, if any)
type WaitStep<'a> = (&'a str, Value, (&'a str, Value), Option<&'a str>);

const STATUS: &str = r#"window[0]/static_text["Status"]"#;

mod checks;
mod handles;
mod wait;
