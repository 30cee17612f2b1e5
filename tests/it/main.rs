//! The integration tests: one test binary (one link against the whole dependency tree), a
//! module per area. Each drives axgate through a real interface: HTTP on a port-0 loopback
//! listener, the built binary as a child process, the official MCP SDKs, promtool and
//! Prometheus, the conformance suite. The AT-SPI suite, which needs the headless desktop, is
//! its own binary (`tests/atspi.rs`). `cargo test --test it <filter>` runs a part, e.g.
//! `cargo test --release --test it security::`.

mod spawned;
#[path = "../support/mod.rs"]
mod support;

mod acting;
mod address_share;
mod agent_costs;
mod app_list;
mod apps_windows;
mod audit;
mod audit_bounds;
mod audit_calls;
mod auth;
mod backpressure;
mod capacity;
mod cli;
mod clients;
mod clients_policy;
mod code_map;
mod confirmation;
mod confirmation_acts;
mod confirmation_keys;
mod conformance;
mod conformance_fixture;
mod conformance_stateless;
mod connections;
mod denied_apps;
mod deploy;
mod direct;
mod docs_counts;
mod every_tool;
mod faults;
mod fleet;
mod fuzz_corpus;
mod http_protocol;
mod inspector;
mod log_secrets;
mod memory;
mod operations;
mod reading;
mod readme;
mod reload;
mod replay;
mod resources;
mod resume;
mod revocation;
mod secrets;
mod security;
mod session_quota;
mod sessionless;
mod shares;
mod stdio;
mod tasks;
mod tidy;
mod tls;
mod tool_schemas;
mod tools;
mod waiting;
mod webdriver;
mod workers;
