//! `${…}` references in a scenario's strings: `${name}` (a variable a step saved),
//! `${secret:NAME}` (the environment variable NAME, never shown), and `$${` for a literal
//! `${`. [`refs`] finds them (the dry run checks them), [`resolve`] substitutes them in a
//! step's arguments or expectations, and [`Redactor`] hides every secret value in whatever
//! the runner prints or writes.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

/// The mark a secret's value is replaced with wherever it would show.
pub const HIDDEN: &str = "•••";

/// One `${…}` reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ref {
    /// `${name}`: a variable saved by an earlier step.
    Var(String),
    /// `${secret:NAME}`: the environment variable NAME.
    Secret(String),
}

/// One piece of a string: text as it is, or a reference.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Ref(Ref),
}

/// Whether `name` may name a variable or a secret: a letter or `_`, then letters, digits, `_`.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn pieces(text: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        plain.push_str(&rest[..at]);
        let after = &rest[at..];
        if let Some(tail) = after.strip_prefix("$${") {
            plain.push_str("${");
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("${") {
            let Some(end) = tail.find('}') else {
                return Err(format!(
                    "`${{` without its `}}` in {text:?} (write `$${{` for a literal `${{`)"
                ));
            };
            let inner = &tail[..end];
            let reference = match inner.strip_prefix("secret:") {
                Some(name) if is_name(name) => Ref::Secret(name.to_owned()),
                Some(name) => {
                    return Err(format!(
                        "`${{secret:{name}}}`: a secret is named by an environment variable's name \
                         (letters, digits, _)"
                    ));
                }
                None if is_name(inner) => Ref::Var(inner.to_owned()),
                None => {
                    return Err(format!(
                        "`${{{inner}}}` is not a reference: write `${{name}}` for a saved variable \
                         or `${{secret:NAME}}` for a secret (`$${{` for a literal `${{`)"
                    ));
                }
            };
            if !plain.is_empty() {
                out.push(Piece::Text(std::mem::take(&mut plain)));
            }
            out.push(Piece::Ref(reference));
            rest = &tail[end + 1..];
        } else {
            plain.push('$');
            rest = &after[1..];
        }
    }
    plain.push_str(rest);
    if !plain.is_empty() {
        out.push(Piece::Text(plain));
    }
    Ok(out)
}

/// The references in `text`, in order; an error for a malformed one.
pub fn refs(text: &str) -> Result<Vec<Ref>, String> {
    Ok(pieces(text)?
        .into_iter()
        .filter_map(|p| match p {
            Piece::Ref(r) => Some(r),
            Piece::Text(_) => None,
        })
        .collect())
}

/// Every reference in the strings (and keys) of `value`.
pub fn refs_in(value: &Value) -> Result<Vec<Ref>, String> {
    let mut out = Vec::new();
    walk_strings(value, &mut |s| {
        out.extend(refs(s)?);
        Ok(())
    })?;
    Ok(out)
}

fn walk_strings(
    value: &Value,
    visit: &mut impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    match value {
        Value::String(s) => visit(s),
        Value::Array(items) => items.iter().try_for_each(|v| walk_strings(v, visit)),
        Value::Object(map) => map.iter().try_for_each(|(k, v)| {
            visit(k)?;
            walk_strings(v, visit)
        }),
        _ => Ok(()),
    }
}

/// What references resolve to while a case runs.
pub struct Bindings<'a> {
    pub vars: &'a HashMap<String, Value>,
    pub secrets: &'a BTreeMap<String, String>,
}

impl Bindings<'_> {
    /// `text` with its references replaced. A string that is one `${name}` and nothing else
    /// becomes the saved value itself (a number stays a number); elsewhere a value is put in
    /// as text.
    pub fn resolve_str(&self, text: &str) -> Result<Value, String> {
        let pieces = pieces(text)?;
        if let [Piece::Ref(Ref::Var(name))] = &pieces[..] {
            return self.var(name).cloned();
        }
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => out.push_str(&t),
                Piece::Ref(Ref::Var(name)) => match self.var(&name)? {
                    Value::String(s) => out.push_str(s),
                    other => out.push_str(&other.to_string()),
                },
                Piece::Ref(Ref::Secret(name)) => match self.secrets.get(&name) {
                    Some(value) => out.push_str(value),
                    None => return Err(format!("the secret ${{secret:{name}}} is not set")),
                },
            }
        }
        Ok(Value::String(out))
    }

    fn var(&self, name: &str) -> Result<&Value, String> {
        self.vars.get(name).ok_or_else(|| {
            format!("${{{name}}} has no value: the step that saves it did not run or failed")
        })
    }

    /// `value` with the references in its strings replaced (keys are kept as written).
    pub fn resolve(&self, value: &Value) -> Result<Value, String> {
        Ok(match value {
            Value::String(s) => self.resolve_str(s)?,
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.resolve(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.resolve(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }
}

/// The shortest start of a secret hidden on its own. Text is cut in many places (a server's
/// tree cuts long values, a quoted message cuts at 300 characters, an error body is quoted
/// in part), and a cut secret shows its start: any run of at least this many characters
/// that begins the secret is hidden too, wherever the cut was made.
const MIN_START: usize = 8;

/// Hides secret values: every occurrence of each value, and of each start of one at least
/// [`MIN_START`] characters long (a cut secret), is replaced by [`HIDDEN`]. A secret with
/// several lines is hidden line by line as well (a writer may show one line).
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, so a secret that contains another is hidden whole.
    values: Vec<String>,
}

impl Redactor {
    /// Hides each value as it is, and as it reads inside a quoted string of Rust's `{:?}` or
    /// of JSON (a secret with `"` or `\` in it is escaped there).
    pub fn new(secrets: &BTreeMap<String, String>) -> Redactor {
        let inner = |quoted: String| quoted[1..quoted.len() - 1].to_owned();
        let mut values: Vec<String> = secrets
            .values()
            .filter(|v| !v.is_empty())
            .flat_map(|v| {
                let json = serde_json::to_string(v).map(inner).unwrap_or_default();
                let lines = v
                    .lines()
                    .filter(|l| l.trim().chars().count() >= MIN_START && l.len() < v.len())
                    .map(|l| l.trim().to_owned());
                [v.clone(), inner(format!("{v:?}")), json]
                    .into_iter()
                    .chain(lines)
                    .collect::<Vec<_>>()
            })
            .filter(|v| !v.is_empty())
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Redactor { values }
    }

    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for value in &self.values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), HIDDEN);
            }
        }
        for value in &self.values {
            out = hide_starts(&out, value);
        }
        out
    }

    /// `value` with every string (and key) redacted, before it is serialized anywhere.
    pub fn json(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.text(k), self.json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// `text` with every run that begins `secret` (at least [`MIN_START`] characters of it)
/// replaced by [`HIDDEN`]; a secret shorter than that is left to the whole-value match.
fn hide_starts(text: &str, secret: &str) -> String {
    let head: String = secret.chars().take(MIN_START).collect();
    if head.chars().count() < MIN_START || !text.contains(head.as_str()) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(head.as_str()) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let len = tail
            .char_indices()
            .zip(secret.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, c), _)| i + c.len_utf8());
        out.push_str(HIDDEN);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_found_and_malformed_ones_named() {
        assert_eq!(
            refs("a ${x} b ${secret:PW} $${not} $5").expect("valid"),
            vec![Ref::Var("x".into()), Ref::Secret("PW".into())]
        );
        for (bad, says) in [
            ("${x", "without its `}`"),
            ("${1x}", "is not a reference"),
            ("${secret:a-b}", "environment variable's name"),
            ("${env:X}", "is not a reference"),
        ] {
            assert!(refs(bad).expect_err(bad).contains(says), "{bad}");
        }
    }

    #[test]
    fn resolving_keeps_types_for_a_lone_reference_and_hides_nothing_itself() {
        let vars = HashMap::from([("n".to_owned(), json!(3)), ("s".to_owned(), json!("hi"))]);
        let secrets = BTreeMap::from([("PW".to_owned(), "hunter2".to_owned())]);
        let bindings = Bindings {
            vars: &vars,
            secrets: &secrets,
        };
        let got = bindings
            .resolve(&json!({"a": "${n}", "b": "${s}-${n}", "c": "${secret:PW}", "d": "$${n}"}))
            .expect("resolves");
        assert_eq!(
            got,
            json!({"a": 3, "b": "hi-3", "c": "hunter2", "d": "${n}"})
        );
        assert!(
            bindings
                .resolve_str("${missing}")
                .expect_err("undefined")
                .contains("${missing} has no value")
        );
        let redactor = Redactor::new(&secrets);
        assert_eq!(redactor.text("typed hunter2!"), "typed •••!");
        let odd = Redactor::new(&BTreeMap::from([("Q".to_owned(), "a\"b\\c".to_owned())]));
        let shown = format!("{:?} {}", "a\"b\\c", json!("a\"b\\c"));
        assert_eq!(odd.text(&shown), "\"•••\" \"•••\"", "escaped forms too");
        assert_eq!(
            redactor.json(&json!({"hunter2": ["x hunter2"]})),
            json!({"•••": ["x •••"]})
        );
    }

    /// Issue 33, finding 4: a long secret cut before it was masked leaked its start.
    #[test]
    fn a_cut_secret_is_hidden_long_multi_line_quoted_and_unicode() {
        let secret: String = "pw-\"Ünï©ødé\" 🦀 line one\nline two ‹x› "
            .chars()
            .cycle()
            .take(310)
            .collect();
        let redactor = Redactor::new(&BTreeMap::from([("PW".to_owned(), secret.clone())]));
        let cut = |s: &str, n: usize| s.chars().take(n).collect::<String>() + "…";
        let debug = format!("{secret:?}");
        let json = json!(secret).to_string();
        for shown in [
            cut(&secret, 80),
            cut(&secret, 300),
            super::super::expect::quote(&secret),
            cut(&debug, 120),
            cut(&json, 200),
            secret.lines().nth(1).unwrap_or_default().to_owned(),
        ] {
            let hidden = redactor.text(&format!("value: {shown} end"));
            for window in secret.chars().collect::<Vec<_>>().windows(MIN_START) {
                let window: String = window.iter().collect();
                assert!(
                    window.trim().chars().count() < MIN_START || !hidden.contains(&window),
                    "{window:?} of the secret shows in {hidden:?}"
                );
            }
            assert!(
                hidden.starts_with("value: ") && hidden.ends_with(" end"),
                "{hidden}"
            );
        }
    }
}
