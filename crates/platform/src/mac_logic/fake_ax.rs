//! A fake AX source for Linux tests: an in-memory app whose elements carry raw attributes,
//! children and action names, answering every [`AxSource`] call as one round trip and
//! counting what each call would carry over IPC (element references and characters), so
//! tests pin the cost of a walk, not its timing. Elements can be made to vanish or to time
//! out. Test code only.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use axgate_engine::CallCtx;

use super::decode::{AttrValue, NODE_ATTRS};
use super::walk::{AxSource, FailureKind, Linked, NodeRead};

/// Native roles whose elements answer `AXNumberOfCharacters` (the text roles).
const TEXT_ROLES: &[&str] = &["AXTextArea", "AXTextField", "AXStaticText", "AXComboBox"];

/// One element: raw attributes by name, children in order, native action names.
#[derive(Clone, Debug, Default)]
pub(crate) struct FakeNode {
    pub(crate) attrs: HashMap<String, AttrValue>,
    pub(crate) children: Vec<u32>,
    pub(crate) actions: Vec<String>,
}

/// What the calls so far carried from the app.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Carried {
    /// Element references (children listed).
    pub(crate) elements: usize,
    /// Characters of `AXValue` texts.
    pub(crate) chars: usize,
}

/// The in-memory app. Element ids are the caller's.
#[derive(Default)]
pub(crate) struct FakeAx {
    pub(crate) nodes: HashMap<u32, FakeNode>,
    /// Elements that fail as gone when read.
    pub(crate) gone: HashSet<u32>,
    /// Elements whose every call times out.
    pub(crate) slow: HashSet<u32>,
    /// Element → the label element its `AXTitleUIElement` links.
    pub(crate) links: HashMap<u32, u32>,
    /// Elements whose ranged listing of children (`read_children`) times out; everything
    /// else about them answers.
    pub(crate) slow_listing: HashSet<u32>,
    carried: Cell<Carried>,
}

impl FakeAx {
    /// Adds an element with a role and children; returns it for more attributes.
    pub(crate) fn add(&mut self, id: u32, role: &str, children: &[u32]) -> &mut FakeNode {
        let node = self.nodes.entry(id).or_default();
        node.attrs
            .insert("AXRole".into(), AttrValue::Text(role.to_owned()));
        node.children = children.to_vec();
        node
    }

    /// Sets one raw attribute of an element.
    pub(crate) fn set(&mut self, id: u32, attr: &str, value: AttrValue) {
        self.nodes
            .entry(id)
            .or_default()
            .attrs
            .insert(attr.to_owned(), value);
    }

    /// What the calls so far carried.
    pub(crate) fn carried(&self) -> Carried {
        self.carried.get()
    }

    fn carry(&self, elements: usize, chars: usize) {
        let mut c = self.carried.get();
        c.elements += elements;
        c.chars += chars;
        self.carried.set(c);
    }

    /// One round trip to `element`: counted, and failing for gone or slow elements.
    fn node(&self, element: u32, ctx: &mut CallCtx) -> Result<&FakeNode, FailureKind> {
        if ctx.expired() {
            return Err(FailureKind::Timeout);
        }
        ctx.trips(1);
        if self.slow.contains(&element) {
            return Err(FailureKind::Timeout);
        }
        if self.gone.contains(&element) {
            return Err(FailureKind::Gone);
        }
        self.nodes.get(&element).ok_or(FailureKind::Gone)
    }

    /// The value of one attribute as the app would send it (text counted as carried).
    fn attr(&self, node: &FakeNode, name: &str) -> AttrValue {
        let role = match node.attrs.get("AXRole") {
            Some(AttrValue::Text(r)) => r.as_str(),
            _ => "",
        };
        if name == "AXNumberOfCharacters" && TEXT_ROLES.contains(&role) {
            let n = match node.attrs.get("AXValue") {
                Some(AttrValue::Text(t)) => t.encode_utf16().count(),
                _ => 0,
            };
            return AttrValue::Number(n as f64);
        }
        let value = node.attrs.get(name).cloned().unwrap_or(AttrValue::Missing);
        if let (AttrValue::Text(t), "AXValue") = (&value, name) {
            self.carry(0, t.chars().count());
        }
        value
    }
}

impl AxSource for FakeAx {
    type Element = u32;
    type Failure = FailureKind;

    fn read(&self, element: &u32, ctx: &mut CallCtx) -> Result<NodeRead<u32>, FailureKind> {
        let node = self.node(*element, ctx)?;
        let linked = self.links.get(element).copied();
        let values = NODE_ATTRS
            .iter()
            .map(|n| match *n {
                "AXTitleUIElement" if linked.is_some() => AttrValue::Element(()),
                _ => self.attr(node, n),
            })
            .collect();
        self.carry(node.children.len(), 0);
        Ok(NodeRead {
            values,
            children: node.children.clone(),
            linked,
        })
    }

    fn classify(&self, failure: FailureKind) -> FailureKind {
        failure
    }

    fn read_attrs(
        &self,
        element: &u32,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> Result<Vec<AttrValue>, FailureKind> {
        Ok(self.read_attrs_linked(element, names, ctx)?.0)
    }

    /// One round trip, as on a Mac: the linked element comes in the batch.
    fn read_attrs_linked(
        &self,
        element: &u32,
        names: &[&str],
        ctx: &mut CallCtx,
    ) -> Result<Linked<u32>, FailureKind> {
        let node = self.node(*element, ctx)?;
        let linked = self.links.get(element).copied();
        let values = names
            .iter()
            .map(|n| match *n {
                "AXTitleUIElement" if linked.is_some() => AttrValue::Element(()),
                _ => self.attr(node, n),
            })
            .collect();
        let asked = names.contains(&"AXTitleUIElement");
        Ok((values, linked.filter(|_| asked)))
    }

    fn read_children(
        &self,
        element: &u32,
        start: usize,
        count: usize,
        ctx: &mut CallCtx,
    ) -> Result<Vec<u32>, FailureKind> {
        let node = self.node(*element, ctx)?;
        if self.slow_listing.contains(element) {
            return Err(FailureKind::Timeout);
        }
        let range: Vec<u32> = node
            .children
            .iter()
            .skip(start)
            .take(count)
            .copied()
            .collect();
        self.carry(range.len(), 0);
        Ok(range)
    }

    fn count_children(&self, element: &u32, ctx: &mut CallCtx) -> Result<usize, FailureKind> {
        Ok(self.node(*element, ctx)?.children.len())
    }

    fn read_text(
        &self,
        element: &u32,
        max_units: usize,
        ctx: &mut CallCtx,
    ) -> Result<String, FailureKind> {
        let node = self.node(*element, ctx)?;
        let Some(AttrValue::Text(text)) = node.attrs.get("AXValue") else {
            return Ok(String::new());
        };
        let units: Vec<u16> = text.encode_utf16().take(max_units).collect();
        let text = String::from_utf16_lossy(&units);
        self.carry(0, text.chars().count());
        Ok(text)
    }

    fn action_names(&self, element: &u32, ctx: &mut CallCtx) -> Result<Vec<String>, FailureKind> {
        Ok(self.node(*element, ctx)?.actions.clone())
    }
}
