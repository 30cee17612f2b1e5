//! The MCP layer: the rmcp `ServerHandler`, the tool registry, per-session MCP state and
//! the wire types. Turns engine results and errors into MCP results in one place.

pub mod admin;
pub mod cache;
pub mod completions;
pub mod confirm;
pub mod context;
pub mod direct;
pub mod errors;
pub mod gate;
pub mod input_required;
pub mod listens;
pub mod listing;
pub mod origin;
mod outcome;
pub mod own_audit;
pub mod prompts;
pub mod resources;
pub mod server;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
pub mod uri;
pub mod wire;

pub use server::{AxServer, PROTOCOL_VERSIONS, supports};
