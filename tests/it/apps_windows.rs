//! The app, window, menu, clipboard, screenshot and session tool families end to end over
//! MCP on the demo backend: `list_menus` / `select_menu`, `launch_app`, `quit_app`,
//! `activate_app`, `window_action`, `read_clipboard` / `write_clipboard`, `screenshot`,
//! `lease_app` / `release_app` across two sessions, and `session_info`. Effects are checked
//! from the app's side through `server.demo` as well as in the results.

use crate::support::{
    Client, TestServer, check, has_node, refusals, session, start_session, steps, text_of,
};
use axgate::ax::AxValue;
use base64::Engine as _;
use serde_json::{Value, json};

/// The names of the running apps, from `list_apps`.
async fn running(c: &mut Client) -> Vec<(String, u64, bool)> {
    let r = check(c, "list_apps", json!({}), false, &[]).await;
    r["structuredContent"]["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap().to_owned(),
                a["pid"].as_u64().unwrap(),
                a["frontmost"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn app_text(server: &TestServer, app: &str, identifier: &str) -> String {
    match server
        .demo
        .node_by_identifier(app, identifier)
        .and_then(|n| n.value)
    {
        Some(AxValue::Text(s)) => s,
        other => panic!("{app} #{identifier}: {other:?}"),
    }
}

/// A window frame: x, y, w, h.
type Frame = (f64, f64, f64, f64);

/// (extra arguments, verified, text the result shows, the app-side frame after)
type WindowStep<'a> = (Value, bool, Vec<&'a str>, Frame);

const EDITOR_MENUS: [&str; 10] = [
    "File > New",
    "File > Open…",
    "File > Save",
    "File > Save As…",
    "File > Close",
    "Edit > Undo",
    "Edit > Cut",
    "Edit > Copy",
    "Edit > Paste",
    "Edit > Select All",
];

mod apps;
mod leases;
mod menus;
mod textedit;
mod windows;
