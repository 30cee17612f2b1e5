//! The docs say how many tools there are where people read it (README, TOOLS.md,
//! PROTOCOL.md, ...): every "N tools" and "all N tools" must be the number axgate serves.
//! (PROTOCOL.md said "all 32" long after there were 35.) PERFORMANCE.md is left out: its
//! figures are measurements of their day and say so.

use std::path::Path;

#[test]
fn every_count_of_tools_in_the_docs_is_the_served_number() {
    let served = axgate::mcp::tools::all().len();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("SECURITY.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(".md") && name != "PERFORMANCE.md" {
            files.push(path);
        }
    }
    // "35 tools", and "all 35" on a line about tools ("list the tools (all 35, as served)").
    let count = regex::Regex::new(r"\b(\d+) tools\b|\ball (\d+)\b").expect("regex");
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read a doc");
        for (n, line) in text.lines().enumerate() {
            for found in count.captures_iter(line) {
                let Some(number) = found.get(1).or(found.get(2)) else {
                    continue;
                };
                if found.get(2).is_some() && !line.contains("tool") {
                    continue;
                }
                seen += 1;
                if number.as_str().parse::<usize>() != Ok(served) {
                    wrong.push(format!("{}:{}: {line}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        seen >= 3,
        "the docs name the count somewhere ({seen} found)"
    );
    assert!(
        wrong.is_empty(),
        "axgate serves {served} tools; these lines say otherwise:\n{}",
        wrong.join("\n")
    );
}
