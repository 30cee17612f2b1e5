//! What the server wires between layers that do not know each other: the session manager's
//! pins (leases, exclusive mode, and the sessions' other owners told when one ends) and the
//! admin tools' view of sessions and capacity.

use std::sync::Arc;

use crate::fleet::Fleet;
use crate::mcp::AxServer;
use crate::mcp::admin::{CapacitySummary, SessionAdmin, SessionSummary};
use crate::mcp::context::LeaseBook;
use crate::mcp::direct::Direct;
use crate::session::{AxSessionManager, Pins};
use axgate_engine::Engine;

/// Whether a session holds an app lease or, in exclusive mode, the machine: the session
/// manager (which knows neither) never evicts it to make room.
pub(crate) struct LeasePins {
    pub(crate) book: Arc<LeaseBook>,
    pub(crate) engine: Arc<Engine>,
    pub(crate) fleet: Arc<Fleet>,
    /// Not a pin: told when a session ends, like the others.
    pub(crate) direct: Arc<Direct<AxServer>>,
}

impl Pins for LeasePins {
    fn pinned(&self, session: &str) -> bool {
        self.fleet.holds(session) || self.book.holds_lease(&self.engine, session)
    }

    fn forget(&self, session: &str) {
        self.book.forget(session);
        self.direct.forget(session);
        // Fleet hook: a holding session that ends frees the machine.
        self.fleet.ended(session);
    }
}

/// The admin tools' view: the session manager's administration plus the capacity signal.
pub(crate) struct ServerAdmin {
    pub(crate) sessions: Arc<AxSessionManager>,
    pub(crate) fleet: Arc<Fleet>,
}

#[async_trait::async_trait]
impl SessionAdmin for ServerAdmin {
    fn sessions(&self) -> Vec<SessionSummary> {
        self.sessions
            .sessions()
            .into_iter()
            .map(|s| SessionSummary {
                tag: s.tag,
                principal: s.principal,
                protocol_version: s.protocol_version,
                age_secs: s.age.as_secs(),
                idle_secs: s.idle.as_secs(),
            })
            .collect()
    }

    async fn end(&self, tag: &str) -> bool {
        self.sessions.end(tag).await
    }

    fn close_request_stream(&self, session: &str, request_id: &rmcp::model::RequestId) -> bool {
        self.sessions.close_request_stream(session, request_id)
    }

    fn set_draining(&self, on: bool) -> Option<CapacitySummary> {
        self.fleet.set_draining(on);
        Some(CapacitySummary {
            state: self.fleet.capacity().label().to_owned(),
            draining: self.fleet.draining(),
            exclusive: self.fleet.exclusive(),
            holder: self.fleet.holder_tag(),
            sessions: self.sessions.registry().len(),
        })
    }
}
