//! Synchronisation and verification tools: `wait_for` (a condition on a target or a query,
//! driven by the app's change events with polling only as a fallback), `wait_idle`,
//! `assert` (expected vs actual per property) and `diff` (changes since this session's last
//! picture of the app). Waits honour `notifications/cancelled` and report progress.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::app_arg::{App, AppArgs};
use super::target::{open_app, parse_target};
use super::{Failure, Profile, ToolDef, ToolResult, structured};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::{ChangeOut, NodeOut};
use axgate_engine::act::{Reach, next_event, picture};
use axgate_engine::diff::{diff as tree_diff, render};
use axgate_engine::{
    AppConnection, AxError, AxValue, ElementPath, RawNode, Resolved, SnapshotRequest, Target, tree,
};

/// Fallback poll interval when no event arrives.
const POLL: Duration = Duration::from_millis(250);
const MAX_TIMEOUT_MS: u64 = 300_000;

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
enum Condition {
    Exists,
    Gone,
    Enabled,
    Disabled,
    Focused,
    ValueEquals,
    ValueContains,
    // The accessible name equals `value`; `title_equals` is the old spelling.
    #[serde(alias = "title_equals")]
    NameEquals,
}

impl Condition {
    fn as_str(self) -> &'static str {
        match self {
            Condition::Exists => "exists",
            Condition::Gone => "gone",
            Condition::Enabled => "enabled",
            Condition::Disabled => "disabled",
            Condition::Focused => "focused",
            Condition::ValueEquals => "value_equals",
            Condition::ValueContains => "value_contains",
            Condition::NameEquals => "name_equals",
        }
    }
}

/// Which element a wait or assert looks at: a target, or the first match of a query.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
struct Query {
    /// Normalised role, such as `button`.
    #[serde(default)]
    role: Option<String>,
    // Text the accessible name contains (case-insensitive; docs/TOOLS.md, "Names"); `title`
    // is the old spelling. (Plain comment: schema bytes are paid for in every session.)
    #[serde(default, alias = "title")]
    name: Option<String>,
    /// Text any text field contains (any case).
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct WaitArgs {
    app: App,
    /// The element (path or handle), or give `query`.
    #[serde(default)]
    target: Option<String>,
    /// Or find the element by role and text.
    #[serde(default)]
    query: Option<Query>,
    condition: Condition,
    /// The text for value_equals, value_contains and name_equals.
    #[serde(default)]
    value: Option<String>,
    /// Default 5000.
    #[serde(default)]
    timeout_ms: Option<u64>,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct WaitOut {
    satisfied: bool,
    elapsed_ms: u64,
    /// What the condition saw last.
    actual: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    element: Option<NodeOut>,
}

/// The element now: `Ok(None)` when it does not exist.
async fn observe(
    ctx: &ToolCtx,
    conn: &AppConnection,
    target: &Option<Target>,
    query: &Query,
) -> Result<Option<Resolved>, ToolError> {
    if let Some(target) = target {
        return match conn.resolve(&ctx.engine, target, &ctx.stats).await {
            Ok(r) => Ok(Some(r)),
            Err(AxError::NotFound { .. } | AxError::Stale { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        };
    }
    let request = SnapshotRequest {
        root: None,
        max_depth: 64,
        max_nodes: 50_000,
        skip_children: 0,
    };
    let snapshot = ctx
        .engine
        .snapshot(&conn.app, request, ctx.engine.deadline(), &ctx.stats)
        .await?;
    let lower = |s: &Option<String>| s.as_ref().map(|s| s.to_lowercase());
    let (name, text) = (lower(&query.name), lower(&query.text));
    let has = |h: Option<&str>, n: &str| h.is_some_and(|h| h.to_lowercase().contains(n));
    let found = tree::index(snapshot, &ElementPath::default())
        .into_iter()
        .find(|n| {
            let node = &n.node;
            let value = node.visible_value().map(ToString::to_string);
            query
                .role
                .as_deref()
                .is_none_or(|r| node.role.as_str() == r)
                && name.as_deref().is_none_or(|t| has(node.label(), t))
                && text.as_deref().is_none_or(|t| {
                    has(node.label(), t)
                        || has(node.title.as_deref(), t)
                        || has(node.description.as_deref(), t)
                        || has(node.placeholder.as_deref(), t)
                        || has(node.help.as_deref(), t)
                        || has(node.identifier.as_deref(), t)
                        || has(value.as_deref(), t)
                })
        });
    Ok(found.map(|n| Resolved {
        node: n.node,
        path: n.path,
    }))
}

fn value_text(node: &RawNode) -> String {
    match node.visible_value() {
        Some(AxValue::Text(s)) => s.clone(),
        Some(v) => v.to_string(),
        None if node.states.secure => "•••".into(),
        None => String::new(),
    }
}

/// Whether the condition holds, and what was seen.
fn holds(condition: Condition, want: Option<&str>, seen: Option<&RawNode>) -> (bool, String) {
    let Some(node) = seen else {
        return (condition == Condition::Gone, "no such element".into());
    };
    let want = want.unwrap_or("");
    match condition {
        Condition::Exists => (true, "exists".into()),
        Condition::Gone => (false, "still exists".into()),
        Condition::Enabled => (
            node.states.enabled,
            format!("enabled={}", node.states.enabled),
        ),
        Condition::Disabled => (
            !node.states.enabled,
            format!("enabled={}", node.states.enabled),
        ),
        Condition::Focused => (
            node.states.focused,
            format!("focused={}", node.states.focused),
        ),
        Condition::ValueEquals => {
            let v = value_text(node);
            (!node.states.secure && v == want, format!("value {v:?}"))
        }
        Condition::ValueContains => {
            let v = value_text(node);
            (
                !node.states.secure && v.contains(want),
                format!("value {v:?}"),
            )
        }
        Condition::NameEquals => {
            let t = node.label().unwrap_or_default();
            (t == want, format!("name {t:?}"))
        }
    }
}

async fn wait_for(ctx: &ToolCtx, args: WaitArgs) -> ToolResult {
    let target = match (&args.target, &args.query) {
        (Some(t), None) => Some(parse_target("target", t)?),
        (None, Some(_)) => None,
        _ => {
            return Err(ToolError::Usage(
                "give exactly one of `target` or `query`".into(),
            ));
        }
    };
    let needs_value = matches!(
        args.condition,
        Condition::ValueEquals | Condition::ValueContains | Condition::NameEquals
    );
    if needs_value && args.value.is_none() {
        return Err(ToolError::Usage(format!(
            "condition {:?} needs `value`",
            args.condition
        )));
    }
    let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(5_000).min(MAX_TIMEOUT_MS));
    let query = args.query.unwrap_or_default();
    let conn = open_app(ctx, &args.app).await?;
    let mut events = ctx.engine.subscribe();
    let started = Instant::now();
    loop {
        let seen = observe(ctx, &conn, &target, &query).await?;
        let (ok, actual) = holds(
            args.condition,
            args.value.as_deref(),
            seen.as_ref().map(|r| &r.node),
        );
        let elapsed = started.elapsed();
        if ok || elapsed >= timeout {
            let element = seen.map(|r| {
                NodeOut::new(
                    &r.node,
                    ctx.handle(&conn, &r.node, &r.path),
                    r.path.to_string(),
                    0,
                )
            });
            let out = WaitOut {
                satisfied: ok,
                elapsed_ms: elapsed.as_millis() as u64,
                actual: actual.clone(),
                element,
            };
            if !ok {
                return Err(ToolError::WaitTimeout(format!(
                    "timed out after {} ms waiting for {}{}: last saw {actual}",
                    timeout.as_millis(),
                    args.condition.as_str(),
                    args.value
                        .as_deref()
                        .map(|v| format!(" {v:?}"))
                        .unwrap_or_default()
                )));
            }
            return Ok(structured(
                format!(
                    "{:?} holds after {} ms ({actual})",
                    args.condition, out.elapsed_ms
                ),
                &out,
            ));
        }
        ctx.report_progress(
            elapsed.as_millis() as f64,
            Some(timeout.as_millis() as f64),
            "waiting",
        )
        .await;
        let left = timeout - elapsed;
        tokio::select! {
            _ = next_event(&mut events, conn.app.pid, POLL.min(left)) => {}
            _ = ctx.cancel.cancelled() => return Err(AxError::Cancelled.into()),
        }
    }
}

pub(super) static WAIT_FOR: ToolDef = ToolDef {
    name: "wait_for",
    title: "Wait for a condition",
    description: "Waits until an element exists, is gone, enabled, focused, or has a value or title.",
    profile: Profile::READ.optional_task(),
    io: typed!(wait_for, WaitArgs, WaitOut),
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct IdleArgs {
    app: App,
    /// Quiet period in milliseconds (default 300).
    #[serde(default)]
    quiet_ms: Option<u64>,
    /// Give up after this many milliseconds (default 10000).
    #[serde(default)]
    timeout_ms: Option<u64>,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct IdleOut {
    idle: bool,
    elapsed_ms: u64,
    events_seen: u64,
}

async fn wait_idle(ctx: &ToolCtx, args: IdleArgs) -> ToolResult {
    let quiet = Duration::from_millis(args.quiet_ms.unwrap_or(300).clamp(10, 60_000));
    let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(10_000).min(MAX_TIMEOUT_MS));
    let conn = open_app(ctx, &args.app).await?;
    let mut events = ctx.engine.subscribe();
    let started = Instant::now();
    let mut seen = 0;
    loop {
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(ToolError::Usage(format!(
                "{} was still changing after {} ms ({seen} events)",
                conn.app.name,
                timeout.as_millis()
            )));
        }
        let event = tokio::select! {
            e = next_event(&mut events, conn.app.pid, quiet.min(left)) => e,
            _ = ctx.cancel.cancelled() => return Err(AxError::Cancelled.into()),
        };
        if !event && started.elapsed() < timeout {
            let out = IdleOut {
                idle: true,
                elapsed_ms: started.elapsed().as_millis() as u64,
                events_seen: seen,
            };
            return Ok(structured(
                format!("idle after {} ms ({seen} events)", out.elapsed_ms),
                &out,
            ));
        }
        if event {
            seen += 1;
        }
    }
}

pub(super) static WAIT_IDLE: ToolDef = ToolDef {
    name: "wait_idle",
    title: "Wait until the app is idle",
    description: "Waits until the app has sent no change event for a quiet period.",
    profile: Profile::READ.optional_task(),
    io: typed!(wait_idle, IdleArgs, IdleOut),
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct AssertArgs {
    app: App,
    /// The element (path or handle).
    target: String,
    #[serde(default)]
    exists: Option<bool>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    focused: Option<bool>,
    #[serde(default)]
    selected: Option<bool>,
    /// Expected value, compared as text.
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    value_contains: Option<String>,
    // Expected accessible name (docs/TOOLS.md, "Names"); `title` is the old spelling.
    #[serde(default, alias = "title")]
    name: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct CheckOut {
    property: String,
    expected: String,
    actual: String,
    pass: bool,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct AssertOut {
    pass: bool,
    checks: Vec<CheckOut>,
}

async fn assert(ctx: &ToolCtx, args: AssertArgs) -> ToolResult {
    let target = Some(parse_target("target", &args.target)?);
    let conn = open_app(ctx, &args.app).await?;
    let seen = observe(ctx, &conn, &target, &Query::default()).await?;
    let node = seen.as_ref().map(|r| &r.node);
    let mut checks = Vec::new();
    let mut check = |property: &str, expected: String, actual: String| {
        checks.push(CheckOut {
            pass: expected == actual,
            property: property.into(),
            expected,
            actual,
        });
    };
    let flag = |f: fn(&RawNode) -> bool| node.map_or("no element".to_owned(), |n| f(n).to_string());
    check(
        "exists",
        args.exists.unwrap_or(true).to_string(),
        node.is_some().to_string(),
    );
    if let Some(v) = args.enabled {
        check("enabled", v.to_string(), flag(|n| n.states.enabled));
    }
    if let Some(v) = args.focused {
        check("focused", v.to_string(), flag(|n| n.states.focused));
    }
    if let Some(v) = args.selected {
        check("selected", v.to_string(), flag(|n| n.states.selected));
    }
    if let Some(v) = &args.value {
        check(
            "value",
            v.clone(),
            node.map_or("no element".into(), value_text),
        );
    }
    if let Some(v) = &args.name {
        check(
            "name",
            v.clone(),
            node.map_or("no element".into(), |n| {
                n.label().unwrap_or_default().to_owned()
            }),
        );
    }
    if let Some(v) = &args.value_contains {
        let actual = node.map_or("no element".into(), value_text);
        let pass = actual.contains(v.as_str()) && !node.is_some_and(|n| n.states.secure);
        checks.push(CheckOut {
            property: "value_contains".into(),
            expected: v.clone(),
            actual,
            pass,
        });
    }
    let pass = checks.iter().all(|c| c.pass);
    let text: String = checks
        .iter()
        .map(|c| {
            format!(
                "{} {}: expected {:?}, actual {:?}\n",
                if c.pass { "ok  " } else { "FAIL" },
                c.property,
                c.expected,
                c.actual
            )
        })
        .collect();
    let mut result = structured(text, &AssertOut { pass, checks });
    if !pass {
        result.is_error = Some(true);
        result.structured_content = None;
    }
    Ok(result)
}

pub(super) static ASSERT: ToolDef = ToolDef {
    name: "assert",
    title: "Assert element properties",
    description: "Checks an element's properties; a failed check is an error result.",
    profile: Profile::READ.failure(Failure::Assertion),
    io: typed!(assert, AssertArgs, AssertOut),
};

#[derive(Serialize, JsonSchema)]
pub(super) struct DiffOut {
    app: String,
    /// False on the first call, which only takes the baseline.
    had_baseline: bool,
    changes: Vec<ChangeOut>,
    nodes: usize,
}

async fn diff(ctx: &ToolCtx, args: AppArgs) -> ToolResult {
    ctx.needs_session(
        "diff",
        "it compares with this session's last picture of the app",
    )?;
    let conn = open_app(ctx, &args.app).await?;
    let now = picture(&ctx.engine, &conn.app, &Reach::app(), &ctx.stats).await?;
    let nodes = now.len();
    let before = conn.swap_baseline(now.clone());
    let (text, changes) = match &before {
        None => (
            "baseline taken; call diff again after the app changes\n".to_owned(),
            Vec::new(),
        ),
        Some(b) => {
            let changes = tree_diff(b, &now);
            let text = if changes.is_empty() {
                "no changes\n".to_owned()
            } else {
                render(&changes)
            };
            (text, changes)
        }
    };
    let out = DiffOut {
        app: conn.app.name.clone(),
        had_baseline: before.is_some(),
        changes: changes.iter().map(ChangeOut::from).collect(),
        nodes,
    };
    Ok(structured(text, &out))
}

pub(super) static DIFF: ToolDef = ToolDef {
    name: "diff",
    title: "Changes since the last look",
    description: "What changed since this session's last diff of the app.",
    profile: Profile::READ.idempotent(false),
    io: typed!(diff, AppArgs, DiffOut),
};
