//! What a step expects of its result, and the checking of it: whether the tool failed
//! (`isError`), its text, and fields of `structuredContent` named by a simple path
//! (`element.value`, `matches[0].title`), each compared by `equals`, `contains`, `matches`
//! (a regular expression) or `exists`. Messages say what was expected and what was there.

use std::fmt;

use regex::Regex;
use serde_json::Value;

use super::template::Bindings;

/// A path into `structuredContent`: keys and indexes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldPath {
    text: String,
    segments: Vec<Segment>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

impl FieldPath {
    /// `a.b[0].c`; keys are letters, digits, `_` and `-`.
    pub fn parse(text: &str) -> Result<FieldPath, String> {
        let bad = |why: &str| {
            Err(format!(
                "path {text:?}: {why}; write keys joined by dots, with [N] for an item of a list, \
                 e.g. element.value or matches[0].title"
            ))
        };
        let mut segments = Vec::new();
        for part in text.split('.') {
            let (key, mut rest) = match part.find('[') {
                Some(at) => (&part[..at], &part[at..]),
                None => (part, ""),
            };
            if key.is_empty() && (segments.is_empty() || rest.is_empty()) && !part.starts_with('[')
            {
                return bad("an empty key");
            }
            if !key.is_empty() {
                if !key
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                {
                    return bad(&format!(
                        "the key {key:?} has characters other than letters, digits, _ and -"
                    ));
                }
                segments.push(Segment::Key(key.to_owned()));
            }
            while let Some(tail) = rest.strip_prefix('[') {
                let Some(end) = tail.find(']') else {
                    return bad("a `[` without `]`");
                };
                let Ok(index) = tail[..end].parse::<usize>() else {
                    return bad("an index that is not a number");
                };
                segments.push(Segment::Index(index));
                rest = &tail[end + 1..];
            }
            if !rest.is_empty() {
                return bad("text after `]`");
            }
        }
        if segments.is_empty() {
            return bad("nothing to look up");
        }
        Ok(FieldPath {
            text: text.to_owned(),
            segments,
        })
    }

    /// The value at this path, if there is one.
    pub fn lookup<'v>(&self, root: &'v Value) -> Option<&'v Value> {
        self.segments
            .iter()
            .try_fold(root, |value, segment| match segment {
                Segment::Key(key) => value.get(key),
                Segment::Index(index) => value.get(index),
            })
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One comparison. Expected values may hold `${…}` references, resolved when checked.
#[derive(Clone, Debug)]
pub enum Check {
    /// Equal as JSON; a string and a number or boolean compare as text (`"25"` = `25`).
    Equals(Value),
    /// Text: contains the substring; a list: has an item equal to it.
    Contains(Value),
    /// The text matches the regular expression (anywhere; anchor with `^…$`).
    Matches(String),
    /// Whether the field is there.
    Exists(bool),
}

/// The `expect` of a step.
#[derive(Clone, Debug, Default)]
pub struct Expect {
    /// Whether the tool is expected to fail (`isError: true`); default: to succeed.
    pub error: bool,
    /// Checks on the result's text blocks, joined by new lines.
    pub text: Vec<Check>,
    /// Checks on fields of `structuredContent`.
    pub fields: Vec<(FieldPath, Check)>,
    /// The result's image against a baseline file (`baseline.rs`).
    pub image: Option<super::baseline::ImageCheck>,
}

/// The result's text blocks, joined by new lines.
pub fn text_of(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Shortens text quoted in a message.
pub fn quote(text: &str) -> String {
    const MAX: usize = 300;
    if text.chars().count() <= MAX {
        return format!("{text:?}");
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut:?}…")
}

fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn equal(actual: &Value, expected: &Value) -> bool {
    if actual == expected {
        return true;
    }
    let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
    (actual.is_string() || expected.is_string())
        && scalar(actual)
        && scalar(expected)
        && as_text(actual) == as_text(expected)
}

/// Checks `check` against `actual` (`None`: absent); `Err` says why it does not hold.
fn holds(
    check: &Check,
    what: &str,
    actual: Option<&Value>,
    bindings: &Bindings<'_>,
) -> Result<(), String> {
    // Secrets are hidden before the text is cut: a cut secret would not be found whole.
    let hide = super::template::Redactor::new(bindings.secrets);
    let shown = |v: Option<&Value>| match v {
        Some(Value::String(s)) => quote(&hide.text(s)),
        Some(other) => quote(&hide.text(&other.to_string())),
        None => "nothing (no such field)".to_owned(),
    };
    match check {
        Check::Exists(want) => match (actual.is_some(), want) {
            (true, true) | (false, false) => Ok(()),
            (false, true) => Err(format!(
                "expected {what} to exist; the result has no such field"
            )),
            (true, false) => Err(format!("expected no {what}, got {}", shown(actual))),
        },
        Check::Equals(expected) => {
            let expected = bindings.resolve(expected)?;
            match actual {
                Some(a) if equal(a, &expected) => Ok(()),
                _ => Err(format!(
                    "expected {what} to equal {}, got {}",
                    shown(Some(&expected)),
                    shown(actual)
                )),
            }
        }
        Check::Contains(expected) => {
            let expected = bindings.resolve(expected)?;
            let ok = match actual {
                Some(Value::Array(items)) => items.iter().any(|i| equal(i, &expected)),
                Some(a) => as_text(a).contains(&as_text(&expected)),
                None => false,
            };
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "expected {what} to contain {}, got {}",
                    shown(Some(&expected)),
                    shown(actual)
                ))
            }
        }
        Check::Matches(pattern) => {
            let pattern = match bindings.resolve_str(pattern)? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let regex = Regex::new(&pattern).map_err(|e| {
                format!(
                    "the pattern {} is not a regular expression: {e}",
                    quote(&pattern)
                )
            })?;
            match actual {
                Some(a) if regex.is_match(&as_text(a)) => Ok(()),
                _ => Err(format!(
                    "expected {what} to match /{pattern}/, got {}",
                    shown(actual)
                )),
            }
        }
    }
}

/// Checks a tool's result against `expect`; the first thing that does not hold.
pub fn verify(result: &Value, expect: &Expect, bindings: &Bindings<'_>) -> Result<(), String> {
    let failed = result.get("isError") == Some(&Value::Bool(true));
    let text = text_of(result);
    match (failed, expect.error) {
        (true, false) => return Err(format!("the tool failed: {}", quote(&text))),
        (false, true) => {
            return Err(format!(
                "expected the tool to fail (expect.error: true); it succeeded: {}",
                quote(&text)
            ));
        }
        _ => {}
    }
    let text_value = Value::String(text);
    for check in &expect.text {
        holds(check, "the text", Some(&text_value), bindings)?;
    }
    let structured = result.get("structuredContent");
    for (path, check) in &expect.fields {
        let actual = structured.and_then(|s| path.lookup(s));
        holds(check, &path.to_string(), actual, bindings)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::{BTreeMap, HashMap};

    #[test]
    fn paths_parse_and_look_up() {
        let v = json!({"matches": [{"title": "Submit"}], "element": {"value": "25"}});
        let path = FieldPath::parse("matches[0].title").expect("valid");
        assert_eq!(path.lookup(&v), Some(&json!("Submit")));
        assert_eq!(
            FieldPath::parse("element.value").expect("valid").lookup(&v),
            Some(&json!("25"))
        );
        assert_eq!(FieldPath::parse("nope.x").expect("valid").lookup(&v), None);
        for bad in ["", "a..b", "a[x]", "a[0", "a b", "a[0]x"] {
            assert!(FieldPath::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn checks_say_what_was_expected_and_found() {
        let vars = HashMap::new();
        let secrets = BTreeMap::new();
        let bindings = Bindings {
            vars: &vars,
            secrets: &secrets,
        };
        let result = json!({"content": [{"type": "text", "text": "ok"}],
                            "structuredContent": {"element": {"value": "25", "title": "Volume"}}});
        let path = |p: &str| FieldPath::parse(p).expect("valid");
        let mut expect = Expect {
            fields: vec![
                (path("element.value"), Check::Equals(json!(25))),
                (path("element.title"), Check::Contains(json!("olu"))),
                (path("element.title"), Check::Matches("^Vol".into())),
                (path("element.gone"), Check::Exists(false)),
            ],
            ..Expect::default()
        };
        verify(&result, &expect, &bindings).expect("holds");
        expect.fields = vec![(path("element.title"), Check::Equals(json!("Mute")))];
        let why = verify(&result, &expect, &bindings).expect_err("fails");
        assert_eq!(
            why,
            "expected element.title to equal \"Mute\", got \"Volume\""
        );
        expect.error = true;
        assert!(
            verify(&result, &expect, &bindings)
                .expect_err("fails")
                .contains("expected the tool to fail")
        );
    }
}
