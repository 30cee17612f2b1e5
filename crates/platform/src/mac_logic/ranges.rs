//! Reading elements that may be big in ranges: a table, outline, list, browser or grid of
//! 50,000 rows, or a text area holding a whole document. The ordinary read of a node (one
//! batched round trip with `AXChildren` and `AXValue`) would carry every row reference or
//! every character; for these elements the walk reads instead:
//!
//! - the attributes without `AXValue` and without `AXChildren`, plus `AXNumberOfCharacters`
//!   (one batched round trip), which tells the role;
//! - the children as one range (`AXUIElementCopyAttributeValues` with index and count) up to
//!   what the snapshot's node budget still takes, starting where a paged read continues, and
//!   the child count (`AXUIElementGetAttributeValueCount`) only when the range came back full;
//! - a text's value as its first characters (`AXStringForRange`, capped at
//!   [`budget::MAX_VALUE_CHARS`]) once `AXNumberOfCharacters` said how long it is; any other
//!   value by a read of `AXValue` alone, and none for roles that carry no value.
//!
//! Which elements: a role is known only after the read that would carry the listing, so the
//! walk chooses by where the element sits. Everything big on macOS scrolls, and what scrolls
//! is the content of an `AXScrollArea` (AppKit and SwiftUI tables, outlines, browser columns,
//! collection views, text views, Chromium's web area): its children are read in ranges, and
//! so is the root of every walk (a paged read continuing a table starts at the table). A big
//! element elsewhere (a web table inside a web page) is still read whole and its listing
//! capped when taken.

use super::budget;
use super::decode::{AttrValue, NODE_ATTRS};
use super::roles;
use super::walk::{AxSource, FailureKind};
use axgate_engine::{Role, SkippedPart};

/// Native roles whose elements hold the content of a scroll area: their children are read
/// in ranges.
pub(crate) const HOSTS: &[&str] = &["AXScrollArea"];

/// Native roles whose children are rows or items that may number in the thousands.
pub(crate) const LISTS: &[&str] = &["AXTable", "AXOutline", "AXList", "AXBrowser", "AXGrid"];

/// Native roles that carry no value worth a round trip of its own.
const VALUELESS: &[&str] = &[
    "AXApplication",
    "AXWindow",
    "AXSheet",
    "AXDrawer",
    "AXButton",
    "AXGroup",
    "AXToolbar",
    "AXMenuBar",
    "AXMenu",
    "AXImage",
    "AXScrollArea",
    "AXSplitGroup",
    "AXTabGroup",
    "AXWebArea",
    "AXRow",
    "AXColumn",
    "AXLayoutArea",
];

/// The attribute that says how long a text is, in UTF-16 units.
const CHAR_COUNT: &str = "AXNumberOfCharacters";

/// Whether a child of an element with native role `parent` is read in ranges.
pub(crate) fn in_ranges(parent: &str) -> bool {
    HOSTS.contains(&parent)
}

/// The batch of a ranged read: every attribute of [`NODE_ATTRS`] but `AXValue`, then
/// `AXNumberOfCharacters`.
pub(crate) fn ranged_names() -> Vec<&'static str> {
    NODE_ATTRS
        .iter()
        .copied()
        .filter(|n| *n != "AXValue")
        .chain([CHAR_COUNT])
        .collect()
}

/// How the value of an element read in ranges is read, from its native role and subrole
/// and its `AXNumberOfCharacters` slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueRead {
    /// Not at all: a secure field, a list, or a role without a value.
    None,
    /// An empty text, known without asking.
    Empty,
    /// The first this-many UTF-16 units of the text (`AXStringForRange`).
    Range(usize),
    /// `AXValue` alone.
    Whole,
}

/// Decides how to read the value of an element read in ranges.
pub(crate) fn value_read(native: &str, subrole: Option<&str>, chars: &AttrValue) -> ValueRead {
    if roles::normalise(native, subrole) == Role::SecureTextField
        || LISTS.contains(&native)
        || VALUELESS.contains(&native)
    {
        return ValueRead::None;
    }
    match chars {
        AttrValue::Number(n) if n.is_finite() && *n <= 0.0 => ValueRead::Empty,
        AttrValue::Number(n) if n.is_finite() => {
            ValueRead::Range((*n as usize).min(budget::MAX_VALUE_CHARS))
        }
        _ => ValueRead::Whole,
    }
}

/// One element read in ranges.
#[derive(Debug)]
pub(crate) struct RangedRead<E> {
    /// The slots of [`NODE_ATTRS`], in order (`AXValue` filled in as read, or missing).
    pub(crate) values: Vec<AttrValue>,
    /// The element in the `AXTitleUIElement` slot, from the same batch.
    pub(crate) linked: Option<E>,
    /// The children read, each with its position among all children.
    pub(crate) children: Vec<(usize, E)>,
    /// How many children the element has (what could be counted).
    pub(crate) child_count: usize,
    /// Parts that could not be read (the element itself was read).
    pub(crate) skipped: Vec<(SkippedPart, FailureKind)>,
}

/// What of the children to read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    /// Whether to list children at all (false at the depth limit: only count them).
    pub(crate) list: bool,
    /// Position of the first child to read.
    pub(crate) start: usize,
    /// The most children to read.
    pub(crate) count: usize,
}

/// Reads one element in ranges. Fails only when its attributes cannot be read; a value or
/// children that fail after that are left out and listed in `skipped` (unless the element
/// went away meanwhile). When the listing fails, the children are still counted, so the
/// parent's `child_count` says how many were skipped.
pub(crate) fn read<S: AxSource>(
    source: &S,
    element: &S::Element,
    window: Window,
    ctx: &mut axgate_engine::CallCtx,
) -> Result<RangedRead<S::Element>, S::Failure> {
    let mut read = read_values(source, element, ctx)?;
    let listed = if window.list && window.count > 0 {
        source.read_children(element, window.start, window.count, ctx)
    } else {
        Ok(Vec::new())
    };
    let count = match listed {
        Ok(listed) => {
            let full = listed.len() >= window.count;
            let past_end = listed.is_empty() && window.start > 0;
            read.child_count = window.start + listed.len();
            read.children = listed
                .into_iter()
                .enumerate()
                .map(|(i, e)| (window.start + i, e))
                .collect();
            !window.list || full || past_end
        }
        Err(f) => {
            note(source, &mut read.skipped, SkippedPart::Children, f);
            true
        }
    };
    if count {
        match source.count_children(element, ctx) {
            Ok(n) => read.child_count = n.max(read.children.len()),
            Err(f) => note(source, &mut read.skipped, SkippedPart::Children, f),
        }
    }
    Ok(read)
}

/// Notes a part that could not be read, unless the element went away (then it is not part
/// of the tree) or the part is already noted.
fn note<S: AxSource>(
    source: &S,
    skipped: &mut Vec<(SkippedPart, FailureKind)>,
    part: SkippedPart,
    failure: S::Failure,
) {
    match source.classify(failure) {
        FailureKind::Gone => {}
        _ if skipped.iter().any(|(p, _)| *p == part) => {}
        kind => skipped.push((part, kind)),
    }
}

/// Reads the attributes (with the linked label's element) and the value of one element, the
/// value as a range: no children. `children` and `child_count` are left empty.
pub(crate) fn read_values<S: AxSource>(
    source: &S,
    element: &S::Element,
    ctx: &mut axgate_engine::CallCtx,
) -> Result<RangedRead<S::Element>, S::Failure> {
    let names = ranged_names();
    let (slots, linked) = source.read_attrs_linked(element, &names, ctx)?;
    let slot = |name: &str| {
        names
            .iter()
            .position(|n| *n == name)
            .and_then(|i| slots.get(i))
            .cloned()
            .unwrap_or(AttrValue::Missing)
    };
    let mut values: Vec<AttrValue> = NODE_ATTRS.iter().map(|n| slot(n)).collect();
    let mut skipped = Vec::new();
    let text = |v: AttrValue| match v {
        AttrValue::Text(t) => Some(t),
        _ => None,
    };
    let native = text(slot("AXRole")).unwrap_or_default();
    let subrole = text(slot("AXSubrole"));
    let value = match value_read(&native, subrole.as_deref(), &slot(CHAR_COUNT)) {
        ValueRead::None => Ok(AttrValue::Missing),
        ValueRead::Empty => Ok(AttrValue::Text(String::new())),
        ValueRead::Range(units) => source.read_text(element, units, ctx).map(AttrValue::Text),
        ValueRead::Whole => source
            .read_attrs(element, &["AXValue"], ctx)
            .map(|mut v| v.pop().unwrap_or(AttrValue::Missing)),
    };
    match value {
        Ok(v) => {
            if let Some(i) = NODE_ATTRS.iter().position(|n| *n == "AXValue") {
                values[i] = v;
            }
        }
        Err(f) => note(source, &mut skipped, SkippedPart::Value, f),
    }
    Ok(RangedRead {
        values,
        linked,
        children: Vec::new(),
        child_count: 0,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use axgate_engine::{AxValue, CallCtx, Skipped};

    use super::*;
    use crate::mac_logic::fake_ax::FakeAx;
    use crate::mac_logic::walk::{Limits, walk};

    const ROWS: u32 = 50_000;
    const TABLE: u32 = 4;

    /// An app whose window holds a scroll area with a table of [`ROWS`] rows (ids from
    /// 1,000,000), each row a cell holding a text.
    fn big_table() -> FakeAx {
        let mut s = FakeAx::default();
        s.add(0, "AXApplication", &[1]);
        s.add(1, "AXWindow", &[2]);
        s.add(2, "AXGroup", &[3]);
        s.add(3, "AXScrollArea", &[TABLE]);
        let rows: Vec<u32> = (0..ROWS).map(|i| 1_000_000 + 3 * i).collect();
        s.add(TABLE, "AXTable", &rows);
        for row in rows {
            s.add(row, "AXRow", &[row + 1]);
            s.add(row + 1, "AXCell", &[row + 2]);
            s.add(row + 2, "AXStaticText", &[])
                .attrs
                .insert("AXValue".into(), text("a file name.txt"));
        }
        s
    }

    fn ctx() -> CallCtx {
        CallCtx::new(Instant::now() + Duration::from_secs(60))
    }

    fn limits(max_depth: u32, max_nodes: usize, skip_children: usize) -> Limits {
        Limits {
            max_depth,
            max_nodes,
            skip_children,
        }
    }

    #[test]
    fn a_50000_row_table_costs_what_its_page_costs() {
        let s = big_table();
        let mut ctx = ctx();
        let page = 200;
        let walked = walk(&s, 0, limits(20, page, 0), &mut ctx).unwrap();
        assert_eq!(walked.nodes.len(), page);
        assert!(walked.truncated);
        let table = &walked.nodes[4];
        assert_eq!(table.native_role, "AXTable");
        assert_eq!(table.child_count, ROWS as usize, "the true count, counted");
        // Round trips and what crossed are bounded by the page, not by the table.
        assert!(
            ctx.round_trips() <= 2 * page as u64,
            "{}",
            ctx.round_trips()
        );
        let carried = s.carried();
        assert!(carried.elements <= 2 * page, "{carried:?}");
        assert!(carried.chars <= 20 * page, "{carried:?}");
    }

    #[test]
    fn a_page_further_down_the_table_starts_where_it_continues() {
        let s = big_table();
        let mut ctx = ctx();
        let walked = walk(&s, TABLE, limits(3, 91, 30_000), &mut ctx).unwrap();
        assert_eq!(
            walked.elements[1],
            1_000_000 + 3 * 30_000,
            "row 30,000 first"
        );
        assert_eq!(walked.nodes.len(), 91);
        assert_eq!(walked.nodes[0].child_count, ROWS as usize);
        assert!(ctx.round_trips() <= 2 * 91, "{}", ctx.round_trips());
        assert!(s.carried().elements <= 2 * 91, "{:?}", s.carried());
    }

    #[test]
    fn a_table_at_the_depth_limit_is_counted_not_listed() {
        let s = big_table();
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(4, 10_000, 0), &mut ctx).unwrap();
        assert_eq!(walked.nodes.len(), 5);
        assert_eq!(walked.nodes[4].child_count, ROWS as usize);
        assert!(!walked.truncated);
        assert!(ctx.round_trips() <= 10, "{}", ctx.round_trips());
        assert_eq!(s.carried().elements, 1 + 1 + 1 + 1, "no row crossed");
    }

    #[test]
    fn a_long_text_is_read_as_a_capped_range() {
        let mut s = FakeAx::default();
        s.add(0, "AXWindow", &[1]);
        s.add(1, "AXScrollArea", &[2, 3, 4]);
        let document = "line of a long document\n".repeat(40_000);
        s.add(2, "AXTextArea", &[])
            .attrs
            .insert("AXValue".into(), AttrValue::Text(document));
        s.add(3, "AXTextField", &[])
            .attrs
            .insert("AXSubrole".into(), text("AXSecureTextField"));
        s.set(3, "AXValue", text("hunter2"));
        s.add(4, "AXScrollBar", &[])
            .attrs
            .insert("AXValue".into(), AttrValue::Number(0.5));
        let mut ctx = ctx();
        let walked = walk(&s, 0, limits(5, 100, 0), &mut ctx).unwrap();
        let Some(AxValue::Text(start)) = &walked.nodes[2].value else {
            panic!("{:?}", walked.nodes[2].value)
        };
        assert_eq!(start.chars().count(), budget::MAX_VALUE_CHARS);
        assert!(start.starts_with("line of a long document\n"));
        assert_eq!(walked.nodes[3].value, None, "a secure value is never read");
        assert_eq!(walked.nodes[4].value, Some(AxValue::Number(0.5)));
        assert_eq!(
            s.carried().chars,
            budget::MAX_VALUE_CHARS,
            "only the range crossed"
        );
    }

    #[test]
    fn a_slow_row_is_skipped_and_reported_and_the_page_goes_on() {
        let mut s = big_table();
        let third = 1_000_000 + 3 * 2;
        s.slow.insert(third);
        let walked = walk(&s, TABLE, limits(3, 31, 0), &mut ctx()).unwrap();
        assert!(!walked.elements.contains(&third));
        assert_eq!(
            walked.skipped,
            [Skipped {
                node: 0,
                part: SkippedPart::Child(2),
                timed_out: true,
            }]
        );
        assert_eq!(walked.nodes.len(), 31, "the rows after it were read");
    }

    fn text(s: &str) -> AttrValue {
        AttrValue::Text(s.to_owned())
    }

    /// A window whose scroll area holds a label "E-mail" (5) and a field (6) that only the
    /// label names (`AXTitleUIElement`), and a long text area (7).
    fn labelled_form() -> FakeAx {
        let mut s = FakeAx::default();
        s.add(0, "AXWindow", &[1]);
        s.add(1, "AXScrollArea", &[5, 6, 7]);
        s.add(5, "AXStaticText", &[])
            .attrs
            .insert("AXValue".into(), text("E-mail"));
        s.add(6, "AXTextField", &[])
            .attrs
            .insert("AXValue".into(), text("ada@example.com"));
        s.links.insert(6, 5);
        s.add(7, "AXTextArea", &[])
            .attrs
            .insert("AXValue".into(), text(&"a long line\n".repeat(10_000)));
        s
    }

    #[test]
    fn a_linked_label_names_an_element_read_in_ranges() {
        let s = labelled_form();
        let walked = walk(&s, 0, limits(5, 100, 0), &mut ctx()).unwrap();
        let field = &walked.nodes[3];
        assert_eq!(field.native_role, "AXTextField");
        assert_eq!(field.name.as_deref(), Some("E-mail"));
        // As the root of a walk (read in ranges too): a page rooted at the field.
        let mut ctx = ctx();
        let walked = walk(&s, 6, limits(0, 1, 0), &mut ctx).unwrap();
        assert_eq!(walked.nodes[0].name.as_deref(), Some("E-mail"));
        // Its batch (with the link), its text range, the label, its child count.
        assert_eq!(ctx.round_trips(), 4);
    }

    #[test]
    fn an_element_read_alone_reads_its_text_as_a_range_and_its_linked_label() {
        let s = labelled_form();
        let mut ctx = ctx();
        let area = crate::mac_logic::walk::read_one(&s, &7, &mut ctx).unwrap();
        let Some(AxValue::Text(start)) = &area.value else {
            panic!("{:?}", area.value)
        };
        assert_eq!(start.chars().count(), budget::MAX_VALUE_CHARS);
        assert_eq!(s.carried().chars, budget::MAX_VALUE_CHARS, "never whole");
        assert_eq!(ctx.round_trips(), 2, "the batch, then the range");
        assert_eq!(s.carried().elements, 0, "no children listed");

        let mut ctx = self::ctx();
        let field = crate::mac_logic::walk::read_one(&s, &6, &mut ctx).unwrap();
        assert_eq!(field.name.as_deref(), Some("E-mail"));
        assert_eq!(field.value, Some(AxValue::Text("ada@example.com".into())));
        assert_eq!(ctx.round_trips(), 3, "the batch, the range, the label");
    }

    #[test]
    fn a_listing_that_fails_still_says_how_many_children_were_skipped() {
        let mut s = big_table();
        s.slow_listing.insert(TABLE);
        let walked = walk(&s, 0, limits(20, 200, 0), &mut ctx()).unwrap();
        let table = &walked.nodes[4];
        assert_eq!(table.native_role, "AXTable");
        assert_eq!(
            table.child_count, ROWS as usize,
            "the skipped rows, counted"
        );
        assert_eq!(
            walked.skipped,
            [Skipped {
                node: 4,
                part: SkippedPart::Children,
                timed_out: true,
            }]
        );
        assert!(walked.truncated, "a listing left out is a truncated walk");
    }

    /// A source that implements only `read` (as an in-memory replay may): the ranged reads
    /// fall back to the trait's defaults.
    struct ReadOnly(FakeAx);

    impl AxSource for ReadOnly {
        type Element = u32;
        type Failure = FailureKind;

        fn read(
            &self,
            element: &u32,
            ctx: &mut CallCtx,
        ) -> Result<crate::mac_logic::walk::NodeRead<u32>, FailureKind> {
            self.0.read(element, ctx)
        }

        fn classify(&self, failure: FailureKind) -> FailureKind {
            failure
        }
    }

    #[test]
    fn a_source_that_only_reads_whole_nodes_walks_the_same_tree() {
        let ranged = walk(&big_table(), TABLE, limits(3, 40, 100), &mut ctx()).unwrap();
        let whole = walk(
            &ReadOnly(big_table()),
            TABLE,
            limits(3, 40, 100),
            &mut ctx(),
        )
        .unwrap();
        assert_eq!(whole.elements, ranged.elements);
        assert_eq!(whole.nodes, ranged.nodes);
        assert_eq!(whole.nodes[0].child_count, ROWS as usize);
        assert_eq!(
            whole.nodes[3].value,
            Some(AxValue::Text("a file name.txt".into()))
        );
    }

    #[test]
    fn the_ranged_batch_leaves_out_the_value_and_asks_for_the_length() {
        let names = ranged_names();
        assert!(!names.contains(&"AXValue"));
        assert!(!names.contains(&"AXChildren"));
        assert_eq!(names.last(), Some(&CHAR_COUNT));
        assert_eq!(names.len(), NODE_ATTRS.len());
    }

    #[test]
    fn texts_are_read_as_a_capped_range() {
        let long = AttrValue::Number(5_000_000.0);
        assert_eq!(
            value_read("AXTextArea", None, &long),
            ValueRead::Range(budget::MAX_VALUE_CHARS)
        );
        assert_eq!(
            value_read("AXTextArea", None, &AttrValue::Number(12.0)),
            ValueRead::Range(12)
        );
        assert_eq!(
            value_read("AXStaticText", None, &AttrValue::Number(0.0)),
            ValueRead::Empty
        );
    }

    #[test]
    fn secure_lists_and_valueless_roles_are_not_read() {
        let n = AttrValue::Number(8.0);
        assert_eq!(
            value_read("AXTextField", Some("AXSecureTextField"), &n),
            ValueRead::None
        );
        assert_eq!(value_read("AXTable", None, &n), ValueRead::None);
        assert_eq!(value_read("AXGroup", None, &text("x")), ValueRead::None);
        assert_eq!(
            value_read("AXScrollBar", None, &AttrValue::Missing),
            ValueRead::Whole,
            "a number value has no character count"
        );
    }

    #[test]
    fn only_the_content_of_a_scroll_area_is_read_in_ranges() {
        assert!(in_ranges("AXScrollArea"));
        assert!(!in_ranges("AXGroup"));
        assert!(!in_ranges("AXWindow"));
    }
}
