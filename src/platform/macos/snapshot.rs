//! The bounded pre-order walk behind `Backend::snapshot`. Per node: one batched attribute
//! read, the action names and the settable flag where the role calls for them, and one ranged
//! `AXChildren` listing capped by the node budget (plus a count when the listing came back
//! full or the node is at the depth limit). Every call re-arms a `min(remaining, 250 ms)`
//! messaging timeout and counts one round trip. Elements that vanish mid-walk are skipped;
//! the deadline or a slow app ends the walk early with `truncated` set, never an error,
//! unless not even the root could be read.

use std::time::Instant;

use accessibility_sys::kAXErrorInvalidUIElement;
use core_foundation::array::CFArray;
use core_foundation::string::CFString;

use crate::ax::{AxError, CallCtx, RawNode, Snapshot, SnapshotRequest};

use super::action_names;
use super::apps;
use super::attrs;
use super::budget;
use super::decode::{self, NODE_ATTRS};
use super::element::AxElement;
use super::errors::{AxResult, to_ax_error};
use super::handles::Handles;
use super::roles;

/// A node waiting to be read.
struct Pending {
    element: AxElement,
    parent: Option<usize>,
    depth: u32,
}

pub(super) fn snapshot(
    handles: &Handles,
    pid: crate::ax::Pid,
    request: &SnapshotRequest,
    ctx: &mut CallCtx,
) -> Result<Snapshot, AxError> {
    let started = Instant::now();
    let root = match request.root {
        None => apps::app_element(pid)?,
        Some(node) => handles.element(pid, node)?,
    };
    let names = attrs::names(NODE_ATTRS);
    let max_nodes = request.max_nodes.max(1);
    let mut stack = vec![Pending {
        element: root,
        parent: None,
        depth: 0,
    }];
    let mut nodes: Vec<RawNode> = Vec::new();
    let mut elements: Vec<AxElement> = Vec::new();
    let mut truncated = false;
    while let Some(item) = stack.pop() {
        if nodes.len() >= max_nodes || ctx.expired() {
            truncated = true;
            break;
        }
        let mut node = match read_node(&item.element, &names, ctx) {
            Ok(node) => node,
            Err(f) if nodes.is_empty() => return Err(to_ax_error(f, pid, request.root, started)),
            // The element went away between listing and reading: not part of the tree now.
            Err(f) if f.is(kAXErrorInvalidUIElement) => continue,
            Err(_) => {
                truncated = true;
                break;
            }
        };
        node.parent = item.parent;
        let index = nodes.len();
        let nodes_left = max_nodes - index - 1;
        let listing = if item.depth < request.max_depth {
            list_children(&item.element, budget::child_cap(nodes_left), ctx)
        } else {
            attrs::child_count(&item.element, ctx).map(|count| (Vec::new(), count))
        };
        match listing {
            Ok((children, count)) => {
                node.child_count = count;
                if item.depth < request.max_depth && count > children.len() {
                    truncated = true;
                }
                stack.extend(children.into_iter().rev().map(|element| Pending {
                    element,
                    parent: Some(index),
                    depth: item.depth + 1,
                }));
            }
            Err(f) if f.is(kAXErrorInvalidUIElement) => {}
            Err(_) => truncated = true,
        }
        nodes.push(node);
        elements.push(item.element);
    }
    let ids = handles.mint(pid, elements);
    for (node, id) in nodes.iter_mut().zip(ids) {
        node.id = id;
    }
    Ok(Snapshot { nodes, truncated })
}

/// At most `cap` children and the true child count (counted separately only when the
/// listing came back full).
fn list_children(
    element: &AxElement,
    cap: usize,
    ctx: &mut CallCtx,
) -> AxResult<(Vec<AxElement>, usize)> {
    if cap == 0 {
        return attrs::child_count(element, ctx).map(|count| (Vec::new(), count));
    }
    let children = attrs::children(element, cap, ctx)?;
    let count = if children.len() >= cap {
        attrs::child_count(element, ctx)?.max(children.len())
    } else {
        children.len()
    };
    Ok((children, count))
}

/// One node: the batched attribute read, then action names and the settable flag where the
/// role calls for them. The id, parent and child count are left for the caller.
pub(super) fn read_node(
    element: &AxElement,
    names: &CFArray<CFString>,
    ctx: &mut CallCtx,
) -> AxResult<RawNode> {
    let values = attrs::read_many(element, names, ctx)?;
    let mut node = decode::decode_node(&values);
    if roles::reads_actions(node.role) {
        match attrs::action_names(element, ctx) {
            Ok(natives) => {
                node.actions = action_names::normalise_all(natives.iter().map(String::as_str))
            }
            Err(f) if f.is_timeout() || f.is(kAXErrorInvalidUIElement) => return Err(f),
            Err(_) => {}
        }
    }
    if roles::reads_settable(node.role) {
        match attrs::is_settable(element, "AXValue", ctx) {
            Ok(settable) => node.states.value_settable = settable,
            Err(f) if f.is_timeout() || f.is(kAXErrorInvalidUIElement) => return Err(f),
            Err(_) => {}
        }
    }
    decode::finish_states(&mut node);
    Ok(node)
}
