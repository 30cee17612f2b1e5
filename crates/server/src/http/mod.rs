//! The HTTP surface: the Host/Origin guard, the `/mcp` intake checks in front of rmcp (and
//! its sessionless 2026-07-28 path), the health, readiness and metrics endpoints, and the
//! HTTP metrics layer. Knows nothing of accessibility.

pub mod admission;
pub mod arrival;
pub mod auth;
pub mod conn;
pub mod direct;
pub mod guard;
pub mod health;
mod idle;
pub mod inflight;
pub mod intake;
pub mod observe;
mod places;
pub mod sessionless;
pub mod tls;

pub use guard::Guard;
pub use intake::Intake;
