//! The HAProxy agent-check listener (`fleet.agent_listen`): each connection is answered
//! with one line, the capacity word (`ready` or `drain`), and closed. HAProxy's `agent-check`
//! turns `drain` into its DRAIN state, in which only requests that persistence (the
//! `MCP-Session-Id` stick table) sends still reach the machine, and `ready` back into READY.
//! Health is not the agent's: HAProxy's regular check reads `/readyz`.
//!
//! Connections are answered one at a time, each within [`WRITE_TIMEOUT`], so a client that
//! never reads costs at most that long and nothing piles up.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use super::Fleet;

/// How long one answer may take to be written.
const WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// Answers agent checks on `listener` until the task is aborted.
pub fn spawn(listener: TcpListener, fleet: Arc<Fleet>) -> tokio::task::JoinHandle<()> {
    if let Ok(addr) = listener.local_addr() {
        let _ = fleet.agent.set(addr);
        tracing::info!(%addr, "HAProxy agent-check listening on {addr}");
    }
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!(%error, "agent-check accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let line = format!("{}\n", fleet.capacity().agent_word());
            let answered = tokio::time::timeout(WRITE_TIMEOUT, async {
                stream.write_all(line.as_bytes()).await?;
                stream.shutdown().await
            })
            .await;
            if let Ok(Err(error)) = answered {
                tracing::debug!(%error, "agent-check answer not delivered");
            }
        }
    })
}
