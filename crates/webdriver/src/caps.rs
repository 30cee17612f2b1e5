//! Capabilities: the W3C merge of `alwaysMatch` with each `firstMatch` entry (a key in both is
//! an error; the first merged set that matches wins), then the Mac2 capabilities read from
//! it, the `appium:` prefix optional. Unknown capabilities are ignored, as Appium ignores
//! them; a known one of the wrong type is `invalid argument`.

use serde_json::{Map, Value};

use crate::error::{ErrorCode, WdError};

/// The Mac2 capabilities axgate acts on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Caps {
    /// `appium:bundleId`: the app to launch or attach to (on the demo backend its name or
    /// bundle id).
    pub bundle_id: Option<String>,
    /// `appium:appPath`: the app to launch by path.
    pub app_path: Option<String>,
    pub arguments: Vec<String>,
    pub environment: Vec<(String, String)>,
    /// Keep the app as it is between sessions (attach, never restart).
    pub no_reset: bool,
    /// Leave the app running when the session ends.
    pub skip_app_kill: bool,
    /// `appium:prerun` / `appium:postrun` AppleScript, refused unless an operator allows it.
    pub prerun: Option<Value>,
    pub postrun: Option<Value>,
    /// `appium:newCommandTimeout` in seconds: the session's idle timeout, when given.
    pub new_command_timeout: Option<u64>,
}

/// Merges a `POST /session` body's capabilities (W3C `capabilities`, else the legacy
/// `desiredCapabilities`) and reads the Mac2 ones.
pub fn from_body(body: &Value) -> Result<Caps, WdError> {
    let merged = merge(body)?;
    read(&merged)
}

/// The W3C merge: the first `alwaysMatch` + `firstMatch[i]` set whose `platformName` (if
/// any) is `mac` and whose `automationName` (if any) is `mac2`.
pub fn merge(body: &Value) -> Result<Map<String, Value>, WdError> {
    let Some(body) = body.as_object() else {
        return Err(WdError::invalid_argument(
            "the body of POST /session is a JSON object with `capabilities`",
        ));
    };
    let (always, first) = match body.get("capabilities") {
        Some(Value::Object(caps)) => {
            let always = match caps.get("alwaysMatch") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Err(WdError::invalid_argument("`alwaysMatch` is an object")),
            };
            let first = match caps.get("firstMatch") {
                None | Some(Value::Null) => vec![Map::new()],
                Some(Value::Array(list)) if !list.is_empty() => list
                    .iter()
                    .map(|v| {
                        v.as_object().cloned().ok_or_else(|| {
                            WdError::invalid_argument("each `firstMatch` entry is an object")
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(WdError::invalid_argument(
                        "`firstMatch` is a non-empty array of objects",
                    ));
                }
            };
            (always, first)
        }
        Some(_) => return Err(WdError::invalid_argument("`capabilities` is an object")),
        None => match body.get("desiredCapabilities") {
            Some(Value::Object(m)) => (m.clone(), vec![Map::new()]),
            _ => {
                return Err(WdError::invalid_argument(
                    "the body of POST /session has no `capabilities` object",
                ));
            }
        },
    };
    let mut last_mismatch = None;
    for entry in first {
        let mut merged = always.clone();
        for (k, v) in entry {
            if always.contains_key(&k) {
                return Err(WdError::invalid_argument(format!(
                    "capability {k:?} is in both `alwaysMatch` and `firstMatch`; give it once"
                )));
            }
            merged.insert(k, v);
        }
        match mismatch(&merged) {
            None => return Ok(merged),
            Some(why) => last_mismatch = Some(why),
        }
    }
    Err(WdError::new(
        ErrorCode::SessionNotCreated,
        last_mismatch.unwrap_or_else(|| "no capability set matched".into()),
    ))
}

/// Why a merged set does not match this server, if it does not.
fn mismatch(caps: &Map<String, Value>) -> Option<String> {
    if let Some(name) = get(caps, "platformName").and_then(Value::as_str)
        && !name.eq_ignore_ascii_case("mac")
        && !name.eq_ignore_ascii_case("macos")
    {
        return Some(format!(
            "platformName {name:?} is not served here: axgate answers as Mac2 (platformName \"mac\")"
        ));
    }
    if let Some(name) = get(caps, "automationName").and_then(Value::as_str)
        && !name.eq_ignore_ascii_case("mac2")
    {
        return Some(format!(
            "automationName {name:?} is not served here: use \"Mac2\" (or leave it out)"
        ));
    }
    None
}

/// A capability by its name, with or without the `appium:` prefix.
fn get<'a>(caps: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    caps.get(&format!("appium:{name}"))
        .or_else(|| caps.get(name))
        .filter(|v| !v.is_null())
}

fn string(caps: &Map<String, Value>, name: &str) -> Result<Option<String>, WdError> {
    match get(caps, name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(wrong(name, "a string")),
    }
}

fn boolean(caps: &Map<String, Value>, name: &str) -> Result<bool, WdError> {
    match get(caps, name) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(wrong(name, "true or false")),
    }
}

fn wrong(name: &str, what: &str) -> WdError {
    WdError::invalid_argument(format!("capability appium:{name} must be {what}"))
}

/// Reads the Mac2 capabilities from a merged set.
pub fn read(caps: &Map<String, Value>) -> Result<Caps, WdError> {
    let arguments = match get(caps, "arguments") {
        None => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| wrong("arguments", "an array of strings"))?,
        Some(_) => return Err(wrong("arguments", "an array of strings")),
    };
    let environment = match get(caps, "environment") {
        None => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
            .collect::<Option<_>>()
            .ok_or_else(|| wrong("environment", "an object of strings"))?,
        Some(_) => return Err(wrong("environment", "an object of strings")),
    };
    let new_command_timeout = match get(caps, "newCommandTimeout") {
        None => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|n| *n >= 0.0)
                .ok_or_else(|| wrong("newCommandTimeout", "a number of seconds"))?
                as u64,
        ),
    };
    Ok(Caps {
        bundle_id: string(caps, "bundleId")?,
        app_path: string(caps, "appPath")?,
        arguments,
        environment,
        no_reset: boolean(caps, "noReset")?,
        skip_app_kill: boolean(caps, "skipAppKill")?,
        prerun: get(caps, "prerun").cloned(),
        postrun: get(caps, "postrun").cloned(),
        new_command_timeout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn always_and_first_match_merge_with_or_without_the_prefix() {
        let body = json!({"capabilities": {
            "alwaysMatch": {"platformName": "mac", "appium:automationName": "Mac2"},
            "firstMatch": [{"appium:bundleId": "com.apple.TextEdit", "noReset": true,
                            "appium:arguments": ["-a"], "environment": {"K": "V"},
                            "somethingUnknown": 1}]
        }});
        let caps = from_body(&body).unwrap();
        assert_eq!(caps.bundle_id.as_deref(), Some("com.apple.TextEdit"));
        assert!(caps.no_reset && !caps.skip_app_kill);
        assert_eq!(caps.arguments, vec!["-a"]);
        assert_eq!(caps.environment, vec![("K".into(), "V".into())]);
    }

    #[test]
    fn the_first_matching_entry_wins() {
        let body = json!({"capabilities": {"firstMatch": [
            {"platformName": "iOS", "appium:bundleId": "a"},
            {"platformName": "mac", "appium:bundleId": "b"}
        ]}});
        assert_eq!(from_body(&body).unwrap().bundle_id.as_deref(), Some("b"));
    }

    #[test]
    fn bad_sets_are_refused_with_the_right_code() {
        let twice = json!({"capabilities": {"alwaysMatch": {"appium:bundleId": "a"},
                                            "firstMatch": [{"appium:bundleId": "b"}]}});
        assert_eq!(
            from_body(&twice).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        let other = json!({"capabilities": {"alwaysMatch": {"platformName": "Windows"}}});
        assert_eq!(
            from_body(&other).unwrap_err().code,
            ErrorCode::SessionNotCreated
        );
        let typed = json!({"capabilities": {"alwaysMatch": {"appium:noReset": "yes"}}});
        let e = from_body(&typed).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(e.message.contains("noReset"), "{}", e.message);
        assert!(from_body(&json!([])).is_err());
    }

    #[test]
    fn legacy_desired_capabilities_are_read() {
        let body = json!({"desiredCapabilities": {"bundleId": "x", "prerun": {"script": "1"}}});
        let caps = from_body(&body).unwrap();
        assert_eq!(caps.bundle_id.as_deref(), Some("x"));
        assert!(caps.prerun.is_some());
    }
}
