//! `axgate serve --stdio`: one MCP session over standard input and output, for a local MCP
//! host that starts axgate as its child. The same [`AxServer`] as on `/mcp` (same tools,
//! engine, configuration and audit trail), spoken as newline-delimited JSON-RPC through rmcp's
//! stdio transport. Nothing but protocol messages is written to stdout; logs go to stderr.
//! No HTTP listener is opened.
//!
//! Who is calling: the local user who started the process. No credential is presented; this
//! entry stamps every request it reads with the local user's origin
//! (`mcp::origin::CallOrigin::local`: no `Principal`), the same as HTTP with `[auth]` off,
//! which grants every scope. A request that no entry stamped gets no scope at all. The policy applies as over HTTP
//! (read-only mode, app rules, rate limits, confirmation of destructive presses). The admin
//! tools are not listed: there are no HTTP sessions to administer. The session ends when stdin closes (the host hung
//! up) or at `shutdown`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::GetExtensions as _;
use rmcp::service::{QuitReason, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleServer, ServiceExt as _};

use crate::audit::Audit;
use crate::config::Config;
use crate::mcp::AxServer;
use crate::mcp::origin::CallOrigin;
use crate::mcp::server::Shared;
use crate::metrics::Metrics;
use axgate_engine::Engine;

/// Why the stdio session ended, when it did not end because stdin closed.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    #[error("audit.path: {0}")]
    Audit(String),
    #[error("the MCP handshake on stdin failed: {0}; the host must start with `initialize`")]
    Handshake(String),
    #[error("the stdio session failed: {0}")]
    Session(String),
}

/// How the session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// stdin reached end of file: the host closed the session.
    InputClosed,
    /// `shutdown` resolved (a signal).
    Shutdown,
}

/// Serves one MCP session on stdin/stdout until stdin closes or `shutdown` resolves.
#[inline(never)]
pub fn serve<'a>(
    config: &'a Config,
    engine: Arc<Engine>,
    metrics: Metrics,
    shutdown: crate::Shutdown,
) -> Pin<Box<dyn Future<Output = Result<Ended, StdioError>> + 'a>> {
    Box::pin(async move {
        let audit = Audit::open(&config.audit, Some(metrics.clone()))
            .map_err(|e| StdioError::Audit(e.to_string()))?;
        // The same policy as over HTTP: read-only mode, app rules, rate limits (one "local"
        // principal) and confirmation of destructive presses.
        let policy = crate::policy::shared(&config.policy);
        engine.set_app_rules(policy.load().apps.clone());
        let tasks = Arc::new(crate::mcp::tasks::TaskStore::new(
            metrics.mcp.task_result_bytes.clone(),
            metrics.mcp.tasks_held.clone(),
        ));
        let server = AxServer::new(Arc::new(Shared {
            engine: engine.clone(),
            metrics,
            audit,
            policy,
            admin: None,
            leases: None,
            listens: Default::default(),
            confirmations: Default::default(),
            tasks,
            direct: None,
        }));
        let (reader, writer) = rmcp::transport::io::stdio_pipes();
        let running = server
            .serve(Stamped(AsyncRwTransport::new_server(reader, writer)))
            .await
            .map_err(|e| StdioError::Handshake(e.to_string()))?;
        tracing::info!(
            backend = engine.backend_name(),
            "axgate serving MCP on stdio (principal: the local user)"
        );
        let cancel = running.cancellation_token();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        tokio::pin!(shutdown);
        let reason = tokio::select! {
            reason = &mut waiting => reason,
            () = &mut shutdown => {
                cancel.cancel();
                return match waiting.await {
                    Ok(_) => Ok(Ended::Shutdown),
                    Err(e) => Err(StdioError::Session(e.to_string())),
                };
            }
        };
        match reason.map_err(|e| StdioError::Session(e.to_string()))? {
            QuitReason::Closed => Ok(Ended::InputClosed),
            QuitReason::Cancelled => Ok(Ended::Shutdown),
            QuitReason::JoinError(e) => Err(StdioError::Session(e.to_string())),
            other => Err(StdioError::Session(format!("{other:?}"))),
        }
    })
}

/// The stdio entry's transport: each request read from stdin carries the local user's
/// [`CallOrigin`], as each request through the HTTP intake carries its caller's.
struct Stamped<T>(T);

impl<T: Transport<RoleServer>> Transport<RoleServer> for Stamped<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.0.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut message = self.0.receive().await?;
        if let rmcp::model::JsonRpcMessage::Request(request) = &mut message {
            request.request.extensions_mut().insert(CallOrigin::local());
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.close()
    }
}
