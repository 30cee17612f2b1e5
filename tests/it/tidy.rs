//! House rules checked as tests: every Rust file opens with a `//!` module doc, no test is
//! ignored, no file passes 600 lines, and no module imports a layer that the code map
//! (docs/ARCHITECTURE.md, its "must not know" column) says it must not know — the same table
//! people read is the one this test enforces, and a row naming a module that does not exist
//! fails it too.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !matches!(name, "target" | "node_modules" | ".git") && !name.starts_with("target-") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["src", "tests", "benches", "fuzz", "crates"] {
        rust_files(&root.join(dir), &mut out);
    }
    assert!(out.len() > 10, "found the sources");
    out
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let missing: Vec<String> = files()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.lines().take(5).any(|l| l.starts_with("//!"))
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a //! doc: {missing:#?}");
}

#[test]
fn no_test_is_ignored() {
    let pattern = ["#[", "ignore"].concat();
    let offenders: Vec<String> = files()
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .contains(&pattern)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "ignored tests in {offenders:?}");
}

/// The longest a Rust file may be: past this it is usually two concepts (docs/ARCHITECTURE.md).
const MAX_LINES: usize = 600;

#[test]
fn no_file_passes_600_lines() {
    let long: Vec<String> = files()
        .into_iter()
        .filter_map(|p| {
            let lines = std::fs::read_to_string(&p).ok()?.lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them by concept): {long:#?}"
    );
}

/// What a bare word of the code map's "must not know" column forbids a module to import:
/// the crate's own modules of that layer (`HTTP`, `MCP`, `AX`, `session`), or for `JSON` the serde
/// crates. Qualified words ("MCP semantics", "HTTP details", "platform APIs") are prose the
/// review keeps, not this test.
fn forbidden(word: &str) -> &'static [&'static str] {
    match word {
        "HTTP" => &["crate::http", "crate::server"],
        "MCP" => &["crate::mcp", "crate::stdio"],
        "AX" => &["crate::ax", "crate::platform"],
        "session" => &["crate::session"],
        "JSON" => &["serde_json", "serde::"],
        "everything else" => &[
            "crate::http",
            "crate::server",
            "crate::mcp",
            "crate::stdio",
            "crate::platform",
            "crate::session",
            "crate::config",
            "crate::policy",
            "crate::audit",
            "serde_json",
        ],
        _ => &[],
    }
}

/// The rows of docs/ARCHITECTURE.md's module table: each named module (braces expanded,
/// `/*` and `/mod` dropped) with the words of its "must not know" column.
fn code_map() -> Vec<(String, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("the code map");
    let modules = text
        .split("\n## Modules")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a \"## Modules\" section");
    let mut rows = Vec::new();
    for line in modules.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        let (Some(first), Some(last)) = (cells.first(), cells.last()) else {
            continue;
        };
        let words: Vec<String> = last.split(',').map(|w| w.trim().to_owned()).collect();
        // The modules are the backticked names before any parenthesised aside.
        let named = first.split(" (").next().unwrap_or(first);
        for name in named.split('`').skip(1).step_by(2) {
            let name = name.trim_end_matches("/*").trim_end_matches("/mod");
            match (name.find('{'), name.find('}')) {
                (Some(open), Some(close)) => {
                    for part in name[open + 1..close].split(',') {
                        let expanded = format!("{}{part}{}", &name[..open], &name[close + 1..]);
                        rows.push((expanded, words.clone()));
                    }
                }
                _ => rows.push((name.to_owned(), words.clone())),
            }
        }
    }
    assert!(rows.len() > 20, "read the module table: {rows:?}");
    rows
}

/// The source files of a code-map module: `src/<name>.rs` or every file under `src/<name>/`
/// in the product crate; a name under `crates/` is a path from the workspace root.
fn module_files(name: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = match name.strip_prefix("crates/") {
        Some(_) => root.to_path_buf(),
        None => root.join("src"),
    };
    let file = src.join(format!("{name}.rs"));
    if name.ends_with(".rs") && src.join(name).is_file() {
        return vec![src.join(name)];
    }
    if file.is_file() {
        return vec![file];
    }
    let mut out = Vec::new();
    rust_files(&src.join(name), &mut out);
    out
}

/// The module path (`crate::a::b`) that `super::`/`self::` in `file` stand for.
fn parent_module(file: &Path) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rel = file.strip_prefix(&root).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    let this = std::iter::once("crate".to_owned())
        .chain(parts.iter().cloned())
        .collect::<Vec<_>>()
        .join("::");
    parts.pop();
    let parent = std::iter::once("crate".to_owned())
        .chain(parts)
        .collect::<Vec<_>>()
        .join("::");
    (this, parent)
}

#[test]
fn no_module_imports_a_layer_it_must_not_know() {
    let mut offences = Vec::new();
    for (name, words) in code_map() {
        let files = module_files(&name);
        assert!(
            !files.is_empty(),
            "docs/ARCHITECTURE.md names `{name}`, which is not a module: keep the code map true"
        );
        let banned: Vec<&str> = words.iter().flat_map(|w| forbidden(w)).copied().collect();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let (this, parent) = parent_module(&file);
            // Code before the unit tests: tests may use anything.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let resolved = code
                .replace("super::", &format!("{parent}::"))
                .replace("self::", &format!("{this}::"));
            for ban in &banned {
                let hit = resolved
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .find(|l| {
                        l.match_indices(ban).any(|(i, _)| {
                            let before = l[..i].chars().next_back();
                            let inside_own = ban.starts_with("crate::")
                                && (this == ban.trim_end_matches("::")
                                    || this.starts_with(&format!("{ban}::")));
                            !inside_own
                                && before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                                && l[i + ban.len()..]
                                    .chars()
                                    .next()
                                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                        })
                    });
                if let Some(line) = hit {
                    offences.push(format!(
                        "{} (`{name}` must not know {words:?}) uses {ban}: {}",
                        file.display(),
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "imports the code map forbids (docs/ARCHITECTURE.md, \"must not know\"): {offences:#?}"
    );
}
