//! The tool registry: each tool's wire definition (title, description, annotations, input
//! and output schemas) and its dispatch. Arguments are validated here, not by rmcp's
//! `Parameters<T>`, so that a bad argument is an `isError` result naming the field (the
//! 2025-11-25 rule) instead of a JSON-RPC −32602.

/// A tool's [`Io`] from its handler's types: `typed!(handler, Args, Out)`, or
/// `typed!(handler, Args)` for a tool without structured output. The handler takes its
/// arguments parsed (`async fn handler(ctx: &ToolCtx, args: Args) -> ToolResult`): they are
/// parsed in [`typed_run`], once for every tool.
macro_rules! typed {
    ($handler:ident, $args:ty $(, $out:ty)?) => {
        $crate::mcp::tools::Io {
            input: $crate::mcp::tools::input_schema::<$args>,
            output: typed!(@out $($out)?),
            run: |ctx, args| $crate::mcp::tools::typed_run(ctx, args, $handler),
        }
    };
    (@out) => { None };
    (@out $out:ty) => { Some($crate::mcp::tools::output_schema::<$out>) };
}

mod act;
mod admin;
mod app_arg;
mod apps;
mod choose;
mod clipboard;
mod cursor;
mod input;
mod lifecycle;
mod pages;
mod query;
mod receivers;
mod schema;
mod screenshot;
mod secret_arg;
mod session;
mod skipped;
mod target;
mod tree;
mod wait;
mod windows;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
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

/// Whether a request may run a tool as a task (the tasks extension, `mcp/tasks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answered in its own request.
    Never,
    /// Run as a task when the request asks for one: a tool whose call may outlast a
    /// client's patience (waits, launches, big reads).
    Optional,
}

/// How a tool's call is written to the audit trail (its arguments are redacted by
/// `audit::redact_args` whatever this says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuditShape {
    /// The argument naming the element acted on, which becomes the line's `target`: `target`
    /// for most tools, `from` for `drag`.
    pub element: &'static str,
}

/// The audit shape of a tool whose element is its `target` argument.
pub const BY_TARGET: AuditShape = AuditShape { element: "target" };

/// What an error result of a tool counts as for metrics and logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A tool error (`tool_error`).
    Error,
    /// The "no" a test asked about (`assert_failed`): a red suite, not a broken Mac.
    Assertion,
}

/// A tool's future, boxed: the dispatcher's own future is then a pointer, not the largest of
/// 35 tools' state machines, which every future holding it (rmcp's request task among them)
/// would carry and copy (docs/PERFORMANCE.md, "Core under load").
pub type Running<'a> = Pin<Box<dyn Future<Output = Result<CallToolResult, ToolError>> + Send + 'a>>;

/// What runs a tool: its context and its (unvalidated) arguments.
pub type Handler = for<'a> fn(&'a ToolCtx, JsonObject) -> Running<'a>;

/// What a tool's handler returns.
pub type ToolResult = Result<CallToolResult, ToolError>;

/// What a tool takes, gives and runs: its input and output schemas and its handler, all from
/// the handler's types ([`typed!`]).
pub struct Io {
    pub input: fn() -> Arc<JsonObject>,
    pub output: Option<fn() -> Arc<JsonObject>>,
    pub run: Handler,
}

/// Runs a handler that takes its arguments typed, parsing them first (an `isError` result
/// naming the field when they do not parse).
fn typed_run<'a, A, F, Fut>(ctx: &'a ToolCtx, args: JsonObject, handler: F) -> Running<'a>
where
    A: Args + Send + 'a,
    F: FnOnce(&'a ToolCtx, A) -> Fut + Send + 'a,
    Fut: Future<Output = ToolResult> + Send + 'a,
{
    Box::pin(async move { handler(ctx, A::parse(args)?).await })
}

/// A tool's arguments, read from the call's JSON object.
pub(super) trait Args: Sized {
    fn parse(args: JsonObject) -> Result<Self, ToolError>;
}

impl<T: DeserializeOwned> Args for T {
    fn parse(args: JsonObject) -> Result<Self, ToolError> {
        parse_args(args)
    }
}

/// The arguments of a tool that takes none: it refuses unexpected ones too.
#[derive(JsonSchema)]
pub(super) struct NoArgs {}

impl Args for NoArgs {
    fn parse(args: JsonObject) -> Result<Self, ToolError> {
        match args.keys().next() {
            None => Ok(NoArgs {}),
            Some(k) => Err(ToolError::Usage(format!(
                "unexpected argument `{k}`: this tool takes none"
            ))),
        }
    }
}

/// How a tool behaves, apart from what it is called and runs: the part of its record that
/// tools share. Most records name one of the constants; a tool that differs says how
/// (`Profile::READ.optional_task()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    pub effect: Effect,
    pub idempotent: bool,
    /// Whether its own purpose can destroy state a user may want back (`destructiveHint`):
    /// quitting an app (with `force`, unsaved work), closing a window, ending another
    /// client's session. The other acting tools are not: what they change is what their
    /// target is, and a destructive target (a Delete button, a key that presses one) goes
    /// through the confirmation decision point (`mcp/confirm`) whatever tool reaches it.
    pub destructive: bool,
    pub task: TaskSupport,
    pub audit: AuditShape,
    pub failure: Failure,
    /// Whether a call takes a lease, so the server first records the session's owner in the
    /// lease book (leases are the session's and end with it).
    pub leases: bool,
}

impl Profile {
    /// A read: idempotent, answered in its request, audited only when denied.
    pub const READ: Profile = Profile {
        effect: Effect::Read,
        idempotent: true,
        destructive: false,
        task: TaskSupport::Never,
        audit: BY_TARGET,
        failure: Failure::Error,
        leases: false,
    };
    /// An act on the UI or the apps.
    pub const ACT: Profile = Profile {
        effect: Effect::Act,
        idempotent: false,
        ..Profile::READ
    };
    /// Administering the server's sessions.
    pub const ADMIN: Profile = Profile {
        effect: Effect::Admin,
        idempotent: false,
        ..Profile::READ
    };
    /// Reading the server's own state.
    pub const ADMIN_READ: Profile = Profile {
        effect: Effect::AdminRead,
        ..Profile::READ
    };

    /// With `idempotent` as given.
    pub const fn idempotent(self, idempotent: bool) -> Profile {
        Profile { idempotent, ..self }
    }

    /// Destructive (`destructiveHint`).
    pub const fn destructive(self) -> Profile {
        Profile {
            destructive: true,
            ..self
        }
    }

    /// Run as a task when the request asks for one.
    pub const fn optional_task(self) -> Profile {
        Profile {
            task: TaskSupport::Optional,
            ..self
        }
    }

    /// Taking a lease.
    pub const fn leases(self) -> Profile {
        Profile {
            leases: true,
            ..self
        }
    }

    /// Audited with `element` as the argument naming the element acted on.
    pub const fn audit(self, element: &'static str) -> Profile {
        Profile {
            audit: AuditShape { element },
            ..self
        }
    }

    /// With the error results counted as `failure`.
    pub const fn failure(self, failure: Failure) -> Profile {
        Profile { failure, ..self }
    }
}

/// One record per tool: everything the server needs to list, admit, dispatch, run as a task,
/// audit and count a call of it. Every list keyed by tool name derives from these records; a
/// tool is added by writing its record and naming it in [`all`]. A family file writes each
/// tool's argument and result types, its handler (taking its arguments typed), then its record
/// (`io: typed!(handler, Args, Out)`).
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub profile: Profile,
    pub io: Io,
}

impl ToolDef {
    pub fn to_wire(&self) -> Tool {
        // The title is the tool's own `title` (2025-06-18 on), not repeated here. A hint is
        // sent only where it differs from the spec's default (read-only false, destructive
        // true, idempotent false, open world true): a client reads an absent hint as the
        // default, and the list is read by a model on every session (docs/TOOLS.md).
        // The tools act on the local desktop, a closed world.
        let mut annotations = ToolAnnotations::new().open_world(false);
        if self.profile.effect.reads_only() {
            annotations = annotations.read_only(true);
        } else {
            // The spec gives these meaning only for a tool that changes something.
            if !self.profile.destructive {
                annotations = annotations.destructive(false);
            }
            if self.profile.idempotent {
                annotations = annotations.idempotent(true);
            }
        }
        let mut tool = Tool::new(self.name, self.description, (self.io.input)())
            .with_title(self.title)
            .with_annotations(annotations);
        if let Some(output) = self.io.output {
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
        &lifecycle::LAUNCH_APP,
        &lifecycle::QUIT_APP,
        &lifecycle::ACTIVATE_APP,
        &windows::WINDOW_ACTION,
        &choose::LIST_MENUS,
        &choose::SELECT_MENU,
        &clipboard::READ_CLIPBOARD,
        &clipboard::WRITE_CLIPBOARD,
        &screenshot::SCREENSHOT,
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
pub async fn call(
    ctx: &ToolCtx,
    def: &ToolDef,
    args: JsonObject,
) -> (CallToolResult, &'static str) {
    // `notifications/cancelled` ends any tool promptly; a backend call already running on
    // its worker finishes there and its result is dropped.
    let result = tokio::select! {
        r = (def.io.run)(ctx, args) => r,
        _ = ctx.cancel.cancelled() => Err(axgate_engine::AxError::Cancelled.into()),
    };
    match result {
        // `assert` answers a failed check as an error result with its checks in the text.
        Ok(r) if r.is_error == Some(true) => match def.profile.failure {
            Failure::Assertion => (r, "assert_failed"),
            Failure::Error => (r, "tool_error"),
        },
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
        ToolError::Ax(axgate_engine::AxError::UnknownHandle { handle }) if ctx.sessionless() => {
            ToolError::Usage(format!(
                "unknown handle {handle}: handles do not outlive a sessionless (2026-07-28) \
                 request. Name the element by its path (from find or get_tree), or initialize \
                 a 2025-11-25 session to keep handles"
            ))
        }
        other => other,
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

    /// Every tool's record is whole and consistent: the compiler holds that every field is
    /// set; this holds what it cannot.
    #[test]
    fn every_tool_record_is_consistent() {
        let tools = all();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "tool names are unique");
        let mut unruled = Vec::new();
        let mut used = std::collections::BTreeSet::new();
        for def in &tools {
            let name = def.name;
            assert!(
                !def.title.is_empty() && !def.description.is_empty(),
                "{name}: words"
            );
            assert!(
                !def.profile.destructive || !def.profile.effect.reads_only(),
                "{name}: only a tool that changes something is destructive"
            );
            assert!(
                def.profile.failure == Failure::Error || def.profile.effect.reads_only(),
                "{name}: an assertion reads"
            );
            assert!(
                !def.profile.leases || def.profile.effect == Effect::Act,
                "{name}: a lease is an act"
            );
            let schema = (def.io.input)();
            let properties = schema
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if def.profile.audit != BY_TARGET {
                assert!(
                    properties.contains_key(def.profile.audit.element),
                    "{name}: its audit element `{}` is one of its arguments",
                    def.profile.audit.element
                );
            }
            // A tool that changes something is audited with its arguments redacted: every
            // argument must have a rule there, so a new one is never written by accident.
            if !def.profile.effect.reads_only() {
                used.extend(properties.keys().cloned());
                unruled.extend(
                    properties
                        .keys()
                        .filter(|a| !crate::audit::has_rule(a))
                        .map(|a| format!("{name}.{a}")),
                );
            }
            assert!(
                find_def(name).is_some_and(|d| std::ptr::eq(d, *def)),
                "{name}: found"
            );
        }
        assert!(find_def("no_such_tool").is_none());
        assert!(
            unruled.is_empty(),
            "arguments of tools that change something with no rule in audit/redact.rs: {unruled:?}"
        );
        let dead: Vec<&str> = crate::audit::ruled_names()
            .filter(|n| !used.contains(*n))
            .collect();
        assert!(
            dead.is_empty(),
            "rules in audit/redact.rs for no argument: {dead:?}"
        );
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
