//! One accessibility attribute value, in the three places it lives: a slot of a batched read
//! (the macOS adapter converts Core Foundation values into it; `decode` reads it), a value
//! recorded in an `axgate-recording/1` file (`replay::format::Recorded`, references as arena
//! indexes) and one read for such a file (`replay::writer::RecValue`, references as the
//! source's elements). One enum, generic in how a reference and an array are held.

use axgate_engine::Rect;

/// One attribute value. `R` is how an element reference is held and `L` how an array is: a
/// slot of a read keeps neither (`()`, the array's length), a recording keeps arena indexes.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue<R = (), L = usize> {
    /// No value: `CFNull`, "no value", an attribute the element does not have, or `null` in
    /// a recording.
    Missing,
    /// The read failed with this AX error code (other than "no value" and "unsupported").
    Failed(i32),
    Text(String),
    Number(f64),
    Bool(bool),
    Point {
        x: f64,
        y: f64,
    },
    Size {
        w: f64,
        h: f64,
    },
    Rect(Rect),
    /// An element reference (a slot's is only read through dedicated calls).
    Element(R),
    /// An array.
    List(L),
    /// Any other type (dates, dictionaries, ranges, …).
    Other,
}

impl<R, L> AttrValue<R, L> {
    /// The same value with its reference and its array held another way; `None` when
    /// `element` or `list` gives none for the one it holds.
    pub(crate) fn map_refs<R2, L2>(
        self,
        element: impl FnOnce(R) -> Option<R2>,
        list: impl FnOnce(L) -> Option<L2>,
    ) -> Option<AttrValue<R2, L2>> {
        Some(match self {
            AttrValue::Missing => AttrValue::Missing,
            AttrValue::Failed(code) => AttrValue::Failed(code),
            AttrValue::Text(t) => AttrValue::Text(t),
            AttrValue::Number(n) => AttrValue::Number(n),
            AttrValue::Bool(b) => AttrValue::Bool(b),
            AttrValue::Point { x, y } => AttrValue::Point { x, y },
            AttrValue::Size { w, h } => AttrValue::Size { w, h },
            AttrValue::Rect(r) => AttrValue::Rect(r),
            AttrValue::Element(r) => AttrValue::Element(element(r)?),
            AttrValue::List(l) => AttrValue::List(list(l)?),
            AttrValue::Other => AttrValue::Other,
        })
    }
}
