//! The commands on an app's elements: find (from the app or from an element, with the
//! session's implicit wait), the active element, page source, the element reads (text,
//! attribute, rect, enabled, selected, displayed, name) and acts (click, clear, value),
//! screenshots. Reads evaluate the crate `axgate_webdriver`'s locators over one snapshot
//! of the app; element ids are the session's engine handles.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::bridge::{call_tool, engine_error, refused};
use super::sessions::WdSession;
use crate::identity::Principal;
use axgate_engine::tree::{self, IndexedNode};
use axgate_engine::{AppConnection, CallStats, ElementPath, Resolved, SnapshotRequest, Target};
use axgate_webdriver::keys::{self, Stroke};
use axgate_webdriver::{Doc, El, ErrorCode, Strategy, WdError, find};

/// The W3C element key, and the legacy one Mac2 also answers with.
pub(super) const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
const LEGACY_KEY: &str = "ELEMENT";

/// Most elements one snapshot of an app reads (as `find` does).
const NODE_BUDGET: usize = 20_000;
/// How often an implicit wait looks again.
const POLL: Duration = Duration::from_millis(100);

/// The reference to element `id` in an answer.
pub(super) fn reference(id: &str) -> Value {
    json!({ ELEMENT_KEY: id, LEGACY_KEY: id })
}

/// What a command needs besides the session: the caller, for the gate.
pub(super) struct Caller<'a> {
    pub(super) session: &'a WdSession,
    pub(super) parts: &'a http::request::Parts,
}

impl Caller<'_> {
    fn principal(&self) -> Option<&Principal> {
        self.parts.extensions.get::<Principal>()
    }

    /// The gate of a read, as the MCP tool `tool` it stands for.
    async fn admit(&self, tool: &'static str) -> Result<(), WdError> {
        self.session
            .server
            .admit_outside(
                tool,
                &self.session.app.name,
                self.principal(),
                Some(&self.session.id),
            )
            .await
            .map_err(|r| refused(r, tool))
    }

    async fn conn(&self, stats: &CallStats) -> Result<std::sync::Arc<AppConnection>, WdError> {
        let connections = &self.session.server.state().connections;
        connections
            .open(&self.session_engine(), &self.session.app_ref, stats)
            .await
            .map_err(|e| engine_error(e, false))
    }

    fn session_engine(&self) -> std::sync::Arc<axgate_engine::Engine> {
        self.session.engine()
    }

    /// One snapshot of the whole app, indexed with paths, and its document.
    async fn snapshot(
        &self,
        conn: &AppConnection,
        stats: &CallStats,
    ) -> Result<(Vec<IndexedNode>, Doc), WdError> {
        let engine = self.session_engine();
        let request = SnapshotRequest {
            root: None,
            max_depth: 64,
            max_nodes: NODE_BUDGET,
            skip_children: 0,
        };
        let snapshot = engine
            .snapshot(&conn.app, request, engine.deadline(), stats)
            .await
            .map_err(|e| engine_error(e, false))?;
        let doc = Doc::from_nodes(&snapshot.nodes);
        Ok((tree::index(snapshot, &ElementPath::default()), doc))
    }

    /// The element a WebDriver id names, read now.
    pub(super) async fn resolve(
        &self,
        id: &str,
    ) -> Result<(std::sync::Arc<AppConnection>, Resolved), WdError> {
        let stats = CallStats::default();
        let conn = self.conn(&stats).await?;
        let target = Target::parse(id).map_err(|_| {
            WdError::new(
                ErrorCode::NoSuchElement,
                format!("{id:?} is not an element of this session"),
            )
        })?;
        let engine = self.session_engine();
        let resolved = conn
            .resolve(&engine, &target, &stats)
            .await
            .map_err(|e| engine_error(e, true))?;
        Ok((conn, resolved))
    }

    /// Find Element(s): `from` is an element id, or `None` for the app; `many` answers a
    /// list (possibly empty), else the first match or `no such element` once the implicit
    /// wait is over.
    pub(super) async fn find(
        &self,
        body: &Value,
        from: Option<&str>,
        many: bool,
    ) -> Result<Value, WdError> {
        let using = body.get("using").and_then(Value::as_str);
        let value = body.get("value").and_then(Value::as_str);
        let (Some(using), Some(value)) = (using, value) else {
            return Err(WdError::invalid_argument(
                "find takes {\"using\": <strategy>, \"value\": <selector>}",
            ));
        };
        let strategy = Strategy::parse(using, value)?;
        self.admit("find").await?;
        let deadline = Instant::now() + self.session.implicit_wait();
        loop {
            let stats = CallStats::default();
            let conn = self.conn(&stats).await?;
            let (nodes, doc) = self.snapshot(&conn, &stats).await?;
            let start = match from {
                None => None,
                Some(id) => Some(self.place(&conn, &nodes, id).await?),
            };
            let hits = find(&doc, &strategy, start)?;
            if !hits.is_empty() || Instant::now() >= deadline {
                let ids: Vec<Value> = hits
                    .iter()
                    .take(if many { usize::MAX } else { 1 })
                    .map(|&i| reference(&conn.mint(&nodes[i].node, &nodes[i].path)))
                    .collect();
                if many {
                    return Ok(Value::Array(ids));
                }
                return ids.into_iter().next().ok_or_else(|| {
                    WdError::new(
                        ErrorCode::NoSuchElement,
                        format!(
                            "no element matches {using} {value:?} in {}{}",
                            self.session.app.name,
                            if from.is_some() {
                                " under the given element"
                            } else {
                                ""
                            }
                        ),
                    )
                });
            }
            tokio::time::sleep(POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
        }
    }

    /// Where element `id` sits in a snapshot: by node id, else by path.
    async fn place(
        &self,
        conn: &AppConnection,
        nodes: &[IndexedNode],
        id: &str,
    ) -> Result<usize, WdError> {
        let target = Target::parse(id).map_err(|_| {
            WdError::new(
                ErrorCode::NoSuchElement,
                format!("{id:?} is not an element of this session"),
            )
        })?;
        let resolved = conn
            .resolve(&self.session_engine(), &target, &CallStats::default())
            .await
            .map_err(|e| engine_error(e, true))?;
        nodes
            .iter()
            .position(|n| n.node.id == resolved.node.id)
            .or_else(|| nodes.iter().position(|n| n.path == resolved.path))
            .ok_or_else(|| {
                WdError::new(
                    ErrorCode::StaleElementReference,
                    format!("element {id} is no longer in the app"),
                )
            })
    }

    /// The focused element, deepest first.
    pub(super) async fn active(&self) -> Result<Value, WdError> {
        self.admit("get_focused").await?;
        let stats = CallStats::default();
        let conn = self.conn(&stats).await?;
        let (nodes, _) = self.snapshot(&conn, &stats).await?;
        let focused = nodes
            .iter()
            .filter(|n| n.node.states.focused && n.depth > 0)
            .max_by_key(|n| n.depth)
            .ok_or_else(|| {
                WdError::new(
                    ErrorCode::NoSuchElement,
                    "no element has the keyboard focus",
                )
            })?;
        Ok(reference(&conn.mint(&focused.node, &focused.path)))
    }

    /// The page source (XML as Mac2 writes it).
    pub(super) async fn source(&self) -> Result<Value, WdError> {
        self.admit("get_tree").await?;
        let stats = CallStats::default();
        let conn = self.conn(&stats).await?;
        let (_, doc) = self.snapshot(&conn, &stats).await?;
        Ok(Value::String(doc.to_xml()))
    }

    /// The page source as an outline (`macos: source` with `format: description`).
    pub(super) async fn describe(&self) -> Result<Value, WdError> {
        self.admit("get_tree").await?;
        let stats = CallStats::default();
        let conn = self.conn(&stats).await?;
        let (_, doc) = self.snapshot(&conn, &stats).await?;
        Ok(Value::String(doc.to_description()))
    }

    /// One element, as Mac2 describes it.
    async fn element(&self, id: &str) -> Result<El, WdError> {
        self.admit("get_element").await?;
        let (_, resolved) = self.resolve(id).await?;
        Ok(El::from_node(&resolved.node))
    }

    /// The element reads: `text`, `attribute/<name>`, `rect`, `enabled`, `selected`,
    /// `displayed`, `name`.
    pub(super) async fn read(
        &self,
        id: &str,
        what: &str,
        attr: Option<&str>,
    ) -> Result<Value, WdError> {
        let el = self.element(id).await?;
        Ok(match what {
            "text" => Value::String(el.text()),
            "attribute" => el
                .attr(attr.unwrap_or_default())
                .map_or(Value::Null, Value::String),
            "rect" => json!({
                "x": el.frame[0], "y": el.frame[1], "width": el.frame[2], "height": el.frame[3],
            }),
            "enabled" => Value::Bool(el.enabled),
            "selected" => Value::Bool(el.selected),
            "displayed" => Value::Bool(el.hittable),
            _ => Value::String(el.type_name()),
        })
    }

    /// Click, clear, value: the MCP tools `click`, `set_value` (to empty) and `type_text`,
    /// on the element, after making sure it is still there (a gone element is stale).
    pub(super) async fn act(&self, id: &str, what: &str, body: &Value) -> Result<Value, WdError> {
        self.resolve(id).await?;
        let app = &self.session.app_ref;
        match what {
            "click" => {
                call_tool(
                    self.session.callee(),
                    self.parts,
                    "click",
                    json!({"app": app, "target": id}),
                )
                .await?;
            }
            "clear" => {
                call_tool(
                    self.session.callee(),
                    self.parts,
                    "set_value",
                    json!({"app": app, "target": id, "value": ""}),
                )
                .await?;
            }
            _ => {
                // The element is focused by the first stroke; the rest follow the focus.
                let mut target = Some(id);
                for stroke in keys::send_keys(&sent_text(body)?)? {
                    let mut call = json!({"app": app});
                    if let Some(id) = target.take() {
                        call["target"] = Value::String(id.to_owned());
                    }
                    let tool = match stroke {
                        Stroke::Text(text) => {
                            call["text"] = Value::String(text);
                            "type_text"
                        }
                        Stroke::Press { key, modifiers } => {
                            call["key"] = Value::String(keys::press_name(key));
                            call["modifiers"] = json!(modifiers);
                            "press_key"
                        }
                    };
                    call_tool(self.session.callee(), self.parts, tool, call).await?;
                }
            }
        }
        Ok(Value::Null)
    }

    /// A PNG of the app's window, or of one element, base64 (the MCP tool `screenshot`).
    pub(super) async fn screenshot(&self, element: Option<&str>) -> Result<Value, WdError> {
        let mut args = json!({"app": self.session.app_ref});
        if let Some(id) = element {
            self.resolve(id).await?;
            args["target"] = Value::String(id.to_owned());
        }
        let result = call_tool(self.session.callee(), self.parts, "screenshot", args).await?;
        result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| c.get("type").and_then(Value::as_str) == Some("image"))
            .and_then(|c| c.get("data").cloned())
            .ok_or_else(|| {
                WdError::new(ErrorCode::UnknownError, "the screenshot returned no image")
            })
    }
}

/// The text of Element Send Keys (`text`, else the legacy `value` array), keys and all
/// (`keys::send_keys` reads them).
fn sent_text(body: &Value) -> Result<String, WdError> {
    match (body.get("text"), body.get("value")) {
        (Some(Value::String(s)), _) => Ok(s.clone()),
        (_, Some(Value::Array(parts))) => Ok(parts.iter().filter_map(Value::as_str).collect()),
        _ => Err(WdError::invalid_argument(
            "send keys takes {\"text\": \"…\"}",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_keys_text_is_the_text_else_the_value_array() {
        assert_eq!(
            sent_text(&json!({"text": "a\u{E007}b"})).unwrap(),
            "a\u{E007}b"
        );
        assert_eq!(sent_text(&json!({"value": ["h", "i"]})).unwrap(), "hi");
        assert_eq!(
            sent_text(&json!({})).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }
}
