//! The accessibility engine: element model, backend trait, worker threads, app connections,
//! element paths and handles, traversal and queries, and the app rules it enforces wherever
//! an app is named. Platform-neutral; knows nothing of HTTP, MCP, JSON or the configuration
//! file (it reads its own [`settings`], which the server's config parses into).

pub mod act;
pub mod app_rules;
pub mod backend;
pub mod capabilities;
pub mod capture;
pub mod connection;
pub mod diff;
pub mod downscale;
pub mod engine;
pub mod error;
pub mod handles;
pub mod kept;
pub mod keys;
pub mod ladder;
pub mod launch;
pub mod launch_request;
pub mod metrics;
pub mod model;
pub mod region;
pub mod rhythm;
pub mod settings;
pub mod shared;
/// The element path grammar (in `axgate_parse`, which is fuzzed on its own).
pub use axgate_parse::element_path as path;
pub mod tree;
pub mod values;
pub mod worker;

pub use backend::{
    Backend, CallCtx, ChangeEvent, ChangeKind, CheckClass, EventSink, Launchable, ReadinessCheck,
    Skipped, SkippedPart, Snapshot, SnapshotRequest, WindowAction, WindowRequest,
};
pub use capabilities::{Capabilities, Capability};
pub use capture::Capture;
pub use connection::{AppConnection, Connections, Resolved, Target};
pub use engine::{Engine, EngineConfig, Lease, RecentEvent};
pub use error::{AxError, AxResult};
pub use launch_request::LaunchRequest;
pub use model::{AppInfo, AxValue, NodeId, Pid, RawNode, Rect, Role, States, WindowInfo};
pub use path::ElementPath;
pub use worker::{CallStats, WorkerConfig};
