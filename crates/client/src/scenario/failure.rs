//! Why a step failed: what the report, the summary and a failed case's artifacts say.

use super::baseline::Attachment;

/// Why a step failed, for the report.
#[derive(Clone, Debug)]
pub struct Failure {
    /// `step 3 (click)`.
    pub step: String,
    /// The scenario file as named on the command line, and the step's line in it.
    pub file: String,
    pub line: usize,
    pub reason: String,
    /// `expectation`, `timeout`, `reference`, `request`.
    pub kind: &'static str,
    /// The arguments as written (secrets as `${secret:NAME}`), as JSON text.
    pub arguments: String,
    /// The failing result's text, if there was a result.
    pub result_text: Option<String>,
    /// The element the step named, outlined in its app's screenshot: the app (as the case
    /// names it) and the `target` path.
    pub element: Option<(String, String)>,
    /// Images the step leaves for the artifacts (a baseline comparison's `diff.png`).
    pub attachments: Vec<Attachment>,
}

impl Failure {
    /// One line: `step 3 (click) at form.yaml:14: expected …`.
    pub fn message(&self) -> String {
        format!("{} at {}: {}", self.step, self.at(), self.reason)
    }

    /// `form.yaml:14`.
    pub fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}
