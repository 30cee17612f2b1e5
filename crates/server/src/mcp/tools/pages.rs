//! `get_tree`'s pages: a walk cut by the node budget, the deadline or the byte budget of one
//! result continues from a **frontier cursor**, never from the start.
//!
//! The cursor holds the chain of elements from the walk's root down to where the page ended,
//! each with the index of its next child to read and how many children of each role came
//! before it (so the next children get the same paths a whole walk would give them). A
//! continued page reads each element of the chain once more (one round trip each, by handle
//! where the session still holds it, else by path) and then only what is new: the backend
//! skips the children already shown (`SnapshotRequest::skip_children`). All pages together
//! cost O(nodes + pages × depth) reads. Each page starts with its ancestors, so the hierarchy
//! and the indentation carry over.
//!
//! What a page may hold is cut where it first fails to fit: `max_nodes` new nodes, the
//! deadline, or [`PAGE_BYTES`] of text and structured content (a result stays under the
//! 1 MiB that clients accept for one message). A walk whose tree is not a pre-order prefix
//! (a backend that cut a child list short) is cut before the first gap, so nothing is lost.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use super::cursor::{Frontier, Level, VERSION};
use super::skipped::describe_skipped;
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::NodeOut;
use axgate_engine::tree::{self, IndexedNode};
use axgate_engine::{AppConnection, AxError, ElementPath, Role, SnapshotRequest, Target};

/// The most bytes of text plus structured nodes one page holds: 1 MiB less room for the
/// result's envelope (JSON-RPC, SSE framing, the other fields).
pub(super) const PAGE_BYTES: usize = 1024 * 1024 - 64 * 1024;

/// The most nodes read in one backend call: what a page reads past its byte budget and
/// throws away is at most this much.
const CHUNK: usize = 512;

/// The nodes of one page: the chain of ancestors first, then what is new, linked as one tree
/// (indices into `nodes`; node 0 is the walk's root).
pub(super) struct Page {
    nodes: Vec<IndexedNode>,
    parent: Vec<Option<usize>>,
    /// Per node: the index (among all its children) of its first child on this page.
    base: Vec<usize>,
    /// Per node: its children before `base`, counted by role name.
    carried: Vec<BTreeMap<String, usize>>,
    /// Per node: read on an earlier page, shown again as context.
    context: Vec<bool>,
    /// Per node: a read of its further children found none.
    exhausted: Vec<bool>,
    /// Nodes new on this page.
    pub(super) walked: usize,
    /// What the backend left out because the app did not answer for it, said by path
    /// (`Snapshot::skipped`).
    pub(super) skipped: Vec<String>,
    /// What the new nodes would take rendered (an estimate from above: filters show fewer).
    bytes: usize,
    depth: u32,
    pid: u32,
    detail: Detail,
}

/// What a page's rendering holds besides the lines: each costs tokens on every page, so
/// both are asked for (docs/TOOLS.md, "What a result costs").
#[derive(Clone, Copy)]
pub(super) struct Detail {
    /// Each line ends with the element's frame.
    pub(super) frames: bool,
    /// Each element also as a structured node (path, every naming field, states).
    pub(super) nodes: bool,
}

/// What a page renders to.
pub(super) struct Rendered {
    pub(super) text: String,
    /// The structured nodes, when [`Detail::nodes`] asked for them.
    pub(super) nodes: Option<Vec<NodeOut>>,
    pub(super) next_cursor: Option<String>,
    /// Some node at the depth limit has children left out.
    pub(super) deeper: bool,
    /// The byte budget cut the page.
    pub(super) full: bool,
}

/// What one page may hold, and what it shows of each element.
pub(super) struct Bounds {
    /// Levels below the walk's root.
    pub(super) depth: u32,
    /// New nodes on this page.
    pub(super) max_nodes: usize,
    pub(super) deadline: Instant,
    pub(super) detail: Detail,
}

/// Reads one page: from the app's root (or `root`) when `frontier` is `None`, else from where
/// the frontier ended.
pub(super) async fn read(
    ctx: &ToolCtx,
    conn: &AppConnection,
    root: Option<&str>,
    frontier: Option<&Frontier>,
    bounds: Bounds,
) -> Result<Page, ToolError> {
    let Bounds {
        depth,
        max_nodes,
        deadline,
        detail,
    } = bounds;
    let start = match frontier {
        Some(f) => f.levels.clone(),
        None => {
            let path = match root {
                Some(text) => {
                    let target = super::target::parse_target("root", text)?;
                    let resolved = conn.resolve(&ctx.engine, &target, &ctx.stats).await?;
                    resolved.path.to_string()
                }
                None => String::new(),
            };
            vec![Level {
                p: path,
                h: None,
                n: 0,
                r: BTreeMap::new(),
            }]
        }
    };
    let mut page = Page {
        nodes: Vec::new(),
        parent: Vec::new(),
        base: Vec::new(),
        carried: Vec::new(),
        context: Vec::new(),
        exhausted: Vec::new(),
        walked: 0,
        skipped: Vec::new(),
        bytes: 0,
        depth,
        pid: conn.app.pid,
        detail,
    };
    // The chain, root first, each element linked under the one above. A level's `n` and
    // `r` count the chain's next element too: its own entry starts one before.
    let last = start.len() - 1;
    for (j, level) in start.iter().enumerate() {
        let resolved = resolve_level(ctx, conn, level).await?;
        let me = page.nodes.len();
        let mut carried = level.r.clone();
        let mut base = level.n;
        if j < last {
            base = level.n.saturating_sub(1);
            let below = ElementPath::parse(&start[j + 1].p).ok();
            if let Some(step) = below.as_ref().and_then(|p| p.steps.last()) {
                let name = step.role.as_str();
                if let Some(n) = carried.get_mut(name) {
                    *n = n.saturating_sub(1);
                }
            }
        }
        page.push(
            IndexedNode {
                node: resolved.node,
                path: resolved.path,
                depth: j as u32,
                children: Vec::new(),
            },
            me.checked_sub(1),
            base,
            carried,
            frontier.is_some(),
        );
    }
    if frontier.is_none() {
        page.walked += 1;
    }
    // Then what is new, a chunk at a time from the deepest element that has children left,
    // until the node budget, the byte budget or the deadline.
    while let Some(holder) = page.next_holder() {
        let budget = max_nodes.saturating_sub(page.walked).min(CHUNK);
        if budget == 0 || page.bytes >= PAGE_BYTES || Instant::now() >= deadline {
            break;
        }
        let level = page.level(holder, page.nodes[holder].children.len(), &[]);
        let holder_depth = page.nodes[holder].depth;
        let request = SnapshotRequest {
            root: Some(page.nodes[holder].node.id),
            max_depth: depth - holder_depth,
            max_nodes: budget + 1,
            skip_children: level.n,
        };
        let snapshot = ctx
            .engine
            .snapshot(&conn.app, request, deadline, &ctx.stats)
            .await?;
        let before: Vec<(Role, usize)> = level
            .r
            .iter()
            .filter_map(|(name, &n)| Role::parse(name).map(|r| (r, n)))
            .collect();
        let path = page.nodes[holder].path.clone();
        let cut = snapshot.truncated;
        let skipped = snapshot.skipped.clone();
        let indexed = tree::index_continued(snapshot, &path, holder_depth, &before);
        page.skipped
            .extend(skipped.iter().filter_map(|s| describe_skipped(s, &indexed)));
        if page.graft(holder, indexed) == 0 {
            if cut {
                // The deadline ended the read before its first new node: what is left
                // there is the next page's (the cursor), not gone.
                break;
            }
            // Its children went away since it was counted: nothing more there.
            page.exhausted[holder] = true;
        }
    }
    Ok(page)
}

/// The element of a level: by its handle while the session holds it (one read), else by its
/// path (a read of each ancestor's children).
async fn resolve_level(
    ctx: &ToolCtx,
    conn: &AppConnection,
    level: &Level,
) -> Result<axgate_engine::Resolved, ToolError> {
    // A handle names an element only in the session that minted it: another session's
    // cursor may carry a handle this one gave to something else, so the path must agree.
    if let Some(handle) = &level.h
        && let Ok(found) = conn
            .resolve(&ctx.engine, &Target::Handle(handle.clone()), &ctx.stats)
            .await
        && found.path.to_string() == level.p
    {
        return Ok(found);
    }
    let target = if level.p.is_empty() {
        Target::Path(ElementPath::default())
    } else {
        super::target::parse_target("cursor", &level.p)?
    };
    conn.resolve(&ctx.engine, &target, &ctx.stats)
        .await
        .map_err(|e| match e {
            AxError::NotFound { .. } => ToolError::Usage(format!(
                "invalid argument `cursor`: the element {:?} it continues from is gone (the \
                 app's tree changed); leave cursor out to start again",
                level.p
            )),
            other => other.into(),
        })
}

/// How many nodes of a pre-order snapshot form a prefix of the whole walk. A node within
/// the depth whose children stop short of its `child_count` (after `skipped`, for the root)
/// is a gap when nodes follow its subtree: the prefix ends with that subtree.
fn prefix_len(nodes: &[IndexedNode], depth: u32, skipped: usize) -> usize {
    for (i, n) in nodes.iter().enumerate() {
        let had = n.children.len() + if i == 0 { skipped } else { 0 };
        if n.depth < depth && had < n.node.child_count {
            let end = nodes[i + 1..]
                .iter()
                .position(|m| m.depth <= n.depth)
                .map_or(nodes.len(), |k| i + 1 + k);
            return end;
        }
    }
    nodes.len()
}

impl Page {
    fn push(
        &mut self,
        node: IndexedNode,
        parent: Option<usize>,
        base: usize,
        carried: BTreeMap<String, usize>,
        context: bool,
    ) {
        let me = self.nodes.len();
        if let Some(p) = parent {
            self.nodes[p].children.push(me);
        }
        self.nodes.push(node);
        self.parent.push(parent);
        self.base.push(base);
        self.carried.push(carried);
        self.context.push(context);
        self.exhausted.push(false);
    }

    /// Adds a continued snapshot of the page node `holder` (the snapshot's first node is the
    /// holder itself, read again): the rest become the holder's further children and their
    /// subtrees. A snapshot that is not a pre-order prefix is cut at its first gap (the next
    /// read goes on from there). Returns how many nodes it added.
    fn graft(&mut self, holder: usize, indexed: Vec<IndexedNode>) -> usize {
        let keep = prefix_len(
            &indexed,
            self.depth,
            self.base[holder] + self.nodes[holder].children.len(),
        );
        let mut parent_of = vec![None; indexed.len()];
        for (i, n) in indexed.iter().enumerate() {
            for &c in &n.children {
                parent_of[c] = Some(i);
            }
        }
        let mut map = vec![holder; indexed.len()];
        let mut added = 0;
        for (i, mut node) in indexed.into_iter().enumerate().take(keep).skip(1) {
            node.children.clear();
            self.bytes += estimate(&node, self.detail);
            map[i] = self.nodes.len();
            let parent = parent_of[i].map(|p| map[p]);
            self.push(node, parent, 0, BTreeMap::new(), false);
            added += 1;
        }
        self.walked += added;
        added
    }

    /// The deepest element on the page's last chain that may have children left to read.
    fn next_holder(&self) -> Option<usize> {
        let mut last = 0;
        while let Some(&c) = self.nodes[last].children.last() {
            last = c;
        }
        self.chain(last)
            .into_iter()
            .rev()
            .find(|&p| self.has_more(p))
    }

    /// Whether the page node `p` may have children not read yet.
    fn has_more(&self, p: usize) -> bool {
        let n = &self.nodes[p];
        n.depth < self.depth
            && !self.exhausted[p]
            && self.base[p] + n.children.len() < n.node.child_count
    }

    /// The index among all its siblings of the page node `i`.
    fn at(&self, i: usize) -> usize {
        match self.parent[i] {
            None => 0,
            Some(p) => {
                self.base[p]
                    + self.nodes[p]
                        .children
                        .iter()
                        .position(|&c| c == i)
                        .unwrap_or(0)
            }
        }
    }

    /// The frontier level of `p` whose next child to read is its page child number `upto`
    /// (an index into its page children; its length for "after them all").
    fn level(&self, p: usize, upto: usize, handles: &[Option<String>]) -> Level {
        let mut counts = self.carried[p].clone();
        for &c in self.nodes[p].children.iter().take(upto) {
            *counts
                .entry(self.nodes[c].node.role.as_str().to_owned())
                .or_default() += 1;
        }
        Level {
            p: self.nodes[p].path.to_string(),
            h: handles.get(p).cloned().flatten(),
            n: self.base[p] + upto,
            r: counts,
        }
    }

    /// The chain of page nodes from the root down to `i`, root first.
    fn chain(&self, i: usize) -> Vec<usize> {
        let mut chain = vec![i];
        while let Some(p) = self.parent[*chain.last().expect("not empty")] {
            chain.push(p);
        }
        chain.reverse();
        chain
    }

    /// The frontier where the next node to read is the page node `next` (not rendered).
    fn frontier_before(&self, next: usize, handles: &[Option<String>]) -> Frontier {
        let chain = self.chain(next);
        let mut levels = Vec::new();
        for pair in chain.windows(2) {
            let (p, c) = (pair[0], pair[1]);
            let pos = self.at(c) - self.base[p];
            // The chain's own child counts as read for every level but the last.
            let upto = if c == next { pos } else { pos + 1 };
            levels.push(self.level(p, upto, handles));
        }
        self.frontier(levels)
    }

    /// The frontier after every node on the page (after the last one in pre-order); `None`
    /// when nothing is left there. The chain ends at its deepest element with children left
    /// to read: an element below it whose children were all read is no ancestor of what comes
    /// next, and the next page must not start with it.
    fn frontier_after(&self, handles: &[Option<String>]) -> Option<Frontier> {
        let mut last = 0;
        while let Some(&c) = self.nodes[last].children.last() {
            last = c;
        }
        let chain = self.chain(last);
        let mut levels = Vec::new();
        let mut keep = 0;
        for &p in &chain {
            let all = self.nodes[p].children.len();
            levels.push(self.level(p, all, handles));
            if self.has_more(p) {
                keep = levels.len();
            }
        }
        levels.truncate(keep);
        (!levels.is_empty()).then(|| self.frontier(levels))
    }

    fn frontier(&self, levels: Vec<Level>) -> Frontier {
        Frontier {
            v: VERSION,
            pid: self.pid,
            d: self.depth,
            levels,
        }
    }

    /// Renders the page in pre-order: each node `keep` accepts (and that is not a collapsed
    /// group) as a line and a structured node, until [`PAGE_BYTES`]; the cursor for what is
    /// left. `mint` gives each node its session handle (sessions only).
    pub(super) fn render(
        self,
        keep: impl Fn(&IndexedNode) -> bool,
        mint: impl Fn(&IndexedNode) -> Option<String>,
    ) -> Rendered {
        let detail = self.detail;
        let mut out = Rendered {
            text: String::new(),
            nodes: detail.nodes.then(Vec::new),
            next_cursor: None,
            deeper: false,
            full: false,
        };
        let mut handles: Vec<Option<String>> = vec![None; self.nodes.len()];
        let mut bytes = 0;
        let mut new_shown = 0;
        let mut stopped_at = None;
        let mut stack = vec![(0usize, 0u32)];
        while let Some((at, shown_depth)) = stack.pop() {
            let n = &self.nodes[at];
            let shown = keep(n) && !tree::collapsible(n);
            if shown {
                let handle = mint(n);
                let path = n.path.to_string();
                let mut line = tree::indent(shown_depth);
                // Without a handle (sessionless), the line names the element by its path.
                line.push_str(&tree::compact_line_with(
                    &n.node,
                    Some(handle.as_deref().unwrap_or(&path)),
                    detail.frames,
                ));
                line.push('\n');
                let node = detail
                    .nodes
                    .then(|| NodeOut::new(&n.node, handle.clone(), path, shown_depth));
                let cost = json_len(&line) + node.as_ref().map_or(0, json_len);
                // Ancestors always fit (a chain is short), and so does the first new node, so
                // that every page gets somewhere.
                if bytes + cost > PAGE_BYTES && !self.context[at] && new_shown > 0 {
                    stopped_at = Some(at);
                    break;
                }
                if !self.context[at] {
                    new_shown += 1;
                }
                bytes += cost;
                out.text.push_str(&line);
                if let (Some(nodes), Some(node)) = (&mut out.nodes, node) {
                    nodes.push(node);
                }
                handles[at] = handle;
            }
            if n.depth == self.depth && n.node.child_count > 0 {
                out.deeper = true;
            }
            let next = if shown { shown_depth + 1 } else { shown_depth };
            stack.extend(n.children.iter().rev().map(|&c| (c, next)));
        }
        // Handles of chain elements that were not shown (filtered) are not needed: paths do.
        out.full = stopped_at.is_some() || self.bytes >= PAGE_BYTES;
        let frontier = match stopped_at {
            Some(at) => Some(self.frontier_before(at, &handles)),
            None if self.next_holder().is_some() => self.frontier_after(&handles),
            None => None,
        };
        out.next_cursor = frontier.map(|f| f.encode());
        out
    }
}

/// What a node takes rendered, as far as can be told before it has a handle (a line names it
/// by a handle or, sessionless, by its path: the estimate allows for the longer).
fn estimate(n: &IndexedNode, detail: Detail) -> usize {
    let path = n.path.to_string();
    let name = if path.len() > 6 {
        path.as_str()
    } else {
        "e00000"
    };
    let line = tree::compact_line_with(&n.node, Some(name), detail.frames);
    let node = detail
        .nodes
        .then(|| NodeOut::new(&n.node, Some("e00000".into()), path.clone(), n.depth));
    json_len(&line) + node.as_ref().map_or(0, json_len) + n.depth as usize + 2
}

/// The length of `value` as JSON.
fn json_len(value: &impl Serialize) -> usize {
    serde_json::to_vec(value).map_or(0, |v| v.len())
}

#[cfg(test)]
#[path = "pages_tests.rs"]
mod tests;
