//! The tool registry: each tool's wire definition (title, description, annotations, input
//! and output schemas) and its dispatch. Arguments are validated here, not by rmcp's
//! `Parameters<T>`, so that a bad argument is an `isError` result naming the field (the
//! 2025-11-25 rule) instead of a JSON-RPC −32602.

mod act;
mod admin;
mod app_arg;
mod apps;
mod choose;
mod input;
mod pages;
mod query;
mod receivers;
mod schema;
mod session;
mod system;
mod target;
mod tree;
mod wait;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::context::ToolCtx;
use super::errors::{ToolError, tool_error};
pub use schema::{input_schema, output_schema};

/// The side-effect class of a tool, which fixes its annotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Reads only.
    Read,
    /// Changes UI or app state.
    Act,
    /// Administers the server itself (its sessions); scope `axgate:admin`.
    Admin,
    /// Reads the server's own state (its sessions); scope `axgate:admin`, read-only.
    AdminRead,
}

impl Effect {
    /// Whether the tool changes nothing (its `readOnlyHint`).
    pub fn reads_only(self) -> bool {
        matches!(self, Effect::Read | Effect::AdminRead)
    }

    /// Whether the tool administers the server (listed only where there are HTTP sessions).
    pub fn administers(self) -> bool {
        matches!(self, Effect::Admin | Effect::AdminRead)
    }
}

/// The tools whose own purpose can destroy state a user may want back (`destructiveHint`):
/// quitting an app (with `force`, unsaved work), closing a window, ending another client's
/// session. The other acting tools are not: what they change is what their target is, and
/// a destructive target (a Delete button, a key that presses one) goes through the
/// confirmation decision point (`mcp/confirm`) whatever tool reaches it.
const DESTRUCTIVE: &[&str] = &["quit_app", "window_action", "end_session"];

/// A tool's static description.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub idempotent: bool,
    pub input: fn() -> Arc<JsonObject>,
    pub output: Option<fn() -> Arc<JsonObject>>,
}

impl ToolDef {
    pub fn to_wire(&self) -> Tool {
        // The title is the tool's own `title` (2025-06-18 on), not repeated here.
        let mut annotations = ToolAnnotations::new()
            .read_only(self.effect.reads_only())
            // The tools act on the local desktop, a closed world.
            .open_world(false);
        // The spec gives these meaning only for a tool that changes something.
        if !self.effect.reads_only() {
            annotations = annotations
                .destructive(DESTRUCTIVE.contains(&self.name))
                .idempotent(self.idempotent);
        }
        let mut tool = Tool::new(self.name, self.description, (self.input)())
            .with_title(self.title)
            .with_annotations(annotations);
        if let Some(output) = self.output {
            tool = tool.with_raw_output_schema(output());
        }
        tool
    }
}

/// Every tool, in the order `tools/list` shows them.
pub fn all() -> Vec<&'static ToolDef> {
    vec![
        &apps::LIST_APPS,
        &apps::LIST_WINDOWS,
        &tree::GET_TREE,
        &tree::FIND,
        &query::GET_ELEMENT,
        &query::GET_FOCUSED,
        &query::ELEMENT_AT,
        &act::PERFORM_ACTION,
        &act::CLICK,
        &choose::SELECT_OPTION,
        &input::SET_VALUE,
        &input::TYPE_TEXT,
        &input::PRESS_KEY,
        &input::SCROLL,
        &input::DRAG,
        &act::FOCUS,
        &system::LAUNCH_APP,
        &system::QUIT_APP,
        &system::ACTIVATE_APP,
        &system::WINDOW_ACTION,
        &choose::LIST_MENUS,
        &choose::SELECT_MENU,
        &system::READ_CLIPBOARD,
        &system::WRITE_CLIPBOARD,
        &system::SCREENSHOT,
        &wait::WAIT_FOR,
        &wait::WAIT_IDLE,
        &wait::ASSERT,
        &wait::DIFF,
        &session::LEASE_APP,
        &session::RELEASE_APP,
        &session::SESSION_INFO,
        &admin::LIST_SESSIONS,
        &admin::END_SESSION,
        &admin::SET_DRAINING,
    ]
}

pub fn find_def(name: &str) -> Option<&'static ToolDef> {
    all().into_iter().find(|t| t.name == name)
}

/// Runs a tool (unknown tools are the caller's concern: a JSON-RPC error); returns its
/// result and the outcome class for metrics and logs: `ok`; `assert_failed` and
/// `wait_timeout`, the "no" a test asked about (a red test suite, not a broken Mac); `denied`;
/// `timeout` (the app did not answer in time); else `tool_error`.
pub async fn call(ctx: &ToolCtx, name: &str, args: JsonObject) -> (CallToolResult, &'static str) {
    // `notifications/cancelled` ends any tool promptly; a backend call already running on
    // its worker finishes there and its result is dropped.
    let result = tokio::select! {
        r = dispatch(ctx, name, args) => r,
        _ = ctx.cancel.cancelled() => Err(axgate_engine::AxError::Cancelled.into()),
    };
    match result {
        // `assert` answers a failed check as an error result with its checks in the text.
        Ok(r) if r.is_error == Some(true) && name == wait::ASSERT.name => (r, "assert_failed"),
        Ok(r) if r.is_error == Some(true) => (r, "tool_error"),
        Ok(r) => (r, "ok"),
        Err(e) => {
            let outcome = e.outcome();
            if let ToolError::Ax(axgate_engine::AxError::AppDenied { denial, .. }) = &e {
                *ctx.denied_by
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(denial.rule.clone());
            }
            (tool_error(sessionless_hint(ctx, e)), outcome)
        }
    }
}

/// On the sessionless path a handle cannot come from an earlier request: say so, and what
/// works instead, rather than suggesting the handle was evicted.
fn sessionless_hint(ctx: &ToolCtx, error: ToolError) -> ToolError {
    match error {
        ToolError::Ax(axgate_engine::AxError::UnknownHandle { handle }) if ctx.sessionless => {
            ToolError::Usage(format!(
                "unknown handle {handle}: handles do not outlive a sessionless (2026-07-28) \
                 request. Name the element by its path (from find or get_tree), or initialize \
                 a 2025-11-25 session to keep handles"
            ))
        }
        other => other,
    }
}

/// A tool's future, boxed: the dispatcher's own future is then a pointer, not the largest of
/// 34 tools' state machines, which every future holding it (rmcp's request task among them)
/// would carry and copy (docs/PERFORMANCE.md, "Core under load").
type Running<'a> = Pin<Box<dyn Future<Output = Result<CallToolResult, ToolError>> + Send + 'a>>;

fn dispatch<'a>(ctx: &'a ToolCtx, name: &str, args: JsonObject) -> Running<'a> {
    match name {
        "list_apps" => Box::pin(async move {
            no_args(args)?;
            apps::list_apps(ctx).await
        }),
        "list_windows" => Box::pin(apps::list_windows(ctx, args)),
        "get_tree" => Box::pin(tree::get_tree(ctx, args)),
        "find" => Box::pin(tree::find(ctx, args)),
        "get_element" => Box::pin(query::get_element(ctx, args)),
        "get_focused" => Box::pin(query::get_focused(ctx, args)),
        "element_at" => Box::pin(query::element_at(ctx, args)),
        "perform_action" => Box::pin(act::perform_action(ctx, args)),
        "click" => Box::pin(act::click(ctx, args)),
        "select_option" => Box::pin(choose::select_option(ctx, args)),
        "set_value" => Box::pin(input::set_value(ctx, args)),
        "type_text" => Box::pin(input::type_text(ctx, args)),
        "press_key" => Box::pin(input::press_key(ctx, args)),
        "scroll" => Box::pin(input::scroll(ctx, args)),
        "drag" => Box::pin(input::drag(ctx, args)),
        "focus" => Box::pin(act::focus(ctx, args)),
        "launch_app" => Box::pin(system::launch_app(ctx, args)),
        "quit_app" => Box::pin(system::quit_app(ctx, args)),
        "activate_app" => Box::pin(system::activate_app(ctx, args)),
        "window_action" => Box::pin(system::window_action(ctx, args)),
        "list_menus" => Box::pin(choose::list_menus(ctx, args)),
        "select_menu" => Box::pin(choose::select_menu(ctx, args)),
        "read_clipboard" => Box::pin(async move {
            no_args(args)?;
            system::read_clipboard(ctx).await
        }),
        "write_clipboard" => Box::pin(system::write_clipboard(ctx, args)),
        "screenshot" => Box::pin(system::screenshot(ctx, args)),
        "wait_for" => Box::pin(wait::wait_for(ctx, args)),
        "wait_idle" => Box::pin(wait::wait_idle(ctx, args)),
        "assert" => Box::pin(wait::assert(ctx, args)),
        "diff" => Box::pin(wait::diff(ctx, args)),
        "lease_app" => Box::pin(session::lease_app(ctx, args)),
        "release_app" => Box::pin(session::release_app(ctx, args)),
        "session_info" => Box::pin(async move {
            no_args(args)?;
            session::session_info(ctx).await
        }),
        "list_sessions" => Box::pin(async move {
            no_args(args)?;
            admin::list_sessions(ctx).await
        }),
        "end_session" => Box::pin(admin::end_session(ctx, args)),
        "set_draining" => Box::pin(admin::set_draining(ctx, args)),
        other => {
            let error = ToolError::Usage(format!("unknown tool {other}"));
            Box::pin(async move { Err(error) })
        }
    }
}

/// Tools without arguments refuse unexpected ones too.
fn no_args(args: JsonObject) -> Result<(), ToolError> {
    match args.keys().next() {
        None => Ok(()),
        Some(k) => Err(ToolError::Usage(format!(
            "unexpected argument `{k}`: this tool takes none"
        ))),
    }
}

/// Deserialises arguments, naming the offending field on failure.
pub fn parse_args<T: DeserializeOwned>(args: JsonObject) -> Result<T, ToolError> {
    let value = Value::Object(args);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = in_words(&e.into_inner().to_string());
        if path == "." {
            ToolError::Usage(format!(
                "invalid arguments: {inner}. Fix the arguments and call again"
            ))
        } else {
            ToolError::Usage(format!(
                "invalid argument `{path}`: {inner}. Fix it and call again"
            ))
        }
    })
}

/// serde's messages name Rust types (`expected u32`); a client's user reads JSON, so the
/// types are said in words.
fn in_words(message: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number of 0 or more"),
        ("u64", "a whole number of 0 or more"),
        ("usize", "a whole number of 0 or more"),
        ("i32", "a whole number"),
        ("i64", "a whole number"),
        ("f32", "a number"),
        ("f64", "a number"),
    ];
    let mut out = message.to_owned();
    for (rust, words) in WORDS {
        let from = format!("expected {rust}");
        // Only the whole type name (`expected u32`, not `expected u32x`).
        while let Some(at) = out.find(&from).filter(|&at| {
            !out[at + from.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        }) {
            out.replace_range(at..at + from.len(), &format!("expected {words}"));
        }
    }
    out
}

/// A successful result: compact text for models plus `structuredContent`. An absent
/// optional field is omitted, never `null`: the output schemas have no nullable types
/// (`schema.rs`).
pub fn structured(text: String, value: &impl serde::Serialize) -> CallToolResult {
    fn drop_nulls(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.retain(|_, v| !v.is_null());
                map.values_mut().for_each(drop_nulls);
            }
            Value::Array(items) => items.iter_mut().for_each(drop_nulls),
            _ => {}
        }
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = serde_json::to_value(value).ok().map(|mut v| {
        drop_nulls(&mut v);
        v
    });
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Depth {
        depth: Option<u32>,
    }

    #[test]
    fn argument_errors_name_types_in_words() {
        let args = |v: Value| v.as_object().cloned().expect("object");
        let err = parse_args::<Depth>(args(serde_json::json!({"depth": "ten"}))).unwrap_err();
        let text = err.to_string();
        assert_eq!(
            text,
            "invalid argument `depth`: invalid type: string \"ten\", expected a whole number \
             of 0 or more. Fix it and call again"
        );
        let err = parse_args::<Depth>(args(serde_json::json!({"depth": -1}))).unwrap_err();
        assert!(
            err.to_string()
                .contains("expected a whole number of 0 or more"),
            "{err}"
        );
        assert_eq!(in_words("expected u32x"), "expected u32x");
    }
}
