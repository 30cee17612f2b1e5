//! The GitHub Action's runner script (`deploy/github-actions/run.sh`) as GitHub runs it: the
//! inputs in `ACTION_*`, the step's `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` files, the
//! built `axgate` on `PATH`, a demo server on loopback. A failed case becomes an `::error`
//! annotation at its step's file and line, the outputs say where the report is and how it
//! went, and the job summary carries the verdict and axgate's summary.

use std::path::Path;
use std::process::{Command, Output};

use super::root;
use crate::spawned::Axgate;

/// The secret the Form example types (`${secret:LOGIN_PASSWORD}`).
const PASSWORD: &str = "pw-action-Zk8!staple-2290";

/// What one run of run.sh left: its output, `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`.
struct Step {
    out: Output,
    outputs: String,
    summary: String,
}

impl Step {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
}

/// Runs run.sh in `dir` with the action's inputs `files` and `auth = none`.
fn run_action(dir: &Path, url: &str, files: &str) -> Step {
    let outputs = dir.join("github_output");
    let summary = dir.join("step_summary");
    let bin = Path::new(env!("CARGO_BIN_EXE_axgate"))
        .parent()
        .expect("the binary's folder");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(root().join("deploy/github-actions/run.sh"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("AXGATE_CLIENT_URL", url)
        .env("ACTION_FILES", files)
        .env("ACTION_AUTH", "none")
        .env("LOGIN_PASSWORD", PASSWORD)
        .env("ACTION_JUNIT", "reports/junit.xml")
        .env("ACTION_ARTIFACTS", "artifacts")
        .env("ACTION_HTML", "reports/report.html")
        .output()
        .expect("run run.sh");
    Step {
        out,
        outputs: std::fs::read_to_string(&outputs).unwrap_or_default(),
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
    }
}

#[test]
fn a_failed_case_is_annotated_at_its_step_with_outputs_and_a_job_summary() {
    let server = Axgate::serve(&["--backend", "demo"]);
    let dir = tempfile::tempdir().expect("dir");
    let scenarios = dir.path().join("ui");
    std::fs::create_dir(&scenarios).expect("mkdir ui");
    for name in ["form.yaml", "failing/form-fails.yaml"] {
        let from = root().join("examples/scenarios").join(name);
        let to = scenarios.join(Path::new(name).file_name().expect("a name"));
        std::fs::copy(&from, &to).expect("copy the example");
    }
    let step = run_action(dir.path(), &server.url, "ui/*.yaml");
    assert_eq!(step.out.status.code(), Some(1), "{}", step.stderr());

    let stdout = step.stdout();
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(
        annotations,
        [
            "::error file=ui/form-fails.yaml,line=18,title=axgate test%3A form-fails / the status never says Saved\
             ::step 3 (get_element) at ui/form-fails.yaml:18: expected element.value to contain \"Saved\", \
             got \"Submitted: Grace Hopper\"%0Aartifacts: artifacts/form-fails/the-status-never-says-Saved"
        ],
        "{stdout}"
    );
    for line in [
        "junit=reports/junit.xml",
        "artifacts=artifacts",
        "html=reports/report.html",
        "result=failed",
    ] {
        assert!(
            step.outputs.lines().any(|l| l == line),
            "{line} in {}",
            step.outputs
        );
    }
    assert!(dir.path().join("reports/junit.xml").is_file());
    let page = std::fs::read_to_string(dir.path().join("reports/report.html")).expect("the page");
    assert!(page.contains("✗ the status never says Saved"), "{page}");
    assert!(
        step.summary.starts_with("### axgate UI tests: failed\n"),
        "{}",
        step.summary
    );
    for text in [
        "JUnit report: `reports/junit.xml`",
        "HTML report: `reports/report.html`",
        "Artifacts of the failed cases: `artifacts`",
        "  ✗ the status never says Saved",
        "axgate test FAILED: 3 cases in 2 files, 2 passed, 1 failed",
    ] {
        assert!(step.summary.contains(text), "{text} in {}", step.summary);
    }
    assert!(!step.summary.contains("::error"), "{}", step.summary);
}

#[test]
fn a_passing_run_says_passed_and_a_pattern_matching_nothing_is_an_error() {
    let server = Axgate::serve(&["--backend", "demo"]);
    let dir = tempfile::tempdir().expect("dir");
    std::fs::copy(
        root().join("examples/scenarios/form.yaml"),
        dir.path().join("form.yaml"),
    )
    .expect("copy the example");
    let passed = run_action(dir.path(), &server.url, "form.yaml");
    assert_eq!(passed.out.status.code(), Some(0), "{}", passed.stderr());
    assert!(!passed.stdout().contains("::error"), "{}", passed.stdout());
    assert!(
        passed.outputs.lines().any(|l| l == "result=passed"),
        "{}",
        passed.outputs
    );
    assert!(
        passed.summary.starts_with("### axgate UI tests: passed\n"),
        "{}",
        passed.summary
    );

    let none = run_action(dir.path(), &server.url, "form.yaml missing/*.yaml");
    assert_eq!(none.out.status.code(), Some(2));
    assert!(
        none.stderr()
            .contains("::error::axgate test: no scenario file matches 'missing/*.yaml'"),
        "{}",
        none.stderr()
    );
    assert!(
        none.outputs.lines().any(|l| l == "result=error"),
        "{}",
        none.outputs
    );
}
