//! axgate: one process per desktop that serves MCP over Streamable HTTP and drives the
//! machine's applications through the platform accessibility API.

pub mod audit;
pub mod ax;
pub mod client;
pub mod config;
pub mod fleet;
pub mod http;
/// Who is calling: `Principal` and `Scope` (in `axgate_parse`, beside the credential parsers).
pub use axgate_parse::identity;
pub mod logging;
pub mod mcp;
pub mod metrics;
pub mod platform;
pub mod policy;
pub mod server;
pub mod session;
pub mod stdio;
