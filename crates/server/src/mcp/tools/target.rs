//! What every element tool does around its own work: resolve `app` + `target`, check a
//! write may happen (lease, enabled), and build the verified result — the element's state
//! afterwards plus the diff of what changed.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;

use super::structured;
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::{ActOut, ChangeOut, NodeOut};
use axgate_engine::act::{Reach, act_and_observe};
use axgate_engine::connection::read_node;
use axgate_engine::diff::{Change, render};
use axgate_engine::handles::describe;
use axgate_engine::ladder::Rung;
use axgate_engine::{AppConnection, AppInfo, AxError, Resolved, Target, tree};

/// How long an act waits for its effect by default.
pub(super) const VERIFY_WAIT: Duration = Duration::from_millis(1500);

/// Runs `act` on `app` and returns the changes it caused within `scope`, waiting up to
/// [`VERIFY_WAIT`] for them (`ax::act::act_and_observe` with the call's engine and stats).
pub(super) async fn observe<F, Fut>(
    ctx: &ToolCtx,
    app: &AppInfo,
    scope: &Reach,
    act: F,
) -> Result<Vec<Change>, AxError>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<(), AxError>>,
{
    act_and_observe(&ctx.engine, app, scope, &ctx.stats, VERIFY_WAIT, act).await
}

/// An app connection and a resolved element in it.
pub(super) struct Located {
    pub(super) conn: Arc<AppConnection>,
    pub(super) element: Resolved,
}

impl Located {
    /// `button "Save" at window[0]/button[0]`.
    pub(super) fn label(&self) -> String {
        let n = &self.element.node;
        format!("{} at {}", describe(n), self.element.path)
    }

    pub(super) async fn scope(&self, ctx: &ToolCtx) -> Result<Reach, ToolError> {
        Ok(Reach::of(&ctx.engine, &self.conn.app, &self.element, &ctx.stats).await?)
    }
}

pub(super) fn parse_target(field: &str, text: &str) -> Result<Target, ToolError> {
    Target::parse(text).map_err(|e| ToolError::Usage(format!("invalid argument `{field}`: {e}")))
}

/// This session's connection to `app` (a name, bundle id or pid), opened on first use.
pub(super) async fn open_app(ctx: &ToolCtx, app: &str) -> Result<Arc<AppConnection>, ToolError> {
    Ok(ctx
        .session
        .connections
        .open(&ctx.engine, app, &ctx.stats)
        .await?)
}

/// Resolves `target` in `app` for reading.
pub(super) async fn locate(ctx: &ToolCtx, app: &str, target: &str) -> Result<Located, ToolError> {
    let target = parse_target("target", target)?;
    let conn = open_app(ctx, app).await?;
    let element = conn.resolve(&ctx.engine, &target, &ctx.stats).await?;
    Ok(Located { conn, element })
}

/// Resolves `target` for a write: no other session's lease, and the element is enabled.
pub(super) async fn locate_for_write(
    ctx: &ToolCtx,
    app: &str,
    target: &str,
) -> Result<Located, ToolError> {
    let located = locate(ctx, app, target).await?;
    ctx.engine
        .check_write(&located.conn.app, &ctx.session.owner)?;
    if !located.element.node.states.enabled {
        return Err(AxError::Disabled {
            element: located.label(),
        }
        .into());
    }
    Ok(located)
}

/// The verified result of an act: the element re-read, the changes, the rung used.
pub(super) async fn acted(
    ctx: &ToolCtx,
    located: &Located,
    tool: &str,
    changes: Vec<Change>,
    rung: Option<Rung>,
) -> CallToolResult {
    let outcome = Outcome {
        changes,
        rung,
        late: false,
        unseen: None,
    };
    acted_as(ctx, located, tool, outcome).await
}

/// What an act came to, for [`acted_as`].
pub(super) struct Outcome {
    pub(super) changes: Vec<Change>,
    pub(super) rung: Option<Rung>,
    /// The effect showed only after the rung's wait.
    pub(super) late: bool,
    /// Said instead of the default line when no effect is visible.
    pub(super) unseen: Option<String>,
}

/// The verified result of an act, with what the ladder adds.
pub(super) async fn acted_as(
    ctx: &ToolCtx,
    located: &Located,
    tool: &str,
    outcome: Outcome,
) -> CallToolResult {
    let Outcome {
        changes,
        rung,
        late,
        unseen,
    } = outcome;
    let path = &located.element.path;
    let id = located.element.node.id;
    // Without an element added or removed the element is where it was: read it by id. After
    // a structural change its path is walked again, and only the same element is accepted.
    let structural = changes
        .iter()
        .any(|c| matches!(c, Change::Added(_) | Change::Removed(_)));
    let after = if structural {
        located
            .conn
            .resolve(&ctx.engine, &Target::Path(path.clone()), &ctx.stats)
            .await
            .map(|r| r.node)
    } else {
        read_node(&ctx.engine, &located.conn.app, id, &ctx.stats).await
    };
    let (node, gone) = match after {
        Ok(node) if node.id == id => (node, false),
        _ => (located.element.node.clone(), true),
    };
    let handle = ctx.handle(&located.conn, &node, path);
    let verified = !changes.is_empty();
    let mut text = format!("{tool} {path}");
    if let Some(r) = rung {
        text.push_str(&format!(" (rung: {})", r.as_str()));
    }
    text.push('\n');
    if gone {
        text.push_str("the element is gone now (closed or replaced)\n");
    } else {
        text.push_str(&tree::compact_line(&node, handle.as_deref()));
        text.push('\n');
    }
    if late {
        text.push_str("the effect came late, after the rung's wait; no other rung ran\n");
    }
    if verified {
        text.push_str(&render(&changes));
    } else if let Some(unseen) = unseen {
        text.push_str(&unseen);
        text.push('\n');
    } else {
        text.push_str(
            "no observable effect yet: check with get_element or wait_for before relying on it\n",
        );
    }
    let out = ActOut {
        app: located.conn.app.name.clone(),
        pid: located.conn.app.pid,
        tool: tool.to_owned(),
        element: NodeOut::new(&node, handle, path.to_string(), 0),
        element_gone: gone,
        verified,
        rung: rung.map(|r| r.as_str().to_owned()),
        changes: changes.iter().map(ChangeOut::from).collect(),
        round_trips: ctx.stats.round_trips(),
    };
    structured(text, &out)
}
