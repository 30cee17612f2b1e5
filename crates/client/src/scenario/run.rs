//! Running cases: each case is one MCP session of the `axgate call` client (connect, the
//! steps, `DELETE` — also when interrupted), in the order file setup → case setup → steps,
//! then, whatever happened, case teardown → file teardown. A step's arguments get their
//! `${…}` resolved and, when the tool takes an `app` and the step names none, the case's
//! `app`. The first step that fails ends the steps; the failure's artifacts are captured
//! before the teardown runs. A server that cannot be reached or refuses the token ends the
//! whole run (exit 3 or 4), not just the case.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::artifacts::{self, Evidence};
use super::baseline::Baselines;
use super::check::order;
use super::expect::{self, quote};
pub use super::failure::Failure;
use super::format::{Case, Scenario, Step};
use super::template::{Bindings, Redactor};
use crate::{Client, ClientError, RetryPolicy, TokenSource};

/// How one case went.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub name: String,
    pub duration: Duration,
    pub failure: Option<Failure>,
    /// A failure of a teardown step after an earlier failure (reported, not the cause).
    pub later: Vec<String>,
    /// One line per step run.
    pub log: Vec<String>,
    /// The folder of this case's artifacts, when it failed and they were captured.
    pub artifacts: Option<PathBuf>,
    /// Each step run, in order.
    pub steps: Vec<StepRecord>,
    /// What was captured of the failure (for `--artifacts` and `--html`).
    pub evidence: Option<Evidence>,
}

/// One step as it ran, for the HTML report (texts already redacted).
#[derive(Clone, Debug)]
pub struct StepRecord {
    /// `step 3 "type the password"`.
    pub label: String,
    pub tool: String,
    pub took: Duration,
    /// Why it failed; `None` when it passed.
    pub failed: Option<String>,
    /// The result's text (what the tool saw and changed), or the baseline check's line.
    pub text: String,
}

/// How one file went.
#[derive(Clone, Debug)]
pub struct FileResult {
    pub file: String,
    pub name: String,
    pub cases: Vec<CaseResult>,
}

/// What ended a run early.
pub enum Stop {
    /// The server cannot be reached, or refused the token (`ClientError::exit_code`).
    Client(ClientError),
    /// Ctrl-C or SIGTERM; the case's session was ended.
    Interrupted,
}

/// The settings every case shares.
pub struct Runner {
    pub url: String,
    pub token: TokenSource,
    pub retry: RetryPolicy,
    /// Tool name → whether it takes an `app` argument (from `tools/list`).
    pub tools: HashMap<String, bool>,
    pub secrets: BTreeMap<String, String>,
    pub redactor: Redactor,
    pub artifacts: Option<PathBuf>,
    /// Capture a failure's evidence also without `artifacts` (`--html` embeds it).
    pub keep_evidence: bool,
    pub baselines: Baselines,
    /// Progress lines on stderr (a terminal).
    pub progress: bool,
}

/// What a case accumulates while it runs.
struct CaseState {
    vars: HashMap<String, Value>,
    /// Apps whose `diff` baseline was taken in this case's session, in order.
    apps: Vec<String>,
    log: Vec<String>,
    steps: Vec<StepRecord>,
}

impl Runner {
    pub fn stderr_is_terminal() -> bool {
        std::io::stderr().is_terminal()
    }

    /// Runs every case of `scenario`; a [`Stop`] ends the run with what ran so far.
    pub async fn file(&self, scenario: &Scenario, into: &mut FileResult) -> Result<(), Stop> {
        for case in &scenario.cases {
            let result = self.case(scenario, case).await?;
            into.cases.push(result);
        }
        Ok(())
    }

    async fn case(&self, scenario: &Scenario, case: &Case) -> Result<CaseResult, Stop> {
        let client =
            Client::new(&self.url, self.token.clone(), self.retry).map_err(Stop::Client)?;
        let started = Instant::now();
        let mut state = CaseState {
            vars: HashMap::new(),
            apps: Vec::new(),
            log: Vec::new(),
            steps: Vec::new(),
        };
        let outcome = tokio::select! {
            outcome = self.case_body(&client, scenario, case, &mut state) => Some(outcome),
            () = crate::interrupted() => None,
        };
        let ended = client.end().await;
        let Some(outcome) = outcome else {
            return Err(Stop::Interrupted);
        };
        let (failure, later, (artifacts, evidence)) = outcome.map_err(Stop::Client)?;
        if let Err(error) = ended {
            state.log.push(format!("warning: {error}"));
        }
        Ok(CaseResult {
            name: case.name.clone(),
            duration: started.elapsed(),
            failure,
            later,
            log: state.log,
            artifacts,
            steps: state.steps,
            evidence,
        })
    }

    async fn case_body(
        &self,
        client: &Client,
        scenario: &Scenario,
        case: &Case,
        state: &mut CaseState,
    ) -> Result<(Option<Failure>, Vec<String>, Captured), ClientError> {
        client.connect().await?;
        let app = case.app.as_deref().or(scenario.app.as_deref());
        if let Some(app) = app {
            baseline(client, state, app).await?;
        }
        let mut failure = None;
        let mut later = Vec::new();
        let mut captured = None;
        for step in order(scenario, case) {
            let teardown = step.phase.is_teardown();
            if failure.is_some() && !teardown {
                continue;
            }
            if teardown && failure.is_some() && captured.is_none() {
                captured = self
                    .capture(client, scenario, case, state, &failure)
                    .await?;
            }
            if let Err(failed) = self.step(client, scenario, case, step, app, state).await? {
                if failure.is_none() {
                    failure = Some(failed);
                } else {
                    later.push(failed.message());
                }
            }
        }
        if failure.is_some() && captured.is_none() {
            captured = self
                .capture(client, scenario, case, state, &failure)
                .await?;
        }
        Ok((failure, later, captured.unwrap_or_default()))
    }

    async fn capture(
        &self,
        client: &Client,
        scenario: &Scenario,
        case: &Case,
        state: &CaseState,
        failure: &Option<Failure>,
    ) -> Result<Option<Captured>, ClientError> {
        let Some(failure) = failure else {
            return Ok(None);
        };
        if self.artifacts.is_none() && !self.keep_evidence {
            return Ok(Some(Captured::default()));
        }
        let evidence = artifacts::capture(client, &self.redactor, failure, &state.apps).await?;
        let dir = self.artifacts.as_ref().map(|root| {
            let dir = artifacts::folder(root, &scenario.name, &case.name);
            artifacts::write(&dir, &evidence, failure);
            dir
        });
        Ok(Some((dir, Some(evidence))))
    }

    /// Runs one step: `Ok(Err(failure))` when it failed, `Err` when the run must stop.
    async fn step(
        &self,
        client: &Client,
        scenario: &Scenario,
        case: &Case,
        step: &Step,
        app: Option<&str>,
        state: &mut CaseState,
    ) -> Result<Result<(), Failure>, ClientError> {
        let started = Instant::now();
        let arguments = self
            .redactor
            .text(&Value::Object(step.args.clone()).to_string());
        let failure = |kind: &'static str, reason: String, result_text: Option<String>| Failure {
            step: format!("{} ({})", step.label(), step.tool),
            file: scenario.file.clone(),
            line: step.line,
            reason: self.redactor.text(&reason),
            kind,
            arguments: arguments.clone(),
            result_text: result_text.map(|t| self.redactor.text(&t)),
            element: None,
            attachments: Vec::new(),
        };
        let bindings = Bindings {
            vars: &state.vars,
            secrets: &self.secrets,
        };
        let mut args = match bindings.resolve(&Value::Object(step.args.clone())) {
            Ok(Value::Object(args)) => args,
            Ok(_) => Map::new(),
            Err(why) => return Ok(Err(failure("reference", why, None))),
        };
        if let Some(app) = app
            && !args.contains_key("app")
            && self.tools.get(&step.tool).copied().unwrap_or(false)
        {
            args.insert("app".into(), json!(app));
        }
        if let Some(named) = args.get("app").and_then(app_name) {
            baseline(client, state, &named).await?;
        }
        // The element to outline in the failure's screenshot.
        let element = args.get("app").and_then(app_name).zip(
            args.get("target")
                .and_then(Value::as_str)
                .map(str::to_owned),
        );
        let mut seen = String::new();
        let answer =
            tokio::time::timeout(step.timeout, client.call(&step.tool, Value::Object(args)));
        let outcome = match answer.await {
            Err(_) => Err(failure(
                "timeout",
                format!(
                    "no result within {} (the step's timeout)",
                    humantime::format_duration(step.timeout)
                ),
                None,
            )),
            Ok(Err(error @ (ClientError::Connection(_) | ClientError::Auth(_)))) => {
                return Err(error);
            }
            Ok(Err(error)) => Err(failure("request", error.to_string(), None)),
            Ok(Ok(result)) => {
                seen = self.redactor.text(&expect::text_of(&result));
                let bindings = Bindings {
                    vars: &state.vars,
                    secrets: &self.secrets,
                };
                let checked = expect::verify(&result, &step.expect, &bindings).and_then(|()| {
                    let structured = result.get("structuredContent");
                    step.save
                        .iter()
                        .map(|(name, path)| match structured.and_then(|s| path.lookup(s)) {
                            Some(value) => Ok((name.clone(), value.clone())),
                            None => Err(format!(
                                "cannot save ${{{name}}}: the result has no {path} (its text: {})",
                                quote(&self.redactor.text(&expect::text_of(&result)))
                            )),
                        })
                        .collect::<Result<Vec<_>, String>>()
                });
                let pictured = match (checked, &step.expect.image) {
                    (Ok(saved), Some(image)) => {
                        let kept_in = self
                            .artifacts
                            .as_ref()
                            .map(|root| artifacts::folder(root, &scenario.name, &case.name));
                        let file = &scenario.file;
                        match super::baseline::check(
                            &result,
                            image,
                            file,
                            self.baselines,
                            kept_in.as_deref(),
                        ) {
                            Ok(line) => {
                                if self.baselines == Baselines::Accept {
                                    eprintln!("axgate: {}: {line}", step.label());
                                }
                                seen = format!("{seen}\n{line}");
                                Ok(saved)
                            }
                            Err(mismatch) => Err(Failure {
                                attachments: mismatch.attachments,
                                ..failure("image", mismatch.reason, None)
                            }),
                        }
                    }
                    (Ok(saved), None) => Ok(saved),
                    (Err(why), _) => {
                        Err(failure("expectation", why, Some(expect::text_of(&result))))
                    }
                };
                match pictured {
                    Ok(saved) => {
                        state.vars.extend(saved);
                        Ok(())
                    }
                    Err(failed) => Err(failed),
                }
            }
        };
        let outcome = outcome.map_err(|failed| Failure { element, ..failed });
        let took = started.elapsed();
        state.steps.push(StepRecord {
            label: step.label(),
            tool: step.tool.clone(),
            took,
            failed: outcome.as_ref().err().map(|f| f.reason.clone()),
            text: seen,
        });
        let line = match &outcome {
            Ok(()) => format!(
                "ok   {} {} ({} ms)",
                step.label(),
                step.tool,
                took.as_millis()
            ),
            Err(f) => format!(
                "FAIL {} {} ({} ms): {}",
                step.label(),
                step.tool,
                took.as_millis(),
                f.reason
            ),
        };
        if self.progress {
            eprintln!("[{}] {}: {line}", scenario.file, case.name);
        }
        state.log.push(line);
        Ok(outcome)
    }
}

/// A failed case's artifact folder (with `--artifacts`) and its evidence.
type Captured = (Option<PathBuf>, Option<Evidence>);

/// The app a step names, as text (a pid as its digits).
fn app_name(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Takes the `diff` baseline of `app` the first time the case names it, so that a failure's
/// diff shows what changed since then. An app that is not running yet is noted and tried
/// again when a later step names it.
async fn baseline(client: &Client, state: &mut CaseState, app: &str) -> Result<(), ClientError> {
    if state.apps.iter().any(|a| a == app) {
        return Ok(());
    }
    let value = match app.parse::<u64>() {
        Ok(pid) => json!(pid),
        Err(_) => json!(app),
    };
    match client.call("diff", json!({ "app": value })).await {
        Ok(result) if result.get("isError") != Some(&Value::Bool(true)) => {
            state.apps.push(app.to_owned());
            Ok(())
        }
        Ok(_) | Err(ClientError::Rpc(_) | ClientError::Usage(_)) => Ok(()),
        Err(error) => Err(error),
    }
}
