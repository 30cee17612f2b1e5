//! axgate: one process per desktop that serves MCP over Streamable HTTP and drives the
//! machine's applications through the platform accessibility API.
//!
//! This library is the front of the workspace's crates for the binary, the integration tests
//! and the benchmarks; it holds nothing of its own. `ax` is the engine (`axgate-engine`),
//! `platform` the backends (`axgate-platform`), `client` the CLI client and scenarios
//! (`axgate-client`), and the rest the server (`axgate-server`).

pub use axgate_client as client;
pub use axgate_engine as ax;
pub use axgate_platform as platform;
pub use axgate_server::{
    Shutdown, audit, config, fleet, http, identity, logging, mcp, metrics, policy, server, session,
    stdio,
};
