//! Reading tools: `get_tree` (bounded traversal) and `find` (queries over the tree).

use rmcp::model::{CallToolResult, JsonObject};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, ToolDef, input_schema, output_schema, parse_args, structured};
use crate::ax::tree::{self, IndexedNode};
use crate::ax::{AppConnection, ElementPath, RawNode, Role, SnapshotRequest, Target};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::{FindOut, NodeOut, TreeOut};

const MAX_DEPTH: u32 = 64;
const MAX_NODES: usize = 20_000;
const FIND_BUDGET: usize = 50_000;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct TreeArgs {
    /// App name, bundle id or pid.
    app: String,
    /// Start here instead of the app: a path such as `window[0]` or a handle such as `e12`.
    #[serde(default)]
    root: Option<String>,
    /// Levels below the root to include (default 10, at most 64).
    #[serde(default)]
    depth: Option<u32>,
    /// Most nodes to walk (default 500, at most 20000).
    #[serde(default)]
    max_nodes: Option<usize>,
}

pub(super) static GET_TREE: ToolDef = ToolDef {
    name: "get_tree",
    title: "Read an app's UI tree",
    description: "Returns an app's accessibility tree, bounded by depth and a node budget, as \
                  compact lines `[role] \"label\" handle (x,y w×h) actions` plus structured nodes. \
                  Every node carries a path and a handle usable as `target` in other tools. \
                  Unlabelled single-child groups are collapsed.",
    effect: Effect::Read,
    idempotent: true,
    input: input_schema::<TreeArgs>,
    output: Some(output_schema::<TreeOut>),
};

pub(super) async fn get_tree(ctx: &ToolCtx, args: JsonObject) -> Result<CallToolResult, ToolError> {
    let args: TreeArgs = parse_args(args)?;
    let depth = args.depth.unwrap_or(10);
    let max_nodes = args.max_nodes.unwrap_or(500);
    if depth > MAX_DEPTH {
        return Err(ToolError::Usage(format!(
            "invalid argument `depth`: at most {MAX_DEPTH}"
        )));
    }
    if max_nodes == 0 || max_nodes > MAX_NODES {
        return Err(ToolError::Usage(format!(
            "invalid argument `max_nodes`: between 1 and {MAX_NODES}"
        )));
    }
    let conn = ctx
        .session
        .connections
        .open(&ctx.engine, &args.app, &ctx.stats)
        .await?;
    let (nodes, truncated) = walk(ctx, &conn, args.root.as_deref(), depth, max_nodes).await?;
    let walked = nodes.len();
    let mut out_nodes = Vec::new();
    let mut text = String::new();
    render(&nodes, 0, 0, &conn, &mut out_nodes, &mut text);
    if truncated {
        text.push_str("… truncated: raise depth or max_nodes, or start at a deeper root\n");
    }
    let out = TreeOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        nodes: out_nodes,
        truncated,
        walked,
        round_trips: ctx.stats.round_trips(),
    };
    Ok(structured(text, &out))
}

/// Snapshots from `root` (or the app) and indexes the result with paths.
async fn walk(
    ctx: &ToolCtx,
    conn: &AppConnection,
    root: Option<&str>,
    depth: u32,
    max_nodes: usize,
) -> Result<(Vec<IndexedNode>, bool), ToolError> {
    let (root_id, root_path) = match root {
        Some(text) => {
            let target = Target::parse(text)
                .map_err(|e| ToolError::Usage(format!("invalid argument `root`: {e}")))?;
            let resolved = conn.resolve(&ctx.engine, &target, &ctx.stats).await?;
            (Some(resolved.node.id), resolved.path)
        }
        None => (None, ElementPath::default()),
    };
    let request = SnapshotRequest {
        root: root_id,
        max_depth: depth,
        max_nodes,
    };
    let snapshot = ctx
        .engine
        .snapshot(&conn.app, request, ctx.engine.deadline(), &ctx.stats)
        .await?;
    let cut = snapshot.truncated;
    let nodes = tree::index(snapshot, &root_path);
    let truncated = cut
        || nodes
            .iter()
            .any(|n| n.depth == depth && n.node.child_count > 0);
    Ok((nodes, truncated))
}

/// Pre-order rendering that skips collapsible groups (their child takes their place).
fn render(
    nodes: &[IndexedNode],
    at: usize,
    shown_depth: u32,
    conn: &AppConnection,
    out: &mut Vec<NodeOut>,
    text: &mut String,
) {
    let n = &nodes[at];
    let next_depth = if tree::collapsible(n) {
        shown_depth
    } else {
        let handle = conn.mint(&n.node, &n.path);
        text.push_str(&"  ".repeat(shown_depth as usize));
        text.push_str(&tree::compact_line(&n.node, Some(&handle)));
        text.push('\n');
        out.push(NodeOut::new(
            &n.node,
            handle,
            n.path.to_string(),
            shown_depth,
        ));
        shown_depth + 1
    };
    for &c in &n.children {
        render(nodes, c, next_depth, conn, out, text);
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct FindArgs {
    /// App name, bundle id or pid.
    app: String,
    /// Normalised role to match exactly, such as `button` or `text_field`.
    #[serde(default)]
    role: Option<String>,
    /// Text the title contains (case-insensitive).
    #[serde(default)]
    title: Option<String>,
    /// Text that title, description, value or identifier contains (case-insensitive).
    #[serde(default)]
    text: Option<String>,
    /// Most matches to return (default 20, at most 500).
    #[serde(default)]
    max_results: Option<usize>,
}

pub(super) static FIND: ToolDef = ToolDef {
    name: "find",
    title: "Find elements",
    description: "Finds elements of an app by role, title or any text (case-insensitive \
                  contains), returning each match with its handle and path for later calls.",
    effect: Effect::Read,
    idempotent: true,
    input: input_schema::<FindArgs>,
    output: Some(output_schema::<FindOut>),
};

pub(super) async fn find(ctx: &ToolCtx, args: JsonObject) -> Result<CallToolResult, ToolError> {
    let args: FindArgs = parse_args(args)?;
    let role = match args.role.as_deref() {
        Some(name) => Some(Role::parse(name).ok_or_else(|| {
            let all: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
            ToolError::Usage(format!(
                "invalid argument `role`: unknown role {name:?}; roles are {}",
                all.join(", ")
            ))
        })?),
        None => None,
    };
    if role.is_none() && args.title.is_none() && args.text.is_none() {
        return Err(ToolError::Usage(
            "give at least one of `role`, `title` or `text` to find".into(),
        ));
    }
    let max_results = args.max_results.unwrap_or(20);
    if max_results == 0 || max_results > 500 {
        return Err(ToolError::Usage(
            "invalid argument `max_results`: between 1 and 500".into(),
        ));
    }
    let title = args.title.map(|t| t.to_lowercase());
    let text = args.text.map(|t| t.to_lowercase());
    let conn = ctx
        .session
        .connections
        .open(&ctx.engine, &args.app, &ctx.stats)
        .await?;
    let (nodes, cut) = walk(ctx, &conn, None, MAX_DEPTH, FIND_BUDGET).await?;
    let hits: Vec<&IndexedNode> = nodes
        .iter()
        .filter(|n| role.is_none_or(|r| n.node.role == r))
        .filter(|n| {
            title
                .as_deref()
                .is_none_or(|t| contains(n.node.title.as_deref(), t))
        })
        .filter(|n| text.as_deref().is_none_or(|t| any_text(&n.node, t)))
        .collect();
    let truncated = cut || hits.len() > max_results;
    let mut lines = String::new();
    let matches: Vec<NodeOut> = hits
        .iter()
        .take(max_results)
        .map(|n| {
            let handle = conn.mint(&n.node, &n.path);
            lines.push_str(&format!(
                "{} {}\n",
                tree::compact_line(&n.node, Some(&handle)),
                n.path
            ));
            NodeOut::new(&n.node, handle, n.path.to_string(), n.depth)
        })
        .collect();
    if matches.is_empty() {
        lines.push_str("no match; call get_tree to see what exists\n");
    } else if truncated {
        lines.push_str(&format!(
            "… {} matches in all; narrow the query or raise max_results\n",
            hits.len()
        ));
    }
    let out = FindOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        matches,
        truncated,
        searched: nodes.len(),
        round_trips: ctx.stats.round_trips(),
    };
    Ok(structured(lines, &out))
}

fn contains(haystack: Option<&str>, needle_lower: &str) -> bool {
    haystack.is_some_and(|h| h.to_lowercase().contains(needle_lower))
}

fn any_text(node: &RawNode, needle_lower: &str) -> bool {
    let value = node.visible_value().map(|v| v.to_string());
    contains(node.title.as_deref(), needle_lower)
        || contains(node.description.as_deref(), needle_lower)
        || contains(node.identifier.as_deref(), needle_lower)
        || contains(value.as_deref(), needle_lower)
}
