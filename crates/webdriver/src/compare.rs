//! The six comparisons both selector languages have ([`crate::predicate`] and
//! [`crate::xpath`]), with what each symbol means and how numbers compare; what is compared
//! (an attribute's text, an XPath value) is each language's own.

/// `=`, `!=`, `<`, `<=`, `>`, `>=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The comparison a symbol names, NSPredicate's spellings (`==`, `<>`, `=<`, `=>`)
    /// included; XPath's lexer never makes those.
    pub(crate) fn of_symbol(symbol: &str) -> Option<CmpOp> {
        Some(match symbol {
            "=" | "==" => CmpOp::Eq,
            "!=" | "<>" => CmpOp::Ne,
            "<" => CmpOp::Lt,
            "<=" | "=<" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" | "=>" => CmpOp::Ge,
            _ => return None,
        })
    }

    /// Whether `a` compares so with `b` (NaN compares unequal and unordered, as in both
    /// languages).
    pub(crate) fn numbers(self, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}
