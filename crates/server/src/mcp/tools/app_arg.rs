//! The `app` argument every app tool takes: a name, a bundle id, or a pid — and a pid may come
//! as a JSON number (`41001`) or a string (`"41001"`), since results show pids as numbers.
//! The engine resolves the text either way (`ax/engine`). Also the argument types of the
//! tools that take only `app`, or `app` and `target`.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer};

/// An `app` argument: the text the engine resolves. What it may be (name, bundle id or pid)
/// is said once, by list_apps, not in every schema.
pub(super) struct App(String);

impl Deref for App {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for App {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<App, D::Error> {
        d.deserialize_any(AppVisitor).map(App)
    }
}

/// The arguments of a tool that takes only an app.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct AppArgs {
    pub(super) app: App,
}

/// The arguments of a tool that takes an app and one of its elements.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct TargetArgs {
    pub(super) app: App,
    /// The element (path or handle).
    pub(super) target: String,
}

struct AppVisitor;

impl Visitor<'_> for AppVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an app name, a bundle id, or a pid (a whole number above 0)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        if v == 0 || v > u64::from(u32::MAX) {
            return Err(E::invalid_value(de::Unexpected::Unsigned(v), &self));
        }
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
        }
    }
}

/// The schema of an `app` argument: a string. A pid is also taken as a JSON number
/// (its `Deserialize`), but the schema says only "string": the one-type schema costs a third
/// of the `anyOf` in every app tool of the list a model reads, and a pid as text works
/// everywhere.
impl JsonSchema for App {
    fn schema_name() -> Cow<'static, str> {
        "App".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string"})
    }
}

#[cfg(test)]
mod tests {
    use super::AppArgs;

    fn app(v: serde_json::Value) -> Result<String, String> {
        serde_json::from_value::<AppArgs>(serde_json::json!({ "app": v }))
            .map(|a| a.app.to_string())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_pid_may_be_a_number_or_a_string() {
        assert_eq!(app(41001.into()).unwrap(), "41001");
        assert_eq!(app("41001".into()).unwrap(), "41001");
        assert_eq!(app("Form".into()).unwrap(), "Form");
        for bad in [
            serde_json::json!(0),
            serde_json::json!(-3),
            serde_json::json!(true),
        ] {
            let err = app(bad.clone()).unwrap_err();
            assert!(
                err.contains("expected an app name, a bundle id, or a pid"),
                "{bad}: {err}"
            );
        }
    }
}
