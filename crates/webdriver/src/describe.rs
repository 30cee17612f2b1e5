//! `macos: source` with `format: description`: the document as an indented outline in the
//! manner of XCTest's `debugDescription` (one element a line: type, frame, then identifier,
//! title, label, placeholder and value where present). Built from the same document as the
//! XML, so a secure field's value is never in it.

use crate::doc::{Doc, El};

impl Doc {
    /// The outline, one element a line, two spaces a level.
    pub fn to_description(&self) -> String {
        let mut out = String::with_capacity(self.els.len() * 96);
        if self.els.is_empty() {
            return out;
        }
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            line(&self.els[i], depth, &mut out);
            stack.extend(self.els[i].children.iter().rev().map(|&c| (c, depth + 1)));
        }
        out
    }
}

fn line(el: &El, depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    let name = el.type_name();
    out.push_str(name.strip_prefix("XCUIElementType").unwrap_or(&name));
    let [x, y, w, h] = el.frame;
    out.push_str(&format!(", {{{{{x:.1}, {y:.1}}}, {{{w:.1}, {h:.1}}}}}"));
    for (key, text) in [
        ("identifier", &el.identifier),
        ("title", &el.title),
        ("label", &el.label),
        ("placeholderValue", &el.placeholder),
    ] {
        if !text.is_empty() {
            out.push_str(&format!(", {key}: '{}'", one_line(text)));
        }
    }
    if let Some(value) = el.value.as_deref().filter(|v| !v.is_empty()) {
        out.push_str(&format!(", value: {}", one_line(value)));
    }
    if !el.enabled {
        out.push_str(", Disabled");
    }
    if el.selected {
        out.push_str(", Selected");
    }
    out.push('\n');
}

/// Text on one line: line breaks written as `\n`.
fn one_line(text: &str) -> String {
    text.replace('\r', "\\r").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use crate::doc::tests::sample;

    #[test]
    fn one_line_per_element_indented_by_depth() {
        let text = sample().to_description();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), sample().els.len());
        assert!(lines[0].starts_with("Application, "), "{text}");
        assert!(
            lines[1].starts_with("  Window, {{40.0, 60.0}, {480.0, 440.0}}, identifier: 'form_window', title: 'Demo Form'"),
            "{text}"
        );
        assert!(
            text.contains(
                "identifier: 'name', title: 'Name', placeholderValue: 'Your name', value: Ada"
            ),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "a secure value never shows");
    }
}
