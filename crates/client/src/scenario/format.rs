//! A scenario file, read from YAML with `marked-yaml` (every node keeps its line) into
//! [`Scenario`]: named cases of steps, file- and case-level `setup` and `teardown`. Every
//! problem is reported with its file, line and step, all of them at once, and an unknown key
//! names the key it was probably meant to be (`unknown key 'expcet' (did you mean
//! 'expect'?)`). The checks that need the whole file (saved variables used before they are
//! saved) are in `check.rs`.

use std::fmt;
use std::time::Duration;

use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoaderOptions, Node};
use serde_json::{Map, Value};

use super::expect::{Check, Expect, FieldPath};
use super::template;
use super::yaml::json_of;

/// A step waits this long for its result unless it says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

const FILE_KEYS: &[&str] = &["name", "app", "setup", "teardown", "cases"];
const CASE_KEYS: &[&str] = &["name", "app", "setup", "steps", "teardown"];
const STEP_KEYS: &[&str] = &["name", "tool", "args", "expect", "save", "timeout"];
const EXPECT_KEYS: &[&str] = &["error", "text", "fields", "image"];
const CHECK_KEYS: &[&str] = &["equals", "contains", "matches", "exists"];

/// One problem in a file, where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    pub line: usize,
    /// `case "fill the form", step 3`; empty for the file as a whole.
    pub place: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_empty() {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        } else {
            write!(
                f,
                "{}:{}: {}: {}",
                self.file, self.line, self.place, self.message
            )
        }
    }
}

/// Where a step stands in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    FileSetup,
    CaseSetup,
    Steps,
    CaseTeardown,
    FileTeardown,
}

impl Phase {
    pub fn is_teardown(self) -> bool {
        matches!(self, Phase::CaseTeardown | Phase::FileTeardown)
    }
}

/// One tool call and what it should give.
#[derive(Clone, Debug)]
pub struct Step {
    pub line: usize,
    pub phase: Phase,
    /// 1-based within its list.
    pub number: usize,
    /// An optional label, shown in progress and reports.
    pub name: Option<String>,
    pub tool: String,
    /// The arguments as written: strings may hold `${…}`.
    pub args: Map<String, Value>,
    pub expect: Expect,
    /// Variable name → path in `structuredContent`.
    pub save: Vec<(String, FieldPath)>,
    pub timeout: Duration,
}

impl Step {
    /// `step 3`, `setup step 1`, `file teardown step 2`.
    pub fn label(&self) -> String {
        let which = match self.phase {
            Phase::FileSetup => "file setup step",
            Phase::CaseSetup => "setup step",
            Phase::Steps => "step",
            Phase::CaseTeardown => "teardown step",
            Phase::FileTeardown => "file teardown step",
        };
        match &self.name {
            Some(name) => format!("{which} {} \"{name}\"", self.number),
            None => format!("{which} {}", self.number),
        }
    }
}

/// One named case.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub line: usize,
    pub app: Option<String>,
    pub setup: Vec<Step>,
    pub steps: Vec<Step>,
    pub teardown: Vec<Step>,
}

/// One file.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The path as given on the command line.
    pub file: String,
    /// The suite's name: `name`, else the file's stem.
    pub name: String,
    pub app: Option<String>,
    pub setup: Vec<Step>,
    pub teardown: Vec<Step>,
    pub cases: Vec<Case>,
}

/// Reads one file's text; every problem found, or the scenario.
pub fn parse(file: &str, text: &str) -> Result<Scenario, Vec<Problem>> {
    let mut reader = Reader {
        file: file.to_owned(),
        problems: Vec::new(),
    };
    // Quoted scalars stay strings ("50" is text, 50 a number): coercion only for plain ones.
    let options = LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .prevent_coercion(true);
    let root = match marked_yaml::parse_yaml_with_options(0, text, options) {
        Ok(root) => root,
        Err(error) => {
            reader.load_error(&error);
            return Err(reader.problems);
        }
    };
    let scenario = reader.scenario(&root);
    if reader.problems.is_empty() {
        Ok(scenario)
    } else {
        Err(reader.problems)
    }
}

/// The key among `known` that `key` was probably meant to be.
fn suggestion(key: &str, known: &[&str]) -> Option<String> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.to_owned())
}

fn line_of(node: &Node) -> usize {
    node.span().start().map_or(1, |m| m.line())
}

fn key_line(key: &MarkedScalarNode) -> usize {
    key.span().start().map_or(1, |m| m.line())
}

struct Reader {
    file: String,
    problems: Vec<Problem>,
}

impl Reader {
    fn problem(&mut self, line: usize, place: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            file: self.file.clone(),
            line,
            place: place.to_owned(),
            message: message.into(),
        });
    }

    fn load_error(&mut self, error: &marked_yaml::LoadError) {
        /// What trips most files: a path or a field with brackets, braces or `: ` left
        /// unquoted, which YAML reads as a list, a mapping or a key.
        const QUOTE_HINT: &str = "a key or value holding [ ] { } , # or \": \" must be quoted, \
                                  e.g. \"windows[0].title\": Editor or \
                                  target: 'window[0]/button[\"Save\"]'";
        use marked_yaml::LoadError as E;
        let (line, message) = match error {
            E::TopLevelMustBeMapping(m) => (
                m.line(),
                "a scenario file is a mapping with `cases:` (docs/SCENARIOS.md)".to_owned(),
            ),
            E::TopLevelMustBeSequence(m) => (m.line(), "expected a list".to_owned()),
            E::UnexpectedAnchor(m) => (m.line(), "YAML anchors are not supported".to_owned()),
            E::MappingKeyMustBeScalar(m) => {
                (m.line(), format!("a key must be plain text; {QUOTE_HINT}"))
            }
            E::UnexpectedTag(m) => (m.line(), "YAML tags are not supported".to_owned()),
            E::ScanError(m, e) => (
                m.line(),
                format!("not valid YAML: {}; {QUOTE_HINT}", e.info()),
            ),
            E::DuplicateKey(inner) => (
                key_line(&inner.key),
                format!(
                    "the key '{}' is given twice (also on line {})",
                    inner.key.as_str(),
                    key_line(&inner.prev_key)
                ),
            ),
        };
        self.problem(line, "", message);
    }

    /// The entries of `map`; an unknown key is a problem naming the likely one.
    fn entries<'n>(
        &mut self,
        map: &'n MarkedMappingNode,
        known: &[&str],
        place: &str,
    ) -> Vec<(&'n str, usize, &'n Node)> {
        let mut out = Vec::new();
        for (key, value) in map.iter() {
            let name = key.as_str();
            if known.contains(&name) {
                out.push((name, key_line(key), value));
                continue;
            }
            let hint = match suggestion(name, known) {
                Some(k) => format!(" (did you mean '{k}'?)"),
                None => format!(" (known keys: {})", known.join(", ")),
            };
            self.problem(key_line(key), place, format!("unknown key '{name}'{hint}"));
        }
        out
    }

    fn text(&mut self, node: &Node, place: &str, what: &str) -> Option<String> {
        match node {
            Node::Scalar(s) if !s.as_str().is_empty() => Some(s.as_str().to_owned()),
            _ => {
                self.problem(
                    line_of(node),
                    place,
                    format!("{what} must be non-empty text"),
                );
                None
            }
        }
    }

    fn scenario(&mut self, root: &Node) -> Scenario {
        let stem = std::path::Path::new(&self.file)
            .file_stem()
            .map_or_else(|| self.file.clone(), |s| s.to_string_lossy().into_owned());
        let mut scenario = Scenario {
            file: self.file.clone(),
            name: stem,
            app: None,
            setup: Vec::new(),
            teardown: Vec::new(),
            cases: Vec::new(),
        };
        let Some(map) = root.as_mapping() else {
            self.problem(
                line_of(root),
                "",
                "a scenario file is a mapping with `cases:` (docs/SCENARIOS.md)",
            );
            return scenario;
        };
        let mut cases_seen = false;
        for (key, line, value) in self.entries(map, FILE_KEYS, "") {
            match key {
                "name" => {
                    if let Some(name) = self.text(value, "", "name") {
                        scenario.name = name;
                    }
                }
                "app" => scenario.app = self.text(value, "", "app"),
                "setup" => scenario.setup = self.steps(value, Phase::FileSetup, ""),
                "teardown" => scenario.teardown = self.steps(value, Phase::FileTeardown, ""),
                _ => {
                    cases_seen = true;
                    let Some(list) = value.as_sequence().filter(|l| !l.is_empty()) else {
                        self.problem(line, "", "`cases` must be a list of at least one case");
                        continue;
                    };
                    for node in list.iter() {
                        if let Some(case) = self.case(node, &scenario.cases) {
                            scenario.cases.push(case);
                        }
                    }
                }
            }
        }
        if !cases_seen {
            self.problem(line_of(root), "", "the file has no `cases:`");
        }
        scenario
    }

    fn case(&mut self, node: &Node, earlier: &[Case]) -> Option<Case> {
        let line = line_of(node);
        let Some(map) = node.as_mapping() else {
            self.problem(line, "", "a case is a mapping with `name:` and `steps:`");
            return None;
        };
        let name = map.get_scalar("name").map(|s| s.as_str().to_owned());
        let place = match &name {
            Some(n) => format!("case \"{n}\""),
            None => format!("case at line {line}"),
        };
        let mut case = Case {
            name: name.clone().unwrap_or_default(),
            line,
            app: None,
            setup: Vec::new(),
            steps: Vec::new(),
            teardown: Vec::new(),
        };
        let mut has_steps = false;
        for (key, key_line, value) in self.entries(map, CASE_KEYS, &place) {
            match key {
                "name" => {
                    if let Some(n) = self.text(value, &place, "name")
                        && earlier.iter().any(|c| c.name == n)
                    {
                        self.problem(key_line, &place, "another case of this file has this name");
                    }
                }
                "app" => case.app = self.text(value, &place, "app"),
                "setup" => case.setup = self.steps(value, Phase::CaseSetup, &place),
                "teardown" => case.teardown = self.steps(value, Phase::CaseTeardown, &place),
                _ => {
                    has_steps = true;
                    case.steps = self.steps(value, Phase::Steps, &place);
                    if value.as_sequence().is_some_and(|l| l.is_empty()) {
                        self.problem(key_line, &place, "`steps` is empty");
                    }
                }
            }
        }
        if name.is_none() {
            self.problem(line, &place, "the case has no `name:`");
        }
        if !has_steps {
            self.problem(line, &place, "the case has no `steps:`");
        }
        Some(case)
    }

    fn steps(&mut self, node: &Node, phase: Phase, case: &str) -> Vec<Step> {
        let Some(list) = node.as_sequence() else {
            self.problem(line_of(node), case, "steps are a list (`- tool: …`)");
            return Vec::new();
        };
        list.iter()
            .enumerate()
            .filter_map(|(i, node)| self.step(node, phase, i + 1, case))
            .collect()
    }

    fn step(&mut self, node: &Node, phase: Phase, number: usize, case: &str) -> Option<Step> {
        let mut step = Step {
            line: line_of(node),
            phase,
            number,
            name: None,
            tool: String::new(),
            args: Map::new(),
            expect: Expect::default(),
            save: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
        };
        let label = step.label();
        let place = if case.is_empty() {
            label
        } else {
            format!("{case}, {label}")
        };
        let Some(map) = node.as_mapping() else {
            self.problem(
                step.line,
                &place,
                "a step is a mapping with `tool:` and `args:`",
            );
            return None;
        };
        for (key, line, value) in self.entries(map, STEP_KEYS, &place) {
            match key {
                "name" => step.name = self.text(value, &place, "name"),
                "tool" => step.tool = self.text(value, &place, "tool").unwrap_or_default(),
                "args" => match json_of(value) {
                    Value::Object(args) => {
                        self.references(&Value::Object(args.clone()), line, &place);
                        step.args = args;
                    }
                    Value::Null => {}
                    _ => self.problem(
                        line,
                        &place,
                        "`args` is a mapping of argument names to values",
                    ),
                },
                "expect" => step.expect = self.expect(value, &place),
                "save" => step.save = self.save(value, &place),
                _ => {
                    let text = value.as_scalar().map(|s| s.as_str().trim().to_owned());
                    let parsed = text.as_deref().and_then(|t| match t.parse::<f64>() {
                        Ok(secs) if secs > 0.0 && secs.is_finite() => {
                            Some(Duration::from_secs_f64(secs))
                        }
                        _ => humantime::parse_duration(t).ok().filter(|d| !d.is_zero()),
                    });
                    match parsed {
                        Some(timeout) => step.timeout = timeout,
                        None => self.problem(
                            line,
                            &place,
                            "`timeout` is a duration such as 500ms, 10s or 2m (a bare number is seconds)",
                        ),
                    }
                }
            }
        }
        if step.tool.is_empty() && map.get_node("tool").is_none() {
            self.problem(step.line, &place, "the step names no `tool:`");
        }
        Some(step)
    }

    fn references(&mut self, value: &Value, line: usize, place: &str) {
        if let Err(why) = template::refs_in(value) {
            self.problem(line, place, why);
        }
    }

    fn expect(&mut self, node: &Node, place: &str) -> Expect {
        let mut expect = Expect::default();
        let Some(map) = node.as_mapping() else {
            self.problem(
                line_of(node),
                place,
                "`expect` is a mapping with `error:`, `text:`, `fields:` and/or `image:`",
            );
            return expect;
        };
        for (key, line, value) in self.entries(map, EXPECT_KEYS, place) {
            match key {
                "error" => match value.as_scalar().and_then(|s| s.as_bool()) {
                    Some(b) => expect.error = b,
                    None => self.problem(line, place, "`error` is true or false"),
                },
                "text" => expect.text = self.checks(value, line, place),
                "image" => match super::baseline::read(value) {
                    Ok(check) => expect.image = Some(check),
                    Err((at, why)) => self.problem(at, place, why),
                },
                _ => {
                    let Some(fields) = value.as_mapping() else {
                        self.problem(
                            line,
                            place,
                            "`fields` maps paths (element.value) to expected values",
                        );
                        continue;
                    };
                    for (path, check) in fields.iter() {
                        let at = key_line(path);
                        match FieldPath::parse(path.as_str()) {
                            Ok(parsed) => {
                                for c in self.checks(check, at, place) {
                                    expect.fields.push((parsed.clone(), c));
                                }
                            }
                            Err(why) => self.problem(at, place, why),
                        }
                    }
                }
            }
        }
        expect
    }

    /// A value (equals) or a mapping of `equals`/`contains`/`matches`/`exists`.
    fn checks(&mut self, node: &Node, line: usize, place: &str) -> Vec<Check> {
        let Some(map) = node.as_mapping() else {
            let value = json_of(node);
            self.references(&value, line, place);
            return vec![Check::Equals(value)];
        };
        let mut out = Vec::new();
        for (key, at, value) in self.entries(map, CHECK_KEYS, place) {
            let json = json_of(value);
            self.references(&json, at, place);
            match key {
                "equals" => out.push(Check::Equals(json)),
                "contains" => out.push(Check::Contains(json)),
                "matches" => match value.as_scalar() {
                    Some(s) => {
                        let pattern = s.as_str();
                        if !pattern.contains("${")
                            && let Err(e) = regex::Regex::new(pattern)
                        {
                            self.problem(
                                at,
                                place,
                                format!("`matches` is not a regular expression: {e}"),
                            );
                        }
                        out.push(Check::Matches(pattern.to_owned()));
                    }
                    None => self.problem(at, place, "`matches` is a regular expression"),
                },
                _ => match value.as_scalar().and_then(|s| s.as_bool()) {
                    Some(b) => out.push(Check::Exists(b)),
                    None => self.problem(at, place, "`exists` is true or false"),
                },
            }
        }
        if out.is_empty() && map.is_empty() {
            self.problem(
                line,
                place,
                "an empty check: give equals, contains, matches or exists",
            );
        }
        out
    }

    fn save(&mut self, node: &Node, place: &str) -> Vec<(String, FieldPath)> {
        let Some(map) = node.as_mapping() else {
            self.problem(
                line_of(node),
                place,
                "`save` maps variable names to paths (status: element.value)",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, path) in map.iter() {
            let at = key_line(name);
            if !template::is_name(name.as_str()) || name.as_str() == "secret" {
                self.problem(
                    at,
                    place,
                    format!(
                        "'{}' cannot name a variable (letters, digits, _; not `secret`)",
                        name.as_str()
                    ),
                );
                continue;
            }
            match path.as_scalar().map(|p| FieldPath::parse(p.as_str())) {
                Some(Ok(parsed)) => out.push((name.as_str().to_owned(), parsed)),
                Some(Err(why)) => self.problem(at, place, why),
                None => self.problem(at, place, "a saved variable's path is text (element.value)"),
            }
        }
        out
    }
}
