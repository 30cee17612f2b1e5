//! The per-connection handle table: short ids (`e42`) minted for nodes a result returned,
//! each with a fingerprint so a stale handle is re-resolved or fails closed. Capped, with
//! least-recently-used eviction.

use std::collections::{BTreeMap, HashMap};

use super::model::{NodeId, RawNode, Role};
use super::path::ElementPath;

/// What a handle remembers about its element, to re-find it and to detect a different one.
#[derive(Clone, Debug, PartialEq)]
pub struct Fingerprint {
    pub role: Role,
    /// The accessible name. A static text is named by its content, so a label whose text
    /// changed no longer matches: its handle fails as stale rather than silently naming what
    /// the label says now (the contract suite's `stale_handle`).
    pub name: Option<String>,
    pub identifier: Option<String>,
    pub path: ElementPath,
}

impl Fingerprint {
    pub fn of(node: &RawNode, path: &ElementPath) -> Fingerprint {
        Fingerprint {
            role: node.role,
            name: identity_name(node),
            identifier: node.identifier.clone(),
            path: path.clone(),
        }
    }

    /// Whether `node` is plausibly the same element.
    pub fn matches(&self, node: &RawNode) -> bool {
        node.role == self.role
            && identity_name(node) == self.name
            && (self.identifier.is_none() || node.identifier == self.identifier)
    }

    /// A short description for error messages.
    pub fn describe(&self) -> String {
        describe_parts(self.role, self.name.as_deref(), self.identifier.as_deref())
    }
}

/// The name a fingerprint remembers (see [`Fingerprint::name`]).
fn identity_name(node: &RawNode) -> Option<String> {
    node.label().map(str::to_owned)
}

/// How error messages call an element: `button "Save"` by its name, `text_field #email` by
/// its identifier when it has no name, else just its role (docs/TOOLS.md, "Names").
pub fn describe(node: &RawNode) -> String {
    describe_parts(node.role, node.label(), node.identifier.as_deref())
}

fn describe_parts(role: Role, name: Option<&str>, identifier: Option<&str>) -> String {
    match (name, identifier) {
        (Some(n), _) if !n.is_empty() => format!("{role} {n:?}"),
        (_, Some(i)) if !i.is_empty() => format!("{role} #{i}"),
        _ => role.to_string(),
    }
}

#[derive(Clone, Debug)]
pub struct HandleEntry {
    pub node: NodeId,
    pub fingerprint: Fingerprint,
    last_used: u64,
}

/// Handles of one app connection.
#[derive(Debug)]
pub struct HandleTable {
    cap: usize,
    next: u64,
    clock: u64,
    by_handle: HashMap<u64, HandleEntry>,
    by_node: HashMap<NodeId, u64>,
    /// Last use → handle, oldest first: eviction in O(log n).
    by_age: BTreeMap<u64, u64>,
}

impl HandleTable {
    pub fn new(cap: usize) -> Self {
        HandleTable {
            cap: cap.max(1),
            next: 1,
            clock: 0,
            by_handle: HashMap::new(),
            by_node: HashMap::new(),
            by_age: BTreeMap::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.by_handle.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_handle.is_empty()
    }

    /// The handle for `node`, minting one if needed. Returns `e<N>`.
    pub fn mint(&mut self, node: &RawNode, path: &ElementPath) -> String {
        self.clock += 1;
        if let Some(&h) = self.by_node.get(&node.id)
            && let Some(entry) = self.by_handle.get_mut(&h)
        {
            self.by_age.remove(&entry.last_used);
            self.by_age.insert(self.clock, h);
            entry.last_used = self.clock;
            entry.fingerprint = Fingerprint::of(node, path);
            return format!("e{h}");
        }
        if self.by_handle.len() >= self.cap {
            self.evict_one();
        }
        let h = self.next;
        self.next += 1;
        self.by_handle.insert(
            h,
            HandleEntry {
                node: node.id,
                fingerprint: Fingerprint::of(node, path),
                last_used: self.clock,
            },
        );
        self.by_node.insert(node.id, h);
        self.by_age.insert(self.clock, h);
        format!("e{h}")
    }

    /// Looks a handle up and marks it used.
    pub fn get(&mut self, handle: &str) -> Option<HandleEntry> {
        let h = parse_handle(handle)?;
        self.clock += 1;
        let entry = self.by_handle.get_mut(&h)?;
        self.by_age.remove(&entry.last_used);
        self.by_age.insert(self.clock, h);
        entry.last_used = self.clock;
        Some(entry.clone())
    }

    /// Points a handle at a re-resolved node.
    pub fn rebind(&mut self, handle: &str, node: NodeId) {
        let Some(h) = parse_handle(handle) else {
            return;
        };
        if let Some(entry) = self.by_handle.get_mut(&h) {
            self.by_node.remove(&entry.node);
            entry.node = node;
            self.by_node.insert(node, h);
        }
    }

    fn evict_one(&mut self) {
        if let Some((_, h)) = self.by_age.pop_first()
            && let Some(entry) = self.by_handle.remove(&h)
        {
            self.by_node.remove(&entry.node);
        }
    }
}

/// `e42` → 42. Anything else is not a handle.
pub fn parse_handle(text: &str) -> Option<u64> {
    let digits = text.strip_prefix('e')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64) -> RawNode {
        let mut n = RawNode::new(NodeId(id), Role::Button, "AXButton");
        n.title = Some(format!("b{id}"));
        n
    }

    #[test]
    fn mints_once_per_node_and_evicts_least_recent() {
        let mut table = HandleTable::new(2);
        let path = ElementPath::default();
        let a = table.mint(&node(1), &path);
        assert_eq!(table.mint(&node(1), &path), a);
        let b = table.mint(&node(2), &path);
        assert!(table.get(&a).is_some()); // a is now more recent than b
        let c = table.mint(&node(3), &path);
        assert_eq!(table.len(), 2);
        assert!(table.get(&b).is_none(), "b was least recently used");
        assert!(table.get(&a).is_some() && table.get(&c).is_some());
    }

    #[test]
    fn fingerprints_remember_the_name_not_the_title() {
        let mut field = RawNode::new(NodeId(1), Role::TextField, "AXTextField");
        field.name = Some("Email".into());
        let fp = Fingerprint::of(&field, &ElementPath::default());
        assert_eq!(fp.describe(), "text_field \"Email\"");
        let mut renamed = field.clone();
        renamed.name = Some("Phone".into());
        assert!(fp.matches(&field) && !fp.matches(&renamed));
        let mut unnamed = RawNode::new(NodeId(2), Role::TextField, "AXTextField");
        unnamed.identifier = Some("email".into());
        assert_eq!(describe(&unnamed), "text_field #email");
        // A static text is named by its content: new content makes its handle stale.
        let mut status = RawNode::new(NodeId(3), Role::StaticText, "AXStaticText");
        status.name = Some("Ready".into());
        let fp = Fingerprint::of(&status, &ElementPath::default());
        status.name = Some("Done".into());
        assert!(!fp.matches(&status));
    }

    #[test]
    fn handle_syntax() {
        assert_eq!(parse_handle("e42"), Some(42));
        for bad in ["e", "42", "e4x", "E42", "e-1", "window[0]"] {
            assert_eq!(parse_handle(bad), None, "{bad}");
        }
    }
}
