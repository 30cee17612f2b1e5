//! MCP resources: `axgate://apps` (the running apps), `axgate://session/audit` (the calling
//! session's own audit lines, `own_audit.rs`) and, per app, `axgate://app/{app}/tree`
//! (the compact text tree, bounded like `get_tree`'s defaults), `.../state` (windows, focus)
//! and `.../events` (recent change events). `{app}` is a name, bundle id or pid,
//! percent-decoded. Reads go through the session's app connections, so handles in a result
//! work in later tool calls of the same session. Secure values never appear: every value
//! passes through `RawNode::visible_value`.

use std::collections::HashMap;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use serde::Serialize;

use super::cache::{self, Cacheable as _};
use super::context::SessionState;
use super::own_audit::OwnAuditOut;
use super::uri::{APPS_URI, ResourceUri, SESSION_AUDIT_URI, View, app_error};
use super::wire::{AppOut, FrameOut, ListAppsOut, NodeOut, WindowOut};
use axgate_engine::tree::{self, IndexedNode};
use axgate_engine::{
    AppConnection, AxError, CallStats, ElementPath, Engine, Role, SnapshotRequest, WindowInfo,
};

const JSON: &str = "application/json";
/// The tree resource's bounds: `get_tree`'s defaults.
const TREE_DEPTH: u32 = 10;
const TREE_NODES: usize = 500;
/// How far the state resource looks for the focused element.
const FOCUS_DEPTH: u32 = 64;
const FOCUS_NODES: usize = 2_000;

const TREE_ABOUT: &str = "The app's accessibility tree as compact lines `[role] \"label\" handle \
    (x,y w×h) actions`, depth 10 and 500 nodes at most; use get_tree for other bounds.";
const STATE_ABOUT: &str = "JSON: app name, pid, frontmost, windows with titles, and the focused \
    element with its path and handle.";
const EVENTS_ABOUT: &str = "JSON: the app's recent change events, oldest first, with RFC 3339 \
    times, kind and the element's path (or its node id when the path is not cheap to find).";

/// A view's MIME type, title and description, as `resources/list` shows them.
fn about(view: View) -> (&'static str, &'static str, &'static str) {
    match view {
        View::Tree => ("text/plain", "UI tree", TREE_ABOUT),
        View::State => (JSON, "window and focus state", STATE_ABOUT),
        View::Events => (JSON, "recent change events", EVENTS_ABOUT),
    }
}

/// The three templates of `resources/templates/list`.
pub fn templates() -> Vec<ResourceTemplate> {
    View::ALL
        .into_iter()
        .map(|view| {
            let (mime, title, about) = about(view);
            ResourceTemplate::new(view.template(), format!("app-{}", view.as_str()))
                .with_title(format!("An app's {title}"))
                .with_description(format!("{about} {{app}} is an app name, bundle id or pid."))
                .with_mime_type(mime)
        })
        .collect()
}

/// `axgate://apps` and the three resources of every running app.
pub async fn list(engine: &Engine) -> Result<ListResourcesResult, McpError> {
    let apps = engine
        .list_apps(&CallStats::default())
        .await
        .map_err(|e| app_error(APPS_URI, e))?;
    let mut out = vec![
        Resource::new(APPS_URI, "apps")
            .with_title("Running apps")
            .with_description("JSON: running apps with name, pid, bundle id and frontmost.")
            .with_mime_type(JSON),
        Resource::new(SESSION_AUDIT_URI, "session audit")
            .with_title("This session's audit lines")
            .with_description(
                "JSON: {session, trail, dropped, lines}: the audit lines of this session's \
                 mutating and denied calls, as the trail records them (redacted), oldest first.",
            )
            .with_mime_type(JSON),
    ];
    for app in &apps {
        // A name shared by several running apps would be ambiguous: name those by pid.
        let shared = apps.iter().filter(|a| a.name == app.name).count() > 1;
        let key = if shared {
            app.pid.to_string()
        } else {
            app.name.clone()
        };
        for view in View::ALL {
            let (mime, title, about) = about(view);
            out.push(
                Resource::new(
                    ResourceUri::app_uri(&key, view),
                    format!("{key} {}", view.as_str()),
                )
                .with_title(format!("{}: {title}", app.name))
                .with_description(about)
                .with_mime_type(mime),
            );
        }
    }
    Ok(ListResourcesResult::with_all_items(out).cached(cache::RESOURCES))
}

/// `resources/read`. `handles`: whether results mint handles (a session) or name elements
/// by path only (a sessionless request, where a handle would not outlive the response).
pub async fn read(
    engine: &Engine,
    session: &SessionState,
    uri: &str,
    handles: bool,
) -> Result<ReadResourceResult, McpError> {
    let stats = CallStats::default();
    let (app, view) = match ResourceUri::parse(uri)? {
        ResourceUri::Apps => {
            let apps = engine
                .list_apps(&stats)
                .await
                .map_err(|e| app_error(uri, e))?;
            let out = ListAppsOut {
                apps: apps.iter().map(AppOut::from).collect(),
            };
            return Ok(contents(uri, JSON, to_json(&out)));
        }
        ResourceUri::App { app, view } => (app, view),
        // Answered by the server, which knows the session's id.
        ResourceUri::SessionAudit => {
            return Err(McpError::invalid_request(
                format!("{uri} is only served inside a session"),
                None,
            ));
        }
    };
    let conn = session
        .connections
        .open(engine, &app, &stats)
        .await
        .map_err(|e| app_error(uri, e))?;
    let text = match view {
        View::Tree => read_tree(engine, &conn, &stats, handles).await,
        View::State => read_state(engine, &conn, &stats, handles)
            .await
            .map(|s| to_json(&s)),
        View::Events => read_events(engine, &conn, &stats)
            .await
            .map(|e| to_json(&e)),
    }
    .map_err(|e| app_error(uri, e))?;
    Ok(contents(uri, about(view).0, text))
}

/// `axgate://session/audit`.
pub fn own_audit(out: &OwnAuditOut) -> ReadResourceResult {
    contents(SESSION_AUDIT_URI, JSON, to_json(out))
}

fn contents(uri: &str, mime: &str, text: String) -> ReadResourceResult {
    ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type(mime)])
}

fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into())
}

async fn read_tree(
    engine: &Engine,
    conn: &AppConnection,
    stats: &CallStats,
    handles: bool,
) -> Result<String, AxError> {
    let (nodes, cut) = snapshot(engine, conn, TREE_DEPTH, TREE_NODES, stats).await?;
    let truncated = cut
        || nodes
            .iter()
            .any(|n| n.depth == TREE_DEPTH && n.node.child_count > 0);
    let mut text = format!("{} (pid {})\n", conn.app.name, conn.app.pid);
    tree::visit_shown(
        &nodes,
        |_| true,
        |n, depth| {
            let handle = mint(conn, n, handles);
            let path = n.path.to_string();
            text.push_str(&tree::indent(depth));
            text.push_str(&tree::compact_line(
                &n.node,
                Some(handle.as_deref().unwrap_or(&path)),
            ));
            text.push('\n');
        },
    );
    if truncated {
        text.push_str("… truncated: call get_tree with a deeper root, depth or max_nodes\n");
    }
    Ok(text)
}

async fn snapshot(
    engine: &Engine,
    conn: &AppConnection,
    max_depth: u32,
    max_nodes: usize,
    stats: &CallStats,
) -> Result<(Vec<IndexedNode>, bool), AxError> {
    let request = SnapshotRequest {
        root: None,
        max_depth,
        max_nodes,
        skip_children: 0,
    };
    let snapshot = engine
        .snapshot(&conn.app, request, engine.deadline(), stats)
        .await?;
    let cut = snapshot.truncated;
    Ok((tree::index(snapshot, &ElementPath::default()), cut))
}

#[derive(Serialize)]
struct StateOut {
    app: String,
    pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    bundle_id: Option<String>,
    frontmost: bool,
    windows: Vec<WindowOut>,
    /// The deepest focused element, if the bounded search found one.
    focused: Option<NodeOut>,
    /// True when the focus search hit its bounds: the focus may lie deeper.
    focus_search_truncated: bool,
}

async fn read_state(
    engine: &Engine,
    conn: &AppConnection,
    stats: &CallStats,
    handles: bool,
) -> Result<StateOut, AxError> {
    // The connection keeps the app as first resolved; frontmost must be fresh.
    let frontmost = engine
        .list_apps(stats)
        .await?
        .iter()
        .find(|a| a.pid == conn.app.pid)
        .map_or(conn.app.frontmost, |a| a.frontmost);
    let (top, _) = snapshot(engine, conn, 1, 10_000, stats).await?;
    let states = engine.list_windows(&conn.app, stats).await?;
    let windows = windows_out(conn, &top, &states, handles);
    let (deep, cut) = snapshot(engine, conn, FOCUS_DEPTH, FOCUS_NODES, stats).await?;
    let focused = deep
        .iter()
        .filter(|n| n.depth > 0 && n.node.states.focused)
        .max_by_key(|n| n.depth)
        .map(|n| NodeOut::new(&n.node, mint(conn, n, handles), n.path.to_string(), n.depth));
    Ok(StateOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        bundle_id: conn.app.bundle_id.clone(),
        frontmost,
        windows,
        focused,
        focus_search_truncated: cut,
    })
}

#[derive(Serialize)]
struct EventsOut {
    app: String,
    pid: u32,
    events: Vec<EventOut>,
}

#[derive(Serialize)]
struct EventOut {
    /// RFC 3339, milliseconds, UTC.
    at: String,
    kind: &'static str,
    /// The element's current path, when it lies within the tree resource's bounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    /// The backend's node id, when the path was not found cheaply.
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<String>,
}

async fn read_events(
    engine: &Engine,
    conn: &AppConnection,
    stats: &CallStats,
) -> Result<EventsOut, AxError> {
    let recent = engine.recent_events(conn.app.pid);
    // One bounded snapshot names the elements it covers; others keep their node id.
    let mut paths = HashMap::new();
    if recent.iter().any(|e| e.event.node.is_some()) {
        let (nodes, _) = snapshot(engine, conn, TREE_DEPTH, TREE_NODES, stats).await?;
        paths = nodes.into_iter().map(|n| (n.node.id, n.path)).collect();
    }
    let events = recent
        .into_iter()
        .map(|r| {
            let path = r
                .event
                .node
                .and_then(|id| paths.get(&id))
                .map(|p| p.to_string());
            EventOut {
                at: humantime::format_rfc3339_millis(r.at).to_string(),
                kind: r.event.kind.as_str(),
                node: r
                    .event
                    .node
                    .filter(|_| path.is_none())
                    .map(|id| id.0.to_string()),
                path,
            }
        })
        .collect();
    Ok(EventsOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        events,
    })
}

/// The windows (and dialogs and sheets) among an app's top-level nodes, with the window
/// states the backend reports: what `list_windows` and the app resource both show.
/// A node's handle where results keep handles (see [`read`]).
fn mint(conn: &AppConnection, n: &IndexedNode, handles: bool) -> Option<String> {
    handles.then(|| conn.mint(&n.node, &n.path))
}

pub(crate) fn windows_out(
    conn: &AppConnection,
    top: &[IndexedNode],
    states: &[WindowInfo],
    handles: bool,
) -> Vec<WindowOut> {
    top.iter()
        .filter(|n| {
            n.depth == 1 && matches!(n.node.role, Role::Window | Role::Dialog | Role::Sheet)
        })
        .map(|n| {
            let state = states.iter().find(|w| w.node == n.node.id);
            WindowOut {
                handle: mint(conn, n, handles),
                path: n.path.to_string(),
                title: n.node.label().map(str::to_owned),
                frame: n.node.frame.map(FrameOut::from),
                focused: state.is_some_and(|w| w.focused) || n.node.states.focused,
                minimized: state.is_some_and(|w| w.minimized),
            }
        })
        .collect()
}
