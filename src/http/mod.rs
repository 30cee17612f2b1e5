//! The HTTP surface: the Host/Origin guard, the `/mcp` intake checks in front of rmcp, the
//! health, readiness and metrics endpoints, and the HTTP metrics layer. Knows nothing of accessibility.

pub mod auth;
pub mod guard;
pub mod health;
pub mod intake;
pub mod observe;
pub mod tls;

pub use guard::Guard;
pub use intake::Intake;
