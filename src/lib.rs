//! axgate: one process per desktop that serves MCP over Streamable HTTP and drives the
//! machine's applications through the platform accessibility API.

pub mod audit;
pub mod ax;
pub mod config;
pub mod http;
pub mod mcp;
pub mod metrics;
pub mod platform;
pub mod server;
pub mod session;
pub mod stdio;
