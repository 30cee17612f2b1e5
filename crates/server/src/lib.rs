//! The axgate server: MCP over Streamable HTTP (and stdio) in front of the accessibility
//! engine (`axgate_engine`): HTTP layers and auth, MCP tools and resources, sessions and their
//! event log, audit trail, configuration, policy, fleet, metrics. It never names a platform:
//! the binary picks the backend and hands the engine in.

/// What stops a server: any future, boxed. A generic parameter here made every crate that
/// starts a server (the binary, each test binary, the conformance fixture) compile the whole
/// serving stack again, since optimised builds do not share generic instances between
/// crates; boxed, it is compiled once, in this crate (docs/ARCHITECTURE.md, "Build time").
pub type Shutdown = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>>;

pub mod audit;
pub mod config;
pub mod fleet;
pub mod http;
mod wiring;
/// Who is calling: `Principal` and `Scope` (in `axgate_parse`, beside the credential parsers).
pub use axgate_parse::identity;
pub mod logging;
pub mod mcp;
pub mod metrics;
pub mod policy;
pub mod secrets;
pub mod server;
pub mod session;
pub mod stdio;
pub mod wd;
