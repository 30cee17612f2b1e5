//! `-ios predicate string`: the NSPredicate subset Mac2 accepts — keys `elementType`,
//! `identifier`, `label`, `title`, `value`, `placeholderValue`, `enabled`, `selected`,
//! `focused`, `hittable`, `frame` (and `type`, `name` as XCUITest spells them); operators
//! `==`/`=`, `!=`/`<>`, `<`, `<=`, `>`, `>=`, `BEGINSWITH`, `CONTAINS`, `ENDSWITH`, `LIKE`
//! (`*`, `?`), `MATCHES` (a whole-string regex), each with `[c]`, `[d]` or `[cd]`; `IN {…}`;
//! `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`.
//! Parsed once ([`parse`]), then matched against each element ([`Pred::matches`]).

use regex::Regex;

use crate::compare::CmpOp;
use crate::doc::El;
use crate::error::WdError;
use crate::roles::type_number;
use crate::scan::{self, Lexicon, Tok};

/// The keys a predicate may name.
pub const KEYS: &[&str] = &[
    "elementType",
    "identifier",
    "label",
    "title",
    "value",
    "placeholderValue",
    "enabled",
    "selected",
    "focused",
    "hittable",
    "frame",
    "type",
    "name",
];

/// A parsed predicate.
#[derive(Clone, Debug)]
pub enum Pred {
    Const(bool),
    Not(Box<Pred>),
    And(Box<Pred>, Box<Pred>),
    Or(Box<Pred>, Box<Pred>),
    Cmp(Cmp),
}

/// `key OP literal` (or `key IN {…}`).
#[derive(Clone, Debug)]
pub struct Cmp {
    key: String,
    op: Op,
    fold_case: bool,
    values: Vec<Lit>,
    regex: Option<Regex>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Cmp(CmpOp),
    BeginsWith,
    Contains,
    EndsWith,
    Like,
    Matches,
    In,
}

#[derive(Clone, Debug, PartialEq)]
enum Lit {
    Str(String),
    Num(f64),
    Bool(bool),
    Nil,
}

/// Predicate words (keys, keywords, `$variables`, dotted key paths), strings with
/// backslash escapes, negative numbers.
const LEXICON: Lexicon = Lexicon {
    escapes: true,
    number_lead: '-',
    word_start: |c| c.is_alphabetic() || c == '_' || c == '$',
    word: |scan| scan.take(0, |c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.')),
    symbols: &[
        "==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||", "=", "<", ">", "!", "(", ")", "{",
        "}", "[", "]", ",",
    ],
};

fn lex(text: &str) -> Result<Vec<Tok>, WdError> {
    scan::lex(text, &LEXICON).map_err(|why| bad(text, &why))
}

fn bad(text: &str, why: &str) -> WdError {
    WdError::invalid_selector(format!(
        "invalid predicate {text:?}: {why}. Predicates are `key OP value` joined by AND, OR, \
         NOT, with keys {}",
        KEYS.join(", ")
    ))
}

/// Parses a predicate string.
pub fn parse(text: &str) -> Result<Pred, WdError> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err(bad(text, "it is empty"));
    }
    let mut p = Parser { toks, at: 0, text };
    let pred = p.or()?;
    if p.at != p.toks.len() {
        return Err(bad(text, &format!("unexpected {:?}", p.toks[p.at])));
    }
    Ok(pred)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn word_is(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x.eq_ignore_ascii_case(w))
    }

    fn sym_is(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }

    fn expect_sym(&mut self, s: &str) -> Result<(), WdError> {
        if self.sym_is(s) {
            self.at += 1;
            Ok(())
        } else {
            Err(bad(self.text, &format!("expected {s:?}")))
        }
    }

    fn or(&mut self) -> Result<Pred, WdError> {
        let mut left = self.and()?;
        while self.word_is("OR") || self.sym_is("||") {
            self.at += 1;
            left = Pred::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Pred, WdError> {
        let mut left = self.not()?;
        while self.word_is("AND") || self.sym_is("&&") {
            self.at += 1;
            left = Pred::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Pred, WdError> {
        if self.word_is("NOT") || self.sym_is("!") {
            self.at += 1;
            return Ok(Pred::Not(Box::new(self.not()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Pred, WdError> {
        if self.sym_is("(") {
            self.at += 1;
            let inner = self.or()?;
            self.expect_sym(")")?;
            return Ok(inner);
        }
        if self.word_is("TRUEPREDICATE") {
            self.at += 1;
            return Ok(Pred::Const(true));
        }
        if self.word_is("FALSEPREDICATE") {
            self.at += 1;
            return Ok(Pred::Const(false));
        }
        let key = match self.peek() {
            Some(Tok::Word(k)) if KEYS.contains(&k.as_str()) => k.clone(),
            Some(Tok::Word(k)) => {
                return Err(bad(self.text, &format!("unknown key {k:?}")));
            }
            other => return Err(bad(self.text, &format!("expected a key, found {other:?}"))),
        };
        self.at += 1;
        let op = self.op()?;
        let fold_case = self.modifiers()?;
        let values = if op == Op::In {
            self.expect_sym("{")?;
            let mut values = vec![self.literal()?];
            while self.sym_is(",") {
                self.at += 1;
                values.push(self.literal()?);
            }
            self.expect_sym("}")?;
            values
        } else {
            vec![self.literal()?]
        };
        let regex = match (op, &values[0]) {
            (Op::Matches, Lit::Str(s)) => {
                Some(compile(&format!("^(?:{s})$"), fold_case, self.text)?)
            }
            (Op::Like, Lit::Str(s)) => {
                let mut re = String::from("^");
                for c in s.chars() {
                    match c {
                        '*' => re.push_str(".*"),
                        '?' => re.push('.'),
                        c => re.push_str(&regex::escape(&c.to_string())),
                    }
                }
                re.push('$');
                Some(compile(&re, fold_case, self.text)?)
            }
            (Op::Matches | Op::Like, _) => {
                return Err(bad(self.text, "LIKE and MATCHES take a quoted pattern"));
            }
            _ => None,
        };
        Ok(Pred::Cmp(Cmp {
            key,
            op,
            fold_case,
            values,
            regex,
        }))
    }

    fn op(&mut self) -> Result<Op, WdError> {
        let op = match self.peek() {
            Some(Tok::Sym(s)) if let Some(op) = CmpOp::of_symbol(s) => Op::Cmp(op),
            Some(Tok::Word(w)) => match w.to_ascii_uppercase().as_str() {
                "BEGINSWITH" => Op::BeginsWith,
                "CONTAINS" => Op::Contains,
                "ENDSWITH" => Op::EndsWith,
                "LIKE" => Op::Like,
                "MATCHES" => Op::Matches,
                "IN" => Op::In,
                _ => return Err(bad(self.text, &format!("unknown operator {w:?}"))),
            },
            other => {
                return Err(bad(
                    self.text,
                    &format!("expected an operator, found {other:?}"),
                ));
            }
        };
        self.at += 1;
        Ok(op)
    }

    /// `[c]`, `[d]`, `[cd]` after an operator: whether case is folded (diacritics are
    /// compared as they are).
    fn modifiers(&mut self) -> Result<bool, WdError> {
        if !self.sym_is("[") {
            return Ok(false);
        }
        self.at += 1;
        let fold = match self.peek() {
            Some(Tok::Word(m)) if m.chars().all(|c| matches!(c, 'c' | 'd' | 'n')) => {
                m.contains('c')
            }
            _ => return Err(bad(self.text, "an operator's modifier is [c], [d] or [cd]")),
        };
        self.at += 1;
        self.expect_sym("]")?;
        Ok(fold)
    }

    fn literal(&mut self) -> Result<Lit, WdError> {
        let lit = match self.peek() {
            Some(Tok::Str(s)) => Lit::Str(s.clone()),
            Some(Tok::Num(n)) => Lit::Num(*n),
            Some(Tok::Word(w)) => match w.to_ascii_uppercase().as_str() {
                "TRUE" | "YES" => Lit::Bool(true),
                "FALSE" | "NO" => Lit::Bool(false),
                "NIL" | "NULL" => Lit::Nil,
                _ => {
                    return Err(bad(
                        self.text,
                        &format!("expected a value, found {w:?} (quote strings)"),
                    ));
                }
            },
            other => {
                return Err(bad(
                    self.text,
                    &format!("expected a value, found {other:?}"),
                ));
            }
        };
        self.at += 1;
        Ok(lit)
    }
}

fn compile(re: &str, fold_case: bool, text: &str) -> Result<Regex, WdError> {
    regex::RegexBuilder::new(re)
        .case_insensitive(fold_case)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| {
            bad(
                text,
                &format!("the pattern is not a regular expression ({e})"),
            )
        })
}

impl Pred {
    /// Whether `el` matches.
    pub fn matches(&self, el: &El) -> bool {
        match self {
            Pred::Const(b) => *b,
            Pred::Not(p) => !p.matches(el),
            Pred::And(a, b) => a.matches(el) && b.matches(el),
            Pred::Or(a, b) => a.matches(el) || b.matches(el),
            Pred::Cmp(c) => c.matches(el),
        }
    }
}

impl Cmp {
    fn matches(&self, el: &El) -> bool {
        let attr = el.attr(&self.key);
        if self.op == Op::In {
            return self.values.iter().any(|v| self.equal(attr.as_deref(), v));
        }
        let lit = &self.values[0];
        let Some(actual) = attr else {
            return match (self.op, lit) {
                (Op::Cmp(CmpOp::Eq), Lit::Nil) => true,
                (Op::Cmp(CmpOp::Ne), Lit::Nil) => false,
                (Op::Cmp(CmpOp::Ne), _) => true,
                _ => false,
            };
        };
        if let Some(re) = &self.regex {
            return re.is_match(&actual);
        }
        let fold = |s: &str| {
            if self.fold_case {
                s.to_lowercase()
            } else {
                s.to_owned()
            }
        };
        match self.op {
            Op::Cmp(CmpOp::Eq) => self.equal(Some(&actual), lit),
            Op::Cmp(CmpOp::Ne) => !self.equal(Some(&actual), lit),
            Op::Cmp(op) => {
                let (Ok(a), Lit::Num(b)) = (actual.parse::<f64>(), lit) else {
                    return false;
                };
                op.numbers(a, *b)
            }
            Op::BeginsWith | Op::Contains | Op::EndsWith => {
                let Lit::Str(s) = lit else { return false };
                let (a, s) = (fold(&actual), fold(s));
                match self.op {
                    Op::BeginsWith => a.starts_with(&s),
                    Op::EndsWith => a.ends_with(&s),
                    _ => a.contains(&s),
                }
            }
            Op::Like | Op::Matches | Op::In => false,
        }
    }

    fn equal(&self, actual: Option<&str>, lit: &Lit) -> bool {
        let Some(actual) = actual else {
            return *lit == Lit::Nil;
        };
        match lit {
            Lit::Nil => false,
            Lit::Bool(b) => matches!((actual, b), ("true" | "1", true) | ("false" | "0", false)),
            Lit::Num(n) => match actual {
                "true" => *n == 1.0,
                "false" => *n == 0.0,
                a => a.parse::<f64>().is_ok_and(|a| a == *n),
            },
            Lit::Str(s) if self.key == "elementType" => {
                type_number(s).map(|t| t.to_string()).as_deref() == Some(actual) || actual == s
            }
            Lit::Str(s) if self.fold_case => actual.to_lowercase() == s.to_lowercase(),
            Lit::Str(s) => actual == s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::tests::sample;

    /// The identifiers of the elements `text` matches in the sample document.
    fn hits(text: &str) -> Vec<String> {
        let pred = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let doc = sample();
        doc.els
            .iter()
            .filter(|e| pred.matches(e))
            .map(|e| {
                if e.identifier.is_empty() {
                    e.type_name()
                } else {
                    e.identifier.clone()
                }
            })
            .collect()
    }

    #[test]
    fn keys_and_operators() {
        assert_eq!(hits("identifier == 'submit'"), ["submit"]);
        assert_eq!(hits("elementType == 49"), ["name", "email"]);
        assert_eq!(
            hits("elementType == 'XCUIElementTypeButton'"),
            ["submit", "reset"]
        );
        assert_eq!(hits("type == \"XCUIElementTypeCheckBox\""), ["subscribe"]);
        assert_eq!(hits("title BEGINSWITH 'Re'"), ["reset"]);
        assert_eq!(hits("title BEGINSWITH[c] 're'"), ["reset"]);
        assert_eq!(hits("label CONTAINS 'form'"), ["submit"]);
        assert_eq!(hits("title ENDSWITH 'mail'"), ["email"]);
        assert_eq!(hits("title LIKE 'S*e'"), ["subscribe"]);
        assert_eq!(hits("title LIKE[c] 'su?mit'"), ["submit"]);
        assert_eq!(hits("identifier MATCHES 'e?mail|name'"), ["name", "email"]);
        assert_eq!(hits("identifier IN {'name', 'status'}"), ["name", "status"]);
        assert_eq!(hits("enabled == false"), ["reset"]);
        assert_eq!(hits("selected == 1"), ["subscribe"]);
        assert_eq!(hits("focused == YES"), ["name"]);
        assert_eq!(hits("value == 'Ready'"), ["status"]);
        assert_eq!(hits("placeholderValue == 'Your name'"), ["name"]);
        assert_eq!(hits("frame == '{{40, 60}, {480, 440}}'"), ["form_window"]);
        assert_eq!(
            hits("elementType >= 4 AND elementType < 5 AND hittable == TRUE"),
            ["form_window"]
        );
    }

    #[test]
    fn logic_and_precedence() {
        assert_eq!(
            hits("elementType == 9 AND NOT enabled == false"),
            ["submit"]
        );
        assert_eq!(
            hits("identifier == 'name' OR identifier == 'email' AND enabled == false"),
            ["name"]
        );
        assert_eq!(
            hits("(identifier == 'name' || identifier == 'email') && title != 'Name'"),
            ["email"]
        );
        assert_eq!(hits("!(elementType != 12)"), ["subscribe"]);
        assert_eq!(hits("FALSEPREDICATE").len(), 0);
        assert_eq!(hits("TRUEPREDICATE").len(), 12);
        assert_eq!(
            hits("label == nil AND elementType == 49"),
            ["name", "email"]
        );
    }

    #[test]
    fn bad_predicates_are_invalid_selectors() {
        for text in [
            "",
            "identifier ==",
            "colour == 'red'",
            "label FOO 'x'",
            "label == 'open",
            "(label == 'x'",
            "label == 'x' AND",
            "label MATCHES '('",
            "label LIKE 3",
            "label == bare",
            "label ==[x] 'a'",
        ] {
            let e = parse(text).expect_err(text);
            assert_eq!(e.code, crate::error::ErrorCode::InvalidSelector, "{text}");
        }
    }
}
