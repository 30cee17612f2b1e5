//! The checks that need a whole case: a `${name}` must be saved by a step that runs before
//! it (file setup → case setup → steps → case teardown → file teardown), and the secrets a
//! file uses are collected, so that a run can name every one that is not set before it
//! starts (a dry run does not need them).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::expect::Check;
use super::format::{Case, Problem, Scenario, Step};
use super::template::{self, Ref};

/// The steps of `case` in the order they run.
pub fn order<'s>(scenario: &'s Scenario, case: &'s Case) -> impl Iterator<Item = &'s Step> {
    scenario
        .setup
        .iter()
        .chain(&case.setup)
        .chain(&case.steps)
        .chain(&case.teardown)
        .chain(&scenario.teardown)
}

/// The values a step's strings reference: its arguments and its expected values.
fn referenced(step: &Step) -> Vec<Ref> {
    let mut values: Vec<Value> = vec![Value::Object(step.args.clone())];
    let checks = step
        .expect
        .text
        .iter()
        .chain(step.expect.fields.iter().map(|(_, c)| c));
    for check in checks {
        match check {
            Check::Equals(v) | Check::Contains(v) => values.push(v.clone()),
            Check::Matches(p) => values.push(Value::String(p.clone())),
            Check::Exists(_) => {}
        }
    }
    values
        .iter()
        .flat_map(|v| template::refs_in(v).unwrap_or_default())
        .collect()
}

/// Problems with variables: each `${name}` used before any step saves it.
pub fn variables(scenario: &Scenario) -> Vec<Problem> {
    let mut problems = Vec::new();
    for case in &scenario.cases {
        let mut saved: BTreeSet<&str> = BTreeSet::new();
        for step in order(scenario, case) {
            for reference in referenced(step) {
                if let Ref::Var(name) = reference
                    && !saved.contains(name.as_str())
                {
                    let place = match step.phase {
                        super::format::Phase::FileSetup | super::format::Phase::FileTeardown => {
                            format!("{} (in case \"{}\")", step.label(), case.name)
                        }
                        _ => format!("case \"{}\", {}", case.name, step.label()),
                    };
                    let problem = Problem {
                        file: scenario.file.clone(),
                        line: step.line,
                        place,
                        message: format!(
                            "${{{name}}} is not saved by any earlier step (`save: {{{name}: path}}`)"
                        ),
                    };
                    if !problems.contains(&problem) {
                        problems.push(problem);
                    }
                }
            }
            saved.extend(step.save.iter().map(|(n, _)| n.as_str()));
        }
    }
    problems
}

/// Every secret the file names, with the first line naming it.
pub fn secrets(scenario: &Scenario) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let steps = scenario.setup.iter().chain(&scenario.teardown).chain(
        scenario
            .cases
            .iter()
            .flat_map(|c| c.setup.iter().chain(&c.steps).chain(&c.teardown)),
    );
    for step in steps {
        for reference in referenced(step) {
            if let Ref::Secret(name) = reference {
                let line = out.entry(name).or_insert(step.line);
                *line = (*line).min(step.line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::format::parse;
    use super::*;

    #[test]
    fn a_variable_must_be_saved_before_it_is_used() {
        let text = "\
cases:
  - name: order
    steps:
      - tool: find
        args: {text: '${early}'}
      - tool: get_element
        save: {early: element.value}
      - tool: assert
        args: {value: '${early} and ${secret:PW}'}
";
        let scenario = parse("f.yaml", text).expect("valid shape");
        let problems = variables(&scenario);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            problems[0].to_string(),
            "f.yaml:4: case \"order\", step 1: ${early} is not saved by any earlier step (`save: {early: path}`)"
        );
        assert_eq!(secrets(&scenario), BTreeMap::from([("PW".to_owned(), 8)]));
    }
}
