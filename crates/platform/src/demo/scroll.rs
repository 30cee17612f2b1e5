//! Scrolling and dragging in a demo app. A scroll area scrolls by shifting its content's
//! frames; a *live* scroll area (one with a `scroll_bar` child) also marks content outside its
//! viewport invisible and keeps the bar's value (0..1) in step with the position. Dragging
//! moves a slider's thumb or a scroll bar; a drag that starts on nothing draggable does
//! nothing.

use axgate_engine::{AxError, AxValue, ChangeEvent, ChangeKind, NodeId, Rect, Role};

use super::hit::element_at;
use super::tree::AppTree;
use super::{effects, state};

/// Points one scrolled line moves.
pub(super) const LINE: f64 = 24.0;

/// Brings every live scroll area's visibility marks and bar in line (after building).
pub(super) fn settle_all(tree: &mut AppTree) {
    let areas: Vec<NodeId> = tree
        .preorder(tree.root())
        .into_iter()
        .filter(|id| tree.get(*id).is_some_and(|n| n.role == Role::ScrollArea))
        .collect();
    for area in areas {
        let mut ignored = Vec::new();
        if bar_of(tree, area).is_some() {
            clip(tree, area);
            update_bar(tree, area, &mut ignored);
        }
    }
}

/// Scrolls the scroll area under `point` by (dx, dy) lines; positive dy scrolls down. A point
/// over no scroll area scrolls nothing.
pub(super) fn scroll_at(
    tree: &mut AppTree,
    point: (f64, f64),
    (dx, dy): (f64, f64),
) -> Result<Vec<ChangeEvent>, AxError> {
    if !dx.is_finite() || !dy.is_finite() {
        return Err(AxError::InvalidValue {
            element: "scroll".to_owned(),
            reason: "expected finite line counts".to_owned(),
        });
    }
    let mut events = Vec::new();
    let area =
        element_at(tree, point).and_then(|hit| tree.ancestor_with_role(hit, Role::ScrollArea));
    if let Some(area) = area.filter(|a| tree.get(*a).is_some_and(|n| n.states.enabled)) {
        scroll_by(tree, area, (dx * LINE, dy * LINE), &mut events);
    }
    Ok(events)
}

/// Scrolls the nearest scroll area around `id` just enough to show it.
pub(super) fn scroll_into_view(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(area) = tree
        .get(id)
        .and_then(|n| n.parent)
        .and_then(|p| tree.ancestor_with_role(p, Role::ScrollArea))
    else {
        return;
    };
    let (Some(item), Some(view)) = (frame(tree, id), frame(tree, area)) else {
        return;
    };
    let needed = |start: f64, len: f64, vstart: f64, vlen: f64| {
        if start < vstart || len > vlen {
            start - vstart
        } else if start + len > vstart + vlen {
            start + len - (vstart + vlen)
        } else {
            0.0
        }
    };
    let dx = needed(item.x, item.w, view.x, view.w);
    let dy = needed(item.y, item.h, view.y, view.h);
    scroll_by(tree, area, (dx, dy), events);
}

/// After a scroll bar's value was written: scrolls its area to that position.
pub(super) fn follow_bar(tree: &mut AppTree, bar: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(area) = tree.get(bar).and_then(|n| n.parent) else {
        return;
    };
    if tree.get(area).is_none_or(|n| n.role != Role::ScrollArea) {
        return;
    }
    let fraction = match tree.get(bar).and_then(|n| n.value.clone()) {
        Some(AxValue::Number(n)) => n.clamp(0.0, 1.0),
        _ => return,
    };
    let (_, range_y) = range(tree, area);
    let offset_y = tree.get(area).map_or(0.0, |n| n.extra.scroll_offset.1);
    scroll_by(tree, area, (0.0, fraction * range_y - offset_y), events);
    update_bar(tree, area, events);
}

/// Scrolls `area` by up to (dx, dy) points, clamped to its content.
fn scroll_by(
    tree: &mut AppTree,
    area: NodeId,
    (dx, dy): (f64, f64),
    events: &mut Vec<ChangeEvent>,
) {
    let Some(view) = frame(tree, area) else {
        return;
    };
    let Some((right, bottom)) = content_extent(tree, area) else {
        return;
    };
    let (ox, oy) = tree.get(area).map_or((0.0, 0.0), |n| n.extra.scroll_offset);
    let d = (
        dx.clamp(-ox, (right - (view.x + view.w)).max(0.0)),
        dy.clamp(-oy, (bottom - (view.y + view.h)).max(0.0)),
    );
    if d == (0.0, 0.0) {
        return;
    }
    for child in content(tree, area) {
        tree.shift(child, (-d.0, -d.1));
    }
    if let Some(node) = tree.get_mut(area) {
        node.extra.scroll_offset = (ox + d.0, oy + d.1);
    }
    events.push(tree.event(area, ChangeKind::BoundsChanged));
    if bar_of(tree, area).is_some() {
        if clip(tree, area) {
            events.push(tree.event(area, ChangeKind::ChildrenChanged));
        }
        update_bar(tree, area, events);
    }
}

/// The full scroll range (x, y) of an area: its offset plus what is left to scroll.
fn range(tree: &AppTree, area: NodeId) -> (f64, f64) {
    let (Some(view), Some((right, bottom))) = (frame(tree, area), content_extent(tree, area))
    else {
        return (0.0, 0.0);
    };
    let (ox, oy) = tree.get(area).map_or((0.0, 0.0), |n| n.extra.scroll_offset);
    (
        ox + (right - (view.x + view.w)).max(0.0),
        oy + (bottom - (view.y + view.h)).max(0.0),
    )
}

fn update_bar(tree: &mut AppTree, area: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(bar) = bar_of(tree, area) else {
        return;
    };
    let (_, total) = range(tree, area);
    let offset = tree.get(area).map_or(0.0, |n| n.extra.scroll_offset.1);
    let position = if total > 0.0 { offset / total } else { 0.0 };
    state::write_value(tree, bar, AxValue::Number(position), events);
}

/// Marks the area's content outside the viewport as scrolled out; true if any mark changed.
fn clip(tree: &mut AppTree, area: NodeId) -> bool {
    let Some(view) = frame(tree, area) else {
        return false;
    };
    let mut changed = false;
    for child in content(tree, area) {
        for id in tree.preorder(child) {
            if let Some(node) = tree.get_mut(id)
                && let Some(f) = node.frame
            {
                let out = !overlaps(f, view);
                changed |= node.extra.scrolled_out != out;
                node.extra.scrolled_out = out;
            }
        }
    }
    changed
}

fn overlaps(a: Rect, b: Rect) -> bool {
    a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}

fn frame(tree: &AppTree, id: NodeId) -> Option<Rect> {
    tree.get(id).and_then(|n| n.frame)
}

fn bar_of(tree: &AppTree, area: NodeId) -> Option<NodeId> {
    let node = tree.get(area)?;
    node.children
        .iter()
        .copied()
        .find(|c| tree.get(*c).is_some_and(|c| c.role == Role::ScrollBar))
}

/// The area's children that scroll (everything but its scroll bars).
fn content(tree: &AppTree, area: NodeId) -> Vec<NodeId> {
    tree.get(area).map_or_else(Vec::new, |n| {
        n.children
            .iter()
            .copied()
            .filter(|c| tree.get(*c).is_some_and(|c| c.role != Role::ScrollBar))
            .collect()
    })
}

/// The right and bottom edges of the area's content, where it has frames.
fn content_extent(tree: &AppTree, area: NodeId) -> Option<(f64, f64)> {
    let frames: Vec<Rect> = content(tree, area)
        .into_iter()
        .flat_map(|c| tree.preorder(c))
        .filter_map(|id| frame(tree, id))
        .collect();
    let right = frames.iter().map(|f| f.x + f.w).reduce(f64::max)?;
    let bottom = frames.iter().map(|f| f.y + f.h).reduce(f64::max)?;
    Some((right, bottom))
}

/// A left-button drag from `from` to `to`: moves the slider or scroll bar the drag starts on
/// (a slider's value follows the pointer across its track); anything else ignores it.
pub(super) fn drag(tree: &mut AppTree, from: (f64, f64), to: (f64, f64)) -> Vec<ChangeEvent> {
    let mut events = Vec::new();
    let mut cursor = element_at(tree, from);
    while let Some(node) = cursor.and_then(|id| tree.get(id)) {
        let id = node.id;
        if !node.states.enabled {
            break;
        }
        let Some(f) = node.frame else {
            cursor = node.parent;
            continue;
        };
        let across = if f.w >= f.h {
            (to.0 - f.x) / f.w
        } else {
            1.0 - (to.1 - f.y) / f.h
        };
        match node.role {
            Role::Slider => {
                let (min, max) = (node.min.unwrap_or(0.0), node.max.unwrap_or(1.0));
                let value = min + across.clamp(0.0, 1.0) * (max - min);
                effects::change_value(tree, id, AxValue::Number(value), &mut events);
                break;
            }
            Role::ScrollBar => {
                let down = ((to.1 - f.y) / f.h).clamp(0.0, 1.0);
                state::write_value(tree, id, AxValue::Number(down), &mut events);
                follow_bar(tree, id, &mut events);
                break;
            }
            _ => cursor = node.parent,
        }
    }
    events
}
