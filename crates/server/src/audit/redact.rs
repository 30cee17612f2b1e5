//! Turning a tool call's arguments into what the audit trail may keep. Safe fields — the
//! element acted on, action and direction names, named keys and shortcuts, option titles and
//! indexes, window geometry, counts and flags — are kept; `text`, `value` and any field not
//! known to be safe are replaced by their length (`{"text_len": 12}`). A field of the wrong
//! type (possible in a denied call) is treated as unknown, so a secret smuggled into an
//! `action` is never written either.

use serde_json::{Map, Value};

/// How one argument is kept.
enum Keep {
    /// The element acted on: the event's `target`, not part of the map.
    Target,
    /// The event's own `app` field: not repeated in the map.
    Skip,
    /// Written as given.
    Verbatim,
    /// Only its length, as `<name>_len`.
    Length,
}

/// Splits a call's arguments into the element acted on (the argument named `element`: the
/// tool's record says which, `target` for most, `from` for `drag`) and the redacted map
/// written as the line's `redacted`. `app` is left out: it is the event's own field, which
/// the caller fills from the arguments.
pub fn redact_args(
    element: &str,
    args: &Map<String, Value>,
) -> (Option<String>, Map<String, Value>) {
    let mut target = None;
    let mut redacted = Map::new();
    for (name, value) in args {
        match keep(element, name, value, args) {
            Keep::Target => target = value.as_str().map(str::to_owned),
            Keep::Skip => {}
            Keep::Verbatim => {
                redacted.insert(name.clone(), value.clone());
            }
            Keep::Length => {
                redacted.insert(format!("{name}_len"), Value::from(length(value)));
            }
        }
    }
    (target, redacted)
}

/// What an argument is, by its name, for the audit line.
#[derive(Clone, Copy)]
enum Rule {
    /// `app`: the event's own field.
    App,
    /// An element or menu path (`to`, `menu`): names UI the way `target` does.
    Path,
    /// A lowercase word (`press`, `down`, `left`).
    Word,
    /// A list of lowercase words (modifier names).
    Words,
    /// A key: kept when named or a shortcut, else typing (its length).
    Key,
    /// An option's title (shown in the UI) or its index.
    Option,
    Number,
    Flag,
    /// Free text the caller types, sets or copies: only its length, always.
    Text,
    /// A secret's name (`crate::secrets::check_name`): kept, so the trail says which was used.
    SecretName,
}

/// The rule of every argument name of a tool that changes something. A name missing here is
/// written as its length; a test holds every argument of every such tool to this table, and
/// every row to an argument, so the table is the list of what the trail may keep.
const RULES: &[(&str, Rule)] = &[
    ("app", Rule::App),
    ("target", Rule::Path),
    ("from", Rule::Path),
    ("to", Rule::Path),
    ("menu", Rule::Path),
    ("action", Rule::Word),
    ("direction", Rule::Word),
    ("button", Rule::Word),
    ("strategy", Rule::Word),
    ("modifiers", Rule::Words),
    ("key", Rule::Key),
    ("option", Rule::Option),
    ("count", Rule::Number),
    ("hold_ms", Rule::Number),
    ("amount", Rule::Number),
    ("x", Rule::Number),
    ("y", Rule::Number),
    ("w", Rule::Number),
    ("h", Rule::Number),
    ("to_x", Rule::Number),
    ("to_y", Rule::Number),
    ("timeout_ms", Rule::Number),
    ("seconds", Rule::Number),
    ("clear_first", Rule::Flag),
    ("force", Rule::Flag),
    ("draining", Rule::Flag),
    ("fallback", Rule::Flag),
    ("require_effect", Rule::Flag),
    // A session's tag (a hash prefix, as the trail names sessions), kept when it is one.
    ("tag", Rule::Word),
    ("text", Rule::Text),
    ("value", Rule::Text),
    // A launch's arguments and environment may carry secrets: their length only.
    ("arguments", Rule::Text),
    ("environment", Rule::Text),
    // The name of a secret typed instead of `text` or `value` (its value never is here).
    ("secret", Rule::SecretName),
];

fn rule(name: &str) -> Option<Rule> {
    RULES.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// The argument names the audit trail has a rule for.
pub fn ruled_names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|(n, _)| *n)
}

/// Whether the audit trail has a rule for an argument of this name (a test holds every
/// argument of every tool that changes something to it, so none is written by accident).
pub fn has_rule(name: &str) -> bool {
    rule(name).is_some()
}

fn keep(element: &str, name: &str, value: &Value, args: &Map<String, Value>) -> Keep {
    let ok = |safe: bool| if safe { Keep::Verbatim } else { Keep::Length };
    if name == element && value.is_string() {
        return Keep::Target;
    }
    match rule(name) {
        Some(Rule::App) if value.is_string() => Keep::Skip,
        Some(Rule::Path) => ok(value.is_string() && name != "target" && name != "from"),
        Some(Rule::Word) => ok(is_token(value)),
        Some(Rule::Words) => ok(value
            .as_array()
            .is_some_and(|items| items.iter().all(is_token))),
        Some(Rule::Key) => ok(is_safe_key(value, args)),
        Some(Rule::Option) => ok(value.is_string() || value.is_number()),
        Some(Rule::Number) => ok(value.is_number()),
        Some(Rule::Flag) => ok(value.is_boolean()),
        Some(Rule::SecretName) => ok(value
            .as_str()
            .is_some_and(|s| crate::secrets::check_name(s).is_ok())),
        // `text`, `value`, everything unknown, and a known name of the wrong type.
        _ => Keep::Length,
    }
}

/// A lowercase word such as `press`, `down` or `cmd`.
fn is_token(value: &Value) -> bool {
    value.as_str().is_some_and(|s| {
        (1..=32).contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// A named key (`return`, `f5`, `page_down`) or a shortcut (a character with cmd, ctrl or
/// opt). A single character pressed alone or with shift is typing, so only its length is
/// kept.
fn is_safe_key(value: &Value, args: &Map<String, Value>) -> bool {
    let Some(key) = value.as_str() else {
        return false;
    };
    let named = key.chars().count() > 1 && is_token(value);
    let shortcut = key.chars().count() == 1
        && args
            .get("modifiers")
            .and_then(Value::as_array)
            .is_some_and(|m| {
                m.iter()
                    .any(|m| matches!(m.as_str(), Some("cmd" | "ctrl" | "opt")))
            });
    named || shortcut
}

/// Characters of a string; the length of the JSON text of anything else (0 for null).
fn length(value: &Value) -> usize {
    match value {
        Value::Null => 0,
        Value::String(s) => s.chars().count(),
        other => other.to_string().len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(tool: &str, args: Value, target: Option<&str>, expect: Value) {
        let args = args.as_object().expect("an object").clone();
        let element = if tool == "drag" { "from" } else { "target" };
        let (t, redacted) = redact_args(element, &args);
        assert_eq!(t.as_deref(), target, "{tool}");
        assert_eq!(Value::Object(redacted), expect, "{tool}");
    }

    #[test]
    fn launch_arguments_and_environment_become_lengths() {
        check(
            "launch_app",
            json!({"app": "Notes", "arguments": ["--token", "s3cret"], "environment": {"API_KEY": "s3cret"}}),
            None,
            json!({"arguments_len": 20, "environment_len": 20}),
        );
    }

    #[test]
    fn typed_text_and_values_become_lengths() {
        check(
            "type_text",
            json!({"app": "Notes", "target": "e12", "text": "hunter2 pässword", "clear_first": true}),
            Some("e12"),
            json!({"text_len": 16, "clear_first": true}),
        );
        check(
            "set_value",
            json!({"app": "Safari", "target": "secure_text_field[0]", "value": "s3cret"}),
            Some("secure_text_field[0]"),
            json!({"value_len": 6}),
        );
        check(
            "set_value",
            json!({"app": "A", "target": "e1", "value": 1234}),
            Some("e1"),
            json!({"value_len": 4}),
        );
        check(
            "type_text",
            json!({"app": "A", "target": "e2", "secret": "GITHUB_PW"}),
            Some("e2"),
            json!({"secret": "GITHUB_PW"}),
        );
        check(
            "set_value",
            json!({"app": "A", "target": "e2", "secret": "not a name: hunter2"}),
            Some("e2"),
            json!({"secret_len": 19}),
        );
        check(
            "write_clipboard",
            json!({"text": "token-abc"}),
            None,
            json!({"text_len": 9}),
        );
    }

    #[test]
    fn safe_fields_are_kept() {
        check(
            "click",
            json!({"app": "A", "target": "window[0]/button[\"OK\"]", "button": "left", "count": 2, "strategy": "auto"}),
            Some("window[0]/button[\"OK\"]"),
            json!({"button": "left", "count": 2, "strategy": "auto"}),
        );
        check(
            "perform_action",
            json!({"app": "A", "target": "e3", "action": "press"}),
            Some("e3"),
            json!({"action": "press"}),
        );
        check(
            "select_option",
            json!({"app": "A", "target": "e4", "option": "Large"}),
            Some("e4"),
            json!({"option": "Large"}),
        );
        check(
            "select_option",
            json!({"app": "A", "target": "e4", "option": 2}),
            Some("e4"),
            json!({"option": 2}),
        );
        check(
            "scroll",
            json!({"app": "A", "target": "e5", "direction": "down", "amount": 3}),
            Some("e5"),
            json!({"direction": "down", "amount": 3}),
        );
        check(
            "window_action",
            json!({"app": "A", "target": "window[0]", "action": "move", "x": 10, "y": 20.5}),
            Some("window[0]"),
            json!({"action": "move", "x": 10, "y": 20.5}),
        );
        check(
            "drag",
            json!({"app": "A", "from": "e1", "to": "e2"}),
            Some("e1"),
            json!({"to": "e2"}),
        );
    }

    #[test]
    fn keys_are_kept_only_when_they_are_not_typing() {
        check(
            "press_key",
            json!({"app": "A", "key": "return", "modifiers": []}),
            None,
            json!({"key": "return", "modifiers": []}),
        );
        check(
            "press_key",
            json!({"app": "A", "key": "s", "modifiers": ["cmd"]}),
            None,
            json!({"key": "s", "modifiers": ["cmd"]}),
        );
        check(
            "press_key",
            json!({"app": "A", "key": "x", "modifiers": ["shift"]}),
            None,
            json!({"key_len": 1, "modifiers": ["shift"]}),
        );
    }

    #[test]
    fn unknown_and_mistyped_fields_become_lengths() {
        check(
            "click",
            json!({"app": "A", "target": "e1", "password": "pw", "action": "Hunter2 secret", "count": "2"}),
            Some("e1"),
            json!({"password_len": 2, "action_len": 14, "count_len": 1}),
        );
        check(
            "perform_action",
            json!({"app": 5, "target": ["x"], "modifiers": ["cmd", "S3cret!"]}),
            None,
            json!({"app_len": 1, "target_len": 5, "modifiers_len": 17}),
        );
    }
}
