//! Execute Script (`POST /session/{id}/execute/sync` and `/execute/async`) for Mac2's
//! `macos:` extension commands (docs/WEBDRIVER.md, "Extension commands"). Each runs the MCP
//! tool that does the same (`click`, `scroll`, `drag`, `press_key`, `type_text`,
//! `launch_app`, `quit_app`, `activate_app`, the clipboard tools, `screenshot`) through the
//! bridge, so scope, policy, the destructive-act decision on the element acted on and the
//! audit line are the tool's. A point (`x`/`y`) becomes the element under it (the MCP tool
//! `element_at`), which the act then names. Any other script is `unsupported operation`:
//! axgate runs no JavaScript and, unless an operator allows it, no AppleScript.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::bridge::call_tool;
use super::elements::Caller;
use super::script::{self, Script};
use crate::identity::Principal;
use axgate_engine::backend::MAX_HOLD;
use axgate_engine::launch::asked_names;
use axgate_webdriver::keys::{self, Key};
use axgate_webdriver::{ErrorCode, WdError};

/// Mac2's numbers for an app's state (XCUIApplicationState).
const NOT_RUNNING: u8 = 1;
const RUNNING_BACKGROUND: u8 = 3;
const RUNNING_FOREGROUND: u8 = 4;

/// The script's arguments: Mac2 documents `args` as a list whose first item is the object
/// (WebdriverIO, Selenium); the Python client's dict arrives as that list too. An object
/// given directly is taken as well.
fn arguments(body: &Value) -> Result<Map<String, Value>, WdError> {
    let first = match body.get("args") {
        None | Some(Value::Null) => return Ok(Map::new()),
        Some(Value::Array(items)) => items.first().cloned().unwrap_or(Value::Null),
        Some(other) => other.clone(),
    };
    match first {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        _ => Err(WdError::invalid_argument(
            "a macos: command takes its arguments as one object: {\"script\": \"macos: click\", \"args\": [{…}]}",
        )),
    }
}

fn number(args: &Map<String, Value>, key: &str) -> Result<Option<f64>, WdError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| WdError::invalid_argument(format!("`{key}` must be a number"))),
    }
}

fn text<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, WdError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(WdError::invalid_argument(format!(
            "`{key}` must be a string"
        ))),
    }
}

/// The `press_key` modifiers of `keyModifierFlags` (or another flags key).
fn flags(args: &Map<String, Value>, key: &str) -> Result<Vec<&'static str>, WdError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => keys::modifiers(v.as_u64().ok_or_else(|| {
            WdError::invalid_argument(format!("`{key}` must be a whole number of Mac2 bits"))
        })?),
    }
}

fn unsupported(message: impl Into<String>) -> WdError {
    WdError::new(ErrorCode::UnsupportedOperation, message)
}

impl Caller<'_> {
    /// Runs MCP tool `tool` in this session.
    pub(super) async fn tool(&self, tool: &'static str, args: Value) -> Result<Value, WdError> {
        call_tool(self.session.callee(), self.parts, tool, args).await
    }

    /// Execute Script: a `macos:` command, else `unsupported operation`.
    pub(super) async fn execute(&self, body: &Value) -> Result<Value, WdError> {
        let Some(script) = body.get("script").and_then(Value::as_str) else {
            return Err(WdError::invalid_argument(
                "execute takes {\"script\": \"macos: <command>\", \"args\": [{…}]}",
            ));
        };
        let Some(command) = script.trim().strip_prefix("macos:").map(str::trim) else {
            return Err(unsupported(
                "axgate runs no JavaScript; Execute Script serves Mac2's `macos: <command>` \
                 extension commands (docs/WEBDRIVER.md lists them)",
            ));
        };
        let args = arguments(body)?;
        match command {
            "click" | "rightClick" | "doubleClick" | "tap" | "doubleTap" | "hover" | "press" => {
                self.click(command, &args).await
            }
            "scroll" => self.scroll(&args).await,
            "swipe" => self.swipe(&args).await,
            "clickAndDrag" | "clickAndDragAndHold" | "pressAndDrag" | "pressAndDragAndHold" => {
                self.drag(&args).await
            }
            "keys" => self.keys(&args).await,
            "source" => self.macos_source(&args).await,
            "screenshots" => self.screenshots(&args).await,
            "launchApp" | "activateApp" | "terminateApp" | "queryAppState" => {
                self.app_command(command, &args).await
            }
            "getClipboard" => self.get_clipboard(&args).await,
            "setClipboard" => self.set_clipboard(&args).await,
            "appleScript" => self.apple_script(&args).await,
            other => Err(unsupported(format!(
                "macos: {other} is not served by axgate; docs/WEBDRIVER.md lists the macos: \
                 commands it runs"
            ))),
        }
    }

    /// The element a command names: `elementId` (with `x`/`y` as an offset from its top
    /// left), else the element under the absolute point `x`/`y`. Its id.
    async fn target(
        &self,
        args: &Map<String, Value>,
        id_key: &str,
        x_key: &str,
        y_key: &str,
    ) -> Result<String, WdError> {
        let id = text(args, id_key)?;
        let point = match (number(args, x_key)?, number(args, y_key)?) {
            (Some(x), Some(y)) => Some((x, y)),
            (None, None) => None,
            _ => {
                return Err(WdError::invalid_argument(format!(
                    "give both `{x_key}` and `{y_key}`, or neither"
                )));
            }
        };
        match (id, point) {
            (Some(id), None) => {
                self.resolve(id).await?;
                Ok(id.to_owned())
            }
            (Some(id), Some((dx, dy))) => {
                let (_, resolved) = self.resolve(id).await?;
                let frame = resolved.node.frame.ok_or_else(|| {
                    WdError::new(
                        ErrorCode::ElementNotInteractable,
                        format!("element {id} has no frame on screen to offset from"),
                    )
                })?;
                self.element_at(frame.x + dx, frame.y + dy).await
            }
            (None, Some((x, y))) => self.element_at(x, y).await,
            (None, None) => Err(WdError::invalid_argument(format!(
                "name the element: `{id_key}`, or the point `{x_key}`/`{y_key}`"
            ))),
        }
    }

    /// The app's element under a global point (the MCP tool `element_at`); its id.
    pub(super) async fn element_at(&self, x: f64, y: f64) -> Result<String, WdError> {
        let found = self
            .tool(
                "element_at",
                json!({"app": self.session.app_ref, "x": x, "y": y}),
            )
            .await
            .map_err(|e| match e.code {
                ErrorCode::UnknownError => WdError::new(ErrorCode::NoSuchElement, e.message),
                _ => e,
            })?;
        found
            .pointer("/element/handle")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                WdError::new(
                    ErrorCode::NoSuchElement,
                    format!("no element of {} at ({x}, {y})", self.session.app.name),
                )
            })
    }

    /// `click`, `rightClick`, `doubleClick`, `tap` (a click), `doubleTap` (a double click),
    /// `hover` (the pointer rests, nothing pressed) and `press` (a long press of `duration`
    /// seconds): the `click` tool with the keys of `keyModifierFlags` held.
    async fn click(&self, command: &str, args: &Map<String, Value>) -> Result<Value, WdError> {
        let modifiers = flags(args, "keyModifierFlags")?;
        let hold_ms = match command {
            "press" => {
                let seconds = number(args, "duration")?.unwrap_or(1.0);
                let most = MAX_HOLD.as_secs_f64();
                if !(0.0..=most).contains(&seconds) {
                    return Err(WdError::invalid_argument(format!(
                        "`duration` is the press's length in seconds, 0 to {most}"
                    )));
                }
                Some((seconds * 1000.0).round() as u64)
            }
            _ => None,
        };
        let target = self.target(args, "elementId", "x", "y").await?;
        let (button, count) = match command {
            "rightClick" => ("right", 1),
            "doubleClick" | "doubleTap" => ("left", 2),
            "hover" => ("left", 0),
            _ => ("left", 1),
        };
        let mut call = json!({
            "app": self.session.app_ref,
            "target": target,
            "button": button,
            "count": count,
            "modifiers": modifiers,
        });
        if let Some(ms) = hold_ms {
            call["hold_ms"] = json!(ms);
        }
        self.tool("click", call).await?;
        Ok(Value::Null)
    }

    /// `scroll`: `deltaX`/`deltaY` in points (positive: towards the top and the left, as
    /// XCTest's scroll wheel), in lines of the engine's scroll.
    async fn scroll(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        let modifiers = flags(args, "keyModifierFlags")?;
        let dx = number(args, "deltaX")?.unwrap_or(0.0);
        let dy = number(args, "deltaY")?.unwrap_or(0.0);
        if !dx.is_finite() || !dy.is_finite() {
            return Err(WdError::invalid_argument(
                "deltaX and deltaY must be finite",
            ));
        }
        let target = self.target(args, "elementId", "x", "y").await?;
        let axes = [(dy, "up", "down"), (dx, "left", "right")];
        self.scroll_lines(&target, axes, &modifiers).await?;
        Ok(Value::Null)
    }

    /// `swipe`: a swipe up moves the content up, showing what is below: the engine's
    /// scroll down, three lines.
    async fn swipe(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        let modifiers = flags(args, "keyModifierFlags")?;
        let direction = match text(args, "direction")? {
            Some("up") => "down",
            Some("down") => "up",
            Some("left") => "right",
            Some("right") => "left",
            _ => {
                return Err(WdError::invalid_argument(
                    "`direction` must be up, down, left or right",
                ));
            }
        };
        let target = self.target(args, "elementId", "x", "y").await?;
        self.tool(
            "scroll",
            json!({"app": self.session.app_ref, "target": target, "direction": direction,
                   "modifiers": modifiers}),
        )
        .await?;
        Ok(Value::Null)
    }

    /// The drag variants: from `sourceElementId` (or the element at `startX`/`startY`) to
    /// `destinationElementId` or the point `endX`/`endY`. Durations and velocity are not
    /// the engine's to choose (it drags at its own pace).
    async fn drag(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        let modifiers = flags(args, "keyModifierFlags")?;
        let from = self
            .target(args, "sourceElementId", "startX", "startY")
            .await?;
        let mut call = json!({"app": self.session.app_ref, "from": from, "modifiers": modifiers});
        if let Some(to) = text(args, "destinationElementId")? {
            self.resolve(to).await?;
            call["to"] = Value::String(to.to_owned());
        } else {
            match (number(args, "endX")?, number(args, "endY")?) {
                (Some(x), Some(y)) => {
                    call["to_x"] = json!(x);
                    call["to_y"] = json!(y);
                }
                _ => {
                    return Err(WdError::invalid_argument(
                        "name where to drop: `destinationElementId`, or `endX` and `endY`",
                    ));
                }
            }
        }
        self.tool("drag", call).await?;
        Ok(Value::Null)
    }

    /// `keys`: each item a string (text, or an XCUIKeyboardKey constant) or `{key,
    /// modifierFlags}`; to `elementId` (focused first) or the app's focused element.
    async fn keys(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        let Some(Value::Array(items)) = args.get("keys") else {
            return Err(WdError::invalid_argument(
                "macos: keys takes {\"keys\": [\"text\" or {\"key\": …, \"modifierFlags\": …}]}",
            ));
        };
        let mut target = match text(args, "elementId")? {
            Some(id) => {
                self.resolve(id).await?;
                Some(id.to_owned())
            }
            None => None,
        };
        for item in items {
            let (key, modifiers) = match item {
                Value::String(s) => (s.as_str(), Vec::new()),
                Value::Object(o) => (
                    text(o, "key")?
                        .ok_or_else(|| WdError::invalid_argument("a key object needs `key`"))?,
                    flags(o, "modifierFlags")?,
                ),
                _ => {
                    return Err(WdError::invalid_argument(
                        "each of `keys` is a string or {\"key\", \"modifierFlags\"}",
                    ));
                }
            };
            let mut call = json!({"app": self.session.app_ref});
            // The element is focused by the first key; the rest follow the focus.
            if let Some(id) = target.take() {
                call["target"] = Value::String(id);
            }
            match (keys::xcui_key(key), modifiers.is_empty()) {
                (Some(Key::Modifier(m)), _) => {
                    return Err(unsupported(format!(
                        "a modifier ({m}) pressed alone is not sent; give it as modifierFlags of \
                         the key it modifies"
                    )));
                }
                (None, true) if !key.is_empty() => {
                    call["text"] = Value::String(key.to_owned());
                    self.tool("type_text", call).await?;
                }
                (None, true) => {}
                (named, _) => {
                    let name = match named {
                        Some(k) => keys::press_name(k),
                        None if key.chars().count() == 1 => key.to_owned(),
                        None => {
                            return Err(WdError::invalid_argument(format!(
                                "a key with modifierFlags is one character or an \
                                 XCUIKeyboardKey constant, not {} characters",
                                key.chars().count()
                            )));
                        }
                    };
                    call["key"] = Value::String(name);
                    call["modifiers"] = json!(modifiers);
                    self.tool("press_key", call).await?;
                }
            }
        }
        Ok(Value::Null)
    }

    /// `source` with `format` `xml` (the page source) or `description` (an outline).
    async fn macos_source(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        match text(args, "format")?.unwrap_or("xml") {
            "xml" => self.source().await,
            "description" => self.describe().await,
            other => Err(WdError::invalid_argument(format!(
                "source format {other:?} is not one Mac2 defines; use xml or description"
            ))),
        }
    }

    /// `screenshots`: Mac2 answers one PNG per display; axgate captures the app's own
    /// window only (never other apps'), answered as the main display's entry.
    async fn screenshots(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        if let Some(id) = number(args, "displayId")?.filter(|id| *id != 1.0) {
            return Err(WdError::invalid_argument(format!(
                "display {id} is not one axgate captures; its one picture is display 1, the \
                 app's window"
            )));
        }
        let payload = self.screenshot(None).await?;
        Ok(json!({"1": {"id": 1, "isMain": true, "payload": payload}}))
    }

    /// `launchApp`, `activateApp`, `terminateApp`, `queryAppState` on `bundleId` or `path`.
    async fn app_command(
        &self,
        command: &str,
        args: &Map<String, Value>,
    ) -> Result<Value, WdError> {
        let Some(app) = text(args, "bundleId")?.or(text(args, "path")?) else {
            return Err(WdError::invalid_argument(format!(
                "macos: {command} needs `bundleId` or `path`"
            )));
        };
        match command {
            "launchApp" => {
                let mut call = json!({"app": app});
                launch_extras(args, &mut call)?;
                self.tool("launch_app", call).await?;
                Ok(Value::Null)
            }
            "activateApp" => {
                self.tool("activate_app", json!({"app": app})).await?;
                Ok(Value::Null)
            }
            "terminateApp" => {
                self.tool("quit_app", json!({"app": app})).await?;
                Ok(Value::Null)
            }
            _ => {
                let listed = self.tool("list_apps", json!({})).await?;
                let apps = listed
                    .get("apps")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                // A path names the app its file name does (`/Applications/TextEdit.app`).
                let names = asked_names(app);
                let state = apps
                    .iter()
                    .find(|a| {
                        ["bundle_id", "name"].iter().any(|k| {
                            a.get(*k)
                                .and_then(Value::as_str)
                                .is_some_and(|v| names.iter().any(|n| n == v))
                        })
                    })
                    .map_or(NOT_RUNNING, |a| {
                        if a.get("frontmost").and_then(Value::as_bool) == Some(true) {
                            RUNNING_FOREGROUND
                        } else {
                            RUNNING_BACKGROUND
                        }
                    });
                Ok(json!(state))
            }
        }
    }

    /// `getClipboard`: the clipboard's text, base64 (Mac2's `plaintext`).
    pub(super) async fn get_clipboard(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        plaintext(args)?;
        let read = self.tool("read_clipboard", json!({})).await?;
        let text = read.get("text").and_then(Value::as_str).unwrap_or_default();
        Ok(Value::String(
            base64::engine::general_purpose::STANDARD.encode(text),
        ))
    }

    /// `setClipboard`: `content` base64 text (Mac2's `plaintext`).
    pub(super) async fn set_clipboard(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        plaintext(args)?;
        let content = text(args, "content")?
            .ok_or_else(|| WdError::invalid_argument("setClipboard needs `content` (base64)"))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(content)
            .map_err(|e| WdError::invalid_argument(format!("`content` is not base64: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| WdError::invalid_argument("`content` is not UTF-8 text once decoded"))?;
        self.tool("write_clipboard", json!({"text": text})).await?;
        Ok(Value::Null)
    }
}

/// The gestures that take `keyModifierFlags` but whose engine primitive holds no key.
/// Mac2's clipboard content types: axgate's clipboard is text.
fn plaintext(args: &Map<String, Value>) -> Result<(), WdError> {
    match text(args, "contentType")? {
        None | Some("plaintext") => Ok(()),
        Some(other) => Err(unsupported(format!(
            "clipboard content type {other:?} is not served; axgate's clipboard is plaintext"
        ))),
    }
}

/// `arguments` (strings) and `environment` (an object of strings) of a launch, as the
/// `launch_app` tool takes them; the engine checks them before anything starts.
fn launch_extras(args: &Map<String, Value>, call: &mut Value) -> Result<(), WdError> {
    let wrong = |k: &str, shape: &str| WdError::invalid_argument(format!("`{k}` is {shape}"));
    match args.get("arguments") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
            call["arguments"] = Value::Array(items.clone());
        }
        Some(_) => return Err(wrong("arguments", "an array of strings")),
    }
    match args.get("environment") {
        None | Some(Value::Null) => {}
        Some(Value::Object(vars)) if vars.values().all(Value::is_string) => {
            call["environment"] = Value::Object(vars.clone());
        }
        Some(_) => return Err(wrong("environment", "an object of strings")),
    }
    Ok(())
}

impl Caller<'_> {
    /// `macos: appleScript`: the script's output, when an operator allows scripts.
    async fn apple_script(&self, args: &Map<String, Value>) -> Result<Value, WdError> {
        let session = self.session;
        let shared = &session.shared;
        let principal = self.parts.extensions.get::<Principal>();
        script::admit(session.scripts_allowed(), shared, principal)?;
        let script = Script::from_args(&Value::Object(args.clone()), "macos: appleScript")?;
        let owner = &session.owner;
        let said = script::run_audited(shared, owner, &session.id, "appleScript", &script).await?;
        Ok(Value::String(said))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_are_the_first_item_of_a_list_or_an_object() {
        let a = arguments(&json!({"script": "macos: click", "args": [{"x": 1}]})).unwrap();
        assert_eq!(a.get("x"), Some(&json!(1)));
        let a = arguments(&json!({"args": {"x": 2}})).unwrap();
        assert_eq!(a.get("x"), Some(&json!(2)));
        assert!(arguments(&json!({"args": []})).unwrap().is_empty());
        assert!(arguments(&json!({})).unwrap().is_empty());
        assert_eq!(
            arguments(&json!({"args": [3]})).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }
}
