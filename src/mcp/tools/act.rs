//! Acting tools: `perform_action`, which checks the element first (exists, enabled,
//! supports the action), acts, and returns the element's state afterwards.

use rmcp::model::{CallToolResult, JsonObject};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, ToolDef, input_schema, output_schema, parse_args, structured};
use crate::ax::handles::describe;
use crate::ax::{AxError, Target, tree};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::{ActionOut, NodeOut};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ActionArgs {
    /// App name, bundle id or pid.
    app: String,
    /// The element: a path such as `window[0]/button["Save"]` or a handle such as `e12`.
    target: String,
    /// A normalised action name the element lists, such as `press`, `increment`, `show_menu`.
    action: String,
}

pub(super) static PERFORM_ACTION: ToolDef = ToolDef {
    name: "perform_action",
    title: "Perform an action on an element",
    description: "Performs a semantic accessibility action (press, increment, decrement, \
                  show_menu, confirm, cancel, …) on an element after checking that it exists, \
                  is enabled and supports the action. Returns the element's state afterwards.",
    effect: Effect::Act,
    idempotent: false,
    input: input_schema::<ActionArgs>,
    output: Some(output_schema::<ActionOut>),
};

pub(super) async fn perform_action(
    ctx: &ToolCtx,
    args: JsonObject,
) -> Result<CallToolResult, ToolError> {
    let args: ActionArgs = parse_args(args)?;
    let target = Target::parse(&args.target)
        .map_err(|e| ToolError::Usage(format!("invalid argument `target`: {e}")))?;
    let conn = ctx
        .session
        .connections
        .open(&ctx.engine, &args.app, &ctx.stats)
        .await?;
    let element = conn.resolve(&ctx.engine, &target, &ctx.stats).await?;
    let label = format!(
        "{} at {}",
        describe(element.node.role, element.node.title.as_deref()),
        element.path
    );
    if !element.node.states.enabled {
        return Err(AxError::Disabled { element: label }.into());
    }
    if !element.node.actions.iter().any(|a| a == &args.action) {
        return Err(AxError::UnsupportedAction {
            element: label,
            action: args.action,
            available: element.node.actions.clone(),
        }
        .into());
    }
    ctx.engine
        .perform_action(&conn.app, element.node.id, &args.action, &ctx.stats)
        .await?;
    // Re-read the element: the action may have changed it, or removed it (a menu item).
    let after = conn
        .resolve(&ctx.engine, &Target::Path(element.path.clone()), &ctx.stats)
        .await;
    let node = match after {
        Ok(r) if r.node.id == element.node.id => r.node,
        _ => element.node,
    };
    let handle = conn.mint(&node, &element.path);
    let text = format!(
        "{} {} → {}",
        args.action,
        element.path,
        tree::compact_line(&node, Some(&handle))
    );
    let out = ActionOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        action: args.action,
        element: NodeOut::new(&node, handle, element.path.to_string(), 0),
        round_trips: ctx.stats.round_trips(),
    };
    Ok(structured(text, &out))
}
