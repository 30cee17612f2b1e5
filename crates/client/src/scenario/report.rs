//! What a run reports: the JUnit XML (`quick-junit`: a `testsuite` per file, a `testcase`
//! per case with its time, a `failure` whose message names the step, its line and the
//! reason, the step log as `system-out`), and the summary printed on stdout. Both are built
//! from texts the runner already redacted.

use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::run::FileResult;

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
