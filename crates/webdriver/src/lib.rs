//! The protocol half of axgate's WebDriver facade, compatible with Appium's Mac2 driver
//! (docs/WEBDRIVER.md): what the W3C protocol and Mac2 define, as pure functions over the
//! engine's element model. The server's `wd` module serves it over HTTP; nothing here knows
//! HTTP, MCP or the server.
//!
//! - [`error`]: W3C error codes, their HTTP statuses and the error body;
//! - [`caps`]: `alwaysMatch`/`firstMatch` merging and the Mac2 capabilities;
//! - [`roles`]: the one table from axgate's roles to `XCUIElementType*` names and numbers;
//! - [`doc`]: the page-source document (elements with Mac2's attributes) and its XML;
//!   [`describe`]: the same document as `macos: source`'s `description` outline;
//! - [`keys`]: Mac2's modifier bits, XCTest's key constants and W3C key codepoints as the
//!   keys axgate presses;
//! - [`locator`]: the find strategies over that document, with [`predicate`], [`chain`]
//!   and [`xpath`], which share one lexer (`scan`) and their comparisons (`compare`).

pub mod caps;
pub mod chain;
mod compare;
pub mod describe;
pub mod doc;
pub mod error;
pub mod keys;
pub mod locator;
pub mod predicate;
pub mod roles;
mod scan;
pub mod xpath;

pub use doc::{Doc, El};
pub use error::{ErrorCode, WdError};
pub use locator::{Strategy, find};
