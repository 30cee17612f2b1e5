//! House rules checked as tests: every Rust file opens with a `//!` module doc, and no test
//! is ignored.

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
