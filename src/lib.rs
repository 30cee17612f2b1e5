//! axgate: one process per desktop that serves MCP over Streamable HTTP and drives the
//! machine's applications through the platform accessibility API.

pub mod audit;
pub mod ax;
pub mod config;
#[doc(hidden)]
pub mod fuzzing;
pub mod http;
pub mod logging;
pub mod mcp;
pub mod metrics;
pub mod platform;
pub mod policy;
pub mod server;
pub mod session;
pub mod stdio;
