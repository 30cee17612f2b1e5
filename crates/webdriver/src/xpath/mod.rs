//! `xpath`: XPath 1.0 over the page-source document, written here (docs/WEBDRIVER.md says
//! why no crate fits): [`parse`] once, then [`Compiled::select`] from the document or from
//! an element. It walks the same [`Doc`] the page source is written from, so an expression
//! finds exactly what the XML shows, at the cost of one walk per step.

mod eval;
mod parse;

use crate::doc::Doc;
use crate::error::WdError;

/// A parsed XPath expression.
#[derive(Debug)]
pub struct Compiled {
    expr: parse::Expr,
    text: String,
}

/// Parses an XPath 1.0 expression; a syntax error is `invalid selector`.
pub fn parse(text: &str) -> Result<Compiled, WdError> {
    Ok(Compiled {
        expr: parse::parse(text)?,
        text: text.to_owned(),
    })
}

impl Compiled {
    /// The elements the expression selects with `from` as the context node (`None`: the
    /// document node, whose child is the application), in document order.
    pub fn select(&self, doc: &Doc, from: Option<usize>) -> Result<Vec<usize>, WdError> {
        let ctx = eval::Ctx {
            doc,
            text: &self.text,
        };
        let node = from.map_or(eval::Node::Root, eval::Node::El);
        ctx.select(&self.expr, node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::tests::{names, sample};

    fn ids_from(text: &str, from: Option<usize>) -> Vec<String> {
        let doc = sample();
        let found = parse(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .select(&doc, from)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        names(&doc, found)
    }

    fn ids(text: &str) -> Vec<String> {
        ids_from(text, None)
    }

    #[test]
    fn paths_axes_and_predicates() {
        assert_eq!(
            ids("/XCUIElementTypeApplication"),
            ["XCUIElementTypeApplication"]
        );
        assert_eq!(ids("//XCUIElementTypeButton"), ["submit", "reset"]);
        assert_eq!(ids("//XCUIElementTypeButton[@title='Submit']"), ["submit"]);
        assert_eq!(ids("//*[@identifier=\"email\"]"), ["email"]);
        assert_eq!(ids("//XCUIElementTypeTextField[2]"), ["email"]);
        assert_eq!(ids("(//XCUIElementTypeButton)[last()]"), ["reset"]);
        assert_eq!(ids("//XCUIElementTypeButton[@enabled='false']"), ["reset"]);
        assert_eq!(ids("//*[contains(@label, 'form')]"), ["submit"]);
        assert_eq!(ids("//*[starts-with(@identifier, 'e')]"), ["email"]);
        assert_eq!(
            ids("//XCUIElementTypeButton[@identifier='reset']/.."),
            ["buttons"]
        );
        assert_eq!(
            ids("//XCUIElementTypeButton[1]/following-sibling::*"),
            ["reset"]
        );
        assert_eq!(
            ids("//XCUIElementTypeButton[2]/preceding-sibling::*[1]"),
            ["submit"]
        );
        assert_eq!(
            ids("//XCUIElementTypeButton[1]/ancestor::XCUIElementTypeWindow"),
            ["form_window"]
        );
        assert_eq!(
            ids("//XCUIElementTypeTextField | //XCUIElementTypeCheckBox"),
            ["name", "email", "subscribe"]
        );
        assert_eq!(ids("//*[@selected='true' and @value='1']"), ["subscribe"]);
        assert_eq!(
            ids("//*[@identifier='name' or @identifier='status']"),
            ["name", "status"]
        );
        assert_eq!(ids("//XCUIElementTypeGroup[count(*) = 2]"), ["buttons"]);
        assert_eq!(ids("//*[@width > 400]"), ["form_window"]);
        assert_eq!(ids("//*[not(@enabled='true')]"), ["reset"]);
        assert_eq!(
            ids("//XCUIElementTypeWindow/*[position() = last()]"),
            ["status"]
        );
        assert_eq!(
            ids("//*[@title][string-length(@title) = 4]"),
            [
                "XCUIElementTypeApplication",
                "name",
                "XCUIElementTypeMenuBarItem"
            ]
        );
        assert_eq!(
            ids("//XCUIElementTypeMenuBarItem[@title='File']/preceding::XCUIElementTypeButton"),
            ["submit", "reset"]
        );
        assert!(ids("//XCUIElementTypeTextField[@value='hunter2']").is_empty());
        assert!(
            ids("//XCUIElementTypeSecureTextField[@value]").is_empty(),
            "a secure value is no attribute"
        );
    }

    #[test]
    fn relative_to_an_element() {
        // From the group of buttons (element 6).
        assert_eq!(
            ids_from("./XCUIElementTypeButton", Some(6)),
            ["submit", "reset"]
        );
        assert_eq!(ids_from("XCUIElementTypeButton[2]", Some(6)), ["reset"]);
        assert_eq!(ids_from(".//*", Some(6)), ["submit", "reset"]);
        assert_eq!(ids_from("..", Some(6)), ["form_window"]);
        assert_eq!(
            ids_from("//XCUIElementTypeCheckBox", Some(6)),
            ["subscribe"],
            "absolute paths start at the document"
        );
    }

    #[test]
    fn bad_expressions_are_invalid_selectors() {
        for text in [
            "",
            "//",
            "//XCUIElementTypeButton[",
            "//XCUIElementTypeButton[@title='x]",
            "//*[nosuch()]",
            "count(//*)",
            "'text'",
            "//*[$var]",
            "bogus::node()",
            "//*[count(1)]",
            "//XCUIElementTypeButton)",
            &"(".repeat(100),
        ] {
            let err = parse(text).and_then(|c| c.select(&sample(), None));
            let e = err.expect_err(text);
            assert_eq!(e.code, crate::error::ErrorCode::InvalidSelector, "{text}");
        }
    }
}
