//! House rules on every Rust file, checked as tests: it opens with a `//!` module doc, no test
//! is ignored, no file passes 600 lines. The code map's rules are `code_map.rs`.

use std::path::{Path, PathBuf};

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// One naming rule for unit-test files beside the code: a folder module's are `tests.rs`
/// (and `<area>_tests.rs` for more), a file module `x.rs`'s is its sibling `x_tests.rs`.
#[test]
fn unit_test_files_are_named_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut sources = Vec::new();
    rust_files(&root, &mut sources);
    let odd: Vec<String> = sources
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "src"))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_owned();
            let stem = name.strip_suffix(".rs")?;
            let test_file = stem.contains("tests") || stem.starts_with("test_");
            (test_file && stem != "tests" && !stem.ends_with("_tests"))
                .then(|| p.display().to_string())
        })
        .collect();
    assert!(
        odd.is_empty(),
        "unit-test files named outside the rule (`tests.rs` or `<name>_tests.rs`): {odd:#?}"
    );
}
