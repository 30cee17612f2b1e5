//! The WebDriver facade (docs/WEBDRIVER.md): W3C WebDriver as Appium's Mac2 driver speaks
//! it, at `/session…` and `/status` and the same under the legacy base `/wd/hub`, on the
//! MCP listener behind the same Host/Origin guard, authentication, HTTP metrics and (per
//! command, through `bridge`) the same scopes, rate limits, destructive-act decision and
//! audit as MCP tools. The protocol itself (errors, capabilities, roles, page source,
//! locators) is the crate `axgate_webdriver`'s; this module routes, keeps sessions and
//! reaches the engine.
//!
//! `sessions`: the live sessions, bounded and reaped; `bridge`: tool calls and error
//! mapping; `elements`: find, source, element reads and acts, screenshots; `execute`:
//! Execute Script's `macos:` commands and Appium's clipboard endpoints; `actions`: W3C
//! Perform/Release Actions; `window`: the window commands.

mod actions;
mod bridge;
mod elements;
mod execute;
mod script;
mod sessions;
mod window;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::{Value, json};

use crate::config::WebDriverConfig;
use crate::identity::Principal;
use crate::mcp::gate::key_of;
use crate::mcp::server::Shared;
use crate::metrics::Metrics;
use axgate_engine::{AxError, CallStats};
use axgate_webdriver::{ErrorCode, WdError, caps};
use bridge::{call_tool, engine_error};
use elements::Caller;
use script::Script;
use sessions::{Ending, Sessions};

/// The WebDriver routes' shared state.
struct Wd {
    sessions: Arc<Sessions>,
    metrics: Metrics,
    max_body_bytes: usize,
}

/// The legacy base path some clients still use.
const HUB: &str = "/wd/hub";

/// The WebDriver routes, to be merged into the main router (inside its layers).
pub fn routes(
    shared: Arc<Shared>,
    config: WebDriverConfig,
    metrics: Metrics,
    max_body_bytes: usize,
) -> Router {
    let wd = Arc::new(Wd {
        sessions: Sessions::new(shared, config, metrics.clone()),
        metrics,
        max_body_bytes,
    });
    Router::new()
        .route("/status", get(status))
        .route("/wd/hub/status", get(status))
        .route("/session", any(dispatch))
        .route("/session/{*rest}", any(dispatch))
        .route("/wd/hub/session", any(dispatch))
        .route("/wd/hub/session/{*rest}", any(dispatch))
        .with_state(wd)
}

/// Whether `path` is one of the WebDriver routes.
pub fn is_webdriver(path: &str) -> bool {
    let path = path.strip_prefix(HUB).unwrap_or(path);
    path == "/status" || path == "/session" || path.starts_with("/session/")
}

/// A success: `{"value": …}`.
fn ok(value: Value) -> Response {
    (
        http::StatusCode::OK,
        [(
            http::header::CONTENT_TYPE,
            "application/json; charset=utf-8",
        )],
        json!({ "value": value }).to_string(),
    )
        .into_response()
}

/// A failure in the W3C shape with its status; an insufficient scope also carries the
/// step-up challenge MCP's 403 carries.
fn fail(error: &WdError) -> Response {
    let status = http::StatusCode::from_u16(error.code.status())
        .unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (
        status,
        [(
            http::header::CONTENT_TYPE,
            "application/json; charset=utf-8",
        )],
        error.body().to_string(),
    )
        .into_response();
    if error.code == ErrorCode::InsufficientScope {
        response.headers_mut().insert(
            http::header::WWW_AUTHENTICATE,
            http::HeaderValue::from_static(
                "Bearer error=\"insufficient_scope\", scope=\"axgate:act\"",
            ),
        );
    }
    response
}

async fn status() -> Response {
    ok(json!({
        "ready": true,
        "message": "axgate serves WebDriver sessions (Appium Mac2 compatible)",
        "build": { "version": env!("CARGO_PKG_VERSION") },
    }))
}

/// Every `/session…` request: parsed, routed by method and path, answered in W3C shape and
/// counted by command template and outcome.
async fn dispatch(State(wd): State<Arc<Wd>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path();
    let path = path.strip_prefix(HUB).unwrap_or(path).to_owned();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let body = match axum::body::to_bytes(body, wd.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return fail(&WdError::invalid_argument(
                "the request body is larger than server.max_body_bytes",
            ));
        }
    };
    let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Default::default())
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                return fail(&WdError::invalid_argument(format!(
                    "the request body is not JSON: {e}"
                )));
            }
        }
    };
    let (command, result) = route(&wd, &parts, &segments, &body).await;
    let outcome = match &result {
        Ok(_) => "ok",
        Err(e) => e.code.as_str(),
    };
    wd.metrics
        .webdriver
        .commands
        .with_label_values(&[command, outcome])
        .inc();
    match result {
        Ok(value) if command == "POST /session" => issued(value),
        Ok(value) => ok(value),
        Err(error) => fail(&error),
    }
}

/// The header naming a new session's id on the `POST /session` answer: a load balancer learns
/// the id from it (the body is out of its reach) to route the session's commands, whose paths
/// carry the id, to the Mac that made it (deploy/haproxy/haproxy.cfg, docs/FLEET.md).
pub const SESSION_HEADER: &str = "x-axgate-webdriver-session";

/// The answer to `POST /session`, with [`SESSION_HEADER`].
fn issued(value: Value) -> Response {
    let id = value["sessionId"]
        .as_str()
        .and_then(|id| http::HeaderValue::from_str(id).ok());
    let mut response = ok(value);
    if let Some(id) = id {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

/// Routes one command; its template (a bounded metric label) and its answer.
async fn route(
    wd: &Wd,
    parts: &http::request::Parts,
    segments: &[&str],
    body: &Value,
) -> (&'static str, Result<Value, WdError>) {
    let method = parts.method.as_str();
    let owner = key_of(parts.extensions.get::<Principal>()).to_owned();
    match (method, segments) {
        ("POST", ["session"]) => ("POST /session", new_session(wd, parts, body, owner).await),
        ("DELETE", ["session", id]) => (
            "DELETE /session/{id}",
            wd.sessions.remove(id, &owner).map(|()| Value::Null),
        ),
        (_, ["session", id, rest @ ..]) => {
            let session = match wd.sessions.get(id, &owner) {
                Ok(s) => s,
                Err(e) => return ("session", Err(e)),
            };
            let caller = Caller {
                session: &session,
                parts,
            };
            command(&caller, method, rest, body).await
        }
        _ => (
            "unknown",
            Err(WdError::new(
                ErrorCode::UnknownCommand,
                format!(
                    "{method} {} is not a WebDriver command axgate serves (docs/WEBDRIVER.md)",
                    parts.uri.path()
                ),
            )),
        ),
    }
}

/// A command inside a session.
async fn command(
    caller: &Caller<'_>,
    method: &str,
    rest: &[&str],
    body: &Value,
) -> (&'static str, Result<Value, WdError>) {
    match (method, rest) {
        ("GET", []) => ("GET /session/{id}", Ok(caller.session.capabilities.clone())),
        ("GET", ["timeouts"]) => (
            "GET /session/{id}/timeouts",
            Ok(json!({
                "implicit": caller.session.implicit_wait().as_millis() as u64,
                "pageLoad": 300_000,
                "script": 30_000,
            })),
        ),
        ("POST", ["timeouts"]) => ("POST /session/{id}/timeouts", timeouts(caller, body)),
        ("GET", ["source"]) => ("GET /session/{id}/source", caller.source().await),
        ("GET", ["screenshot"]) => (
            "GET /session/{id}/screenshot",
            caller.screenshot(None).await,
        ),
        ("POST", ["execute", kind @ ("sync" | "async")]) => (
            if *kind == "sync" {
                "POST /session/{id}/execute/sync"
            } else {
                "POST /session/{id}/execute/async"
            },
            caller.execute(body).await,
        ),
        ("POST", ["appium", "device", "get_clipboard"]) => (
            "POST /session/{id}/appium/device/get_clipboard",
            caller.get_clipboard(&object(body)).await,
        ),
        ("POST", ["appium", "device", "set_clipboard"]) => (
            "POST /session/{id}/appium/device/set_clipboard",
            caller.set_clipboard(&object(body)).await,
        ),
        ("POST", ["actions"]) => ("POST /session/{id}/actions", caller.actions(body).await),
        ("DELETE", ["actions"]) => ("DELETE /session/{id}/actions", caller.release().await),
        (_, ["window", what @ ..]) => (
            match (method, what) {
                ("GET", []) => "GET /session/{id}/window",
                ("POST", []) => "POST /session/{id}/window",
                ("DELETE", []) => "DELETE /session/{id}/window",
                ("GET", ["handles"]) => "GET /session/{id}/window/handles",
                ("GET", ["rect"]) => "GET /session/{id}/window/rect",
                ("POST", ["rect"]) => "POST /session/{id}/window/rect",
                ("POST", ["minimize"]) => "POST /session/{id}/window/minimize",
                ("POST", ["maximize"]) => "POST /session/{id}/window/maximize",
                ("POST", ["fullscreen"]) => "POST /session/{id}/window/fullscreen",
                _ => "unknown",
            },
            caller.window(method, what, body).await,
        ),
        ("POST", ["element"]) => (
            "POST /session/{id}/element",
            caller.find(body, None, false).await,
        ),
        ("POST", ["elements"]) => (
            "POST /session/{id}/elements",
            caller.find(body, None, true).await,
        ),
        ("GET" | "POST", ["element", "active"]) => {
            ("GET /session/{id}/element/active", caller.active().await)
        }
        ("POST", ["element", eid, "element"]) => (
            "POST /session/{id}/element/{eid}/element",
            caller.find(body, Some(eid), false).await,
        ),
        ("POST", ["element", eid, "elements"]) => (
            "POST /session/{id}/element/{eid}/elements",
            caller.find(body, Some(eid), true).await,
        ),
        ("POST", ["element", eid, act @ ("click" | "clear" | "value")]) => (
            match *act {
                "click" => "POST /session/{id}/element/{eid}/click",
                "clear" => "POST /session/{id}/element/{eid}/clear",
                _ => "POST /session/{id}/element/{eid}/value",
            },
            caller.act(eid, act, body).await,
        ),
        ("GET", ["element", eid, "screenshot"]) => (
            "GET /session/{id}/element/{eid}/screenshot",
            caller.screenshot(Some(eid)).await,
        ),
        ("GET", ["element", eid, "attribute", name]) => (
            "GET /session/{id}/element/{eid}/attribute/{name}",
            caller.read(eid, "attribute", Some(name)).await,
        ),
        (
            "GET",
            [
                "element",
                eid,
                read @ ("text" | "rect" | "enabled" | "selected" | "displayed" | "name"),
            ],
        ) => (
            match *read {
                "text" => "GET /session/{id}/element/{eid}/text",
                "rect" => "GET /session/{id}/element/{eid}/rect",
                "enabled" => "GET /session/{id}/element/{eid}/enabled",
                "selected" => "GET /session/{id}/element/{eid}/selected",
                "displayed" => "GET /session/{id}/element/{eid}/displayed",
                _ => "GET /session/{id}/element/{eid}/name",
            },
            caller.read(eid, read, None).await,
        ),
        _ => (
            "unknown",
            Err(WdError::new(
                ErrorCode::UnknownCommand,
                format!(
                    "{method} /session/<id>/{} is not served by axgate yet (docs/WEBDRIVER.md lists what is)",
                    rest.join("/")
                ),
            )),
        ),
    }
}

/// A body's object (an empty one for anything else).
fn object(body: &Value) -> serde_json::Map<String, Value> {
    body.as_object().cloned().unwrap_or_default()
}

fn timeouts(caller: &Caller<'_>, body: &Value) -> Result<Value, WdError> {
    let Some(map) = body.as_object() else {
        return Err(WdError::invalid_argument(
            "timeouts take an object of milliseconds",
        ));
    };
    for (key, value) in map {
        let ms = value.as_u64().ok_or_else(|| {
            WdError::invalid_argument(format!(
                "timeout {key:?} must be a whole number of milliseconds"
            ))
        })?;
        // Only the implicit wait means something for an app; page load and script are
        // accepted and ignored, as Mac2 does.
        if key == "implicit" {
            caller
                .session
                .set_implicit_wait(Duration::from_millis(ms.min(600_000)));
        }
    }
    Ok(Value::Null)
}

/// `POST /session`: capabilities merged, the app attached (running) or launched (through
/// the MCP tool `launch_app`: the act scope, app rules and audit line), a session made.
async fn new_session(
    wd: &Wd,
    parts: &http::request::Parts,
    body: &Value,
    owner: String,
) -> Result<Value, WdError> {
    let caps = caps::from_body(body)?;
    let not_created = |e: WdError| WdError::new(ErrorCode::SessionNotCreated, e.message);
    let scripts = [("prerun", &caps.prerun), ("postrun", &caps.postrun)].map(|(what, asked)| {
        asked.as_ref().map(|args| {
            let principal = parts.extensions.get::<Principal>();
            script::admit(
                wd.sessions.config.allow_scripts,
                &wd.sessions.shared,
                principal,
            )?;
            Script::from_args(args, &format!("appium:{what}"))
        })
    });
    let [prerun, postrun] = scripts.map(|s| s.transpose().map_err(not_created));
    let (prerun, postrun) = (prerun?, postrun?);
    wd.sessions.room()?;
    let Some(query) = caps.bundle_id.clone().or(caps.app_path.clone()) else {
        return Err(WdError::new(
            ErrorCode::SessionNotCreated,
            "name the app: appium:bundleId (on the demo backend the app's name or bundle id) or appium:appPath",
        ));
    };
    let id = uuid::Uuid::new_v4().simple().to_string();
    let handler = wd.sessions.handler();
    let engine = wd.sessions.shared.engine.clone();
    let stats = CallStats::default();
    // Arguments and environment reach only a new process: such a session always launches
    // (the launch refuses an app that runs, and a refused variable before anything starts).
    let running = if caps.arguments.is_empty() && caps.environment.is_empty() {
        engine.resolve_app(&query, &stats).await
    } else {
        Err(AxError::AppNotFound {
            query: query.clone(),
            available: Vec::new(),
        })
    };
    let app = match running {
        Ok(app) => app,
        Err(AxError::AppNotFound { .. } | AxError::AppDenied { .. }) => {
            let environment: serde_json::Map<String, Value> = caps
                .environment
                .iter()
                .map(|(n, v)| (n.clone(), Value::String(v.clone())))
                .collect();
            let launched = call_tool(
                handler.callee(&id),
                parts,
                "launch_app",
                json!({"app": query, "arguments": caps.arguments, "environment": environment}),
            )
            .await
            .map_err(|e| match e.code {
                ErrorCode::InsufficientScope | ErrorCode::RateLimited => e,
                _ => not_created(e),
            })?;
            let pid = launched
                .pointer("/app/pid")
                .and_then(Value::as_u64)
                .ok_or_else(|| {
                    WdError::new(ErrorCode::SessionNotCreated, "launch_app named no pid")
                })?;
            engine
                .resolve_app(&pid.to_string(), &stats)
                .await
                .map_err(|e| not_created(engine_error(e, false)))?
        }
        Err(e) => return Err(not_created(engine_error(e, false))),
    };
    let capabilities = json!({
        "platformName": "mac",
        "automationName": "Mac2",
        "appium:bundleId": app.bundle_id.clone().unwrap_or(query),
        "appium:noReset": caps.no_reset,
        "appium:skipAppKill": caps.skip_app_kill,
    });
    let timeout = caps
        .new_command_timeout
        .filter(|s| *s > 0)
        .map(Duration::from_secs);
    if let Some(prerun) = &prerun {
        let shared = &wd.sessions.shared;
        script::run_audited(shared, &owner, &id, "prerun", prerun)
            .await
            .map_err(not_created)?;
    }
    wd.sessions.insert(
        id.clone(),
        handler,
        owner,
        app,
        capabilities.clone(),
        Ending {
            idle_timeout: timeout,
            postrun,
        },
    );
    Ok(json!({ "sessionId": id, "capabilities": capabilities }))
}

/// Puts the auth layer's refusals of WebDriver routes (401, 403, a token in the query's
/// 400) in the W3C shape clients parse, keeping their `WWW-Authenticate` challenge. Runs
/// just outside the auth layer.
pub async fn w3c_refusals(request: Request, next: Next) -> Response {
    let webdriver = is_webdriver(request.uri().path());
    let response = next.run(request).await;
    let status = response.status().as_u16();
    if !webdriver || !matches!(status, 400 | 401 | 403) {
        return response;
    }
    let (mut head, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    let parsed: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if parsed.pointer("/value/error").is_some() {
        return Response::from_parts(head, Body::from(bytes));
    }
    let message = parsed
        .get("error_description")
        .or_else(|| parsed.pointer("/error/message"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned());
    let code = match status {
        401 => ErrorCode::Unauthorized,
        403 => ErrorCode::InsufficientScope,
        _ => ErrorCode::InvalidArgument,
    };
    let body = WdError::new(code, message).body().to_string();
    head.headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json; charset=utf-8"),
    );
    head.headers.remove(http::header::CONTENT_LENGTH);
    Response::from_parts(head, Body::from(body))
}
