//! One MCP session over Streamable HTTP, with reqwest: JSON-RPC requests POSTed to `/mcp`
//! with `MCP-Session-Id` and `MCP-Protocol-Version`, answers read as JSON or as an SSE stream,
//! a stream that drops before its answer resumed with `GET` + `Last-Event-ID`, 503/429 retried
//! after `Retry-After` (or a backoff), a fetched token that the server refuses replaced once,
//! and the session ended with `DELETE`. A tool call asks for progress (`progressToken`), so
//! a long wait shows it is alive; a stream that carries no message for `--retry-for` (at
//! least [`MIN_SILENCE`]), keep-alive comments only, is given up rather than read forever.

use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use futures::{Stream, StreamExt as _};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use sse_stream::SseStream;

use super::retry::{self, RetryPolicy};
use super::{ClientError, PROTOCOL_VERSION, TokenSource};

/// Most bytes read from one response (JSON body or SSE stream, resumes included).
const MAX_RESPONSE_BYTES: usize = 64 << 20;
/// Most resumes of one request's stream.
const MAX_RESUMES: u32 = 5;
/// Wait before a resume when the server named none (SSE `retry:`).
const RESUME_WAIT: Duration = Duration::from_millis(200);
/// How long the closing `DELETE` may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);
/// The shortest silence (no message on a response stream) given up on, whatever
/// `--retry-for` says.
const MIN_SILENCE: Duration = Duration::from_secs(5);
/// Most bytes of an error body quoted in a message.
const QUOTED_BODY: usize = 600;

type Events = Pin<Box<dyn Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Send>>;

/// The HTTP side of a [`super::Client`].
pub struct Session {
    http: reqwest::Client,
    url: reqwest::Url,
    token: TokenSource,
    retry: RetryPolicy,
    id: Mutex<Option<String>>,
    next_id: AtomicU64,
    /// Say on stderr what the client is waiting for: "busy, retrying in N s" and the
    /// server's progress notifications ([`Session::show_waits`]).
    show_waits: AtomicBool,
}

impl Session {
    pub fn new(url: &str, token: TokenSource, retry: RetryPolicy) -> Result<Session, ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| {
            ClientError::Usage(format!(
                "--url {url:?} is not a URL ({e}); give the server's MCP endpoint, e.g. http://127.0.0.1:8741/mcp"
            ))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ClientError::Usage(format!(
                "--url {url}: only http:// and https:// are spoken"
            )));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ClientError::Connection(format!("cannot set up HTTP: {e}")))?;
        Ok(Session {
            http,
            url,
            token,
            retry,
            id: Mutex::new(None),
            next_id: AtomicU64::new(0),
            show_waits: AtomicBool::new(false),
        })
    }

    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// Whether waits are told on stderr: the terminal commands turn it on when stderr is a
    /// terminal and `--quiet` is not given.
    pub fn show_waits(&self, on: bool) {
        self.show_waits.store(on, Ordering::Relaxed);
    }

    /// One line on stderr, made inert, when waits are shown.
    fn tell(&self, line: &str) {
        if self.show_waits.load(Ordering::Relaxed) {
            eprintln!("axgate: {}", crate::output::inert(line));
        }
    }

    fn session_id(&self) -> Option<String> {
        self.id.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// `initialize`; keeps the session id the server gives.
    pub async fn initialize(&self, params: Value) -> Result<Value, ClientError> {
        self.call("initialize", params).await
    }

    /// A notification; the server answers 202.
    pub async fn notify(&self, method: &str) -> Result<(), ClientError> {
        let body = json!({"jsonrpc": "2.0", "method": method});
        self.post(&body).await.map(drop)
    }

    /// A request; its `result`, or its JSON-RPC error as [`ClientError::Rpc`].
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.call(method, params).await
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut params = params;
        if method == "tools/call"
            && let Some(map) = params.as_object_mut()
        {
            // Progress keeps a long call's stream speaking (see `answer`).
            if let Some(meta) = map
                .entry("_meta")
                .or_insert_with(|| json!({}))
                .as_object_mut()
            {
                meta.insert("progressToken".into(), json!(id));
            }
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(&body).await?;
        if method == "initialize"
            && let Some(sid) = response.headers().get("mcp-session-id")
        {
            let sid = sid.to_str().map_err(|_| {
                ClientError::Connection("the server's MCP-Session-Id is not text".into())
            })?;
            *self.id.lock().unwrap_or_else(|e| e.into_inner()) = Some(sid.to_owned());
        }
        let message = self.answer(response, id, method).await?;
        if let Some(error) = message.get("error") {
            let text = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)");
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            return Err(ClientError::Rpc(format!(
                "{method}: {text} (JSON-RPC error {code})"
            )));
        }
        message.get("result").cloned().ok_or_else(|| {
            ClientError::Connection(format!("{method}: the answer has no result: {message}"))
        })
    }

    fn build(&self, method: Method, token: Option<&str>) -> RequestBuilder {
        let mut request = self
            .http
            .request(method, self.url.clone())
            .header("accept", "application/json, text/event-stream");
        if let Some(sid) = self.session_id() {
            request = request
                .header("mcp-session-id", sid)
                .header("mcp-protocol-version", PROTOCOL_VERSION);
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request
    }

    /// POSTs `body`, retrying while the server is busy or unreachable, within the budget.
    async fn post(&self, body: &Value) -> Result<Response, ClientError> {
        let text = body.to_string();
        self.send(|token| {
            self.build(Method::POST, token)
                .header("content-type", "application/json")
                .body(text.clone())
        })
        .await
    }

    /// Sends the request `make` builds until it is answered with a success, a refusal that
    /// retrying cannot change, or the retry budget is spent.
    async fn send(
        &self,
        make: impl Fn(Option<&str>) -> RequestBuilder,
    ) -> Result<Response, ClientError> {
        let mut budget = self.retry.budget();
        let mut replaced_token = false;
        loop {
            let token = self.token.bearer().await?;
            let (hint, why) = match make(token.as_deref()).send().await {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status();
                    if status == StatusCode::UNAUTHORIZED && self.token.fetches() && !replaced_token
                    {
                        // The token may have expired early or been revoked: fetch another, once.
                        replaced_token = true;
                        self.token.forget().await;
                        continue;
                    }
                    if !matches!(
                        status,
                        StatusCode::SERVICE_UNAVAILABLE | StatusCode::TOO_MANY_REQUESTS
                    ) {
                        return Err(self.refused(response).await);
                    }
                    let hint = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(retry::retry_after);
                    (hint, describe(response).await)
                }
                // Nothing listens on this machine's port: no wait will change that, so say
                // what to do at once instead of retrying for --retry-for.
                Err(error) if refused_on_loopback(&self.url, &error) => {
                    return Err(ClientError::Connection(format!(
                        "cannot connect to {}: nothing listens there. Is `axgate serve` running? \
                         Start it, or point --url (AXGATE_CLIENT_URL) at the server",
                        self.url
                    )));
                }
                Err(error) if error.is_connect() || error.is_timeout() => (
                    None,
                    format!("cannot reach {}: {}", self.url, causes(&error)),
                ),
                Err(error) => {
                    return Err(ClientError::Connection(format!(
                        "{}: {}",
                        self.url,
                        causes(&error)
                    )));
                }
            };
            match budget.next(hint) {
                Some(wait) => {
                    self.tell(&format!(
                        "{why}; retrying in {:.1} s (--retry-for)",
                        wait.as_secs_f64()
                    ));
                    tokio::time::sleep(wait).await
                }
                None => {
                    return Err(ClientError::Connection(format!(
                        "{why} — gave up after {} attempts in {:.1} s (--retry-attempts, --retry-for)",
                        budget.tries(),
                        budget.elapsed().as_secs_f64()
                    )));
                }
            }
        }
    }

    /// The error for a non-success answer that retrying does not change.
    async fn refused(&self, response: Response) -> ClientError {
        let status = response.status();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = describe(response).await;
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                let challenge = challenge.map(|c| format!(" ({c})")).unwrap_or_default();
                ClientError::Auth(format!(
                    "{} refused the credentials: {text}{challenge}; give a token with --token, \
                     --client-id/--client-secret-file/--token-url or --github-oidc",
                    self.url
                ))
            }
            StatusCode::NOT_FOUND if self.session_id().is_some() => {
                ClientError::Connection(format!(
                    "the server no longer knows this session ({text}): it expired or was ended"
                ))
            }
            _ => ClientError::Connection(format!("{}: {text}", self.url)),
        }
    }

    /// The JSON-RPC message answering request `id`: from a JSON body, or from the SSE
    /// stream (resumed with `Last-Event-ID` when it ends first).
    async fn answer(
        &self,
        response: Response,
        id: u64,
        method: &str,
    ) -> Result<Value, ClientError> {
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        if !sse {
            let body = read_bounded(response).await?;
            return serde_json::from_slice(&body).map_err(|e| {
                ClientError::Connection(format!("{method}: the answer is not JSON ({e})"))
            });
        }
        let mut events = sse_events(response);
        let mut last_event: Option<String> = None;
        let mut wait = RESUME_WAIT;
        let mut resumes = 0;
        let silence = self.retry.total.max(MIN_SILENCE);
        let mut spoke = tokio::time::Instant::now();
        loop {
            loop {
                let next = tokio::time::timeout_at(spoke + silence, events.next()).await;
                let Ok(next) = next else {
                    return Err(ClientError::Connection(format!(
                        "{method}: the server's stream carried no message for {} s (keep-alives \
                         only), so the answer was given up (--retry-for)",
                        silence.as_secs()
                    )));
                };
                let Some(Ok(event)) = next else { break };
                if let Some(event_id) = event.id {
                    last_event = Some(event_id);
                }
                if let Some(retry) = event.retry {
                    wait = Duration::from_millis(retry).min(Duration::from_secs(5));
                }
                let Some(data) = event.data.filter(|d| !d.is_empty()) else {
                    continue;
                };
                spoke = tokio::time::Instant::now();
                let Ok(message) = serde_json::from_str::<Value>(&data) else {
                    continue;
                };
                if message["method"] == "notifications/progress" {
                    self.tell(&progress_line(&message["params"]));
                }
                let answers = message.get("id") == Some(&json!(id))
                    && (message.get("result").is_some() || message.get("error").is_some());
                if answers {
                    return Ok(message);
                }
            }
            let Some(from) = last_event.clone() else {
                return Err(ClientError::Connection(format!(
                    "{method}: the stream ended before the answer and gave no event id to resume from"
                )));
            };
            resumes += 1;
            if resumes > MAX_RESUMES {
                return Err(ClientError::Connection(format!(
                    "{method}: the stream dropped {MAX_RESUMES} times before the answer"
                )));
            }
            tokio::time::sleep(wait).await;
            let resumed = self
                .send(|token| {
                    self.build(Method::GET, token)
                        .header("accept", "text/event-stream")
                        .header("last-event-id", from.as_str())
                })
                .await?;
            events = sse_events(resumed);
        }
    }

    /// Ends the session with `DELETE`, once; without a session, nothing.
    pub async fn delete(&self) -> Result<(), ClientError> {
        let Some(sid) = self.id.lock().unwrap_or_else(|e| e.into_inner()).clone() else {
            return Ok(());
        };
        let token = self.token.bearer().await?;
        let mut request = self
            .http
            .delete(self.url.clone())
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .timeout(DELETE_TIMEOUT);
        if let Some(token) = token.as_deref() {
            request = request.bearer_auth(token);
        }
        let outcome = request.send().await;
        *self.id.lock().unwrap_or_else(|e| e.into_inner()) = None;
        match outcome {
            Ok(r) if r.status().is_success() || r.status() == StatusCode::NOT_FOUND => Ok(()),
            Ok(r) => Err(ClientError::Connection(format!(
                "ending the session: {}",
                describe(r).await
            ))),
            Err(e) => Err(ClientError::Connection(format!(
                "ending the session: {}",
                e.without_url()
            ))),
        }
    }
}

/// Whether `error` is a refused connection to a loopback address of `url`.
fn refused_on_loopback(url: &reqwest::Url, error: &reqwest::Error) -> bool {
    let host = url.host_str().unwrap_or_default();
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return loopback && io.kind() == std::io::ErrorKind::ConnectionRefused;
        }
        source = cause.source();
    }
    false
}

/// An error and its causes, `a: b: c` (reqwest's own text alone says "error sending
/// request"), without the URL, which the caller names.
fn causes(error: &reqwest::Error) -> String {
    let mut text = String::from(if error.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    });
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The SSE events of `response`, reading at most [`MAX_RESPONSE_BYTES`].
fn sse_events(response: Response) -> Events {
    let mut seen = 0usize;
    let bytes = response.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(std::io::Error::other)?;
        seen += chunk.len();
        if seen > MAX_RESPONSE_BYTES {
            return Err(std::io::Error::other(format!(
                "the stream passed {MAX_RESPONSE_BYTES} bytes"
            )));
        }
        Ok(chunk)
    });
    Box::pin(SseStream::from_bytes_stream(bytes))
}

/// A body of at most [`MAX_RESPONSE_BYTES`].
async fn read_bounded(response: Response) -> Result<Vec<u8>, ClientError> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ClientError::Connection(e.without_url().to_string()))?;
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(ClientError::Connection(format!(
                "the answer passed {MAX_RESPONSE_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `HTTP 503 Service Unavailable: <the server's message>` (a JSON-RPC error's message, or
/// the start of the body).
async fn describe(response: Response) -> String {
    let status = response.status();
    let body = read_bounded(response)
        .await
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let message = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("error_description"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| body.chars().take(QUOTED_BODY).collect());
    if message.trim().is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {}", message.trim())
    }
}

/// `working: 3 of 10: waiting for Saved` from a progress notification's params.
fn progress_line(params: &Value) -> String {
    let mut line = String::from("working");
    if let Some(done) = params["progress"].as_f64() {
        line.push_str(&format!(": {done}"));
        if let Some(total) = params["total"].as_f64() {
            line.push_str(&format!(" of {total}"));
        }
    }
    if let Some(message) = params["message"].as_str().filter(|m| !m.is_empty()) {
        line.push_str(&format!(": {message}"));
    }
    line
}
