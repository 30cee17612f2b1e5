//! Reading tools: `get_tree` (bounded traversal with filters and a cursor) and `find`
//! (queries over the tree by role, accessible name or one naming field, value, identifier
//! or any text).

use std::time::{Duration, Instant};

use regex::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

use super::app_arg::App;
use super::cursor::Frontier;
use super::pages;
use super::target::{open_app, parse_target};
use super::{Profile, ToolDef, ToolResult, structured};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::{FindOut, NodeOut, TreeOut};
use axgate_engine::tree::{self, IndexedNode};
use axgate_engine::{AppConnection, ElementPath, RawNode, Role, SnapshotRequest};

const MAX_DEPTH: u32 = 64;
const MAX_NODES: usize = 20_000;
const FIND_BUDGET: usize = 50_000;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct TreeArgs {
    app: App,
    /// Start at this element (path or handle).
    #[serde(default)]
    root: Option<String>,
    /// Levels below the root (default 10, at most 64).
    #[serde(default)]
    depth: Option<u32>,
    /// Most nodes to walk (default 500, at most 20000).
    #[serde(default)]
    max_nodes: Option<usize>,
    /// Walk time limit (default: the backend call timeout).
    #[serde(default)]
    deadline_ms: Option<u64>,
    /// Show only these roles.
    #[serde(default)]
    roles: Option<Vec<String>>,
    #[serde(default)]
    visible_only: bool,
    /// Show only elements a user acts on.
    #[serde(default)]
    interactive_only: bool,
    /// The previous result's `next_cursor`.
    #[serde(default)]
    cursor: Option<String>,
    /// End each line with the element's frame `(x,y w×h)`.
    #[serde(default)]
    frames: bool,
    /// Also return `nodes`: each element structured, with its path.
    #[serde(default)]
    nodes: bool,
}

/// Filters on what a rendering shows.
struct Show {
    roles: Option<Vec<Role>>,
    visible_only: bool,
    interactive_only: bool,
}

impl Show {
    fn wants(&self, n: &RawNode) -> bool {
        self.roles.as_ref().is_none_or(|r| r.contains(&n.role))
            && (!self.visible_only || n.states.visible)
            && (!self.interactive_only || n.role.is_interactive())
    }
}

pub(super) fn parse_roles(names: &[String]) -> Result<Vec<Role>, ToolError> {
    names
        .iter()
        .map(|name| {
            Role::parse(name).ok_or_else(|| {
                let all: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
                ToolError::Usage(format!(
                    "invalid argument `roles`: unknown role {name:?}; roles are {}",
                    all.join(", ")
                ))
            })
        })
        .collect()
}

async fn get_tree(ctx: &ToolCtx, args: TreeArgs) -> ToolResult {
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
    let show = Show {
        roles: args.roles.as_deref().map(parse_roles).transpose()?,
        visible_only: args.visible_only,
        interactive_only: args.interactive_only,
    };
    let frontier = args.cursor.as_deref().map(Frontier::decode).transpose()?;
    let deadline = args
        .deadline_ms
        .map(|ms| Instant::now() + Duration::from_millis(ms.max(1)))
        .unwrap_or_else(|| ctx.engine.deadline())
        .min(ctx.engine.deadline());
    let conn = open_app(ctx, &args.app).await?;
    let depth = match &frontier {
        Some(f) => {
            f.check(conn.app.pid, args.depth, args.root.as_deref())?;
            f.depth()
        }
        None => depth,
    };
    ctx.report_progress(0.0, Some(1.0), "walking").await;
    let bounds = pages::Bounds {
        depth,
        max_nodes,
        deadline,
        detail: pages::Detail {
            frames: args.frames,
            nodes: args.nodes,
        },
    };
    let mut page = pages::read(ctx, &conn, args.root.as_deref(), frontier.as_ref(), bounds).await?;
    let walked = page.walked;
    let skipped = std::mem::take(&mut page.skipped);
    let shown = page.render(
        |n| show.wants(&n.node),
        |n| ctx.handle(&conn, &n.node, &n.path),
    );
    let mut text = shown.text;
    let truncated = shown.next_cursor.is_some() || shown.deeper;
    if shown.full {
        text.push_str("… result size limit reached: pass next_cursor as `cursor` to continue\n");
    } else if shown.next_cursor.is_some() {
        text.push_str("… budget or deadline reached: pass next_cursor as `cursor` to continue\n");
    } else if truncated {
        text.push_str("… deeper levels left out: raise depth, or start at a deeper root\n");
    }
    if !skipped.is_empty() {
        text.push_str(&format!(
            "… left out, the app did not answer for them (read them again later): {}\n",
            skipped.join("; ")
        ));
    }
    ctx.report_progress(1.0, Some(1.0), "done").await;
    let out = TreeOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        nodes: shown.nodes,
        truncated,
        next_cursor: shown.next_cursor,
        walked,
        round_trips: ctx.stats.round_trips(),
    };
    Ok(structured(text, &out))
}

pub(super) static GET_TREE: ToolDef = ToolDef {
    name: "get_tree",
    title: "Read an app's UI tree",
    description: "An app's UI tree as compact lines; `next_cursor` continues it.",
    profile: Profile::READ.optional_task(),
    io: typed!(get_tree, TreeArgs, TreeOut),
};

pub(super) struct Walk {
    pub(super) nodes: Vec<IndexedNode>,
    /// The node budget or the deadline cut the walk short.
    pub(super) cut: bool,
}

/// Snapshots from `root` (or the app) and indexes the result with paths.
pub(super) async fn walk(
    ctx: &ToolCtx,
    conn: &AppConnection,
    root: Option<&str>,
    depth: u32,
    max_nodes: usize,
    deadline: Instant,
) -> Result<Walk, ToolError> {
    let (root_id, root_path) = match root {
        Some(text) => {
            let target = parse_target("root", text)?;
            let resolved = conn.resolve(&ctx.engine, &target, &ctx.stats).await?;
            (Some(resolved.node.id), resolved.path)
        }
        None => (None, ElementPath::default()),
    };
    let request = SnapshotRequest {
        root: root_id,
        max_depth: depth,
        max_nodes,
        skip_children: 0,
    };
    let snapshot = ctx
        .engine
        .snapshot(&conn.app, request, deadline, &ctx.stats)
        .await?;
    let cut = snapshot.truncated;
    let nodes = tree::index(snapshot, &root_path);
    Ok(Walk { nodes, cut })
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Mode {
    #[default]
    Contains,
    Exact,
    Regex,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct FindArgs {
    app: App,
    /// Role to match exactly, such as `button`.
    #[serde(default)]
    role: Option<String>,
    // Pattern for the accessible name (docs/TOOLS.md, "Names"), or for the field `field`
    // picks; `title` is its old spelling. (Plain comments: every schema byte is paid for in
    // each session, see tests/it/tool_schemas.rs; docs/TOOLS.md says the rest.)
    #[serde(default, alias = "title")]
    name: Option<String>,
    // Which text `name` matches: the accessible name (default) or one raw field. The schema
    // says only "string" to stay within the tool list's byte budget; a bad value is refused
    // naming the valid ones.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    field: Option<Field>,
    /// Pattern for the value (not of secure fields).
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    identifier: Option<String>,
    /// Pattern for any text.
    #[serde(default)]
    text: Option<String>,
    /// How patterns match (default `contains`).
    #[serde(default)]
    mode: Mode,
    /// Match case (default: no).
    #[serde(default)]
    case_sensitive: bool,
    /// Search under this element (path or handle).
    #[serde(default)]
    root: Option<String>,
    /// Most matches (default 20, at most 500).
    #[serde(default)]
    max_results: Option<usize>,
}

// The text a `name` pattern matches: the accessible name, or one raw field. A bad value is
// refused by serde naming the valid ones.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Field {
    Name,
    Title,
    Description,
    Placeholder,
    Help,
    Identifier,
}

impl Field {
    const ALL: [Field; 6] = [
        Field::Name,
        Field::Title,
        Field::Description,
        Field::Placeholder,
        Field::Help,
        Field::Identifier,
    ];

    fn of(self, node: &RawNode) -> Option<&str> {
        match self {
            Field::Name => node.label(),
            Field::Title => node.title.as_deref(),
            Field::Description => node.description.as_deref(),
            Field::Placeholder => node.placeholder.as_deref(),
            Field::Help => node.help.as_deref(),
            Field::Identifier => node.identifier.as_deref(),
        }
    }
}

/// One compiled text pattern.
struct Pattern(Regex);

impl Pattern {
    fn new(
        field: &str,
        text: &str,
        mode: Mode,
        case_sensitive: bool,
    ) -> Result<Pattern, ToolError> {
        let source = match mode {
            Mode::Contains => regex::escape(text),
            Mode::Exact => format!("^{}$", regex::escape(text)),
            Mode::Regex => text.to_owned(),
        };
        RegexBuilder::new(&source)
            .case_insensitive(!case_sensitive)
            .size_limit(1 << 20)
            .build()
            .map(Pattern)
            .map_err(|e| ToolError::Usage(format!("invalid argument `{field}`: bad regex: {e}")))
    }

    fn on(&self, text: Option<&str>) -> bool {
        text.is_some_and(|t| self.0.is_match(t))
    }
}

async fn find(ctx: &ToolCtx, args: FindArgs) -> ToolResult {
    let role = match &args.role {
        Some(name) => Some(
            parse_roles(std::slice::from_ref(name)).map_err(|e| match e {
                ToolError::Usage(m) => ToolError::Usage(m.replace("`roles`", "`role`")),
                other => other,
            })?[0],
        ),
        None => None,
    };
    let pattern = |field: &str, v: &Option<String>| {
        v.as_deref()
            .map(|t| Pattern::new(field, t, args.mode, args.case_sensitive))
            .transpose()
    };
    let name = pattern("name", &args.name)?;
    let field = match (args.field, &name) {
        (None, _) => Field::Name,
        (Some(f), Some(_)) => f,
        (Some(_), None) => {
            return Err(ToolError::Usage(
                "`field` says which text the `name` pattern matches: give `name` too".into(),
            ));
        }
    };
    let value = pattern("value", &args.value)?;
    let identifier = pattern("identifier", &args.identifier)?;
    let text = pattern("text", &args.text)?;
    if role.is_none() && name.is_none() && value.is_none() && identifier.is_none() && text.is_none()
    {
        return Err(ToolError::Usage(
            "give at least one of `role`, `name`, `value`, `identifier` or `text` to find".into(),
        ));
    }
    let max_results = args.max_results.unwrap_or(20);
    if max_results == 0 || max_results > 500 {
        return Err(ToolError::Usage(
            "invalid argument `max_results`: between 1 and 500".into(),
        ));
    }
    let conn = open_app(ctx, &args.app).await?;
    let walk = walk(
        ctx,
        &conn,
        args.root.as_deref(),
        MAX_DEPTH,
        FIND_BUDGET,
        ctx.engine.deadline(),
    )
    .await?;
    let nodes = walk.nodes;
    let hits: Vec<&IndexedNode> = nodes
        .iter()
        .filter(|n| {
            let node = &n.node;
            let shown_value = node.visible_value().map(ToString::to_string);
            role.is_none_or(|r| node.role == r)
                && name.as_ref().is_none_or(|p| p.on(field.of(node)))
                && value.as_ref().is_none_or(|p| p.on(shown_value.as_deref()))
                && identifier
                    .as_ref()
                    .is_none_or(|p| p.on(node.identifier.as_deref()))
                && text.as_ref().is_none_or(|p| {
                    Field::ALL.iter().any(|f| p.on(f.of(node))) || p.on(shown_value.as_deref())
                })
        })
        .collect();
    let truncated = walk.cut || hits.len() > max_results;
    let mut lines = String::new();
    let matches: Vec<NodeOut> = hits
        .iter()
        .take(max_results)
        .map(|n| {
            let handle = ctx.handle(&conn, &n.node, &n.path);
            lines.push_str(&format!(
                "{} {}\n",
                tree::compact_line(&n.node, handle.as_deref()),
                n.path
            ));
            NodeOut::new(&n.node, handle, n.path.to_string(), n.depth)
        })
        .collect();
    if matches.is_empty() {
        lines.push_str("no match; call get_tree to see what exists\n");
    } else if hits.len() > max_results {
        lines.push_str(&format!(
            "… {} matches in all; narrow the query or raise max_results\n",
            hits.len()
        ));
    }
    if walk.cut {
        lines.push_str(
            "… the search stopped at its node budget; give `root` to search a smaller part\n",
        );
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

pub(super) static FIND: ToolDef = ToolDef {
    name: "find",
    title: "Find elements",
    description: "Finds elements by role and text (contains, exact or regex).",
    profile: Profile::READ,
    io: typed!(find, FindArgs, FindOut),
};
