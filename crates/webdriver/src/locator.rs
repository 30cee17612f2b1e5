//! The find strategies (`using` of W3C Find Element) and their evaluation over a [`Doc`]:
//! `accessibility id`, `id` and `name` (the identifier, as Mac2 does), `class name`
//! (`XCUIElementType*`), `-ios predicate string` and `-ios class chain` (with or without
//! the `-ios ` prefix) and `xpath`.

use crate::chain;
use crate::doc::Doc;
use crate::error::WdError;
use crate::predicate;
use crate::roles::type_number;
use crate::xpath;

/// A parsed locator.
#[derive(Debug)]
pub enum Strategy {
    /// The identifier equals this.
    Identifier(String),
    /// The element type.
    ClassName(u8),
    Predicate(predicate::Pred),
    Chain(chain::Chain),
    XPath(xpath::Compiled),
}

/// The `using` values, for the error naming them.
pub const USING: &[&str] = &[
    "accessibility id",
    "id",
    "name",
    "class name",
    "-ios predicate string",
    "-ios class chain",
    "xpath",
];

impl Strategy {
    /// Parses `using` and `value`; an unknown strategy is `invalid argument`, a bad value
    /// `invalid selector`.
    pub fn parse(using: &str, value: &str) -> Result<Strategy, WdError> {
        let using = using.strip_prefix("-ios ").unwrap_or(using);
        Ok(match using {
            "accessibility id" | "id" | "name" => Strategy::Identifier(value.to_owned()),
            "class name" => Strategy::ClassName(
                type_number(value)
                    .filter(|_| value.starts_with("XCUIElementType"))
                    .ok_or_else(|| {
                        WdError::invalid_selector(format!(
                            "{value:?} is not an XCUIElementType name (such as XCUIElementTypeButton)"
                        ))
                    })?,
            ),
            "predicate string" => Strategy::Predicate(predicate::parse(value)?),
            "class chain" => Strategy::Chain(chain::parse(value)?),
            "xpath" => Strategy::XPath(xpath::parse(value)?),
            other => {
                return Err(WdError::invalid_argument(format!(
                    "unknown locator strategy {other:?}; axgate finds by {}",
                    USING.join(", ")
                )));
            }
        })
    }
}

/// The elements `strategy` finds under `from` (`None`: the whole app, the application
/// element included), in document order. An element search never returns `from` itself,
/// except XPath, which answers what the expression says.
pub fn find(doc: &Doc, strategy: &Strategy, from: Option<usize>) -> Result<Vec<usize>, WdError> {
    if doc.els.is_empty() {
        return Ok(Vec::new());
    }
    let pool = || -> Vec<usize> {
        match from {
            None => std::iter::once(0).chain(doc.descendants(0)).collect(),
            Some(i) => doc.descendants(i),
        }
    };
    Ok(match strategy {
        Strategy::Identifier(id) => pool()
            .into_iter()
            .filter(|&i| doc.els[i].identifier == *id)
            .collect(),
        Strategy::ClassName(ty) => pool()
            .into_iter()
            .filter(|&i| doc.els[i].ty == *ty)
            .collect(),
        Strategy::Predicate(p) => pool()
            .into_iter()
            .filter(|&i| p.matches(&doc.els[i]))
            .collect(),
        Strategy::Chain(c) => match from {
            // From the app, the chain's first step is the app's children (as Mac2 starts
            // from the application element).
            None => c.find(doc, 0),
            Some(i) => c.find(doc, i),
        },
        Strategy::XPath(x) => x.select(doc, from)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::tests::sample;
    use crate::error::ErrorCode;

    fn count(using: &str, value: &str, from: Option<usize>) -> usize {
        let doc = sample();
        find(&doc, &Strategy::parse(using, value).unwrap(), from)
            .unwrap()
            .len()
    }

    #[test]
    fn every_strategy_finds() {
        assert_eq!(count("accessibility id", "email", None), 1);
        assert_eq!(count("id", "email", None), 1);
        assert_eq!(count("name", "email", None), 1);
        assert_eq!(count("class name", "XCUIElementTypeButton", None), 2);
        assert_eq!(count("class name", "XCUIElementTypeButton", Some(6)), 2);
        assert_eq!(count("class name", "XCUIElementTypeTextField", Some(6)), 0);
        assert_eq!(count("-ios predicate string", "elementType == 9", None), 2);
        assert_eq!(count("predicate string", "elementType == 9", None), 2);
        assert_eq!(
            count("-ios class chain", "**/XCUIElementTypeButton", None),
            2
        );
        assert_eq!(count("class chain", "XCUIElementTypeButton", Some(6)), 2);
        assert_eq!(count("xpath", "//XCUIElementTypeButton", None), 2);
    }

    #[test]
    fn unknown_strategies_and_bad_values() {
        assert_eq!(
            Strategy::parse("css selector", "a").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            Strategy::parse("class name", "Button").unwrap_err().code,
            ErrorCode::InvalidSelector
        );
        assert_eq!(
            Strategy::parse("xpath", "//[").unwrap_err().code,
            ErrorCode::InvalidSelector
        );
    }
}
