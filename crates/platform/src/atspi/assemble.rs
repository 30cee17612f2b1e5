//! Putting AT-SPI items in order: `Cache.GetItems` returns an app's objects unordered, each
//! naming its parent and its index in that parent. This file turns such a list into a
//! bounded pre-order walk from a root (the shape a snapshot returns). Plain data, no D-Bus.

use std::collections::HashMap;

/// One AT-SPI object as read (from the cache, or by direct calls).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Item {
    pub(super) path: String,
    /// The parent's object path (same app), if any.
    pub(super) parent: Option<String>,
    pub(super) index: i32,
    pub(super) children: i32,
    pub(super) role: u32,
    pub(super) name: String,
    pub(super) description: String,
    pub(super) states: u64,
    pub(super) ifaces: Ifaces,
}

/// The interfaces of an object that a snapshot or an operation cares about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Ifaces {
    pub(super) action: bool,
    pub(super) component: bool,
    pub(super) text: bool,
    pub(super) editable_text: bool,
    pub(super) value: bool,
    pub(super) selection: bool,
}

impl Ifaces {
    /// From D-Bus interface names (`org.a11y.atspi.Action`, …).
    pub(super) fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Ifaces {
        let mut out = Ifaces::default();
        for name in names {
            match name.strip_prefix("org.a11y.atspi.").unwrap_or(name) {
                "Action" => out.action = true,
                "Component" => out.component = true,
                "Text" => out.text = true,
                "EditableText" => out.editable_text = true,
                "Value" => out.value = true,
                "Selection" => out.selection = true,
                _ => {}
            }
        }
        out
    }
}

/// One step of a walk: which item, the position of its parent in the walk, its depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Visit {
    pub(super) item: usize,
    pub(super) parent: Option<usize>,
    pub(super) depth: u32,
}

/// A bounded pre-order walk.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Walk {
    pub(super) visits: Vec<Visit>,
    /// The node budget cut the walk short.
    pub(super) truncated: bool,
}

/// Each parent's children among `items`, by path. A child counts only when its index lies
/// within its parent's child count: the cache also holds objects whose parent no longer
/// lists them (a closed completion popup), which a walk of the live tree would not reach.
fn children_map<'a>(items: &'a [Item], at: &HashMap<&str, usize>) -> HashMap<&'a str, Vec<usize>> {
    let mut kids: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        let Some(p) = &it.parent else { continue };
        if p == &it.path {
            continue;
        }
        if let Some(&pi) = at.get(p.as_str())
            && (it.index < 0 || it.index >= items[pi].children)
        {
            continue;
        }
        kids.entry(p.as_str()).or_default().push(i);
    }
    kids
}

/// Visits of `walk` whose item has fewer children among `items` than it says it has, or does
/// not say how many (`-1`, as GTK's cache reports for menus), and whose children the walk
/// would descend into: the places where the cache cannot be trusted.
pub(super) fn gaps(items: &[Item], walk: &Walk, max_depth: u32) -> Vec<usize> {
    let at: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.path.as_str(), i))
        .collect();
    let kids = children_map(items, &at);
    walk.visits
        .iter()
        .enumerate()
        .filter(|(_, v)| v.depth < max_depth)
        .filter(|(_, v)| {
            let item = &items[v.item];
            let listed = kids.get(item.path.as_str()).map_or(0, Vec::len);
            // A negative count means the app did not say (menus): ask the app.
            item.children < 0 || (listed as i64) < i64::from(item.children)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Walks `items` in pre-order from the item at `root`, children in index order, down to
/// `max_depth` levels below the root and at most `max_nodes` items, leaving out the root's
/// first `skip` children (a paged read's continuation). `None` when the root is not among the
/// items. Items reachable twice (a broken tree) are visited once.
pub(super) fn preorder(
    items: &[Item],
    root: &str,
    max_depth: u32,
    max_nodes: usize,
    skip: usize,
) -> Option<Walk> {
    let at: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.path.as_str(), i))
        .collect();
    let start = *at.get(root)?;
    let mut kids = children_map(items, &at);
    for list in kids.values_mut() {
        list.sort_by(|&a, &b| {
            (items[a].index, &items[a].path).cmp(&(items[b].index, &items[b].path))
        });
    }
    let mut seen = vec![false; items.len()];
    let mut walk = Walk::default();
    let mut stack = vec![(start, None, 0u32)];
    while let Some((i, parent, depth)) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        if walk.visits.len() >= max_nodes {
            walk.truncated = true;
            break;
        }
        let me = walk.visits.len();
        walk.visits.push(Visit {
            item: i,
            parent,
            depth,
        });
        if depth < max_depth
            && let Some(list) = kids.get(items[i].path.as_str())
        {
            let skipped = if parent.is_none() { skip } else { 0 };
            for &c in list.iter().skip(skipped).rev() {
                stack.push((c, Some(me), depth + 1));
            }
        }
    }
    Some(walk)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(path: &str, parent: Option<&str>, index: i32, children: i32) -> Item {
        Item {
            path: path.into(),
            parent: parent.map(Into::into),
            index,
            children,
            ..Item::default()
        }
    }

    fn tree() -> Vec<Item> {
        // Deliberately unordered, as the cache returns them.
        vec![
            item("/b2", Some("/w"), 1, 0),
            item("/w", Some("/root"), 0, 2),
            item("/root", None, -1, 2),
            item("/b1", Some("/w"), 0, 1),
            item("/x", Some("/b1"), 0, 0),
            item("/w2", Some("/root"), 1, 0),
            // Claims /w as parent but /w does not list it.
            item("/stray", Some("/w"), -1, 0),
        ]
    }

    fn paths(items: &[Item], walk: &Walk) -> Vec<String> {
        walk.visits
            .iter()
            .map(|v| items[v.item].path.clone())
            .collect()
    }

    #[test]
    fn preorder_follows_indices() {
        let items = tree();
        let walk = preorder(&items, "/root", 10, 100, 0).unwrap();
        assert_eq!(
            paths(&items, &walk),
            ["/root", "/w", "/b1", "/x", "/b2", "/w2"]
        );
        assert_eq!(walk.visits[0].parent, None);
        assert_eq!(walk.visits[2].parent, Some(1));
        assert_eq!(walk.visits[3].depth, 3);
        assert!(!walk.truncated);
    }

    #[test]
    fn depth_and_budget_bound_the_walk() {
        let items = tree();
        let walk = preorder(&items, "/root", 1, 100, 0).unwrap();
        assert_eq!(paths(&items, &walk), ["/root", "/w", "/w2"]);
        assert!(!walk.truncated, "depth is not truncation");
        let walk = preorder(&items, "/root", 10, 3, 0).unwrap();
        assert_eq!(paths(&items, &walk), ["/root", "/w", "/b1"]);
        assert!(walk.truncated);
        let sub = preorder(&items, "/w", 10, 100, 0).unwrap();
        assert_eq!(paths(&items, &sub), ["/w", "/b1", "/x", "/b2"]);
        assert!(preorder(&items, "/nope", 1, 1, 0).is_none());
    }

    #[test]
    fn gaps_are_found() {
        let mut items = tree();
        let walk = preorder(&items, "/root", 10, 100, 0).unwrap();
        assert!(gaps(&items, &walk, 10).is_empty());
        items.retain(|i| i.path != "/x");
        let walk = preorder(&items, "/root", 10, 100, 0).unwrap();
        let found: Vec<&str> = gaps(&items, &walk, 10)
            .into_iter()
            .map(|v| items[walk.visits[v].item].path.as_str())
            .collect();
        assert_eq!(found, ["/b1"]);
        assert!(
            gaps(&items, &walk, 1).is_empty(),
            "below the depth limit is no gap"
        );
    }

    #[test]
    fn cycles_do_not_loop() {
        let items = vec![item("/a", Some("/b"), 0, 1), item("/b", Some("/a"), 0, 1)];
        let walk = preorder(&items, "/a", 10, 100, 0).unwrap();
        assert_eq!(paths(&items, &walk), ["/a", "/b"]);
    }

    #[test]
    fn interface_names() {
        let f = Ifaces::from_names(["org.a11y.atspi.Action", "org.a11y.atspi.Value", "Component"]);
        assert!(f.action && f.value && f.component && !f.text);
    }
}
