//! Platform backends behind the one [`crate::ax::Backend`] trait, and the one function that
//! picks a backend. `cfg(target_os)` appears only here and inside the platform folders.

pub mod demo;
#[cfg(target_os = "macos")]
pub mod macos;
