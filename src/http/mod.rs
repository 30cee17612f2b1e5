//! The HTTP surface: the Host/Origin guard, the `/mcp` intake checks in front of rmcp, and
//! the health endpoint. Knows nothing of accessibility.

pub mod guard;
pub mod health;
pub mod intake;

pub use guard::Guard;
pub use intake::Intake;
