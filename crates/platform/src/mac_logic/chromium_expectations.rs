//! A test-only loader for Chromium's macOS accessibility expectations, recorded by others
//! and kept outside the repository (`../shared/data/recorded-trees/macos/`, see its
//! README): each section of the file is one web page's `AXWebArea` subtree, one element per
//! line (`++++AXTextField AXDescription='Name' AXPlaceholderValue='Name'`: depth from the
//! leading `+`, two per level). A section becomes elements of a [`FakeAx`], attached under
//! a web area, so the Chromium code paths run against what real Chromium exposes.

use std::path::{Path, PathBuf};

use super::decode::AttrValue;
use super::fake_ax::FakeAx;

/// The recording, in `shared/data/recorded-trees/` of the nearest folder above the crate
/// that has one (`../shared` beside the repository, whatever the worktree's depth).
fn path() -> PathBuf {
    const FILE: &str = "shared/data/recorded-trees/macos/chromium-web-content-mac-expectations.txt";
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .ancestors()
        .map(|dir| dir.join(FILE))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| crate_dir.join("../../../").join(FILE))
}

/// The file's sections: (path after `accessibility/`, lines).
fn sections() -> Vec<(String, Vec<String>)> {
    let path = path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the Chromium recording is read from {} ({e}); the recorded trees live beside the repository",
            path.display()
        )
    });
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(header) = line.strip_prefix("=== ") {
            let file = header.split(" @ ").next().unwrap_or(header);
            let name = file.rsplit("accessibility/").next().unwrap_or(file);
            out.push((name.to_owned(), Vec::new()));
        } else if !line.starts_with('#')
            && let Some((_, lines)) = out.last_mut()
        {
            lines.push(line.to_owned());
        }
    }
    out
}

/// The names of the sections that are trees (rooted at an `AXWebArea`).
pub(crate) fn tree_sections() -> Vec<String> {
    sections()
        .into_iter()
        .filter(|(_, lines)| lines.first().is_some_and(|l| l.starts_with("AXWebArea")))
        .map(|(name, _)| name)
        .collect()
}

/// Attaches the elements below the web area of section `name` (its own line gives the web
/// area's attributes) under `web_area` of `source`. Ids are taken from 1,000 up.
pub(crate) fn attach(source: &mut FakeAx, web_area: u32, name: &str) {
    let (_, lines) = sections()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no section {name}"));
    // The open element at each depth.
    let mut open: Vec<u32> = Vec::new();
    let lines = lines.iter().filter(|l| !l.trim().is_empty());
    for (next_id, line) in (1_000..).zip(lines) {
        let depth = line.chars().take_while(|c| *c == '+').count() / 2;
        let (role, attrs) = parse(line.trim_start_matches('+'));
        let id = if depth == 0 { web_area } else { next_id };
        open.truncate(depth);
        if let Some(parent) = open.last() {
            source
                .nodes
                .get_mut(parent)
                .expect("parent added")
                .children
                .push(id);
        }
        let node = source.add(id, &role, &[]);
        node.attrs.extend(attrs);
        open.push(id);
    }
}

/// One line: the role, then `Name=value` pairs (`'quoted'`, numbers, `{…}` ranges, bare
/// words).
fn parse(line: &str) -> (String, Vec<(String, AttrValue)>) {
    let (role, mut rest) = line.split_once(' ').unwrap_or((line, ""));
    let mut attrs = Vec::new();
    while let Some((name, after)) = rest.trim_start().split_once('=') {
        let (value, tail) = if let Some(quoted) = after.strip_prefix('\'') {
            let end = quoted.find('\'').unwrap_or(quoted.len());
            let text = quoted[..end].replace("<newline>", "\n");
            (AttrValue::Text(text), quoted.get(end + 1..).unwrap_or(""))
        } else if let Some(braced) = after.strip_prefix('{') {
            let end = braced.find('}').unwrap_or(braced.len());
            (AttrValue::Other, braced.get(end + 1..).unwrap_or(""))
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            let word = &after[..end];
            let value = word
                .parse::<f64>()
                .map_or_else(|_| AttrValue::Text(word.to_owned()), AttrValue::Number);
            (value, &after[end..])
        };
        attrs.push((name.trim().to_owned(), value));
        rest = tail;
    }
    (role.to_owned(), attrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_its_role_and_attributes() {
        let (role, attrs) = parse(
            "AXTextField AXDescription='Name' AXEditableAncestor=:3 AXPlaceholderValue='Name' AXRoleDescription='text field'",
        );
        assert_eq!(role, "AXTextField");
        assert_eq!(
            attrs[0],
            ("AXDescription".into(), AttrValue::Text("Name".into()))
        );
        assert_eq!(
            attrs[1],
            ("AXEditableAncestor".into(), AttrValue::Text(":3".into()))
        );
        assert_eq!(attrs.len(), 4);
        let (_, cell) =
            parse("AXCell AXColumnIndexRange={len: 1, loc: 0} AXRowIndexRange={len: 1, loc: 2}");
        assert_eq!(cell.len(), 2);
        let (_, slider) = parse("AXSlider AXValue=5");
        assert_eq!(slider[0].1, AttrValue::Number(5.0));
    }

    #[test]
    fn a_section_becomes_a_subtree_of_the_web_area() {
        let mut s = FakeAx::default();
        s.add(1, "AXWebArea", &[]);
        attach(&mut s, 1, "html/table-simple-expected-mac.txt");
        let table = s.nodes[&1].children[0];
        assert_eq!(
            s.nodes[&table].attrs["AXRole"],
            AttrValue::Text("AXTable".into())
        );
        // 3 rows, 2 columns, a header group.
        assert_eq!(s.nodes[&table].children.len(), 6);
        assert_eq!(
            s.nodes[&1].attrs["AXTitle"],
            AttrValue::Text("Table example".into())
        );
    }
}
