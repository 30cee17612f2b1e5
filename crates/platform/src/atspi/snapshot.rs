//! Bounded snapshots. Deep reads take the app's whole tree in one `Cache.GetItems` call, then
//! check it where it cannot be trusted and fetch per-node extras concurrently:
//!
//! - GTK builds its cache only once some client registered an event listener (the backend
//!   registers its events when it connects); until then a read walks by direct calls.
//! - The cache omits children of `manages-descendants` containers (list boxes, tree views),
//!   reports `-1` children for menus, and keeps objects whose parent no longer lists them.
//!   Wherever a node's child count disagrees with the children the cache lists, its live
//!   `GetChildren` decides (one call), and missing objects are read directly (bounded by the
//!   node budget and [`MANAGED_EACH`] per container), level by level.
//! - Extras are one call each, only where they mean something: frames of showing nodes,
//!   values of Value/editable-text nodes, action lists GTK does not fix by role
//!   (`action_names::gtk_actions`), `labelled-by` relations of unnamed controls (`names`);
//!   a label the snapshot did not read costs one more call for its name.
//!
//! Shallow reads (depth 0 or 1: path resolution, single elements) use direct calls, so they
//! stay cheap on big apps.

use std::collections::{HashMap, HashSet};

use futures::StreamExt;

use axgate_engine::{AxError, AxResult, AxValue, RawNode, Role, Snapshot, SnapshotRequest};

use super::action_names;
use super::apps::AppEntry;
use super::assemble::{Item, Walk, gaps, preorder};
use super::dbus::{ACCESSIBLE, Calls};
use super::ids::{Ids, ObjRef};
use super::names;
use super::read::{self, Extras};
use super::roles;
use super::states::{self, bit, has};

/// Children read per `manages-descendants` container (rows of a list box, cells of a tree
/// view) at most; the snapshot's node budget bounds them too.
pub(super) const MANAGED_EACH: usize = 5_000;
/// Objects read directly to fill the cache's gaps in one snapshot, at least.
pub(super) const MANAGED_TOTAL: usize = 1_000;
/// Rounds of gap filling (each can reveal gaps one level deeper).
const FILL_ROUNDS: usize = 8;
/// Children read from a container that does not say how many it has.
const UNKNOWN_COUNT_LIMIT: usize = 10_000;

/// A subtree to read: the app, the object it starts from, and its bounds (as in
/// [`SnapshotRequest`], with `max_nodes` at least 1 and `skip` the root's children left out).
#[derive(Clone, Copy)]
struct Subtree<'a> {
    app: &'a AppEntry,
    root: &'a ObjRef,
    max_depth: u32,
    max_nodes: usize,
    skip: usize,
}

impl Subtree<'_> {
    /// The subtree's nodes among `items`, in pre-order within its bounds; `None` when its
    /// root is not among them.
    fn walk(&self, items: &[Item]) -> Option<Walk> {
        preorder(
            items,
            &self.root.path,
            self.max_depth,
            self.max_nodes,
            self.skip,
        )
    }
}

/// Reads a bounded subtree of `app` from `root`.
pub(super) async fn snapshot(
    calls: &Calls<'_>,
    ids: &Ids,
    app: &AppEntry,
    root: &ObjRef,
    request: &SnapshotRequest,
) -> Result<Snapshot, AxError> {
    let subtree = Subtree {
        app,
        root,
        max_depth: request.max_depth,
        max_nodes: request.max_nodes.max(1),
        skip: request.skip_children,
    };
    let (items, walk) = if request.max_depth <= 1 {
        direct(calls, subtree).await?
    } else {
        match cached(calls, subtree).await? {
            Some(found) => found,
            None => direct(calls, subtree).await?,
        }
    };
    let chosen: Vec<&Item> = walk.visits.iter().map(|v| &items[v.item]).collect();
    let extras = read::all_extras(calls, &app.bus, &chosen, app.gtk).await;
    let known: HashMap<&str, &str> = items
        .iter()
        .map(|i| (i.path.as_str(), i.name.as_str()))
        .collect();
    let wanted = extras.iter().flat_map(|e| e.labelled_by.iter());
    let label_names = names::label_names(calls, &app.bus, wanted, &known).await;
    let objs: Vec<ObjRef> = chosen
        .iter()
        .map(|i| ObjRef::new(&app.bus, &i.path))
        .collect();
    let node_ids = ids.ids_of(&objs);
    let mut nodes = Vec::with_capacity(chosen.len());
    for ((visit, extra), id) in walk.visits.iter().zip(extras).zip(node_ids) {
        let item = &items[visit.item];
        let parent_role = visit.parent.map(|p| items[walk.visits[p].item].role);
        let labels: Vec<&str> = extra
            .labelled_by
            .iter()
            .filter_map(|p| label_names.get(p).map(String::as_str))
            .collect();
        let name = names::accessible_name(&item.name, &labels, &item.description);
        let mut node = raw_node(item, parent_role, extra);
        node.name = name;
        node.id = id;
        node.parent = visit.parent;
        nodes.push(node);
    }
    Ok(Snapshot {
        nodes,
        truncated: walk.truncated,
        skipped: Vec::new(),
    })
}

/// The whole tree from the cache, with the gaps filled by direct calls: children of
/// `manages-descendants` containers (bounded), and objects the cache does not hold yet (it is
/// built after the first event listener registers, and updated lazily). `None` when the app
/// has no cache yet or the root is not in it.
async fn cached(calls: &Calls<'_>, subtree: Subtree<'_>) -> AxResult<Option<(Vec<Item>, Walk)>> {
    let app = subtree.app;
    let mut items = match read::cache_items(calls, &app.bus).await {
        Ok(items) => items,
        Err(f) => {
            let err = f.into_ax(app.pid, &app.name);
            return match err {
                AxError::Unsupported(_) => Ok(None),
                other => Err(other),
            };
        }
    };
    let mut known: HashMap<String, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.path.clone(), i))
        .collect();
    let mut fixed: HashSet<String> = HashSet::new();
    let mut budget = MANAGED_TOTAL.max(subtree.max_nodes);
    for _ in 0..FILL_ROUNDS {
        let Some(walk) = subtree.walk(&items) else {
            return Ok(None);
        };
        let holes: Vec<(String, i32, bool, u32)> = gaps(&items, &walk, subtree.max_depth)
            .into_iter()
            .map(|v| (walk.visits[v].item, walk.visits[v].depth))
            .filter(|(i, _)| !fixed.contains(&items[*i].path))
            .map(|(i, d)| {
                let it = &items[i];
                (
                    it.path.clone(),
                    it.children,
                    has(it.states, bit::MANAGES_DESCENDANTS),
                    d,
                )
            })
            .collect();
        if holes.is_empty() || budget == 0 {
            return Ok(Some((items, walk)));
        }
        // The live child lists of every hole, concurrently.
        let lists: Vec<Vec<String>> = futures::stream::iter(holes.iter())
            .map(|(path, children, managed, _)| {
                let obj = ObjRef::new(&app.bus, path);
                let each = MANAGED_EACH.min(budget);
                async move {
                    let count = match usize::try_from(*children) {
                        Ok(n) => n,
                        // A managing container may have very many children: count first.
                        Err(_) if *managed => calls
                            .prop::<i32>(&obj, ACCESSIBLE, "ChildCount")
                            .await
                            .map_or(0, |n| n.max(0) as usize),
                        Err(_) => UNKNOWN_COUNT_LIMIT,
                    };
                    if *managed && count > each {
                        read::children_by_index(calls, &obj, each).await
                    } else {
                        read::children(calls, &obj, count).await.unwrap_or_default()
                    }
                }
            })
            .buffered(read::CONCURRENCY)
            .collect()
            .await;
        let mut missing = Vec::new();
        for ((path, _, _, depth), list) in holes.into_iter().zip(lists) {
            // The live list decides who the children are and in which order.
            for it in items.iter_mut() {
                if it.path == path && it.children < 0 {
                    it.children = list.len() as i32;
                } else if it.parent.as_deref() == Some(&path) {
                    it.index = -1;
                }
            }
            for (i, child) in list.into_iter().enumerate() {
                match known.get(&child) {
                    Some(&at) => {
                        items[at].parent = Some(path.clone());
                        items[at].index = i as i32;
                    }
                    None if budget > 0 => {
                        budget -= 1;
                        let below = subtree.max_depth.saturating_sub(depth + 1);
                        missing.push((child, path.clone(), i as i32, below));
                    }
                    None => {}
                }
            }
            fixed.insert(path);
        }
        let subtrees: Vec<Vec<Item>> = futures::stream::iter(missing)
            .map(|(child, parent, index, below)| async move {
                let obj = ObjRef::new(&app.bus, &child);
                let missing = Subtree {
                    app,
                    root: &obj,
                    max_depth: below,
                    max_nodes: MANAGED_TOTAL,
                    skip: 0,
                };
                let Ok((mut sub, _)) = direct_items(calls, missing).await else {
                    return Vec::new();
                };
                if let Some(first) = sub.first_mut() {
                    first.parent = Some(parent);
                    first.index = index;
                }
                sub
            })
            .buffered(read::CONCURRENCY)
            .collect()
            .await;
        for item in subtrees.into_iter().flatten() {
            budget = budget.saturating_sub(1);
            known.insert(item.path.clone(), items.len());
            items.push(item);
        }
    }
    Ok(subtree.walk(&items).map(|w| (items, w)))
}

/// A subtree by direct calls, level by level, without the root's first `skip` children.
async fn direct(calls: &Calls<'_>, subtree: Subtree<'_>) -> AxResult<(Vec<Item>, Walk)> {
    let (items, truncated) = direct_items(calls, subtree).await?;
    // The skipped children were never read: the walk takes every item there is.
    let all = Subtree { skip: 0, ..subtree };
    let mut walk = all.walk(&items).unwrap_or_default();
    walk.truncated |= truncated;
    Ok((items, walk))
}

/// The items of a subtree by direct calls, level by level (the root first, without its
/// first `skip` children); whether the node budget cut it.
async fn direct_items(calls: &Calls<'_>, subtree: Subtree<'_>) -> AxResult<(Vec<Item>, bool)> {
    let Subtree { app, root, .. } = subtree;
    let first = read::direct_item(calls, root, None, 0)
        .await
        .map_err(|f| f.into_ax(app.pid, &format!("element {} of {}", root.path, app.name)))?;
    let mut items = vec![first];
    let mut level = vec![0usize];
    let mut truncated = false;
    for round in 0..subtree.max_depth {
        let skipped = if round == 0 { subtree.skip } else { 0 };
        // Every child list of the level at once, then cut to the node budget in order.
        let parents: Vec<usize> = level
            .iter()
            .copied()
            .filter(|&at| items[at].children != 0)
            .collect();
        let lists: Vec<Vec<String>> = futures::stream::iter(parents.iter())
            .map(|&at| {
                let obj = ObjRef::new(&app.bus, &items[at].path);
                async move {
                    read::children(calls, &obj, usize::MAX)
                        .await
                        .unwrap_or_default()
                }
            })
            .buffered(read::CONCURRENCY)
            .collect()
            .await;
        let mut wanted = Vec::new();
        for (&at, kids) in parents.iter().zip(lists) {
            let left = subtree.max_nodes.saturating_sub(items.len() + wanted.len());
            truncated |= kids.len().saturating_sub(skipped) > left;
            wanted.extend(
                kids.into_iter()
                    .skip(skipped)
                    .take(left)
                    .enumerate()
                    .map(|(i, p)| (p, Some(items[at].path.clone()), (i + skipped) as i32)),
            );
        }
        if wanted.is_empty() {
            break;
        }
        let start = items.len();
        items.extend(read::direct_items(calls, &app.bus, wanted).await);
        level = (start..items.len()).collect();
    }
    Ok((items, truncated))
}

/// A snapshot node from an item and its extras (id and parent are set by the caller).
pub(super) fn raw_node(item: &Item, parent_role: Option<u32>, extra: Extras) -> RawNode {
    let native = roles::native_name(item.role);
    let role = roles::contextual(item.role, has(item.states, bit::MULTI_LINE), parent_role);
    let mut node = RawNode::new(axgate_engine::NodeId(0), role, native);
    node.title = Some(item.name.clone()).filter(|s| !s.is_empty());
    node.description = Some(item.description.clone()).filter(|s| !s.is_empty());
    node.frame = extra.frame;
    node.min_value = extra.min;
    node.max_value = extra.max;
    node.value = match extra.value {
        Some(v) => Some(v),
        None if roles::is_toggle(native) => Some(AxValue::Bool(states::toggle_value(item.states))),
        None => None,
    };
    let settable = (item.ifaces.editable_text && has(item.states, bit::EDITABLE))
        || (item.ifaces.value && matches!(role, Role::Slider | Role::SpinButton | Role::ScrollBar))
        || matches!(role, Role::CheckBox);
    node.states = states::to_states(item.states, role, settable);
    if node.states.secure {
        node.value = None;
    }
    node.actions = action_names::normalise_all(native, &extra.actions);
    node.child_count = item.children.max(0) as usize;
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use axgate_engine::Rect;

    fn bits(list: &[u32]) -> u64 {
        list.iter().fold(0, |acc, b| acc | (1u64 << b))
    }

    #[test]
    fn a_check_box_node() {
        let item = Item {
            path: "/c".into(),
            role: 7,
            name: "Bold".into(),
            states: bits(&[bit::ENABLED, bit::SHOWING, bit::VISIBLE, bit::CHECKED]),
            children: 0,
            ..Item::default()
        };
        let extra = Extras {
            frame: Some(Rect::default()),
            actions: vec!["click".into()],
            ..Extras::default()
        };
        let node = raw_node(&item, Some(39), extra);
        assert_eq!(node.role, Role::CheckBox);
        assert_eq!(node.native_role, "check box");
        assert_eq!(node.title.as_deref(), Some("Bold"));
        assert_eq!(node.value, Some(AxValue::Bool(true)));
        assert_eq!(node.actions, ["press"]);
        assert!(node.states.enabled && node.states.visible && node.states.value_settable);
    }

    #[test]
    fn a_password_field_never_carries_its_value() {
        let mut item = Item {
            role: 40,
            states: bits(&[bit::ENABLED, bit::EDITABLE]),
            ..Item::default()
        };
        item.ifaces.editable_text = true;
        let extra = Extras {
            value: Some(AxValue::Text("hunter2".into())),
            ..Extras::default()
        };
        let node = raw_node(&item, None, extra);
        assert_eq!(node.role, Role::SecureTextField);
        assert!(node.states.secure && node.states.value_settable);
        assert_eq!(node.value, None);
    }
}
