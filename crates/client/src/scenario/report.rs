//! What a run reports: the JUnit XML (`quick-junit`: a `testsuite` per file, a `testcase`
//! per case with its time, a `failure` whose message names the step, its line and the
//! reason, the step log as `system-out`), the summary printed on stdout, and GitHub Actions
//! annotations (`::error file=…,line=…::…`, one per failed case, pointing at its step). All
//! are built from texts the runner already redacted.

use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::format::Problem;
use super::run::FileResult;
use crate::output::inert;

/// Writes the JUnit report of `files` to `path`.
pub fn junit(files: &[FileResult], path: &Path) -> Result<(), String> {
    let mut report = Report::new("axgate test");
    let mut total = Duration::ZERO;
    for file in files {
        let mut suite = TestSuite::new(file.name.as_str());
        let mut time = Duration::ZERO;
        for case in &file.cases {
            let status = match &case.failure {
                None => TestCaseStatus::success(),
                Some(failure) => {
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status.set_message(failure.message());
                    status.set_type(failure.kind);
                    let mut description = format!(
                        "{}\narguments (as written): {}\n",
                        failure.message(),
                        failure.arguments
                    );
                    if let Some(text) = &failure.result_text {
                        description.push_str(&format!("result text:\n{text}\n"));
                    }
                    for later in &case.later {
                        description.push_str(&format!("also failed: {later}\n"));
                    }
                    if let Some(dir) = &case.artifacts {
                        description.push_str(&format!("artifacts: {}\n", dir.display()));
                    }
                    status.set_description(description);
                    status
                }
            };
            let mut test = TestCase::new(case.name.as_str(), status);
            test.set_classname(file.name.as_str());
            test.set_time(case.duration);
            test.set_system_out(case.log.join("\n"));
            suite.add_test_case(test);
            time += case.duration;
        }
        suite.set_time(time);
        total += time;
        report.add_test_suite(suite);
    }
    report.set_time(total);
    let text = report
        .to_string()
        .map_err(|e| format!("cannot write the JUnit report: {e}"))?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("--junit {}: cannot create its folder ({e})", path.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("--junit {}: {e}", path.display()))
}

/// The summary: each file, each case with ✓ or ✗ and its time, each failure's message and
/// artifacts, and a last line with the counts.
pub fn summary(files: &[FileResult]) -> String {
    let mut out = String::new();
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut total = Duration::ZERO;
    for file in files {
        out.push_str(&format!("{} ({})\n", file.name, file.file));
        for case in &file.cases {
            total += case.duration;
            let secs = case.duration.as_secs_f64();
            match &case.failure {
                None => {
                    passed += 1;
                    out.push_str(&format!("  ✓ {} ({secs:.2} s)\n", case.name));
                }
                Some(failure) => {
                    failed += 1;
                    out.push_str(&format!("  ✗ {} ({secs:.2} s)\n", case.name));
                    out.push_str(&format!("      {}\n", failure.message()));
                    for later in &case.later {
                        out.push_str(&format!("      also: {later}\n"));
                    }
                    if let Some(dir) = &case.artifacts {
                        out.push_str(&format!("      artifacts: {}\n", dir.display()));
                    }
                }
            }
        }
    }
    let verdict = if failed == 0 { "passed" } else { "FAILED" };
    out.push_str(&format!(
        "axgate test {verdict}: {} cases in {} files, {passed} passed, {failed} failed, {:.2} s\n",
        passed + failed,
        files.len(),
        total.as_secs_f64()
    ));
    out
}

/// One `::error` workflow command per failed case, at its failing step's file and line, for
/// GitHub Actions to show on the pull request's diff and the run's page. A server's text in
/// the reason is made inert first (control and escape sequences shown escaped), then encoded
/// as GitHub's workflow commands want (`%`, CR and LF in the message; also `:` and `,` in
/// properties), so no text can end the command early or start another.
pub fn github_annotations(files: &[FileResult]) -> String {
    let mut out = String::new();
    for file in files {
        for case in &file.cases {
            let Some(failure) = &case.failure else {
                continue;
            };
            let title = format!("axgate test: {} / {}", file.name, case.name);
            let mut message = failure.message();
            if let Some(dir) = &case.artifacts {
                message.push_str(&format!("\nartifacts: {}", dir.display()));
            }
            out.push_str(&format!(
                "::error file={},line={},title={}::{}\n",
                command_property(&failure.file),
                failure.line,
                command_property(&title),
                command_data(&message)
            ));
        }
    }
    out
}

/// One `::error` workflow command per problem of an invalid scenario file, at its line.
pub fn problem_annotations(problems: &[Problem]) -> String {
    let mut out = String::new();
    for problem in problems {
        let message = if problem.place.is_empty() {
            problem.message.clone()
        } else {
            format!("{}: {}", problem.place, problem.message)
        };
        out.push_str(&format!(
            "::error file={},line={},title=axgate test%3A invalid scenario file::{}\n",
            command_property(&problem.file),
            problem.line,
            command_data(&message)
        ));
    }
    out
}

/// A workflow command's message.
fn command_data(text: &str) -> String {
    inert(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value.
fn command_property(text: &str) -> String {
    command_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::failure::Failure;
    use super::super::run::{CaseResult, FileResult};
    use super::*;

    fn failed(reason: &str) -> FileResult {
        FileResult {
            file: "ui/form, v2.yaml".into(),
            name: "form".into(),
            cases: vec![
                CaseResult {
                    name: "fills it".into(),
                    duration: Duration::from_millis(5),
                    failure: None,
                    later: Vec::new(),
                    log: Vec::new(),
                    artifacts: None,
                    steps: Vec::new(),
                    evidence: None,
                },
                CaseResult {
                    name: "submits: twice".into(),
                    duration: Duration::from_millis(5),
                    failure: Some(Failure {
                        step: "step 3 (click)".into(),
                        file: "ui/form, v2.yaml".into(),
                        line: 14,
                        reason: reason.into(),
                        kind: "expectation",
                        arguments: "{}".into(),
                        result_text: None,
                        element: None,
                        attachments: Vec::new(),
                    }),
                    later: Vec::new(),
                    log: Vec::new(),
                    artifacts: Some("out/form-submits".into()),
                    steps: Vec::new(),
                    evidence: None,
                },
            ],
        }
    }

    #[test]
    fn a_failed_case_is_one_error_at_its_step() {
        let text = github_annotations(&[failed("expected 1 match, found 0")]);
        assert_eq!(
            text,
            "::error file=ui/form%2C v2.yaml,line=14,title=axgate test%3A form / submits%3A twice\
             ::step 3 (click) at ui/form, v2.yaml:14: expected 1 match, found 0%0Aartifacts: out/form-submits\n"
        );
    }

    #[test]
    fn no_text_ends_the_command_or_starts_another() {
        let text =
            github_annotations(&[failed("50% done\r\n::warning::forged\u{1b}]52;c;eA==\u{7}")]);
        assert_eq!(text.lines().count(), 1, "{text}");
        // A CR is made inert (shown as an escape) before the encoding; the LF is encoded.
        assert!(
            text.contains("50%25 done\\u{d}%0A::warning::forged"),
            "{text}"
        );
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text}"
        );
    }
}
