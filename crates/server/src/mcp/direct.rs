//! Tool calls answered without rmcp's per-request machinery (the "direct path").
//!
//! In a session, rmcp hands every request from the HTTP task to the session's worker, from
//! there to the service loop, which spawns a task for the handler, whose response travels
//! back the same way before it reaches the event log: four task hand-offs per call, beside
//! the handler's own. The load profile (docs/PERFORMANCE.md, "Core under load") put that
//! machinery at a quarter of a call's CPU. A read-only `tools/call` needs none of it: the
//! HTTP layer (`http::direct`) opens the request's stream in the event log itself and asks
//! this registry to run the call; the call runs through rmcp's own dispatch
//! (`Service::handle_request`, the code every other request goes through) with the
//! session's own handler and peer, and its response is stored in the log like any other.
//!
//! What rmcp's loop would have done and this does too: a cancellation token per request,
//! cancelled by `notifications/cancelled` for its id ([`Direct::cancel`]) and when the
//! session ends ([`Direct::forget`]); the HTTP request's parts in the context's extensions;
//! the call's `notifications/message` stored on the session's stream, where rmcp's worker
//! stores them ([`Notices`]: directly, not through rmcp's loop).
//! What it does not do, which is why only read-only tools qualify (`http::direct` decides):
//! mark requests the handler sends to the client (elicitation) as belonging to this request,
//! and route progress notifications to its stream (requests with `_meta` go through rmcp).
//!
//! A session enters the registry when its client sends `notifications/initialized` (before
//! that, rmcp answers), and leaves it when the session ends. The registry holds weak
//! references to the session's state: it never keeps a session alive.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{RoleServer, Service};
use tokio_util::sync::CancellationToken;

use super::context::Notices;

/// The sessions whose read-only tool calls may take the direct path, with handlers of type
/// `H` (the server's `AxServer`).
pub struct Direct<H> {
    sessions: Mutex<HashMap<String, Arc<Entry<H>>>>,
}

/// Rebuilds a session's handler from what it holds weakly; `None` once the session is gone.
pub type Revive<H> = Box<dyn Fn() -> Option<H> + Send + Sync>;

/// One initialized session: how to rebuild its handler, and its running direct calls.
struct Entry<H> {
    revive: Revive<H>,
    peer: Peer<RoleServer>,
    /// Request id (as JSON text) → the call's cancellation token.
    running: Mutex<HashMap<String, CancellationToken>>,
}

/// A session's handler, ready to run one call ([`Direct::handler`]).
pub struct Handler<H> {
    server: H,
    peer: Peer<RoleServer>,
    entry: Arc<Entry<H>>,
}

impl<H> Default for Direct<H> {
    fn default() -> Self {
        Direct {
            sessions: Mutex::default(),
        }
    }
}

impl<H: Service<RoleServer> + Send + Sync + 'static> Direct<H> {
    /// The session `id` is initialized: its calls may take the direct path. `revive` must
    /// hold the session's state weakly: this registry never keeps a session alive.
    pub fn register(&self, id: &str, revive: Revive<H>, peer: Peer<RoleServer>) {
        let entry = Arc::new(Entry {
            revive,
            peer,
            running: Mutex::default(),
        });
        self.lock().insert(id.to_owned(), entry);
    }

    /// The session ended: forgotten, and its running direct calls cancelled (as rmcp
    /// cancels the requests of a session whose worker ends).
    pub fn forget(&self, id: &str) {
        let entry = self.lock().remove(id);
        if let Some(entry) = entry {
            for (_, token) in entry.running().drain() {
                token.cancel();
            }
        }
    }

    /// `notifications/cancelled` for `request` (its id as JSON text) in session `id`.
    pub fn cancel(&self, id: &str, request: &str) {
        let entry = self.lock().get(id).cloned();
        if let Some(token) = entry.and_then(|e| e.running().remove(request)) {
            token.cancel();
        }
    }

    /// The handler of session `id`, when the session is initialized and alive.
    pub fn handler(&self, id: &str) -> Option<Handler<H>> {
        let entry = self.lock().get(id).cloned()?;
        let Some(server) = (entry.revive)() else {
            // Its worker ended without the session being closed: rmcp answers.
            self.lock().remove(id);
            return None;
        };
        Some(Handler {
            server,
            peer: entry.peer.clone(),
            entry,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Entry<H>>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<H> Entry<H> {
    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<H: Service<RoleServer> + Send + Sync + 'static> Handler<H> {
    /// Runs `tools/call` request `id` (`key`: the id as JSON text) as rmcp's loop would,
    /// with `parts` in the context's extensions, and hands its response (result or JSON-RPC
    /// error) to `deliver`; the call's notifications go to `notices`.
    ///
    /// The caller polls the returned future where it likes: `http::direct` polls it in the
    /// connection's own task, so a read that is done at once needs no task of its own. The
    /// call counts as running (`notifications/cancelled` reaches it) from now until the
    /// future ends or is dropped.
    pub fn call(
        self,
        id: RequestId,
        key: String,
        params: CallToolRequestParams,
        parts: http::request::Parts,
        notices: Notices,
        deliver: impl FnOnce(ServerJsonRpcMessage) + Send + 'static,
    ) -> impl Future<Output = ()> + Send + 'static {
        let token = CancellationToken::new();
        self.entry.running().insert(key.clone(), token.clone());
        let mut context = RequestContext::new(id.clone(), self.peer);
        context.ct = token.clone();
        context.extensions.insert(parts);
        context.extensions.insert(notices);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let server = self.server;
        let running = Running {
            entry: self.entry,
            key,
        };
        async move {
            let response = match server.handle_request(request, context).await {
                Ok(result) => ServerJsonRpcMessage::response(result, id),
                Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
            };
            drop(running);
            // A cancelled request gets no response (the event log ends its stream); nor
            // does one of a session that ended.
            if !token.is_cancelled() {
                deliver(response);
            }
        }
    }
}

/// A direct call's place in its session's running calls, given back when the call ends,
/// however it ends.
struct Running<H> {
    entry: Arc<Entry<H>>,
    key: String,
}

impl<H> Drop for Running<H> {
    fn drop(&mut self) {
        self.entry.running().remove(&self.key);
    }
}
