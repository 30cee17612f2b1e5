//! Sessions: the registry of live MCP sessions (protocol version, activity, caps), the event
//! log that serves and replays every SSE stream, and the session-manager wrapper that plugs
//! both into rmcp.

pub mod events;
pub mod manager;
pub mod registry;

pub use events::{Caller, EventLimits, EventLog, Resume};
pub use manager::{AxSessionManager, Pins, Room};
pub use registry::{Owner, QuotaHold, SessionLimits, SessionRegistry};
