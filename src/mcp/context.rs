//! Per-session MCP state (app connections, the client's log level) and the context one
//! tool call runs with.

// MCP logging is deprecated only in the 2026-07-28 revision (SEP-2577); the revisions axgate
// serves (2025-11-25 and earlier) define `logging/setLevel` and `notifications/message`.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::LoggingMessageNotificationParam;
use rmcp::service::Peer;
use rmcp::{RoleServer, model::LoggingLevel};
use serde_json::Value;

use crate::ax::{CallStats, Connections, Engine};

/// Severity as an ordered number (MCP levels are syslog's).
#[allow(deprecated)]
pub fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// What one MCP session holds. Dropped when the session ends, closing its app connections.
pub struct SessionState {
    pub connections: Connections,
    /// Minimum severity this session receives as `notifications/message`.
    log_level: Mutex<u8>,
}

impl Default for SessionState {
    fn default() -> Self {
        SessionState {
            connections: Connections::default(),
            #[allow(deprecated)]
            log_level: Mutex::new(severity(LoggingLevel::Info)),
        }
    }
}

impl SessionState {
    #[allow(deprecated)]
    pub fn set_log_level(&self, level: LoggingLevel) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = severity(level);
    }

    #[allow(deprecated)]
    pub fn wants(&self, level: LoggingLevel) -> bool {
        severity(level)
            >= *self
                .log_level
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Everything a tool call needs.
pub struct ToolCtx {
    pub engine: Arc<Engine>,
    pub session: Arc<SessionState>,
    pub stats: CallStats,
    pub peer: Peer<RoleServer>,
}

impl ToolCtx {
    /// Sends a `notifications/message` to this session if its level lets it through.
    /// Never include UI text, values or typed text in `data`.
    #[allow(deprecated)]
    pub async fn log(&self, level: LoggingLevel, data: Value) {
        if !self.session.wants(level) {
            return;
        }
        let mut param = LoggingMessageNotificationParam::new(level, data);
        param.logger = Some("axgate".into());
        let _ = self.peer.notify_logging_message(param).await;
    }
}
