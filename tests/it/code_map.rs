//! The code map (docs/ARCHITECTURE.md, "Modules") held against the code. The compiler keeps the
//! layers between crates (the engine cannot name the server: it does not depend on it); this
//! test keeps what it cannot:
//! - every row has its three cells, names modules that exist, and says what its module must
//!   not know only in words this test knows (each word is a set of imports);
//! - no module imports what its row forbids;
//! - no two top-level modules of one crate import each other, directly or around a loop.
//!
//! A module is named `<crate>/<path>`: `engine/act` is `crates/engine/src/act.rs`,
//! `server/mcp/tools` the folder `crates/server/src/mcp/tools/`, `platform` the whole crate,
//! and `axgate/main.rs` the binary's own file under `src/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::tidy::rust_files;

/// The words of the "must not know" column, each with the imports it forbids. A word that is
/// not here fails the test: prose in that cell would pass silently.
const WORDS: &[(&str, &[&str])] = &[
    ("HTTP", &["crate::http", "crate::server", "axgate_server"]),
    ("HTTP details", &["axum", "hyper", "tower_http"]),
    ("MCP", &["crate::mcp", "crate::stdio", "axgate_server"]),
    (
        "MCP semantics",
        &[
            "crate::mcp::tools",
            "crate::mcp::resources",
            "crate::mcp::prompts",
        ],
    ),
    ("MCP wire", &["crate::mcp::wire", "rmcp::model"]),
    ("AX", &["axgate_engine", "axgate_platform"]),
    (
        "platform APIs",
        &[
            "axgate_platform",
            "atspi",
            "x11rb",
            "accessibility_sys",
            "objc2",
            "core_foundation",
            "core_graphics",
        ],
    ),
    (
        "Apple APIs",
        &[
            "accessibility_sys",
            "objc2",
            "core_foundation",
            "core_graphics",
            "block2",
            "foreign_types",
        ],
    ),
    ("session", &["crate::session"]),
    ("session internals", &["crate::session::"]),
    ("the event log", &["crate::session::events"]),
    ("the policy", &["crate::policy"]),
    ("the worker pool", &["crate::worker"]),
    ("tool semantics", &["crate::mcp::tools"]),
    ("JSON", &["serde_json", "serde::"]),
    ("apps", &["AppInfo", "axgate_engine::model"]),
    (
        "UI text",
        &["RawNode", "axgate_engine::tree", "axgate_engine::diff"],
    ),
    (
        "the network",
        &[
            "reqwest",
            "hyper",
            "axum",
            "tokio::net",
            "std::net::TcpStream",
        ],
    ),
    (
        "the product",
        &[
            "axgate_server",
            "axgate_engine",
            "axgate_platform",
            "axgate_client",
        ],
    ),
    (
        "the server",
        &[
            "axgate_server",
            "crate::http",
            "crate::mcp",
            "crate::session",
            "crate::config",
        ],
    ),
    (
        "everything else",
        &[
            "crate::http",
            "crate::server",
            "crate::mcp",
            "crate::session",
            "crate::config",
            "crate::policy",
            "crate::audit",
            "crate::worker",
            "crate::engine",
            "axgate_server",
            "axgate_platform",
            "serde_json",
        ],
    ),
    // Knows everything: the binary's entry and the wiring between layers.
    ("—", &[]),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The source folder of a crate of the workspace (`axgate` is the binary's own `src/`).
fn crate_src(krate: &str) -> PathBuf {
    match krate {
        "axgate" => root().join("src"),
        other => root().join("crates").join(other).join("src"),
    }
}

/// One row of the module table: the modules it names, and its "must not know" words.
struct Row {
    line: String,
    modules: Vec<String>,
    words: Vec<String>,
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("the code map");
    let table = text
        .split("\n## Modules")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a \"## Modules\" section");
    let mut rows = Vec::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").collect();
        let first = cells[0].trim();
        // The modules are the backticked names before any parenthesised aside.
        let named = first.split(" (").next().unwrap_or(first);
        let mut modules = Vec::new();
        for name in named.split('`').skip(1).step_by(2) {
            match (name.find('{'), name.find('}')) {
                (Some(open), Some(close)) => {
                    for part in name[open + 1..close].split(',') {
                        modules.push(format!("{}{part}{}", &name[..open], &name[close + 1..]));
                    }
                }
                _ => modules.push(name.to_owned()),
            }
        }
        let words = match cells.as_slice() {
            [_, _, last] => last.split(',').map(|w| w.trim().to_owned()).collect(),
            _ => Vec::new(),
        };
        rows.push(Row {
            line: line.chars().take(80).collect(),
            modules,
            words: if cells.len() == 3 {
                words
            } else {
                vec![format!("<{} cells>", cells.len())]
            },
        });
    }
    assert!(rows.len() > 20, "read the module table");
    rows
}

/// The files of a module named `<crate>/<path>`.
fn module_files(name: &str) -> Vec<PathBuf> {
    let (krate, path) = name.split_once('/').unwrap_or((name, ""));
    let src = crate_src(krate);
    if path.is_empty() {
        let mut out = Vec::new();
        rust_files(&src, &mut out);
        return out;
    }
    if path.ends_with(".rs") {
        return [src.join(path)]
            .into_iter()
            .filter(|p| p.is_file())
            .collect();
    }
    let file = src.join(format!("{path}.rs"));
    let mut out = Vec::new();
    if file.is_file() {
        out.push(file);
    }
    rust_files(&src.join(path), &mut out);
    out
}

/// The module path (`crate::a::b`) of a file, and of its parent, for `self::`/`super::`.
fn module_path(file: &Path) -> (String, String) {
    let src = file
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "src"))
        .expect("a file under src");
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    let join = |parts: &[String]| {
        std::iter::once("crate")
            .chain(parts.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("::")
    };
    let this = join(&parts);
    parts.pop();
    (this, join(&parts))
}

/// A file's code before its unit tests, comments dropped, `self::`/`super::` spelt out.
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let (this, parent) = module_path(file);
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| {
            l.replace("super::", &format!("{parent}::"))
                .replace("self::", &format!("{this}::"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `line` names `ban` as a whole path (not inside a longer name, nor the file's own
/// module under it).
fn names(line: &str, ban: &str, this: &str) -> bool {
    let own = ban.starts_with("crate::")
        && (this == ban.trim_end_matches("::")
            || this.starts_with(&format!("{}::", ban.trim_end_matches("::"))));
    !own && line.match_indices(ban).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + ban.len()..].chars().next();
        before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            && (ban.ends_with("::") || after.is_none_or(|c| !(c.is_alphanumeric() || c == '_')))
    })
}

#[test]
fn every_row_has_three_cells_and_only_known_words() {
    let known: BTreeSet<&str> = WORDS.iter().map(|(w, _)| *w).collect();
    let bad: Vec<String> = rows()
        .into_iter()
        .flat_map(|row| {
            let known = &known;
            row.words
                .into_iter()
                .filter(move |w| !known.contains(w.as_str()))
                .map(move |w| format!("{}: `{w}`", row.line))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "rows of the code map whose \"must not know\" cell this test cannot check (a missing \
         cell, or a word not in code_map::WORDS: add the word with what it forbids, or say it \
         in the row's middle cell): {bad:#?}"
    );
}

#[test]
fn no_module_imports_a_layer_it_must_not_know() {
    let mut offences = Vec::new();
    for row in rows() {
        let banned: Vec<&str> = row
            .words
            .iter()
            .flat_map(|w| {
                WORDS
                    .iter()
                    .filter(move |(k, _)| k == w)
                    .flat_map(|(_, b)| b.iter())
            })
            .copied()
            .collect();
        for name in &row.modules {
            let files = module_files(name);
            assert!(
                !files.is_empty(),
                "docs/ARCHITECTURE.md names `{name}`, which is not a module: keep the code map true"
            );
            for file in files {
                let (this, _) = module_path(&file);
                let code = code_of(&file);
                for ban in &banned {
                    if let Some(line) = code.lines().find(|l| names(l, ban, &this)) {
                        offences.push(format!(
                            "{} (`{name}` must not know {:?}) uses {ban}: {}",
                            file.display(),
                            row.words,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "imports the code map forbids (docs/ARCHITECTURE.md, \"must not know\"): {offences:#?}"
    );
}

/// The top-level modules of a crate and, for each, the others its code names.
fn module_graph(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = crate_src(krate);
    let top = |p: &Path| -> Option<String> {
        let first = p.strip_prefix(&src).ok()?.components().next()?;
        let name = first.as_os_str().to_string_lossy();
        let name = name.trim_end_matches(".rs").to_owned();
        (!matches!(name.as_str(), "lib" | "main")).then_some(name)
    };
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| top(f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = top(file) else { continue };
        let code = code_of(file);
        let uses = graph.entry(from.clone()).or_default();
        for to in &modules {
            if *to != from && code.lines().any(|l| names(l, &format!("crate::{to}"), "")) {
                uses.insert(to.clone());
            }
        }
    }
    graph
}

/// A loop in `graph`, as the modules around it, if there is one.
fn a_loop(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut ring = path[at..].to_vec();
            ring.push(node.to_owned());
            return Some(ring);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(ring) = visit(next, graph, path, done) {
                return Some(ring);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_modules_of_a_crate_import_each_other() {
    let mut loops = Vec::new();
    for krate in [
        "engine",
        "platform",
        "server",
        "client",
        "parse",
        "webdriver",
    ] {
        let graph = module_graph(krate);
        assert!(!graph.is_empty(), "read the modules of {krate}");
        if let Some(ring) = a_loop(&graph) {
            loops.push(format!("{krate}: {}", ring.join(" -> ")));
        }
    }
    assert!(
        loops.is_empty(),
        "modules that import each other (ARCHITECTURE.md: no loop at any level; move the shared \
         part down, or let `wiring` wire them): {loops:#?}"
    );
}

/// The loop check itself finds a loop, so a pass above means something.
#[test]
fn the_loop_check_finds_a_loop() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c"][..]),
        ("c", &["a"][..]),
        ("d", &[][..]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(a_loop(&graph).map(|r| r.len()), Some(4));
}
