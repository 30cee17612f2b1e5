//! The message itself, kept beside its stored JSON for the one consumer waiting for it, so the
//! live path does not rebuild it from the JSON it was just written as (a replay still does).
//!
//! A stream keeps at most one such message, only while a consumer is attached (or its request
//! stream's first consumer is still to come), only for a message of at most [`LIVE_MAX`] JSON
//! bytes, and only while every stream together holds at most [`LIVE_BUDGET`]: the in-memory
//! form is several times its JSON, so this is bounded apart from the replay budgets.
//! `axgate_event_live_bytes` shows what is held (JSON bytes of the messages kept).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use prometheus::IntGauge;
use rmcp::model::ServerJsonRpcMessage;

/// The largest message (JSON bytes) kept for its live consumer.
pub(super) const LIVE_MAX: usize = 64 * 1024;
/// JSON bytes of kept messages over every stream.
pub(super) const LIVE_BUDGET: usize = 4 * 1024 * 1024;

/// What every stream's kept message weighs together.
#[derive(Clone, Default)]
pub(super) struct LiveHeld {
    bytes: Arc<AtomicUsize>,
    gauge: Option<IntGauge>,
}

impl LiveHeld {
    pub(super) fn new(gauge: Option<IntGauge>) -> LiveHeld {
        LiveHeld {
            bytes: Arc::default(),
            gauge,
        }
    }

    /// Keeps `message` (event `seq`, `len` JSON bytes) when it fits the bounds.
    pub(super) fn keep(
        &self,
        seq: u64,
        message: &Arc<ServerJsonRpcMessage>,
        len: usize,
    ) -> Option<Live> {
        if len > LIVE_MAX {
            return None;
        }
        let before = self.bytes.fetch_add(len, Ordering::Relaxed);
        let live = Live {
            seq,
            message: message.clone(),
            len,
            held: self.clone(),
        };
        if before + len > LIVE_BUDGET {
            return None; // dropping `live` gives the bytes back
        }
        self.show();
        Some(live)
    }

    pub(super) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    fn show(&self) {
        if let Some(gauge) = &self.gauge {
            gauge.set(self.bytes() as i64);
        }
    }
}

/// One stream's kept message; its bytes are given back when it is dropped.
pub(super) struct Live {
    pub(super) seq: u64,
    pub(super) message: Arc<ServerJsonRpcMessage>,
    len: usize,
    held: LiveHeld,
}

impl Drop for Live {
    fn drop(&mut self) {
        self.held.bytes.fetch_sub(self.len, Ordering::Relaxed);
        self.held.show();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{JsonRpcMessage, JsonRpcNotification, ServerNotification};

    fn message() -> Arc<ServerJsonRpcMessage> {
        Arc::new(JsonRpcMessage::Notification(JsonRpcNotification {
            jsonrpc: Default::default(),
            notification: ServerNotification::ToolListChangedNotification(Default::default()),
        }))
    }

    #[test]
    fn kept_messages_stay_within_the_budget_and_give_their_bytes_back() {
        let held = LiveHeld::new(None);
        let m = message();
        assert!(
            held.keep(0, &m, LIVE_MAX + 1).is_none(),
            "too large to keep"
        );
        let kept: Vec<Live> = (0..)
            .map_while(|seq| held.keep(seq, &m, LIVE_MAX))
            .collect();
        assert_eq!(kept.len(), LIVE_BUDGET / LIVE_MAX);
        assert_eq!(held.bytes(), LIVE_BUDGET);
        assert!(held.keep(99, &m, 1).is_none(), "the budget is spent");
        drop(kept);
        assert_eq!(held.bytes(), 0);
        assert!(held.keep(100, &m, 1).is_some());
    }
}
