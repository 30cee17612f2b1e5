//! XPath 1.0 expressions: the lexer (with the spec's rule for when `*` and `and`/`or`/
//! `div`/`mod` are operators) and a recursive-descent parser into [`Expr`], its nesting
//! bounded so hostile input cannot exhaust the stack.

use crate::compare::CmpOp;
use crate::error::WdError;
use crate::scan::{self, Lexicon, Tok};

/// How deep expressions may nest.
const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Expr {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Arith(ArOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Union(Box<Expr>, Box<Expr>),
    Lit(String),
    Num(f64),
    Call(String, Vec<Expr>),
    /// A location path; `absolute` starts at the document.
    Path {
        absolute: bool,
        steps: Vec<Step>,
    },
    /// A primary expression with predicates, then an optional relative path after it.
    Filter {
        primary: Box<Expr>,
        preds: Vec<Expr>,
        steps: Vec<Step>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Axis {
    Child,
    Descendant,
    DescendantOrSelf,
    Itself,
    Parent,
    Ancestor,
    AncestorOrSelf,
    FollowingSibling,
    PrecedingSibling,
    Following,
    Preceding,
    Attribute,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Test {
    Name(String),
    Any,
    Node,
    Text,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Step {
    pub(super) axis: Axis,
    pub(super) test: Test,
    pub(super) preds: Vec<Expr>,
}

pub(super) fn bad(text: &str, why: &str) -> WdError {
    WdError::invalid_selector(format!(
        "invalid XPath {text:?}: {why}. axgate evaluates XPath 1.0 over the page source, such as \
         //XCUIElementTypeButton[@title=\"OK\"]"
    ))
}

/// XPath names (a `prefix:` kept whole; `::` is an axis), strings without escapes, numbers
/// that may start with a dot.
const LEXICON: Lexicon = Lexicon {
    escapes: false,
    number_lead: '.',
    word_start: |c| c.is_alphabetic() || c == '_',
    word: |scan| {
        let name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
        let mut name = scan.take(0, name_char);
        if scan.peek(0) == Some(':') && scan.peek(1) != Some(':') {
            name += &scan.take(1, name_char);
        }
        name
    },
    symbols: &[
        "//", "::", "..", "!=", "<=", ">=", "/", "(", ")", "[", "]", ".", "@", ",", "|", "+", "-",
        "=", "<", ">", "*", "$",
    ],
};

fn lex(text: &str) -> Result<Vec<Tok>, WdError> {
    scan::lex(text, &LEXICON).map_err(|why| bad(text, &why))
}

/// Parses an XPath 1.0 expression.
pub(super) fn parse(text: &str) -> Result<Expr, WdError> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err(bad(text, "it is empty"));
    }
    let mut p = Parser {
        toks,
        at: 0,
        text,
        depth: 0,
    };
    let e = p.or()?;
    if p.at < p.toks.len() {
        return Err(bad(text, &format!("unexpected {:?}", p.toks[p.at])));
    }
    Ok(e)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    text: &'a str,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }

    /// An operator name (`and`, `div`, …) only where an operator may stand: after an
    /// operand.
    fn is_op_name(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == name)
    }

    fn eat(&mut self, s: &str) -> bool {
        let hit = self.is_sym(s);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn expect(&mut self, s: &str) -> Result<(), WdError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(bad(self.text, &format!("expected {s:?}")))
        }
    }

    fn deeper(&mut self) -> Result<(), WdError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(bad(self.text, "it nests too deeply"));
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Expr, WdError> {
        self.deeper()?;
        let mut left = self.and()?;
        while self.is_op_name("or") {
            self.at += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, WdError> {
        let mut left = self.equality()?;
        while self.is_op_name("and") {
            self.at += 1;
            left = Expr::And(Box::new(left), Box::new(self.equality()?));
        }
        Ok(left)
    }

    fn equality(&mut self) -> Result<Expr, WdError> {
        let mut left = self.relational()?;
        loop {
            let op = if self.eat("=") {
                CmpOp::Eq
            } else if self.eat("!=") {
                CmpOp::Ne
            } else {
                return Ok(left);
            };
            left = Expr::Cmp(op, Box::new(left), Box::new(self.relational()?));
        }
    }

    fn relational(&mut self) -> Result<Expr, WdError> {
        let mut left = self.additive()?;
        loop {
            let op = if self.eat("<") {
                CmpOp::Lt
            } else if self.eat("<=") {
                CmpOp::Le
            } else if self.eat(">") {
                CmpOp::Gt
            } else if self.eat(">=") {
                CmpOp::Ge
            } else {
                return Ok(left);
            };
            left = Expr::Cmp(op, Box::new(left), Box::new(self.additive()?));
        }
    }

    fn additive(&mut self) -> Result<Expr, WdError> {
        let mut left = self.multiplicative()?;
        loop {
            let op = if self.eat("+") {
                ArOp::Add
            } else if self.eat("-") {
                ArOp::Sub
            } else {
                return Ok(left);
            };
            left = Expr::Arith(op, Box::new(left), Box::new(self.multiplicative()?));
        }
    }

    fn multiplicative(&mut self) -> Result<Expr, WdError> {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat("*") {
                ArOp::Mul
            } else if self.is_op_name("div") {
                self.at += 1;
                ArOp::Div
            } else if self.is_op_name("mod") {
                self.at += 1;
                ArOp::Mod
            } else {
                return Ok(left);
            };
            left = Expr::Arith(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, WdError> {
        if self.eat("-") {
            self.deeper()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Neg(Box::new(inner)));
        }
        let mut left = self.path()?;
        while self.eat("|") {
            left = Expr::Union(Box::new(left), Box::new(self.path()?));
        }
        Ok(left)
    }

    fn path(&mut self) -> Result<Expr, WdError> {
        if self.is_sym("/") || self.is_sym("//") {
            let mut steps = Vec::new();
            if self.eat("//") {
                steps.push(descendant_or_self());
                steps.extend(self.relative()?);
            } else {
                self.at += 1;
                if self.starts_step() {
                    steps.extend(self.relative()?);
                }
            }
            return Ok(Expr::Path {
                absolute: true,
                steps,
            });
        }
        let primary = match self.peek() {
            Some(Tok::Str(s)) => Some(Expr::Lit(s.clone())),
            Some(Tok::Num(n)) => Some(Expr::Num(*n)),
            Some(Tok::Sym("(")) => None,
            Some(Tok::Sym("$")) => return Err(bad(self.text, "variables are not supported")),
            Some(Tok::Word(n))
                if matches!(self.toks.get(self.at + 1), Some(Tok::Sym("(")))
                    && !matches!(
                        n.as_str(),
                        "node" | "text" | "comment" | "processing-instruction"
                    ) =>
            {
                let name = n.clone();
                self.at += 2;
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.or()?);
                        if self.eat(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                let call = Expr::Call(name, args);
                return self.filter(call);
            }
            _ => {
                return Ok(Expr::Path {
                    absolute: false,
                    steps: self.relative()?,
                });
            }
        };
        let primary = match primary {
            Some(p) => {
                self.at += 1;
                p
            }
            None => {
                self.at += 1;
                let inner = self.or()?;
                self.expect(")")?;
                inner
            }
        };
        self.filter(primary)
    }

    fn filter(&mut self, primary: Expr) -> Result<Expr, WdError> {
        let preds = self.preds()?;
        let mut steps = Vec::new();
        if self.eat("//") {
            steps.push(descendant_or_self());
            steps.extend(self.relative()?);
        } else if self.eat("/") {
            steps.extend(self.relative()?);
        }
        if preds.is_empty() && steps.is_empty() {
            return Ok(primary);
        }
        Ok(Expr::Filter {
            primary: Box::new(primary),
            preds,
            steps,
        })
    }

    fn starts_step(&self) -> bool {
        matches!(
            self.peek(),
            Some(Tok::Word(_) | Tok::Sym("." | ".." | "@" | "*"))
        )
    }

    fn relative(&mut self) -> Result<Vec<Step>, WdError> {
        let mut steps = vec![self.step()?];
        loop {
            if self.eat("//") {
                steps.push(descendant_or_self());
            } else if !self.eat("/") {
                return Ok(steps);
            }
            steps.push(self.step()?);
        }
    }

    fn step(&mut self) -> Result<Step, WdError> {
        if self.eat(".") {
            return Ok(Step {
                axis: Axis::Itself,
                test: Test::Node,
                preds: Vec::new(),
            });
        }
        if self.eat("..") {
            return Ok(Step {
                axis: Axis::Parent,
                test: Test::Node,
                preds: Vec::new(),
            });
        }
        let axis = if self.eat("@") {
            Axis::Attribute
        } else if let (Some(Tok::Word(n)), Some(Tok::Sym("::"))) =
            (self.peek(), self.toks.get(self.at + 1))
        {
            let axis = match n.as_str() {
                "child" => Axis::Child,
                "descendant" => Axis::Descendant,
                "descendant-or-self" => Axis::DescendantOrSelf,
                "self" => Axis::Itself,
                "parent" => Axis::Parent,
                "ancestor" => Axis::Ancestor,
                "ancestor-or-self" => Axis::AncestorOrSelf,
                "following-sibling" => Axis::FollowingSibling,
                "preceding-sibling" => Axis::PrecedingSibling,
                "following" => Axis::Following,
                "preceding" => Axis::Preceding,
                "attribute" => Axis::Attribute,
                other => return Err(bad(self.text, &format!("unknown axis {other:?}"))),
            };
            self.at += 2;
            axis
        } else {
            Axis::Child
        };
        let test = match self.peek() {
            Some(Tok::Sym("*")) => {
                self.at += 1;
                Test::Any
            }
            Some(Tok::Word(n)) => {
                let n = n.clone();
                self.at += 1;
                if self.eat("(") {
                    self.expect(")")?;
                    match n.as_str() {
                        "node" => Test::Node,
                        "text" => Test::Text,
                        other => {
                            return Err(bad(
                                self.text,
                                &format!("{other}() is not a node test here"),
                            ));
                        }
                    }
                } else {
                    Test::Name(n)
                }
            }
            other => return Err(bad(self.text, &format!("expected a step, found {other:?}"))),
        };
        Ok(Step {
            axis,
            test,
            preds: self.preds()?,
        })
    }

    fn preds(&mut self) -> Result<Vec<Expr>, WdError> {
        let mut preds = Vec::new();
        while self.eat("[") {
            preds.push(self.or()?);
            self.expect("]")?;
        }
        Ok(preds)
    }
}

fn descendant_or_self() -> Step {
    Step {
        axis: Axis::DescendantOrSelf,
        test: Test::Node,
        preds: Vec::new(),
    }
}
