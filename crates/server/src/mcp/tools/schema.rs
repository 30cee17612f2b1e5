//! The tools' JSON Schemas as clients see them: generated from the argument and result types
//! by schemars, then made portable and compact.
//!
//! Portable (what the MCP Inspector's `--strict` lint and single-`type` clients expect):
//! subschemas inlined (no `$defs`/`$ref`, no `$schema`, so a draft-07 validator reads them
//! too), no nullable type arrays (an absent optional field is omitted, never `null`: results
//! go through [`super::structured`], which drops nulls), no Rust integer `format`s, no root
//! `title` naming a Rust type.
//!
//! Compact (the tool list is read by a model on every session, docs/TOOLS.md, "What a result
//! costs"): input schemas keep their per-field descriptions, which tell a model what to send,
//! but not `additionalProperties: false` (an unknown argument is refused with its name
//! anyway) nor the `minimum: 0` of every unsigned number; output schemas keep only the types
//! of a result's top-level fields: a nested object is `{"type": "object"}`, an array
//! `{"type": "array"}`. The fields' prose, and which are always present, is in docs/TOOLS.md.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use rmcp::model::JsonObject;
use std::borrow::Cow;

use schemars::generate::{Contract, SchemaSettings};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value};

/// Generated schemas by type and direction (`true`: output); each is built once per process.
/// Bounded by the fixed set of argument and result types (about 50 entries, 40 KB in all).
type Schemas = HashMap<(TypeId, bool), Arc<JsonObject>>;
static CACHE: LazyLock<Mutex<Schemas>> = LazyLock::new(Mutex::default);

/// The input schema of an argument type.
pub fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    cached::<T>(false)
}

/// The output schema of a result type.
pub fn output_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    cached::<T>(true)
}

fn cached<T: JsonSchema + 'static>(output: bool) -> Arc<JsonObject> {
    let key = (TypeId::of::<T>(), output);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    Arc::clone(
        cache
            .entry(key)
            .or_insert_with(|| Arc::new(generate::<T>(output))),
    )
}

fn generate<T: JsonSchema>(output: bool) -> JsonObject {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    settings.contract = if output {
        Contract::Serialize
    } else {
        Contract::Deserialize
    };
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(root) = &mut value {
        root.remove("title");
        root.remove("description");
    }
    portable(&mut value);
    if output {
        compact_output(&mut value, 0);
    } else {
        compact_input(&mut value);
    }
    match value {
        Value::Object(map) => map,
        // Every tool's arguments and result are objects.
        other => Map::from_iter([
            ("type".to_owned(), Value::from("object")),
            ("x".into(), other),
        ]),
    }
}

/// The schema of a value written to an element (`set_value.value`): text, a boolean or a
/// number.
pub(super) struct Scalar;

impl JsonSchema for Scalar {
    fn schema_name() -> Cow<'static, str> {
        "Scalar".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{"type": "string"}, {"type": "boolean"}, {"type": "number"}]
        })
    }
}

/// The schema of an item picked by title or by index (`select_option.option`).
pub(super) struct TitleOrIndex;

impl JsonSchema for TitleOrIndex {
    fn schema_name() -> Cow<'static, str> {
        "TitleOrIndex".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]
        })
    }
}

/// No nullable type arrays, no null branches, no `default: null`, no Rust number formats.
fn portable(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // A field that may be null is one that may be absent.
            let nullable: Vec<String> = match map.get("properties") {
                Some(Value::Object(properties)) => properties
                    .iter()
                    .filter(|(_, p)| allows_null(p))
                    .map(|(name, _)| name.clone())
                    .collect(),
                _ => Vec::new(),
            };
            if let Some(Value::Array(required)) = map.get_mut("required") {
                required.retain(|r| r.as_str().is_none_or(|r| !nullable.iter().any(|n| n == r)));
            }
            if map.get("default").is_some_and(Value::is_null) {
                map.remove("default");
            }
            let rust_format = map.get("format").and_then(Value::as_str).is_some_and(|f| {
                f.starts_with("int") || f.starts_with("uint") || f == "double" || f == "float"
            });
            if rust_format {
                map.remove("format");
            }
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            for key in ["anyOf", "oneOf"] {
                let Some(Value::Array(branches)) = map.get_mut(key) else {
                    continue;
                };
                branches.retain(|b| b.get("type").is_none_or(|t| t != "null"));
                if branches.len() == 1 {
                    // `anyOf: [X]` is X: fold it into this schema (its description stays).
                    if let Some(Value::Object(only)) = branches.pop() {
                        map.remove(key);
                        for (k, v) in only {
                            map.entry(k).or_insert(v);
                        }
                    }
                }
            }
            map.values_mut().for_each(portable);
        }
        Value::Array(items) => items.iter_mut().for_each(portable),
        _ => {}
    }
}

fn allows_null(schema: &Value) -> bool {
    let is_null = |t: &Value| t == "null";
    match schema.get("type") {
        Some(Value::Array(types)) if types.iter().any(is_null) => return true,
        Some(t) if is_null(t) => return true,
        _ => {}
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(allows_null))
    })
}

/// An input schema without what the server enforces anyway and a model does not need to be
/// told: `additionalProperties: false` and the lower bound 0 of unsigned numbers.
fn compact_input(value: &mut Value) {
    let Value::Object(map) = value else { return };
    map.remove("additionalProperties");
    if map.get("minimum").is_some_and(|m| m == 0) {
        map.remove("minimum");
    }
    map.values_mut().for_each(|v| match v {
        Value::Array(items) => items.iter_mut().for_each(compact_input),
        other => compact_input(other),
    });
}

/// An output schema says the type of each top-level field; a nested object is an object and
/// an array an array (docs/TOOLS.md describes them). No prose, no bounds, no `required`.
fn compact_output(value: &mut Value, depth: usize) {
    let Value::Object(map) = value else { return };
    map.remove("description");
    map.remove("minimum");
    map.remove("maximum");
    map.remove("default");
    map.remove("required");
    let kind = map.get("type").and_then(Value::as_str).map(str::to_owned);
    if depth >= 1 && matches!(kind.as_deref(), Some("object" | "array")) {
        map.retain(|k, _| k == "type");
        return;
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties
            .values_mut()
            .for_each(|p| compact_output(p, depth + 1));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            branches.iter_mut().for_each(|b| compact_output(b, depth));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(schemars::JsonSchema, serde::Serialize)]
    #[allow(dead_code)]
    struct Inner {
        /// Prose.
        a: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<String>,
    }

    #[derive(schemars::JsonSchema, serde::Serialize)]
    #[allow(dead_code)]
    struct Outer {
        /// Prose.
        inner: Inner,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<Inner>,
        list: Vec<Inner>,
        n: Option<u64>,
    }

    #[test]
    fn output_schemas_are_inlined_non_null_and_shallow() {
        let schema = Value::Object((*output_schema::<Outer>()).clone());
        assert_eq!(
            schema,
            serde_json::json!({
                "type": "object",
                "properties": {
                    "inner": {"type": "object"},
                    "maybe": {"type": "object"},
                    "list": {"type": "array"},
                    "n": {"type": "integer"},
                },
            })
        );
    }
}
