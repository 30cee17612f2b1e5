//! Text editing in a demo app's text elements, the way a text field reacts to keys: insert
//! at the end, delete the last grapheme, select all, cut, copy and paste through the shared
//! clipboard. Also a small grapheme splitter (extended clusters for combining marks,
//! variation selectors, emoji modifiers, ZWJ sequences, flags and CR LF; Hangul and Indic
//! conjunct rules are not modelled). Text values are never logged.

use axgate_engine::{AxValue, ChangeEvent, ChangeKind, NodeId, Role};

use super::tree::AppTree;
use super::{effects, lock};

/// Whether keys type into elements of this role.
pub(super) fn editable(role: Role) -> bool {
    matches!(
        role,
        Role::TextField | Role::SecureTextField | Role::TextArea | Role::ComboBox
    )
}

/// Whether an editable element takes input right now (disabled or read-only ones ignore it).
pub(super) fn accepts_input(tree: &AppTree, id: NodeId) -> bool {
    tree.get(id)
        .is_some_and(|n| editable(n.role) && n.states.enabled && n.states.value_settable)
}

/// Inserts `text` at the end of the value, or replaces the value when all of it is selected.
pub(super) fn insert(tree: &mut AppTree, id: NodeId, text: &str, events: &mut Vec<ChangeEvent>) {
    let Some(node) = tree.get(id) else {
        return;
    };
    let new = if node.states.selected {
        text.to_owned()
    } else {
        format!("{}{text}", node.text())
    };
    replace(tree, id, new, events);
}

/// Backspace: deletes the last grapheme, or everything when all is selected.
pub(super) fn backspace(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    let Some(node) = tree.get(id) else {
        return;
    };
    let mut new = node.text().to_owned();
    if node.states.selected {
        new.clear();
    } else if let Some(last) = graphemes(&new).last() {
        let keep = new.len() - last.len();
        new.truncate(keep);
    }
    replace(tree, id, new, events);
}

/// Forward delete: the caret sits at the end, so only a full selection is deleted.
pub(super) fn delete_forward(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    if tree.get(id).is_some_and(|n| n.states.selected) {
        replace(tree, id, String::new(), events);
    }
}

/// cmd+a: selects all the text.
pub(super) fn select_all(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    set_selected(tree, id, true, events);
}

/// Moving the caret collapses the selection.
pub(super) fn collapse(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    set_selected(tree, id, false, events);
}

/// cmd+c (or cmd+x with `cut`): copies the value when all of it is selected; a collapsed
/// selection copies nothing. Secure fields never copy.
pub(super) fn copy(tree: &mut AppTree, id: NodeId, cut: bool, events: &mut Vec<ChangeEvent>) {
    let Some(node) = tree.get(id) else {
        return;
    };
    if !node.states.selected || node.states.secure {
        return;
    }
    *lock(&tree.clipboard) = node.text().to_owned();
    if cut {
        replace(tree, id, String::new(), events);
    }
}

/// cmd+v: inserts the clipboard's text.
pub(super) fn paste(tree: &mut AppTree, id: NodeId, events: &mut Vec<ChangeEvent>) {
    let clip = lock(&tree.clipboard).clone();
    insert(tree, id, &clip, events);
}

/// Sets the value as typing does: collapses the selection, emits `ValueChanged` and runs the
/// `change` effects when the value changed.
fn replace(tree: &mut AppTree, id: NodeId, new: String, events: &mut Vec<ChangeEvent>) {
    set_selected(tree, id, false, events);
    effects::change_value(tree, id, AxValue::Text(new), events);
}

fn set_selected(tree: &mut AppTree, id: NodeId, on: bool, events: &mut Vec<ChangeEvent>) {
    if let Some(node) = tree.get_mut(id)
        && node.states.selected != on
    {
        node.states.selected = on;
        events.push(tree.event(id, ChangeKind::StateChanged));
    }
}

/// Splits text into (approximate) extended grapheme clusters.
pub(super) fn graphemes(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<char> = None;
    let mut regional_run = 0;
    for (i, c) in text.char_indices() {
        let joins = match prev {
            None => false,
            Some('\r') => c == '\n',
            Some(p) => {
                extends(c)
                    || p == '\u{200D}' && !is_control(c)
                    || is_regional(p) && is_regional(c) && regional_run % 2 == 1
            }
        };
        if !joins && i > start {
            out.push(&text[start..i]);
            start = i;
        }
        regional_run = if is_regional(c) { regional_run + 1 } else { 0 };
        if !joins && is_regional(c) {
            regional_run = 1;
        }
        prev = Some(c);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Characters that attach to the one before them.
fn extends(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x0610..=0x061A
        | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06DC | 0x06DF..=0x06E4 | 0x0900..=0x0903
        | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963 | 0x0E31 | 0x0E34..=0x0E3A
        | 0x0E47..=0x0E4E | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x200C | 0x200D
        | 0x20D0..=0x20FF | 0x302A..=0x302F | 0x3099..=0x309A | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F | 0x1F3FB..=0x1F3FF | 0xE0020..=0xE007F | 0xE0100..=0xE01EF)
}

fn is_regional(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

fn is_control(c: char) -> bool {
    c.is_control()
}

#[cfg(test)]
mod tests {
    use super::graphemes;

    #[test]
    fn graphemes_keep_clusters_together() {
        let cases: &[(&str, &[&str])] = &[
            ("abc", &["a", "b", "c"]),
            ("e\u{301}x", &["e\u{301}", "x"]),
            ("👍🏽!", &["👍🏽", "!"]),
            ("👩\u{200D}💻a", &["👩\u{200D}💻", "a"]),
            ("🇫🇷🇩🇪", &["🇫🇷", "🇩🇪"]),
            ("a\r\nb", &["a", "\r\n", "b"]),
            ("❤\u{FE0F}", &["❤\u{FE0F}"]),
            ("", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(graphemes(text), *expected, "{text:?}");
        }
    }
}
