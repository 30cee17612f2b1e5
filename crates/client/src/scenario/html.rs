//! `--html FILE`: one self-contained page of a run, for people: every file, case and step
//! with its status and time, what each step's result said (the changes an action saw), and
//! for a failed case its message, the screenshots (the failing element outlined), a failed
//! baseline comparison's `diff.png` and `actual.png`, the tree and the diff since the case
//! started. Inline CSS, images as `data:` URIs, no script.
//!
//! Every text is masked by the [`Redactor`] first, then cut, then HTML-escaped: masking after
//! a cut would let the start of a long secret through (issue 33, finding 4), and escaping
//! before masking would hide a secret holding `<` or `&` from the mask. The page is bounded:
//! at most [`IMAGE_BUDGET`] bytes of images and [`TEXT_BUDGET`] characters of text, each text
//! at most [`TEXT_CAP`]; what is cut or left out says so on the page.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::artifacts::Evidence;
use super::run::{CaseResult, FileResult, StepRecord};
use super::template::Redactor;

/// The bytes of PNG the page embeds in all (before base64).
pub const IMAGE_BUDGET: usize = 12 * 1024 * 1024;
/// The characters of text (results, trees, diffs) the page holds in all.
pub const TEXT_BUDGET: usize = 4_000_000;
/// The characters of one text block.
pub const TEXT_CAP: usize = 60_000;
/// The characters of one step's result text.
const STEP_CAP: usize = 4_000;

const STYLE: &str = "\
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1b1b1b;background:#fff}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}\
.pass{color:#17692c}.fail{color:#b00020}\
details.case{border:1px solid #ccc;border-radius:6px;margin:.6em 0;padding:.4em .8em}\
details.case>summary{font-weight:600;cursor:pointer}\
table{border-collapse:collapse;margin:.5em 0}td,th{border-bottom:1px solid #eee;\
padding:.2em .6em;text-align:left;vertical-align:top}\
pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:36em;white-space:pre-wrap}\
figure{margin:.8em 0}img{max-width:100%;border:1px solid #ccc}\
.note{color:#6a5400;font-style:italic}.message{font-weight:600}";

/// What the page may still spend.
struct Budget<'r> {
    redactor: &'r Redactor,
    images: usize,
    text: usize,
}

impl Budget<'_> {
    /// `raw` masked, cut to `cap` characters (and what is left of the page's text), escaped.
    fn text(&mut self, raw: &str, cap: usize) -> String {
        let masked = self.redactor.text(raw);
        let room = cap.min(self.text);
        let total = masked.chars().count();
        let kept: String = masked.chars().take(room).collect();
        self.text -= kept.chars().count();
        let mut out = escape(&kept);
        if total > room {
            let _ = write!(
                out,
                "\n<span class=\"note\">… cut here: {} more characters not shown (the \
                 artifact folder has them all)</span>",
                total - room
            );
        }
        out
    }

    /// An `<img>` of `png`, or a note when the page's images are spent.
    fn image(&mut self, png: &[u8], alt: &str) -> String {
        if png.len() > self.images {
            return format!(
                "<p class=\"note\">{} not embedded: the page's {} MiB of images is spent (the \
                 artifact folder has it)</p>",
                self.text(alt, 200),
                IMAGE_BUDGET / (1024 * 1024)
            );
        }
        self.images -= png.len();
        format!(
            "<img alt=\"{}\" src=\"data:image/png;base64,{}\">",
            self.text(alt, 200),
            STANDARD.encode(png)
        )
    }
}

/// `<`, `>`, `&`, `"` and `'` as entities.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page of `files`.
pub fn page(files: &[FileResult], redactor: &Redactor) -> String {
    let mut budget = Budget {
        redactor,
        images: IMAGE_BUDGET,
        text: TEXT_BUDGET,
    };
    let cases = files.iter().flat_map(|f| &f.cases);
    let failed = cases.clone().filter(|c| c.failure.is_some()).count();
    let total: Duration = cases.clone().map(|c| c.duration).sum();
    let count = cases.count();
    let (verdict, class) = if failed == 0 {
        ("passed", "pass")
    } else {
        ("FAILED", "fail")
    };
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>axgate test {verdict}</title><style>{STYLE}</style></head><body>\n\
         <h1 class=\"{class}\">axgate test {verdict}</h1>\n<p>{count} cases in {} files, {} \
         passed, {failed} failed, {:.2} s</p>\n",
        files.len(),
        count - failed,
        total.as_secs_f64()
    );
    for file in files {
        let _ = writeln!(
            out,
            "<h2>{} <small>({})</small></h2>",
            budget.text(&file.name, 500),
            budget.text(&file.file, 1_000)
        );
        for case in &file.cases {
            case_section(&mut out, case, &mut budget);
        }
    }
    out.push_str("</body></html>\n");
    out
}

fn case_section(out: &mut String, case: &CaseResult, budget: &mut Budget<'_>) {
    let (mark, class, open) = match case.failure {
        None => ("✓", "pass", ""),
        Some(_) => ("✗", "fail", " open"),
    };
    let _ = writeln!(
        out,
        "<details class=\"case\"{open}><summary class=\"{class}\">{mark} {} ({:.2} s)</summary>",
        budget.text(&case.name, 500),
        case.duration.as_secs_f64()
    );
    if let Some(failure) = &case.failure {
        let _ = writeln!(
            out,
            "<p class=\"message fail\">{}</p>\n<p>arguments (as written): <code>{}</code></p>",
            budget.text(&failure.message(), TEXT_CAP),
            budget.text(&failure.arguments, STEP_CAP)
        );
        if let Some(text) = &failure.result_text {
            let _ = writeln!(
                out,
                "<p>result text:</p><pre>{}</pre>",
                budget.text(text, TEXT_CAP)
            );
        }
        for later in &case.later {
            let _ = writeln!(
                out,
                "<p class=\"fail\">also failed: {}</p>",
                budget.text(later, STEP_CAP)
            );
        }
        if let Some(dir) = &case.artifacts {
            let _ = writeln!(
                out,
                "<p>artifacts: <code>{}</code></p>",
                budget.text(&dir.display().to_string(), 1_000)
            );
        }
    }
    steps_table(out, &case.steps, budget);
    if let Some(failure) = &case.failure {
        for attachment in &failure.attachments {
            let figure = budget.image(&attachment.png, attachment.name);
            let _ = writeln!(
                out,
                "<figure>{figure}<figcaption>{}</figcaption></figure>",
                escape(attachment.name)
            );
        }
    }
    if let Some(evidence) = &case.evidence {
        evidence_section(out, evidence, budget);
    }
    out.push_str("</details>\n");
}

fn steps_table(out: &mut String, steps: &[StepRecord], budget: &mut Budget<'_>) {
    if steps.is_empty() {
        return;
    }
    out.push_str("<table><tr><th></th><th>step</th><th>tool</th><th>ms</th><th>result</th></tr>\n");
    for step in steps {
        let (mark, class) = match step.failed {
            None => ("ok", "pass"),
            Some(_) => ("FAIL", "fail"),
        };
        let mut result = String::new();
        if let Some(reason) = &step.failed {
            let _ = write!(
                result,
                "<span class=\"fail\">{}</span>",
                budget.text(reason, STEP_CAP)
            );
        }
        if !step.text.is_empty() {
            let _ = write!(
                result,
                "<details><summary>what it said</summary><pre>{}</pre></details>",
                budget.text(&step.text, STEP_CAP)
            );
        }
        let _ = writeln!(
            out,
            "<tr><td class=\"{class}\">{mark}</td><td>{}</td><td>{}</td><td>{}</td><td>{result}</td></tr>",
            budget.text(&step.label, 500),
            budget.text(&step.tool, 200),
            step.took.as_millis()
        );
    }
    out.push_str("</table>\n");
}

fn evidence_section(out: &mut String, evidence: &Evidence, budget: &mut Budget<'_>) {
    for shot in &evidence.shots {
        let alt = format!("screenshot of {}", shot.app);
        let figure = budget.image(&shot.png, &alt);
        let caption = match &shot.outlined {
            Some(target) => {
                format!("{alt}; the failing step's element {target} outlined in magenta")
            }
            None => alt,
        };
        let _ = writeln!(
            out,
            "<figure>{figure}<figcaption>{}</figcaption></figure>",
            budget.text(&caption, 1_000)
        );
    }
    // The changes first, then the trees: one heading and one block per app.
    for (heading, texts) in [
        ("changes in", &evidence.diffs),
        ("tree of", &evidence.trees),
    ] {
        for (app, text) in texts {
            let _ = writeln!(
                out,
                "<h3>{heading} {}</h3><pre>{}</pre>",
                budget.text(app, 200),
                budget.text(text, TEXT_CAP)
            );
        }
    }
    if !evidence.missing.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note\">not captured:</p><pre>{}</pre>",
            budget.text(&evidence.missing.join("\n"), STEP_CAP)
        );
    }
}

/// Writes the page of `files` to `path` (its folder created).
pub fn write(files: &[FileResult], redactor: &Redactor, path: &Path) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("--html {}: cannot create its folder ({e})", path.display()))?;
    }
    std::fs::write(path, page(files, redactor))
        .map_err(|e| format!("--html {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn text_is_masked_then_cut_then_escaped() {
        let secret = "<b>&long-secret-line-one\nline-two-of-it\"</b>".repeat(3);
        let redactor = Redactor::new(&BTreeMap::from([("PW".to_owned(), secret.clone())]));
        let mut budget = Budget {
            redactor: &redactor,
            images: 10,
            text: TEXT_BUDGET,
        };
        let raw = format!("title <script>alert(1)</script> value {secret} end");
        let shown = budget.text(&raw, 40);
        assert!(
            shown.starts_with("title &lt;script&gt;alert(1)&lt;/script&gt; value •"),
            "{shown}"
        );
        assert!(shown.contains("cut here:"), "{shown}");
        assert!(
            !shown.contains("<script") && !shown.contains("long-secret"),
            "{shown}"
        );
        // Cut inside the secret: its start must not show.
        let cut = budget.text(&format!("v {secret}"), 20);
        assert!(!cut.contains("long-secret"), "{cut}");
        // The page's images are bounded: past the budget, a note instead.
        assert!(budget.image(&[0; 8], "a").starts_with("<img"));
        assert!(budget.image(&[0; 8], "b").contains("not embedded"));
    }
}
