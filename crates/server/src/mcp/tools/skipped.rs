//! What a snapshot left out (elements that did not answer in time, or failed), said by the
//! path of the node they belong to, for the text of `get_tree`.

use axgate_engine::tree::IndexedNode;

/// Says what a snapshot left out, by the path of the node it belongs to.
pub(super) fn describe_skipped(
    skipped: &axgate_engine::Skipped,
    nodes: &[IndexedNode],
) -> Option<String> {
    use axgate_engine::SkippedPart;
    let path = &nodes.get(skipped.node)?.path;
    let part = match skipped.part {
        SkippedPart::Child(i) => format!("child {i} of {path}"),
        SkippedPart::Children => format!("the children of {path}"),
        SkippedPart::Value => format!("the value of {path}"),
    };
    let why = if skipped.timed_out {
        "no answer in time"
    } else {
        "an error"
    };
    Some(format!("{part} ({why})"))
}
