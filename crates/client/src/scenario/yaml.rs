//! A YAML node (`marked-yaml`) as JSON, the way a scenario's values read: quoted text stays
//! text, plain scalars become `null`, booleans and numbers when they read as one.

use marked_yaml::Node;
use marked_yaml::types::MarkedScalarNode;
use serde_json::{Number, Value};

/// A YAML node as JSON: a quoted scalar is a string; a plain one is `null`, a boolean or a
/// number when it reads as one, else a string.
pub fn json_of(node: &Node) -> Value {
    match node {
        Node::Scalar(s) => scalar(s),
        Node::Sequence(items) => Value::Array(items.iter().map(json_of).collect()),
        Node::Mapping(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.as_str().to_owned(), json_of(v)))
                .collect(),
        ),
    }
}

fn scalar(s: &MarkedScalarNode) -> Value {
    let text = s.as_str();
    if !s.may_coerce() {
        return Value::String(text.to_owned());
    }
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Value::Null;
    }
    if let Some(b) = s.as_bool() {
        return Value::Bool(b);
    }
    if let Ok(i) = text.parse::<i64>() {
        return Value::Number(i.into());
    }
    let numeric = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    if numeric && let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64) {
        return Value::Number(n);
    }
    Value::String(text.to_owned())
}
