//! The backend's private async runtime. zbus is async while the [`axgate_engine::Backend`] trait
//! is synchronous and runs on the engine's worker threads, so every call blocks its worker
//! on a future run under the call's deadline. The runtime's own threads drive the D-Bus
//! connection (replies and signals) meanwhile.

use std::future::Future;
use std::time::Instant;

use tokio::runtime::{Builder, Handle, Runtime};

use axgate_engine::AxError;

/// A small multi-thread tokio runtime owned by the backend.
pub(super) struct Rt {
    rt: Option<Runtime>,
    handle: Handle,
}

impl Rt {
    pub(super) fn new() -> Result<Rt, String> {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("axgate-atspi")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the AT-SPI runtime: {e}"))?;
        let handle = rt.handle().clone();
        Ok(Rt {
            rt: Some(rt),
            handle,
        })
    }

    pub(super) fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Runs `fut` to completion on the calling (non-async) thread, giving up at `deadline`
    /// with a timeout error that names `app`.
    pub(super) fn block<T>(
        &self,
        app: &str,
        deadline: Instant,
        fut: impl Future<Output = Result<T, AxError>>,
    ) -> Result<T, AxError> {
        let budget = deadline.saturating_duration_since(Instant::now());
        let timed = async move { tokio::time::timeout_at(deadline.into(), fut).await };
        match self.handle.block_on(timed) {
            Ok(result) => result,
            Err(_) => Err(AxError::Timeout {
                app: app.to_owned(),
                after: budget,
            }),
        }
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        // The backend may be dropped inside another runtime (the server's); a plain drop
        // would block there.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}
