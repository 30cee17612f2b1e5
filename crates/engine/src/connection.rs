//! Per-session app connections. The first call that names an app opens a connection held by
//! the session: the resolved pid, the process start time (guarding pid reuse) and the
//! handle table. A connection closes when the session ends or the app exits.
//! Element targets (paths and handles) are resolved here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::backend::SnapshotRequest;
use super::diff::Picture;
use super::engine::Engine;
use super::error::AxError;
use super::handles::{Fingerprint, HandleTable, describe, parse_handle};
use super::model::{AppInfo, NodeId, Pid, RawNode};
use super::path::{ElementPath, Selector, Step};
use super::worker::CallStats;

/// An element target as a tool names it.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Handle(String),
    Path(ElementPath),
}

impl Target {
    /// `e42` is a handle; anything else must parse as a path.
    pub fn parse(text: &str) -> Result<Target, AxError> {
        let text = text.trim();
        if parse_handle(text).is_some() {
            return Ok(Target::Handle(text.to_owned()));
        }
        ElementPath::parse(text)
            .map(Target::Path)
            .map_err(|e| AxError::InvalidValue {
                element: "target".into(),
                reason: e.to_string(),
            })
    }
}

/// A resolved element: its backend id, its current attributes and its path.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub node: RawNode,
    pub path: ElementPath,
}

pub struct AppConnection {
    pub app: AppInfo,
    pub opened: Instant,
    handles: Mutex<HandleTable>,
    /// The session's last picture of the app, for `diff`.
    baseline: Mutex<Option<Picture>>,
}

/// The app connections of one session. Calls to different apps never wait on each other:
/// the map is locked only to look a connection up, and each handle table only briefly.
#[derive(Default)]
pub struct Connections {
    by_pid: Mutex<HashMap<Pid, Arc<AppConnection>>>,
}

impl Connections {
    /// The connection for the app named by `query`, opened on first use. A connection whose
    /// process was replaced (same pid, new start time) is reopened with fresh handles.
    pub async fn open(
        &self,
        engine: &Engine,
        query: &str,
        stats: &CallStats,
    ) -> Result<Arc<AppConnection>, AxError> {
        let app = engine.resolve_app(query, stats).await?;
        let mut map = lock(&self.by_pid);
        let stale = map
            .get(&app.pid)
            .is_some_and(|c| c.app.started_at != app.started_at);
        if stale {
            map.remove(&app.pid);
        }
        let cap = engine.config().handle_cap;
        let conn = map.entry(app.pid).or_insert_with(|| {
            Arc::new(AppConnection {
                app,
                handles: Mutex::new(HandleTable::new(cap)),
                baseline: Mutex::new(None),
                opened: Instant::now(),
            })
        });
        Ok(conn.clone())
    }

    /// Closes the connection of an app that exited.
    pub fn close(&self, pid: Pid) -> bool {
        lock(&self.by_pid).remove(&pid).is_some()
    }

    pub fn len(&self) -> usize {
        lock(&self.by_pid).len()
    }

    pub fn is_empty(&self) -> bool {
        lock(&self.by_pid).is_empty()
    }

    /// Every connection of the session.
    pub fn all(&self) -> Vec<Arc<AppConnection>> {
        lock(&self.by_pid).values().cloned().collect()
    }

    /// The apps this session holds connections to.
    pub fn apps(&self) -> Vec<AppInfo> {
        lock(&self.by_pid).values().map(|c| c.app.clone()).collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl AppConnection {
    /// Resolves a target to a live element, failing closed with what exists instead.
    pub async fn resolve(
        &self,
        engine: &Engine,
        target: &Target,
        stats: &CallStats,
    ) -> Result<Resolved, AxError> {
        match target {
            Target::Path(path) => resolve_path(engine, &self.app, path, stats).await,
            Target::Handle(handle) => {
                let entry =
                    lock(&self.handles)
                        .get(handle)
                        .ok_or_else(|| AxError::UnknownHandle {
                            handle: handle.clone(),
                        })?;
                let fp = entry.fingerprint;
                if let Ok(node) = read_node(engine, &self.app, entry.node, stats).await
                    && fp.matches(&node)
                {
                    return Ok(Resolved {
                        node,
                        path: fp.path,
                    });
                }
                // Stale: re-resolve by the remembered path, and accept only the same element.
                let found = resolve_path(engine, &self.app, &fp.path, stats).await;
                match found {
                    Ok(r) if fp.matches(&r.node) => {
                        lock(&self.handles).rebind(handle, r.node.id);
                        Ok(r)
                    }
                    Ok(r) => Err(stale(handle, &fp, describe(&r.node))),
                    Err(AxError::NotFound { .. }) => Err(stale(handle, &fp, "nothing".into())),
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// Mints (or reuses) the handle for a node a result returns.
    pub fn mint(&self, node: &RawNode, path: &ElementPath) -> String {
        lock(&self.handles).mint(node, path)
    }

    /// Replaces the diff baseline, returning the previous one.
    pub fn swap_baseline(&self, picture: Picture) -> Option<Picture> {
        lock(&self.baseline).replace(picture)
    }

    /// Handles currently held for this app.
    pub fn handle_count(&self) -> usize {
        lock(&self.handles).len()
    }
}

fn stale(handle: &str, fp: &Fingerprint, found: String) -> AxError {
    AxError::Stale {
        handle: handle.to_owned(),
        expected: format!("{} at {}", fp.describe(), fp.path),
        found,
    }
}

/// Reads one element by its node id (a few round trips, where a path walks every level).
pub async fn read_node(
    engine: &Engine,
    app: &AppInfo,
    node: NodeId,
    stats: &CallStats,
) -> Result<RawNode, AxError> {
    let request = SnapshotRequest::below(node, 0, 1);
    let snapshot = engine
        .snapshot(app, request, engine.deadline(), stats)
        .await?;
    snapshot
        .nodes
        .into_iter()
        .next()
        .ok_or_else(|| AxError::Backend("empty snapshot".into()))
}

/// Walks `path` from the application element, one child listing per step.
pub async fn resolve_path(
    engine: &Engine,
    app: &AppInfo,
    path: &ElementPath,
    stats: &CallStats,
) -> Result<Resolved, AxError> {
    let deadline = engine.deadline();
    let mut current: Option<NodeId> = None;
    let mut walked = ElementPath::default();
    let mut last: Option<RawNode> = None;
    for step in &path.steps {
        let request = SnapshotRequest {
            root: current,
            max_depth: 1,
            max_nodes: usize::MAX,
            skip_children: 0,
        };
        let snapshot = engine.snapshot(app, request, deadline, stats).await?;
        let children: Vec<RawNode> = snapshot
            .nodes
            .into_iter()
            .filter(|n| n.parent == Some(0))
            .collect();
        let Some(child) = pick_child(children.iter(), step) else {
            return Err(AxError::NotFound {
                path: walked.child(step.clone()).to_string(),
                expected: step.to_string(),
                found: list_children(&children),
            });
        };
        walked = walked.child(step.clone());
        current = Some(child.id);
        last = Some(child.clone());
    }
    let node = match last {
        Some(node) => node,
        None => {
            let request = SnapshotRequest {
                root: None,
                max_depth: 0,
                max_nodes: 1,
                skip_children: 0,
            };
            let snapshot = engine.snapshot(app, request, deadline, stats).await?;
            snapshot
                .nodes
                .into_iter()
                .next()
                .ok_or_else(|| AxError::Backend("empty snapshot".into()))?
        }
    };
    Ok(Resolved { node, path: walked })
}

/// The child a path step names among `children` (in order): `role[N]` is the N-th child of
/// that role, `role["Name"]` the first child of that role whose accessible name is exactly
/// `Name` (docs/TOOLS.md, "Names").
pub fn pick_child<'a>(
    children: impl IntoIterator<Item = &'a RawNode>,
    step: &Step,
) -> Option<&'a RawNode> {
    let mut same_role = children.into_iter().filter(|c| c.role == step.role);
    match &step.selector {
        Selector::Index(i) => same_role.nth(*i),
        Selector::Title(name) => same_role.find(|c| c.label() == Some(name.as_str())),
    }
}

/// `role[N] "name"` for each child, as error messages show what exists.
fn list_children(children: &[RawNode]) -> Vec<String> {
    let mut counts: HashMap<super::model::Role, usize> = HashMap::new();
    children
        .iter()
        .map(|c| {
            let n = counts.entry(c.role).or_default();
            let text = match c.label() {
                Some(l) => format!("{}[{}] {l:?}", c.role, n),
                None => format!("{}[{}]", c.role, n),
            };
            *n += 1;
            text
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AxValue, Role};

    fn child(id: u64, role: Role) -> RawNode {
        RawNode::new(NodeId(id), role, "native")
    }

    fn pick(children: &[RawNode], step: &str) -> Option<u64> {
        let path = ElementPath::parse(step).unwrap();
        pick_child(children, &path.steps[0]).map(|n| n.id.0)
    }

    #[test]
    fn a_step_names_a_child_by_its_accessible_name_not_its_title() {
        let mut by_description = child(1, Role::Button);
        by_description.description = Some("Search".into());
        by_description.name = Some("Search".into());
        let mut by_label = child(2, Role::TextField);
        by_label.name = Some("Email".into());
        let mut by_placeholder = child(3, Role::TextField);
        by_placeholder.placeholder = Some("Find".into());
        by_placeholder.name = Some("Find".into());
        let mut titled = child(4, Role::Button);
        titled.title = Some("Raw".into());
        titled.name = Some("Shown".into());
        let children = [by_description, by_label, by_placeholder, titled];
        assert_eq!(pick(&children, r#"button["Search"]"#), Some(1));
        assert_eq!(pick(&children, r#"text_field["Email"]"#), Some(2));
        assert_eq!(pick(&children, r#"text_field["Find"]"#), Some(3));
        assert_eq!(pick(&children, r#"button["Shown"]"#), Some(4));
        assert_eq!(pick(&children, r#"button["Raw"]"#), None, "the name wins");
        assert_eq!(pick(&children, r#"button["search"]"#), None, "exact match");
        assert_eq!(pick(&children, r#"text_field[1]"#), Some(3));
    }

    #[test]
    fn a_static_text_is_named_by_its_value_when_the_backend_says_so() {
        let mut text = child(1, Role::StaticText);
        text.value = Some(AxValue::Text("Ready".into()));
        text.name = Some("Ready".into());
        assert_eq!(pick(&[text], r#"static_text["Ready"]"#), Some(1));
    }

    #[test]
    fn unnamed_children_are_listed_by_index_only() {
        let mut named = child(1, Role::Button);
        named.name = Some("OK".into());
        let unnamed = child(2, Role::Button);
        assert_eq!(
            list_children(&[named, unnamed]),
            ["button[0] \"OK\"", "button[1]"]
        );
    }
}
