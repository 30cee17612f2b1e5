//! Evaluation of a parsed XPath over the page-source [`Doc`]: the document node, the
//! elements and their attributes as nodes; XPath 1.0's values, comparisons, axes and core
//! functions. Elements have no text nodes (the page source has none), so an element's
//! string value is empty, as in Mac2's XML.

use crate::doc::{Doc, SOURCE_ATTRIBUTES};
use crate::error::WdError;

use super::parse::{ArOp, Axis, Expr, Step, Test};
use crate::compare::CmpOp;

/// A node of the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Node {
    Root,
    El(usize),
    /// An element's attribute, by its index in [`SOURCE_ATTRIBUTES`].
    Attr(usize, u8),
}

impl Node {
    /// Document order.
    fn key(self) -> (usize, usize) {
        match self {
            Node::Root => (0, 0),
            Node::El(i) => (i + 1, 0),
            Node::Attr(i, a) => (i + 1, usize::from(a) + 1),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) enum Val {
    Nodes(Vec<Node>),
    Str(String),
    Num(f64),
    Bool(bool),
}

pub(super) struct Ctx<'a> {
    pub(super) doc: &'a Doc,
    pub(super) text: &'a str,
}

#[derive(Clone, Copy)]
struct At {
    node: Node,
    pos: usize,
    size: usize,
}

fn sort(nodes: &mut Vec<Node>) {
    nodes.sort_unstable_by_key(|n| n.key());
    nodes.dedup();
}

impl Ctx<'_> {
    /// The elements `expr` selects from `from`, in document order; an expression that is not
    /// a node set is an invalid selector for a find.
    pub(super) fn select(&self, expr: &Expr, from: Node) -> Result<Vec<usize>, WdError> {
        let at = At {
            node: from,
            pos: 1,
            size: 1,
        };
        match self.eval(expr, at)? {
            Val::Nodes(nodes) => Ok(nodes
                .into_iter()
                .filter_map(|n| match n {
                    Node::El(i) => Some(i),
                    _ => None,
                })
                .collect()),
            _ => Err(super::parse::bad(
                self.text,
                "it selects no elements (it is a string, number or boolean)",
            )),
        }
    }

    fn string_of(&self, n: Node) -> String {
        match n {
            Node::Attr(i, a) => self.doc.els[i]
                .attr(SOURCE_ATTRIBUTES[usize::from(a)])
                .unwrap_or_default(),
            _ => String::new(),
        }
    }

    fn to_str(&self, v: &Val) -> String {
        match v {
            Val::Nodes(n) => n.first().map(|n| self.string_of(*n)).unwrap_or_default(),
            Val::Str(s) => s.clone(),
            Val::Num(n) => num_str(*n),
            Val::Bool(b) => b.to_string(),
        }
    }

    fn to_num(&self, v: &Val) -> f64 {
        match v {
            Val::Num(n) => *n,
            Val::Bool(b) => f64::from(u8::from(*b)),
            other => str_num(&self.to_str(other)),
        }
    }

    fn children(&self, n: Node) -> Vec<Node> {
        match n {
            Node::Root if !self.doc.els.is_empty() => vec![Node::El(0)],
            Node::El(i) => self.doc.els[i]
                .children
                .iter()
                .map(|c| Node::El(*c))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn parent(&self, n: Node) -> Option<Node> {
        match n {
            Node::Root => None,
            Node::El(i) => Some(self.doc.els[i].parent.map_or(Node::Root, Node::El)),
            Node::Attr(i, _) => Some(Node::El(i)),
        }
    }

    fn descendants(&self, n: Node) -> Vec<Node> {
        match n {
            Node::Root if !self.doc.els.is_empty() => std::iter::once(Node::El(0))
                .chain(self.doc.descendants(0).into_iter().map(Node::El))
                .collect(),
            Node::El(i) => self.doc.descendants(i).into_iter().map(Node::El).collect(),
            _ => Vec::new(),
        }
    }

    /// The axis from `n`, in axis order (reverse axes nearest first).
    fn axis(&self, axis: Axis, n: Node) -> Vec<Node> {
        match axis {
            Axis::Child => self.children(n),
            Axis::Descendant => self.descendants(n),
            Axis::DescendantOrSelf => std::iter::once(n).chain(self.descendants(n)).collect(),
            Axis::Itself => vec![n],
            Axis::Parent => self.parent(n).into_iter().collect(),
            Axis::Ancestor | Axis::AncestorOrSelf => {
                let mut out = Vec::new();
                if axis == Axis::AncestorOrSelf {
                    out.push(n);
                }
                let mut at = self.parent(n);
                while let Some(p) = at {
                    out.push(p);
                    at = self.parent(p);
                }
                out
            }
            Axis::FollowingSibling | Axis::PrecedingSibling => {
                let (Node::El(i), Some(p)) = (n, self.parent(n)) else {
                    return Vec::new();
                };
                let sibs = self.children(p);
                let at = sibs.iter().position(|s| *s == Node::El(i)).unwrap_or(0);
                if axis == Axis::FollowingSibling {
                    sibs[at + 1..].to_vec()
                } else {
                    sibs[..at].iter().rev().copied().collect()
                }
            }
            Axis::Following | Axis::Preceding => {
                let Node::El(i) = n else { return Vec::new() };
                let inside: Vec<usize> = self.doc.descendants(i);
                let ancestors = self.axis(Axis::Ancestor, n);
                let all = 0..self.doc.els.len();
                if axis == Axis::Following {
                    all.filter(|j| *j > i && !inside.contains(j))
                        .map(Node::El)
                        .collect()
                } else {
                    all.rev()
                        .filter(|j| *j < i && !ancestors.contains(&Node::El(*j)))
                        .map(Node::El)
                        .collect()
                }
            }
            Axis::Attribute => match n {
                Node::El(i) => (0..SOURCE_ATTRIBUTES.len())
                    .filter(|a| self.doc.els[i].attr(SOURCE_ATTRIBUTES[*a]).is_some())
                    .map(|a| Node::Attr(i, a as u8))
                    .collect(),
                _ => Vec::new(),
            },
        }
    }

    fn test(&self, test: &Test, axis: Axis, n: Node) -> bool {
        match (test, n) {
            (Test::Node, _) => true,
            (Test::Text, _) => false,
            (Test::Any, Node::Attr(..)) => axis == Axis::Attribute,
            (Test::Any, Node::El(_)) => axis != Axis::Attribute,
            (Test::Name(name), Node::El(i)) => {
                axis != Axis::Attribute && self.doc.els[i].type_name() == *name
            }
            (Test::Name(name), Node::Attr(_, a)) => SOURCE_ATTRIBUTES[usize::from(a)] == name,
            (_, Node::Root) => false,
        }
    }

    fn steps(&self, mut set: Vec<Node>, steps: &[Step]) -> Result<Vec<Node>, WdError> {
        for step in steps {
            let mut next = Vec::new();
            for &n in &set {
                let found: Vec<Node> = self
                    .axis(step.axis, n)
                    .into_iter()
                    .filter(|c| self.test(&step.test, step.axis, *c))
                    .collect();
                next.extend(self.filter(found, &step.preds)?);
            }
            sort(&mut next);
            set = next;
        }
        Ok(set)
    }

    /// Applies predicates to nodes in axis order.
    fn filter(&self, mut nodes: Vec<Node>, preds: &[Expr]) -> Result<Vec<Node>, WdError> {
        for pred in preds {
            let size = nodes.len();
            let mut kept = Vec::with_capacity(size);
            for (i, n) in nodes.into_iter().enumerate() {
                let at = At {
                    node: n,
                    pos: i + 1,
                    size,
                };
                let keep = match self.eval(pred, at)? {
                    Val::Num(x) => x == (i + 1) as f64,
                    v => self.truth(&v),
                };
                if keep {
                    kept.push(n);
                }
            }
            nodes = kept;
        }
        Ok(nodes)
    }

    fn truth(&self, v: &Val) -> bool {
        match v {
            Val::Nodes(n) => !n.is_empty(),
            Val::Str(s) => !s.is_empty(),
            Val::Num(n) => *n != 0.0 && !n.is_nan(),
            Val::Bool(b) => *b,
        }
    }

    fn eval(&self, expr: &Expr, at: At) -> Result<Val, WdError> {
        Ok(match expr {
            Expr::Or(a, b) => {
                Val::Bool(self.truth(&self.eval(a, at)?) || self.truth(&self.eval(b, at)?))
            }
            Expr::And(a, b) => {
                Val::Bool(self.truth(&self.eval(a, at)?) && self.truth(&self.eval(b, at)?))
            }
            Expr::Cmp(op, a, b) => {
                let (a, b) = (self.eval(a, at)?, self.eval(b, at)?);
                Val::Bool(self.compare(*op, &a, &b))
            }
            Expr::Arith(op, a, b) => {
                let (a, b) = (
                    self.to_num(&self.eval(a, at)?),
                    self.to_num(&self.eval(b, at)?),
                );
                Val::Num(match op {
                    ArOp::Add => a + b,
                    ArOp::Sub => a - b,
                    ArOp::Mul => a * b,
                    ArOp::Div => a / b,
                    ArOp::Mod => a % b,
                })
            }
            Expr::Neg(a) => Val::Num(-self.to_num(&self.eval(a, at)?)),
            Expr::Union(a, b) => match (self.eval(a, at)?, self.eval(b, at)?) {
                (Val::Nodes(mut x), Val::Nodes(y)) => {
                    x.extend(y);
                    sort(&mut x);
                    Val::Nodes(x)
                }
                _ => return Err(super::parse::bad(self.text, "| joins node sets only")),
            },
            Expr::Lit(s) => Val::Str(s.clone()),
            Expr::Num(n) => Val::Num(*n),
            Expr::Path { absolute, steps } => {
                let start = if *absolute { Node::Root } else { at.node };
                Val::Nodes(self.steps(vec![start], steps)?)
            }
            Expr::Filter {
                primary,
                preds,
                steps,
            } => {
                let Val::Nodes(mut nodes) = self.eval(primary, at)? else {
                    return Err(super::parse::bad(
                        self.text,
                        "a predicate or path follows a value that is not a node set",
                    ));
                };
                sort(&mut nodes);
                let nodes = self.filter(nodes, preds)?;
                Val::Nodes(self.steps(nodes, steps)?)
            }
            Expr::Call(name, args) => self.call(name, args, at)?,
        })
    }

    fn compare(&self, op: CmpOp, a: &Val, b: &Val) -> bool {
        match (a, b) {
            (Val::Nodes(x), Val::Nodes(y)) => x.iter().any(|m| {
                let s = self.string_of(*m);
                y.iter()
                    .any(|n| self.atoms(op, &Val::Str(s.clone()), &Val::Str(self.string_of(*n))))
            }),
            (Val::Nodes(x), Val::Bool(_)) | (Val::Bool(_), Val::Nodes(x)) => {
                let nb = Val::Bool(!x.is_empty());
                if matches!(a, Val::Nodes(_)) {
                    self.atoms(op, &nb, b)
                } else {
                    self.atoms(op, a, &nb)
                }
            }
            (Val::Nodes(x), other) => x
                .iter()
                .any(|n| self.atoms(op, &Val::Str(self.string_of(*n)), other)),
            (other, Val::Nodes(y)) => y
                .iter()
                .any(|n| self.atoms(op, other, &Val::Str(self.string_of(*n)))),
            _ => self.atoms(op, a, b),
        }
    }

    fn atoms(&self, op: CmpOp, a: &Val, b: &Val) -> bool {
        match op {
            CmpOp::Eq | CmpOp::Ne => {
                let eq = match (a, b) {
                    (Val::Bool(_), _) | (_, Val::Bool(_)) => self.truth(a) == self.truth(b),
                    (Val::Num(_), _) | (_, Val::Num(_)) => self.to_num(a) == self.to_num(b),
                    _ => self.to_str(a) == self.to_str(b),
                };
                eq == (op == CmpOp::Eq)
            }
            _ => op.numbers(self.to_num(a), self.to_num(b)),
        }
    }

    fn call(&self, name: &str, args: &[Expr], at: At) -> Result<Val, WdError> {
        let arity = |lo: usize, hi: usize| -> Result<(), WdError> {
            if (lo..=hi).contains(&args.len()) {
                Ok(())
            } else {
                Err(super::parse::bad(
                    self.text,
                    &format!("{name}() takes {lo} to {hi} arguments"),
                ))
            }
        };
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a, at)?);
        }
        let s = |i: usize| -> String {
            vals.get(i)
                .map_or_else(|| self.string_of(at.node), |v| self.to_str(v))
        };
        Ok(match name {
            "last" => {
                arity(0, 0)?;
                Val::Num(at.size as f64)
            }
            "position" => {
                arity(0, 0)?;
                Val::Num(at.pos as f64)
            }
            "count" => {
                arity(1, 1)?;
                match &vals[0] {
                    Val::Nodes(n) => Val::Num(n.len() as f64),
                    _ => return Err(super::parse::bad(self.text, "count() takes a node set")),
                }
            }
            "not" => {
                arity(1, 1)?;
                Val::Bool(!self.truth(&vals[0]))
            }
            "true" | "false" => {
                arity(0, 0)?;
                Val::Bool(name == "true")
            }
            "boolean" => {
                arity(1, 1)?;
                Val::Bool(self.truth(&vals[0]))
            }
            "number" => {
                arity(0, 1)?;
                Val::Num(str_num(&s(0)))
            }
            "string" => {
                arity(0, 1)?;
                Val::Str(s(0))
            }
            "concat" => {
                arity(2, usize::MAX)?;
                Val::Str(vals.iter().map(|v| self.to_str(v)).collect())
            }
            "contains" | "starts-with" | "ends-with" | "substring-before" | "substring-after" => {
                arity(2, 2)?;
                let (a, b) = (s(0), s(1));
                match name {
                    "contains" => Val::Bool(a.contains(&b)),
                    "starts-with" => Val::Bool(a.starts_with(&b)),
                    "ends-with" => Val::Bool(a.ends_with(&b)),
                    "substring-before" => Val::Str(
                        a.split_once(&b)
                            .map(|(x, _)| x.to_owned())
                            .unwrap_or_default(),
                    ),
                    _ => Val::Str(
                        a.split_once(&b)
                            .map(|(_, y)| y.to_owned())
                            .unwrap_or_default(),
                    ),
                }
            }
            "string-length" => {
                arity(0, 1)?;
                Val::Num(s(0).chars().count() as f64)
            }
            "normalize-space" => {
                arity(0, 1)?;
                Val::Str(s(0).split_whitespace().collect::<Vec<_>>().join(" "))
            }
            "translate" => {
                arity(3, 3)?;
                let (from, to): (Vec<char>, Vec<char>) =
                    (s(1).chars().collect(), s(2).chars().collect());
                Val::Str(
                    s(0).chars()
                        .filter_map(|c| match from.iter().position(|f| *f == c) {
                            Some(i) => to.get(i).copied(),
                            None => Some(c),
                        })
                        .collect(),
                )
            }
            "substring" => {
                arity(2, 3)?;
                let chars: Vec<char> = s(0).chars().collect();
                let start = self.to_num(&vals[1]).round();
                let end = vals
                    .get(2)
                    .map_or(f64::INFINITY, |l| start + self.to_num(l).round());
                Val::Str(
                    chars
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| {
                            let p = (*i + 1) as f64;
                            p >= start && p < end
                        })
                        .map(|(_, c)| *c)
                        .collect(),
                )
            }
            "sum" => {
                arity(1, 1)?;
                match &vals[0] {
                    Val::Nodes(n) => Val::Num(n.iter().map(|n| str_num(&self.string_of(*n))).sum()),
                    _ => return Err(super::parse::bad(self.text, "sum() takes a node set")),
                }
            }
            "floor" | "ceiling" | "round" => {
                arity(1, 1)?;
                let x = self.to_num(&vals[0]);
                Val::Num(match name {
                    "floor" => x.floor(),
                    "ceiling" => x.ceil(),
                    _ => (x + 0.5).floor(),
                })
            }
            "name" | "local-name" => {
                arity(0, 1)?;
                let node = match vals.first() {
                    Some(Val::Nodes(n)) => n.first().copied(),
                    Some(_) => return Err(super::parse::bad(self.text, "name() takes a node set")),
                    None => Some(at.node),
                };
                Val::Str(match node {
                    Some(Node::El(i)) => self.doc.els[i].type_name(),
                    Some(Node::Attr(_, a)) => SOURCE_ATTRIBUTES[usize::from(a)].to_owned(),
                    _ => String::new(),
                })
            }
            other => {
                return Err(super::parse::bad(
                    self.text,
                    &format!("unknown function {other}()"),
                ));
            }
        })
    }
}

fn str_num(s: &str) -> f64 {
    s.trim().parse().unwrap_or(f64::NAN)
}

fn num_str(n: f64) -> String {
    if n.fract() == 0.0 && n.is_finite() {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}
