//! The MCP layer: the rmcp `ServerHandler`, the tool registry, per-session MCP state and
//! the wire types. Turns engine results and errors into MCP results in one place.

pub mod context;
pub mod errors;
pub mod server;
pub mod tools;
pub mod wire;

pub use server::{AxServer, PROTOCOL_VERSIONS, supports};
