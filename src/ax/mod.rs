//! The accessibility engine: element model, backend trait, worker threads, app connections,
//! traversal and queries. Platform-neutral; knows nothing of HTTP, MCP or JSON.

pub mod backend;
pub mod error;
pub mod model;

pub use backend::{
    Backend, CallCtx, ChangeEvent, ChangeKind, EventSink, ReadinessCheck, Snapshot, SnapshotRequest,
};
pub use error::AxError;
pub use model::{AppInfo, AxValue, NodeId, Pid, RawNode, Rect, Role, States, WindowInfo};
