//! The MCP client behind `axgate call` and the terminal commands (`axgate apps`, `tree`,
//! `find`, `click`, `type`, `screenshot`): a [`Client`] that opens a 2025-11-25 session on a
//! server's `/mcp`, calls tools (the `CallToolResult` JSON comes back as it is), lists tools
//! and ends its session with `DELETE`. It speaks HTTP only — it knows nothing of the server's
//! modules (`mcp`, `http`, `session`) — so the scenario runner can reuse it as it is.
//!
//! - `session`: the Streamable HTTP exchange (JSON or SSE responses, `Last-Event-ID` resume);
//! - `retry`: when and how long to wait on 503/429 and "rate limited … retry after" results;
//! - `token`: where the bearer token comes from (given, OAuth client credentials, GitHub
//!   Actions OIDC), cached until shortly before it expires;
//! - `args`: `key=value` arguments, the command-line flags and environment variables;
//! - `output`: printing results (JSON, text, quiet) and writing images to files;
//! - `paths`: title paths (`window[0]/button["Submit"]`) computed from a tree listing;
//! - `listing`: `tree` and `find` as text, one element per line led by its title path;
//! - `commands`: the subcommands, their exit codes and Ctrl-C;
//! - `scenario`: `axgate test`, the scenario runner (docs/SCENARIOS.md).

pub mod args;
pub mod commands;
mod connect;
mod listing;
pub mod output;
pub mod paths;
pub mod retry;
pub mod scenario;
pub mod session;
pub mod token;

use serde_json::{Value, json};

pub use retry::RetryPolicy;
pub use session::Session;
pub use token::TokenSource;

/// The protocol revision the client asks for.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Most pages of `tools/list` followed (a server paginating forever is a server bug).
const MAX_TOOL_PAGES: usize = 64;

/// What went wrong, by who can fix it; each kind has its own exit code ([`ClientError::exit_code`]).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The command line or the arguments are wrong (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The server cannot be reached, or answered outside the protocol (exit 3).
    #[error("{0}")]
    Connection(String),
    /// No token could be had, or the server refused it (exit 4).
    #[error("{0}")]
    Auth(String),
    /// The server refused the request with a JSON-RPC error (exit 2: the request was wrong).
    #[error("{0}")]
    Rpc(String),
    /// Whoever read standard output stopped (`axgate apps | head -1`): nothing to say, exit
    /// 141 as a shell shows a writer ended by SIGPIPE.
    #[error("standard output was closed")]
    Closed,
}

impl ClientError {
    /// A failed write to standard output: [`ClientError::Closed`] when the reader left.
    pub fn stdout(error: &std::io::Error) -> ClientError {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            ClientError::Closed
        } else {
            ClientError::Usage(format!("cannot write to stdout: {error}"))
        }
    }
}

/// Exit codes of the client commands (docs/CLI.md).
pub mod exit {
    /// The tool ran and succeeded.
    pub const OK: u8 = 0;
    /// The tool ran and failed (`isError`); the message is on stderr.
    pub const TOOL_ERROR: u8 = 1;
    /// Bad flags or arguments, an unknown tool, or a request the server refused as invalid.
    pub const USAGE: u8 = 2;
    /// The server cannot be reached, kept answering "busy" past the retry budget, or broke
    /// the protocol.
    pub const CONNECTION: u8 = 3;
    /// No token could be had, or the server refused it (401/403).
    pub const AUTH: u8 = 4;
    /// Interrupted by Ctrl-C (SIGINT) or SIGTERM; the session was ended first.
    pub const INTERRUPTED: u8 = 130;
    /// Standard output was closed by its reader (128 + SIGPIPE, as shells report it).
    pub const CLOSED: u8 = 141;
}

impl ClientError {
    pub fn exit_code(&self) -> u8 {
        match self {
            ClientError::Usage(_) | ClientError::Rpc(_) => exit::USAGE,
            ClientError::Connection(_) => exit::CONNECTION,
            ClientError::Auth(_) => exit::AUTH,
            ClientError::Closed => exit::CLOSED,
        }
    }
}

/// An MCP client of one server: one session, opened by [`Client::connect`].
pub struct Client {
    session: Session,
}

impl Client {
    /// A client of the server at `url` (its `/mcp` endpoint); nothing is sent yet.
    pub fn new(url: &str, token: TokenSource, retry: RetryPolicy) -> Result<Client, ClientError> {
        Ok(Client {
            session: Session::new(url, token, retry)?,
        })
    }

    /// Tell on stderr what the client waits for (busy retries, the server's progress).
    pub fn show_waits(&self, on: bool) {
        self.session.show_waits(on);
    }

    /// Opens the session: `initialize` (retried while the server is busy), then
    /// `notifications/initialized`.
    pub async fn connect(&self) -> Result<(), ClientError> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "axgate-cli", "version": env!("CARGO_PKG_VERSION")},
        });
        self.session.initialize(params).await?;
        self.session.notify("notifications/initialized").await
    }

    /// Calls `tool` with `arguments`: the `CallToolResult` JSON. A result that says the
    /// caller is rate limited or the app busy ("… retry after N ms") is retried after that
    /// wait, within the retry budget; the last such result is returned when it runs out.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Value, ClientError> {
        let params = json!({"name": tool, "arguments": arguments});
        let policy = self.session.retry_policy();
        let mut budget = policy.budget();
        loop {
            let result = self.session.request("tools/call", params.clone()).await?;
            match retry::result_hint(&result).and_then(|hint| budget.next(Some(hint))) {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return Ok(result),
            }
        }
    }

    /// Every tool the server lists for this caller (following `nextCursor`).
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self.session.request("tools/list", params).await?;
            if let Some(list) = page.get("tools").and_then(Value::as_array) {
                tools.extend(list.iter().cloned());
            }
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if cursor.is_none() {
                return Ok(tools);
            }
        }
        Err(ClientError::Connection(format!(
            "tools/list gave more than {MAX_TOOL_PAGES} pages; the server keeps paginating"
        )))
    }

    /// `resources/read` of `uri`: the result, `{contents: [...]}`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, ClientError> {
        self.session
            .request("resources/read", json!({ "uri": uri }))
            .await
    }

    /// Ends the session (`DELETE`), if one was opened; at most once. A failure is reported
    /// but changes nothing for the caller: the server expires idle sessions on its own.
    pub async fn end(&self) -> Result<(), ClientError> {
        self.session.delete().await
    }
}

/// SIGINT or SIGTERM.
pub(crate) async fn interrupted() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                _ = interrupt => {}
                _ = term.recv() => {}
            },
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
