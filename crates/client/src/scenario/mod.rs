//! `axgate test FILE.yaml…`: UI test scenarios run through the `axgate call` client
//! (docs/SCENARIOS.md). The stages, each reporting every problem it finds before stopping:
//!
//! 1. read and check the files (`format`, `check`): file:line and step on each problem;
//!    `--dry-run` stops here;
//! 2. the secrets the files name must be set in the environment (`template`);
//! 3. one probe session lists the tools: the server is reachable (else exit 3), the token is
//!    accepted (else 4), every step's tool exists (else 2);
//! 4. each case runs in a session of its own (`run`), a failed one leaving its artifacts
//!    (`artifacts`, the failing element outlined in its screenshot by `picture`); a step may
//!    compare its image with a baseline (`baseline`);
//! 5. the JUnit XML, the HTML page (`html`) and the summary (`report`); exit 0 when every
//!    case passed, 1 when one failed, 130 when interrupted (the case's session is ended
//!    first).
//!
//! Secret values are never printed or written: every text the runner emits passes through
//! `template::Redactor`.

pub mod artifacts;
pub mod baseline;
pub mod check;
pub mod expect;
pub mod failure;
pub mod format;
pub mod html;
pub mod picture;
pub mod report;
pub mod run;
pub mod template;
pub mod yaml;

use std::collections::{BTreeMap, HashMap};

use super::args::TestArgs;
use super::connect::{check_env, token_source};
use super::{Client, ClientError, exit};
use format::{Problem, Scenario};
use run::{FileResult, Runner, Stop};

/// Runs `axgate test`; the exit code.
pub async fn run(args: TestArgs) -> u8 {
    let scenarios = match read_all(&args.files) {
        Ok(scenarios) => scenarios,
        Err(problems) => return invalid(&problems, args.github_annotations),
    };
    let cases: usize = scenarios.iter().map(|s| s.cases.len()).sum();
    if args.dry_run {
        println!(
            "{} files, {cases} cases: valid (dry run: the server, the tools and the secrets were not checked)",
            scenarios.len()
        );
        return exit::OK;
    }
    let secrets = match read_secrets(&scenarios) {
        Ok(secrets) => secrets,
        Err(problems) => return invalid(&problems, args.github_annotations),
    };
    let connect = &args.connect;
    let token = match check_env().and_then(|()| token_source(connect)) {
        Ok(token) => token,
        Err(error) => return report_error(&error),
    };
    let tools = match list_tools(&connect.url, &token, connect.retry_policy()).await {
        Ok(tools) => tools,
        Err(error) => return report_error(&error),
    };
    let unknown = unknown_tools(&scenarios, &tools);
    if !unknown.is_empty() {
        return invalid(&unknown, args.github_annotations);
    }
    let runner = Runner {
        url: connect.url.clone(),
        token,
        retry: connect.retry_policy(),
        tools,
        redactor: template::Redactor::new(&secrets),
        secrets,
        artifacts: args.artifacts.clone(),
        keep_evidence: args.html.is_some(),
        baselines: if args.update_baselines {
            baseline::Baselines::Accept
        } else {
            baseline::Baselines::Compare
        },
        progress: !connect.quiet && Runner::stderr_is_terminal(),
    };
    let mut results: Vec<FileResult> = Vec::new();
    let mut stopped = None;
    for scenario in &scenarios {
        results.push(FileResult {
            file: scenario.file.clone(),
            name: scenario.name.clone(),
            cases: Vec::new(),
        });
        let into = results.last_mut().expect("just pushed");
        if let Err(stop) = runner.file(scenario, into).await {
            stopped = Some(stop);
            break;
        }
    }
    let mut code = if results
        .iter()
        .flat_map(|f| &f.cases)
        .any(|c| c.failure.is_some())
    {
        exit::TOOL_ERROR
    } else {
        exit::OK
    };
    if let Some(path) = &args.junit
        && let Err(why) = report::junit(&results, path)
    {
        eprintln!("axgate: {why}");
        code = code.max(exit::USAGE);
    }
    if let Some(path) = &args.html
        && let Err(why) = html::write(&results, &runner.redactor, path)
    {
        eprintln!("axgate: {why}");
        code = code.max(exit::USAGE);
    }
    print!("{}", report::summary(&results));
    if args.github_annotations {
        print!("{}", report::github_annotations(&results));
    }
    match stopped {
        None => code,
        Some(Stop::Interrupted) => {
            eprintln!("axgate: interrupted; the case's session was ended");
            exit::INTERRUPTED
        }
        Some(Stop::Client(error)) => {
            eprintln!(
                "axgate: the run stopped: {}",
                runner.redactor.text(&error.to_string())
            );
            error.exit_code()
        }
    }
}

fn report_error(error: &ClientError) -> u8 {
    eprintln!("axgate: {error}");
    error.exit_code()
}

/// Prints every problem; exit 2.
fn invalid(problems: &[Problem], annotate: bool) -> u8 {
    for problem in problems {
        eprintln!("{problem}");
    }
    if annotate {
        print!("{}", report::problem_annotations(problems));
    }
    eprintln!(
        "axgate: {} problem{} in the scenario files; nothing was run",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    exit::USAGE
}

/// Reads and checks every file; all the problems of all the files, or the scenarios.
fn read_all(files: &[std::path::PathBuf]) -> Result<Vec<Scenario>, Vec<Problem>> {
    let mut scenarios = Vec::new();
    let mut problems = Vec::new();
    for path in files {
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) => {
                problems.push(Problem {
                    file,
                    line: 0,
                    place: String::new(),
                    message: format!("cannot read it ({error})"),
                });
                continue;
            }
        };
        match format::parse(&file, &text) {
            Ok(scenario) => {
                problems.extend(check::variables(&scenario));
                scenarios.push(scenario);
            }
            Err(found) => problems.extend(found),
        }
    }
    let mut names: HashMap<String, &str> = HashMap::new();
    for scenario in &scenarios {
        if let Some(other) = names.insert(scenario.name.clone(), &scenario.file) {
            problems.push(Problem {
                file: scenario.file.clone(),
                line: 1,
                place: String::new(),
                message: format!(
                    "the suite name \"{}\" is also {other}'s; give one of them a `name:`",
                    scenario.name
                ),
            });
        }
    }
    if problems.is_empty() {
        Ok(scenarios)
    } else {
        Err(problems)
    }
}

/// The values of the secrets the files name; each one that is not set is a problem.
fn read_secrets(scenarios: &[Scenario]) -> Result<BTreeMap<String, String>, Vec<Problem>> {
    let mut values = BTreeMap::new();
    let mut problems = Vec::new();
    for scenario in scenarios {
        for (name, line) in check::secrets(scenario) {
            match std::env::var(&name) {
                Ok(value) if !value.is_empty() => {
                    values.insert(name, value);
                }
                _ => problems.push(Problem {
                    file: scenario.file.clone(),
                    line,
                    place: String::new(),
                    message: format!(
                        "the secret ${{secret:{name}}} is not set: export the environment variable {name}"
                    ),
                }),
            }
        }
    }
    if problems.is_empty() {
        Ok(values)
    } else {
        Err(problems)
    }
}

/// The tools the caller may use, each with whether it takes an `app`, from a probe session.
async fn list_tools(
    url: &str,
    token: &super::TokenSource,
    retry: super::RetryPolicy,
) -> Result<HashMap<String, bool>, ClientError> {
    let client = Client::new(url, token.clone(), retry)?;
    let listed = async {
        client.connect().await?;
        client.list_tools().await
    }
    .await;
    let _ = client.end().await;
    Ok(listed?
        .iter()
        .filter_map(|tool| {
            let name = tool.get("name")?.as_str()?.to_owned();
            let takes_app = tool
                .pointer("/inputSchema/properties/app")
                .is_some_and(|p| !p.is_null());
            Some((name, takes_app))
        })
        .collect())
}

/// A problem for each step whose tool the server does not list for this caller.
fn unknown_tools(scenarios: &[Scenario], tools: &HashMap<String, bool>) -> Vec<Problem> {
    let names: Vec<&str> = tools.keys().map(String::as_str).collect();
    let mut problems = Vec::new();
    for scenario in scenarios {
        let mut steps: Vec<(String, &format::Step)> = Vec::new();
        steps.extend(scenario.setup.iter().map(|s| (String::new(), s)));
        steps.extend(scenario.teardown.iter().map(|s| (String::new(), s)));
        for case in &scenario.cases {
            let place = format!("case \"{}\", ", case.name);
            for step in case.setup.iter().chain(&case.steps).chain(&case.teardown) {
                steps.push((place.clone(), step));
            }
        }
        for (place, step) in steps {
            if tools.contains_key(&step.tool) {
                continue;
            }
            let hint = names
                .iter()
                .map(|n| (strsim::damerau_levenshtein(&step.tool, n), *n))
                .filter(|(d, _)| *d <= 3)
                .min_by_key(|(d, _)| *d)
                .map(|(_, n)| format!(" (did you mean '{n}'?)"))
                .unwrap_or_else(|| " (`axgate call --list` shows the tools)".into());
            problems.push(Problem {
                file: scenario.file.clone(),
                line: step.line,
                place: format!("{place}{}", step.label()),
                message: format!(
                    "unknown tool '{}'{hint}; the server lists no such tool for this token",
                    step.tool
                ),
            });
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tools_name_the_likely_one() {
        let scenario = format::parse(
            "t.yaml",
            "cases:\n  - name: one\n    steps:\n      - tool: clik\n",
        )
        .expect("valid");
        let tools = HashMap::from([("click".to_owned(), true)]);
        let problems = unknown_tools(&[scenario], &tools);
        assert_eq!(
            problems[0].to_string(),
            "t.yaml:4: case \"one\", step 1: unknown tool 'clik' (did you mean 'click'?); the server lists no such tool for this token"
        );
    }
}
