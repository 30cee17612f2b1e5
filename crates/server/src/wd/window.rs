//! The window commands, on the session's app: `GET /window` (the focused window's handle),
//! `GET /window/handles`, `POST /window` (switch: focus it), `DELETE /window` (close it),
//! `GET`/`POST /window/rect` (move and resize), `/window/minimize`, `/window/maximize` (the
//! zoom button: a second call gives the size back, as macOS's zoom does) and
//! `/window/fullscreen`, through the MCP tools `list_windows` and `window_action`. A window
//! handle is the window's element id, the one `list_windows` answers.

use serde_json::{Value, json};

use super::elements::Caller;
use axgate_webdriver::{ErrorCode, WdError};

/// One window as `list_windows` answers it.
struct Window {
    handle: String,
    focused: bool,
    minimized: bool,
    frame: Option<[f64; 4]>,
}

impl Caller<'_> {
    async fn windows(&self) -> Result<Vec<Window>, WdError> {
        let listed = self
            .tool("list_windows", json!({"app": self.session.app_ref}))
            .await?;
        let windows = listed
            .get("windows")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|w| {
                let frame = w.get("frame").and_then(|f| {
                    Some([
                        f.get("x")?.as_f64()?,
                        f.get("y")?.as_f64()?,
                        f.get("w")?.as_f64()?,
                        f.get("h")?.as_f64()?,
                    ])
                });
                Some(Window {
                    handle: w.get("handle")?.as_str()?.to_owned(),
                    focused: w.get("focused").and_then(Value::as_bool) == Some(true),
                    minimized: w.get("minimized").and_then(Value::as_bool) == Some(true),
                    frame,
                })
            })
            .collect();
        Ok(windows)
    }

    /// The current window: the focused one, else the first not minimized, else the first.
    async fn current(&self) -> Result<Window, WdError> {
        let mut windows = self.windows().await?;
        let pick = windows
            .iter()
            .position(|w| w.focused)
            .or_else(|| windows.iter().position(|w| !w.minimized))
            .unwrap_or(0);
        if windows.is_empty() {
            return Err(WdError::new(
                ErrorCode::NoSuchWindow,
                format!("{} has no window open", self.session.app.name),
            ));
        }
        Ok(windows.swap_remove(pick))
    }

    async fn window_action(&self, handle: &str, action: Value) -> Result<(), WdError> {
        let mut call = action;
        call["app"] = Value::String(self.session.app_ref.clone());
        call["target"] = Value::String(handle.to_owned());
        self.tool("window_action", call).await?;
        Ok(())
    }

    /// Every window command; `what` is the path after `/window`.
    pub(super) async fn window(
        &self,
        method: &str,
        what: &[&str],
        body: &Value,
    ) -> Result<Value, WdError> {
        match (method, what) {
            ("GET", []) => Ok(Value::String(self.current().await?.handle)),
            ("GET", ["handles"]) => Ok(Value::Array(
                self.windows()
                    .await?
                    .into_iter()
                    .map(|w| Value::String(w.handle))
                    .collect(),
            )),
            ("POST", []) => {
                let handle = body.get("handle").and_then(Value::as_str).ok_or_else(|| {
                    WdError::invalid_argument("switch to window takes {\"handle\": …}")
                })?;
                self.known(handle).await?;
                self.window_action(handle, json!({"action": "focus"}))
                    .await?;
                Ok(Value::Null)
            }
            ("DELETE", []) => {
                let handle = self.current().await?.handle;
                self.window_action(&handle, json!({"action": "close"}))
                    .await?;
                Ok(Value::Array(
                    self.windows()
                        .await?
                        .into_iter()
                        .map(|w| Value::String(w.handle))
                        .collect(),
                ))
            }
            ("GET", ["rect"]) => Ok(rect(&self.current().await?)),
            ("POST", ["rect"]) => self.set_rect(body).await,
            ("POST", ["minimize"]) => {
                let window = self.current().await?;
                self.window_action(&window.handle, json!({"action": "minimize"}))
                    .await?;
                Ok(rect(&window))
            }
            ("POST", [zoom @ ("maximize" | "fullscreen")]) => {
                let handle = self.current().await?.handle;
                self.window_action(&handle, json!({"action": zoom})).await?;
                self.rect_now(&handle).await
            }
            _ => Err(WdError::new(
                ErrorCode::UnknownCommand,
                format!(
                    "{method} /window/{} is not a window command axgate serves",
                    what.join("/")
                ),
            )),
        }
    }

    /// A handle must be one of the app's windows now.
    async fn known(&self, handle: &str) -> Result<(), WdError> {
        if self.windows().await?.iter().any(|w| w.handle == handle) {
            return Ok(());
        }
        Err(WdError::new(
            ErrorCode::NoSuchWindow,
            format!(
                "{handle:?} is not a window of {} now; GET /window/handles lists them",
                self.session.app.name
            ),
        ))
    }

    /// Set Window Rect: `x`/`y` move, `width`/`height` resize; the rect after.
    async fn set_rect(&self, body: &Value) -> Result<Value, WdError> {
        let field = |k: &str| -> Result<Option<f64>, WdError> {
            match body.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_f64()
                    .filter(|n| n.is_finite())
                    .map(Some)
                    .ok_or_else(|| WdError::invalid_argument(format!("`{k}` must be a number"))),
            }
        };
        let (x, y, w, h) = (field("x")?, field("y")?, field("width")?, field("height")?);
        if x.is_some() != y.is_some() || w.is_some() != h.is_some() {
            return Err(WdError::invalid_argument(
                "give x and y together, and width and height together",
            ));
        }
        if w.is_some_and(|w| w < 0.0) || h.is_some_and(|h| h < 0.0) {
            return Err(WdError::invalid_argument(
                "width and height cannot be negative",
            ));
        }
        let handle = self.current().await?.handle;
        if let (Some(x), Some(y)) = (x, y) {
            self.window_action(&handle, json!({"action": "move", "x": x, "y": y}))
                .await?;
        }
        if let (Some(w), Some(h)) = (w, h) {
            self.window_action(&handle, json!({"action": "resize", "w": w, "h": h}))
                .await?;
        }
        self.rect_now(&handle).await
    }

    /// A window's rect as it is now (W3C answers the rect after a window command).
    async fn rect_now(&self, handle: &str) -> Result<Value, WdError> {
        let after = self.windows().await?;
        let window = after.iter().find(|w| w.handle == handle).ok_or_else(|| {
            WdError::new(
                ErrorCode::NoSuchWindow,
                "the window closed while it was moved",
            )
        })?;
        Ok(rect(window))
    }
}

/// A window's rect in W3C shape.
fn rect(window: &Window) -> Value {
    let [x, y, w, h] = window.frame.unwrap_or_default();
    json!({"x": x, "y": y, "width": w, "height": h})
}
