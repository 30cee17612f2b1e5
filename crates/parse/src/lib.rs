//! axgate-parse: the parsers of axgate that face untrusted bytes, in a crate of few
//! dependencies (no async runtime, no HTTP server, no MCP), so that the fuzz targets build
//! fast on their own and the boundary is enforced by the compiler. The product (`axgate`)
//! depends on it and re-exports what it uses.
//!
//! - [`identity`]: `Principal`, `PrincipalKind`, `Scope`, the token-name and digest formats;
//! - [`role`] and [`element_path`]: the role vocabulary and the element path grammar;
//! - [`jsonrpc`]: the classification of a POST body on `/mcp` and the JSON-RPC error body;
//! - [`credentials`]: the `Authorization` header, the static-token table, JWT verification
//!   in synchronous steps (the product's JWKS cache finds the keys between them), JWK sets,
//!   and the refusals with their challenges;
//! - `picture` (feature `picture`): the pixels of a PNG (a screenshot from a server or a
//!   backend);
//! - `fuzzing` (hidden): the functions the cargo-fuzz targets and the corpus replay call.

pub mod credentials;
pub mod element_path;
#[doc(hidden)]
pub mod fuzzing;
pub mod identity;
pub mod jsonrpc;
#[cfg(feature = "picture")]
pub mod picture;
pub mod role;
