//! W3C Perform Actions (`POST /session/{id}/actions`) and Release Actions (`DELETE`), as
//! the engine's acts: key sources press keys (`press_key`) with the modifiers held down
//! at that moment; a pointer's down and up at one place is a click of the element there
//! (`click`: button 0 left, 2 right; two in a row a double click; held for 500 ms or more of
//! pauses a long press), down, a move and up is a `drag`; a move without a button down
//! followed by no press is a hover; a wheel source is `scroll`. Modifiers stay held across
//! ticks and sources until their key goes up or the actions are released, and every pointer
//! act holds them (Control on a left click makes it a right one on macOS). The action types are the few W3C defines, read here from JSON:
//! Mozilla's `webdriver` crate would bring its HTTP server's dependencies for them
//! (docs/WEBDRIVER.md).

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::elements::{Caller, ELEMENT_KEY};
use super::sessions::{Input, PendingClick};
use axgate_engine::backend::MAX_HOLD;
use axgate_webdriver::keys::{self, Key};
use axgate_webdriver::{ErrorCode, WdError};

/// The longest pause honoured (a longer one is cut to it).
const MAX_PAUSE: Duration = Duration::from_secs(60);
/// A button held at one place at least this long before its release is a long press
/// (docs/WEBDRIVER.md, "W3C actions").
const LONG_PRESS: Duration = Duration::from_millis(500);
/// Points per line of the engine's scroll: W3C's wheel and XCTest's deltas are in points,
/// the engine scrolls by lines.
const POINTS_PER_LINE: f64 = 10.0;

/// One action of one source, in tick order.
struct Step<'a> {
    source: &'a str,
    action: &'a Map<String, Value>,
}

fn bad(message: impl Into<String>) -> WdError {
    WdError::invalid_argument(message)
}

fn unsupported(message: impl Into<String>) -> WdError {
    WdError::new(ErrorCode::UnsupportedOperation, message)
}

/// The actions of every source, tick by tick (the n-th action of each source, in order).
fn ticks(body: &Value) -> Result<Vec<Step<'_>>, WdError> {
    let sources = body
        .get("actions")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("perform actions takes {\"actions\": [sources]}"))?;
    let mut lists = Vec::new();
    for source in sources {
        let kind = source
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("each action source needs a `type`: key, pointer, wheel or none"))?;
        if !matches!(kind, "key" | "pointer" | "wheel" | "none") {
            return Err(bad(format!("action source type {kind:?} is not a W3C one")));
        }
        if kind == "pointer" {
            let pointer = source
                .pointer("/parameters/pointerType")
                .and_then(Value::as_str)
                .unwrap_or("mouse");
            if pointer != "mouse" {
                return Err(unsupported(format!(
                    "a {pointer} pointer is not served; axgate's pointer is a mouse"
                )));
            }
        }
        let actions = source
            .get("actions")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("each action source needs `actions`: a list"))?;
        let mut list = Vec::new();
        for action in actions {
            let action = action
                .as_object()
                .ok_or_else(|| bad("each action is an object with a `type`"))?;
            list.push(Step {
                source: kind,
                action,
            });
        }
        lists.push(list.into_iter());
    }
    let mut steps = Vec::new();
    loop {
        let before = steps.len();
        for list in &mut lists {
            steps.extend(list.next());
        }
        if steps.len() == before {
            return Ok(steps);
        }
    }
}

fn coordinate(action: &Map<String, Value>, key: &str) -> Result<f64, WdError> {
    match action.get(key) {
        None | Some(Value::Null) => Ok(0.0),
        Some(v) => v
            .as_f64()
            .filter(|n| n.is_finite())
            .ok_or_else(|| bad(format!("`{key}` must be a number"))),
    }
}

fn the_key(action: &Map<String, Value>) -> Result<Key, WdError> {
    let value = action
        .get("value")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("a key action needs `value`: one key"))?;
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => keys::w3c_key(c),
        _ => Err(bad(format!(
            "a key action's value is one key, not {value:?}"
        ))),
    }
}

impl Caller<'_> {
    /// Perform Actions.
    pub(super) async fn actions(&self, body: &Value) -> Result<Value, WdError> {
        let steps = ticks(body)?;
        let mut input = self.session.input.lock().await;
        let result = self.run(&steps, &mut input).await;
        // A click still waiting to see whether a second one follows lands now, and a pointer
        // moved without pressing rests there.
        let flushed = self.flush(&mut input).await;
        let hovered = match flushed {
            Ok(()) => self.hover(&mut input).await,
            Err(e) => Err(e),
        };
        result.and(hovered).map(|()| Value::Null)
    }

    /// Release Actions: every key and button let go, nothing pressed.
    pub(super) async fn release(&self) -> Result<Value, WdError> {
        let mut input = self.session.input.lock().await;
        let flushed = self.flush(&mut input).await;
        input.modifiers.clear();
        input.down = None;
        input.hovering = false;
        flushed.map(|()| Value::Null)
    }

    async fn run(&self, steps: &[Step<'_>], input: &mut Input) -> Result<(), WdError> {
        for step in steps {
            let kind = step
                .action
                .get("type")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("each action needs a `type`"))?;
            match (step.source, kind) {
                (_, "pause") => {
                    let ms = step
                        .action
                        .get("duration")
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                    let pause = Duration::from_millis(ms).min(MAX_PAUSE);
                    if input.down.is_some() {
                        // A button held through the pause: the engine holds it (a long press).
                        input.held_for += pause;
                    } else if !pause.is_zero() {
                        // A pointer moved there rests there while the pause runs (a tooltip);
                        // the zero pauses that keep other sources in step are no rest.
                        self.hover(input).await?;
                        tokio::time::sleep(pause).await;
                    }
                }
                ("key", "keyDown") => match the_key(step.action)? {
                    Key::Modifier(m) => {
                        // A click waiting for a second one lands with the keys held as it
                        // was made.
                        self.flush(input).await?;
                        if !input.modifiers.contains(&m) {
                            input.modifiers.push(m);
                        }
                    }
                    key => {
                        self.flush(input).await?;
                        self.tool(
                            "press_key",
                            json!({
                                "app": self.session.app_ref,
                                "key": keys::press_name(key),
                                "modifiers": input.modifiers,
                            }),
                        )
                        .await?;
                    }
                },
                ("key", "keyUp") => {
                    if let Key::Modifier(m) = the_key(step.action)? {
                        self.flush(input).await?;
                        input.modifiers.retain(|held| *held != m);
                    }
                }
                ("pointer", "pointerMove") => {
                    let to = self.destination(step.action, input.pointer).await?;
                    if input.pending.is_some_and(|p| p.point != to) {
                        self.flush(input).await?;
                    }
                    input.hovering =
                        input.down.is_none() && (input.hovering || to != input.pointer);
                    input.pointer = to;
                }
                ("pointer", "pointerDown") => {
                    let button = button(step.action)?;
                    if input
                        .pending
                        .is_some_and(|p| p.point != input.pointer || p.button != button)
                    {
                        self.flush(input).await?;
                    }
                    input.down = Some((button, input.pointer));
                    input.held_for = Duration::ZERO;
                    input.hovering = false;
                }
                ("pointer", "pointerUp") => {
                    let button = button(step.action)?;
                    let Some((down, from)) = input.down.take() else {
                        continue;
                    };
                    if down != button {
                        return Err(bad("pointerUp names another button than pointerDown"));
                    }
                    if from == input.pointer && input.held_for >= LONG_PRESS {
                        self.flush(input).await?;
                        self.long_press(input, button).await?;
                    } else if from == input.pointer {
                        match &mut input.pending {
                            Some(p) if p.point == from && p.button == button && p.count < 2 => {
                                p.count += 1;
                            }
                            _ => {
                                self.flush(input).await?;
                                input.pending = Some(PendingClick {
                                    point: from,
                                    button,
                                    count: 1,
                                });
                            }
                        }
                    } else {
                        self.flush(input).await?;
                        self.pointer_drag(input, from).await?;
                    }
                }
                ("wheel", "scroll") => {
                    self.flush(input).await?;
                    input.hovering = false;
                    self.wheel(step.action, input).await?;
                }
                (source, kind) => {
                    return Err(bad(format!(
                        "{kind:?} is not an action of a {source} source"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Where a `pointerMove` (or a wheel's `x`/`y`) lands: from the viewport (the screen's
    /// top left), the pointer, or an element's centre.
    async fn destination(
        &self,
        action: &Map<String, Value>,
        pointer: (f64, f64),
    ) -> Result<(f64, f64), WdError> {
        let (x, y) = (coordinate(action, "x")?, coordinate(action, "y")?);
        match action.get("origin") {
            None | Some(Value::Null) => Ok((x, y)),
            Some(Value::String(o)) if o == "viewport" => Ok((x, y)),
            Some(Value::String(o)) if o == "pointer" => Ok((pointer.0 + x, pointer.1 + y)),
            Some(Value::Object(reference)) => {
                let id = reference
                    .get(ELEMENT_KEY)
                    .or_else(|| reference.get("ELEMENT"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("an element origin is an element reference"))?;
                let (_, resolved) = self.resolve(id).await?;
                let frame = resolved.node.frame.ok_or_else(|| {
                    WdError::new(
                        ErrorCode::ElementNotInteractable,
                        format!("element {id} has no frame on screen"),
                    )
                })?;
                let (cx, cy) = frame.center();
                Ok((cx + x, cy + y))
            }
            Some(other) => Err(bad(format!(
                "origin {other} is not viewport, pointer or an element"
            ))),
        }
    }

    /// Lands the click waiting for a possible second one.
    async fn flush(&self, input: &mut Input) -> Result<(), WdError> {
        let Some(click) = input.pending.take() else {
            return Ok(());
        };
        let button = pointer_button(click.button)?;
        let count = if button == "right" { 1 } else { click.count };
        let how = json!({"button": button, "count": count});
        self.click_at(input, click.point, how).await
    }

    /// A button held at one place for [`LONG_PRESS`] or more, then released: a long press
    /// of as long (at most the engine's longest hold), with the keys held.
    async fn long_press(&self, input: &Input, button: u8) -> Result<(), WdError> {
        let button = pointer_button(button)?;
        let hold = input.held_for.min(MAX_HOLD).as_millis() as u64;
        let how = json!({"button": button, "hold_ms": hold});
        self.click_at(input, input.pointer, how).await
    }

    /// Rests the pointer where it was moved without pressing (the `click` tool's hover).
    async fn hover(&self, input: &mut Input) -> Result<(), WdError> {
        if !std::mem::take(&mut input.hovering) {
            return Ok(());
        }
        self.click_at(input, input.pointer, json!({"count": 0}))
            .await
    }

    /// The `click` tool on the element at `at` with the keys held and the arguments `how`.
    async fn click_at(&self, input: &Input, at: (f64, f64), how: Value) -> Result<(), WdError> {
        let target = self.point_element(at).await?;
        let mut call = json!({
            "app": self.session.app_ref,
            "target": target,
            "modifiers": input.modifiers,
        });
        if let (Some(call), Value::Object(how)) = (call.as_object_mut(), how) {
            call.extend(how);
        }
        self.tool("click", call).await?;
        Ok(())
    }

    async fn point_element(&self, (x, y): (f64, f64)) -> Result<String, WdError> {
        self.element_at(x, y).await
    }

    /// A press at `from` released at the pointer: a drag with the left button and the keys
    /// held.
    async fn pointer_drag(&self, input: &Input, from: (f64, f64)) -> Result<(), WdError> {
        let source = self.point_element(from).await?;
        let (to_x, to_y) = input.pointer;
        self.tool(
            "drag",
            json!({"app": self.session.app_ref, "from": source, "to_x": to_x, "to_y": to_y,
                   "modifiers": input.modifiers}),
        )
        .await?;
        Ok(())
    }

    /// A wheel `scroll`: at `x`/`y` from its origin, by `deltaX`/`deltaY` (positive: right
    /// and down, as W3C's wheel).
    async fn wheel(&self, action: &Map<String, Value>, input: &Input) -> Result<(), WdError> {
        let at = self.destination(action, input.pointer).await?;
        let target = self.point_element(at).await?;
        let (dx, dy) = (coordinate(action, "deltaX")?, coordinate(action, "deltaY")?);
        let axes = [(dy, "down", "up"), (dx, "right", "left")];
        self.scroll_lines(&target, axes, &input.modifiers).await
    }

    /// Scrolls `target` by a delta in points on each axis, in whole lines of the engine's
    /// `scroll` (1 to 100 a call); each axis names the direction of a positive delta and of
    /// a negative one. W3C's wheel (`wheel`) and Mac2's `macos: scroll` share it.
    pub(super) async fn scroll_lines(
        &self,
        target: &str,
        axes: [(f64, &str, &str); 2],
        modifiers: &[&str],
    ) -> Result<(), WdError> {
        for (delta, positive, negative) in axes {
            if delta == 0.0 {
                continue;
            }
            let lines = (delta.abs() / POINTS_PER_LINE).ceil().clamp(1.0, 100.0) as u64;
            self.tool(
                "scroll",
                json!({
                    "app": self.session.app_ref,
                    "target": target,
                    "direction": if delta > 0.0 { positive } else { negative },
                    "amount": lines,
                    "modifiers": modifiers,
                }),
            )
            .await?;
        }
        Ok(())
    }
}

/// The `click` tool's button of a W3C pointer button.
fn pointer_button(button: u8) -> Result<&'static str, WdError> {
    match button {
        0 => Ok("left"),
        2 => Ok("right"),
        other => Err(unsupported(format!(
            "pointer button {other} is not served; use 0 (left) or 2 (right)"
        ))),
    }
}

/// A pointer action's button (0 left, 1 middle, 2 right).
fn button(action: &Map<String, Value>) -> Result<u8, WdError> {
    match action.get("button") {
        None | Some(Value::Null) => Ok(0),
        Some(v) => v
            .as_u64()
            .filter(|b| *b <= 4)
            .map(|b| b as u8)
            .ok_or_else(|| bad("`button` is 0 to 4")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_interleave_the_sources() {
        let body = json!({"actions": [
            {"type": "key", "id": "k", "actions": [
                {"type": "keyDown", "value": "\u{E008}"}, {"type": "pause"},
                {"type": "keyUp", "value": "\u{E008}"}]},
            {"type": "pointer", "id": "m", "actions": [
                {"type": "pointerMove", "x": 1, "y": 2}, {"type": "pointerDown"}]},
        ]});
        let order: Vec<(&str, &str)> = ticks(&body)
            .unwrap()
            .iter()
            .map(|s| (s.source, s.action["type"].as_str().unwrap()))
            .collect();
        assert_eq!(
            order,
            [
                ("key", "keyDown"),
                ("pointer", "pointerMove"),
                ("key", "pause"),
                ("pointer", "pointerDown"),
                ("key", "keyUp"),
            ]
        );
        let pen = json!({"actions": [{"type": "pointer", "parameters": {"pointerType": "pen"},
            "actions": []}]});
        assert_eq!(
            ticks(&pen).err().unwrap().code,
            ErrorCode::UnsupportedOperation
        );
        assert_eq!(
            ticks(&json!({})).err().unwrap().code,
            ErrorCode::InvalidArgument
        );
    }
}
