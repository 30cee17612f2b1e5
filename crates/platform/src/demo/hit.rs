//! Where a demo app's elements are on screen: the order visible elements are painted in,
//! the part of an element that enclosing scroll areas leave visible, and the topmost
//! element under a point. Used by clicks, scrolling and the screenshot renderer.

use axgate_engine::{NodeId, Rect, Role};

use super::tree::AppTree;

/// The topmost visible element containing the point: the last one painted there, unless an
/// enclosing scroll area hides that part of it.
pub(super) fn element_at(tree: &AppTree, (x, y): (f64, f64)) -> Option<NodeId> {
    paint_order(tree).into_iter().rev().find(|id| {
        tree.get(*id)
            .and_then(|n| n.frame)
            .is_some_and(|f| f.contains(x, y))
            && scroll_clip(tree, *id).is_none_or(|clip| clip.contains(x, y))
    })
}

/// The part of the screen an element's scroll-area ancestors leave visible (`None`: not
/// inside a scroll area). Content scrolled out of view has frames outside it.
pub(super) fn scroll_clip(tree: &AppTree, id: NodeId) -> Option<Rect> {
    let mut clip: Option<Rect> = None;
    let mut cursor = tree.get(id).and_then(|n| n.parent);
    while let Some(node) = cursor.and_then(|p| tree.get(p)) {
        if node.role == Role::ScrollArea
            && let Some(frame) = node.frame
        {
            clip = Some(clip.map_or(frame, |c| intersect(c, frame)));
        }
        cursor = node.parent;
    }
    clip
}

fn intersect(a: Rect, b: Rect) -> Rect {
    let (x, y) = (a.x.max(b.x), a.y.max(b.y));
    let right = (a.x + a.w).min(b.x + b.w);
    let bottom = (a.y + a.h).min(b.y + b.h);
    Rect {
        x,
        y,
        w: (right - x).max(0.0),
        h: (bottom - y).max(0.0),
    }
}

/// Visible elements in the order they are drawn: parents before children, later siblings
/// over earlier ones, and menus (with their items) over everything else.
pub(super) fn paint_order(tree: &AppTree) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut layers = vec![tree.root()];
    let mut layer = 0;
    while let Some(&start) = layers.get(layer) {
        let mut stack = vec![start];
        while let Some(id) = stack.pop() {
            let Some(node) = tree.get(id).filter(|n| n.states.visible) else {
                continue;
            };
            out.push(id);
            for child in node.children.iter().rev() {
                if tree.get(*child).is_some_and(|c| c.role == Role::Menu) {
                    layers.push(*child);
                } else {
                    stack.push(*child);
                }
            }
        }
        layer += 1;
    }
    out
}
