//! Replays every committed fuzz corpus (`fuzz/corpus/<target>/`: seeds and crash reproducers)
//! through the same `axgate_parse::fuzzing` functions the cargo-fuzz targets call, on stable Rust,
//! so a fixed crash stays fixed without nightly. docs/SECURITY-TESTING.md describes the targets.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// The corpus files of one target, sorted; fails when the directory is missing or empty.
fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "{} has no corpus files; restore them from git",
        dir.display()
    );
    files
}

/// Runs every file of the target's corpus through `check`; names every file that panicked.
fn replay(target: &str, check: fn(&[u8])) {
    let files = corpus(target);
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = std::fs::read(path).expect("corpus file");
            catch_unwind(AssertUnwindSafe(|| check(&data))).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "{target}: {} of {} corpus files fail: {failed:?}; reproduce one with \
         `cargo +nightly fuzz run {target} <file>` in fuzz/",
        failed.len(),
        files.len()
    );
}

#[test]
fn element_path_corpus() {
    replay("element_path", axgate_parse::fuzzing::element_path);
}

#[test]
fn intake_corpus() {
    replay("intake", axgate_parse::fuzzing::intake);
}

#[test]
fn token_corpus() {
    replay("token", axgate_parse::fuzzing::token);
}
