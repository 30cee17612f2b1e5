//! `-ios class chain`: steps separated by `/`, each a type (`XCUIElementTypeButton` or `*`)
//! with filters in brackets — `` [`predicate`] `` (the [`crate::predicate`] language),
//! `[$predicate$]` (the element has a descendant that matches), `[N]` (the N-th match,
//! from 1; negative from the end) — and `**/` before a step to search all descendants
//! rather than children.

use crate::doc::Doc;
use crate::error::WdError;
use crate::predicate::{self, Pred};
use crate::roles::type_number;

#[derive(Debug)]
struct Step {
    descendants: bool,
    ty: Option<u8>,
    filters: Vec<Filter>,
}

#[derive(Debug)]
enum Filter {
    Pred(Pred),
    HasDescendant(Pred),
    Index(i64),
}

fn bad(text: &str, why: &str) -> WdError {
    WdError::invalid_selector(format!(
        "invalid class chain {text:?}: {why}. A chain is steps like \
         **/XCUIElementTypeButton[`title == \"OK\"`][1], separated by /"
    ))
}

/// A parsed class chain.
#[derive(Debug)]
pub struct Chain {
    steps: Vec<Step>,
}

/// Parses a class chain.
pub fn parse(text: &str) -> Result<Chain, WdError> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.is_empty() {
        return Err(bad(text, "it is empty"));
    }
    let mut steps = Vec::new();
    let mut i = 0;
    let mut descendants = false;
    loop {
        if chars[i..].starts_with(&['*', '*', '/']) {
            descendants = true;
            i += 3;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '*') {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect();
        let ty = match name.as_str() {
            "" => return Err(bad(text, "a step has no type")),
            "*" => None,
            n => Some(
                type_number(n)
                    .filter(|_| n.starts_with("XCUIElementType"))
                    .ok_or_else(|| bad(text, &format!("{n:?} is not an XCUIElementType name")))?,
            ),
        };
        let mut filters = Vec::new();
        while chars.get(i) == Some(&'[') {
            i += 1;
            match chars.get(i) {
                Some(&q @ ('`' | '$')) => {
                    let close = chars[i + 1..]
                        .iter()
                        .position(|c| *c == q)
                        .ok_or_else(|| bad(text, "a predicate in brackets is not closed"))?;
                    let inner: String = chars[i + 1..i + 1 + close].iter().collect();
                    let pred = predicate::parse(&inner)?;
                    filters.push(if q == '`' {
                        Filter::Pred(pred)
                    } else {
                        Filter::HasDescendant(pred)
                    });
                    i += close + 2;
                }
                _ => {
                    let close = chars[i..]
                        .iter()
                        .position(|c| *c == ']')
                        .ok_or_else(|| bad(text, "a bracket is not closed"))?;
                    let inner: String = chars[i..i + close].iter().collect();
                    let n: i64 =
                        inner
                            .trim()
                            .parse()
                            .ok()
                            .filter(|n| *n != 0)
                            .ok_or_else(|| {
                                bad(
                                    text,
                                    &format!(
                                        "[{inner}] is not an index (1, 2, … or -1 for the last)"
                                    ),
                                )
                            })?;
                    filters.push(Filter::Index(n));
                    i += close;
                }
            }
            if chars.get(i) != Some(&']') {
                return Err(bad(text, "expected ] after a filter"));
            }
            i += 1;
        }
        steps.push(Step {
            descendants,
            ty,
            filters,
        });
        descendants = false;
        match chars.get(i) {
            None => break,
            Some('/') if i + 1 < chars.len() => i += 1,
            Some(c) => return Err(bad(text, &format!("unexpected {c:?}"))),
        }
    }
    Ok(Chain { steps })
}

impl Chain {
    /// The elements the chain finds from `from`, in document order.
    pub fn find(&self, doc: &Doc, from: usize) -> Vec<usize> {
        let mut set = vec![from];
        for step in &self.steps {
            let mut next = Vec::new();
            for &ctx in &set {
                let pool = if step.descendants {
                    doc.descendants(ctx)
                } else {
                    doc.els[ctx].children.clone()
                };
                let mut found: Vec<usize> = pool
                    .into_iter()
                    .filter(|&i| step.ty.is_none_or(|t| doc.els[i].ty == t))
                    .collect();
                for filter in &step.filters {
                    found = match filter {
                        Filter::Pred(p) => found
                            .into_iter()
                            .filter(|&i| p.matches(&doc.els[i]))
                            .collect(),
                        Filter::HasDescendant(p) => found
                            .into_iter()
                            .filter(|&i| doc.descendants(i).iter().any(|&d| p.matches(&doc.els[d])))
                            .collect(),
                        Filter::Index(n) => {
                            let at = if *n > 0 {
                                n - 1
                            } else {
                                found.len() as i64 + n
                            };
                            usize::try_from(at)
                                .ok()
                                .and_then(|at| found.get(at).copied())
                                .into_iter()
                                .collect()
                        }
                    };
                }
                next.extend(found);
            }
            next.sort_unstable();
            next.dedup();
            set = next;
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::tests::{names, sample};

    fn ids(text: &str) -> Vec<String> {
        let doc = sample();
        let found = parse(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .find(&doc, 0);
        names(&doc, found)
    }

    #[test]
    fn chains_find_what_they_say() {
        assert_eq!(ids("**/XCUIElementTypeButton"), ["submit", "reset"]);
        assert_eq!(
            ids("XCUIElementTypeWindow/XCUIElementTypeTextField"),
            ["name", "email"]
        );
        assert_eq!(
            ids("XCUIElementTypeWindow/XCUIElementTypeTextField[2]"),
            ["email"]
        );
        assert_eq!(
            ids("XCUIElementTypeWindow/XCUIElementTypeTextField[-1]"),
            ["email"]
        );
        assert_eq!(
            ids("**/XCUIElementTypeButton[`enabled == false`]"),
            ["reset"]
        );
        assert_eq!(ids("**/*[`identifier BEGINSWITH 's'`][2]"), ["submit"]);
        assert_eq!(
            ids("XCUIElementTypeWindow/*[$identifier == 'reset'$]"),
            ["buttons"]
        );
        assert_eq!(
            ids("XCUIElementTypeWindow/**/XCUIElementTypeButton[1]"),
            ["submit"]
        );
        assert_eq!(
            ids("XCUIElementTypeMenuBar/XCUIElementTypeMenuBarItem"),
            ["XCUIElementTypeMenuBarItem"]
        );
        assert!(
            ids("XCUIElementTypeButton").is_empty(),
            "children only without **/"
        );
        assert!(ids("**/XCUIElementTypeButton[5]").is_empty());
    }

    #[test]
    fn bad_chains_are_invalid_selectors() {
        for text in [
            "",
            "**/",
            "XCUIElementTypeNope",
            "Button",
            "**/XCUIElementTypeButton[0]",
            "**/XCUIElementTypeButton[x]",
            "**/XCUIElementTypeButton[`label ==`]",
            "**/XCUIElementTypeButton[`label == 'a'",
            "XCUIElementTypeWindow/",
            "XCUIElementTypeWindow//XCUIElementTypeButton",
        ] {
            let e = parse(text).expect_err(text);
            assert_eq!(e.code, crate::error::ErrorCode::InvalidSelector, "{text}");
        }
    }
}
