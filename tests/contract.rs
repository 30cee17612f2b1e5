//! The backend contract suite (issue #14): one set of behaviours, written once against axgate's
//! MCP interface (HTTP on a port-0 loopback listener, so the engine is exercised), run on
//! every backend with the same "contract app": a window "Contract" with Name, Password,
//! Subscribe, Volume, Greet, Clear, Disabled, a status label, an Items list and an
//! Edit > Clear Name menu (`crates/platform/src/demo/apps/contract.json`,
//! `tests/desktop/apps/contract.py`, `tests/contract/macos/ContractApp.swift`).
//!
//! Each contract is a function of a [`run::Target`] (how to start the app on that backend,
//! its name, how to make it hang or exit) in `tests/contract/*.rs`; `every_contract!` makes
//! one test per contract and backend, named `<backend>::<contract>`:
//!
//! ```text
//! cargo test --release --test contract demo::                                 # demo
//! tests/desktop/session.sh -- cargo test --release --test contract atspi::    # AT-SPI, GTK3
//! cargo test --release --test contract macos::                                # on a Mac
//! ```
//!
//! The AT-SPI contracts need the headless desktop and fail (never skip) without it; they take
//! turns on it (`DESKTOP`). What a backend cannot do it says through `Backend::capabilities`,
//! and the `capabilities` contract checks the "unsupported" error of every flag it leaves off.

#[cfg(target_os = "linux")]
#[path = "desktop/harness.rs"]
mod harness;
#[cfg(target_os = "macos")]
#[path = "it/spawned/mod.rs"]
mod spawned;
mod support;

#[path = "contract/acting.rs"]
mod acting;
#[path = "contract/failures.rs"]
mod failures;
#[path = "contract/input.rs"]
mod input;
#[path = "contract/reading.rs"]
mod reading;
#[path = "contract/run.rs"]
mod run;
#[path = "contract/system.rs"]
mod system;
#[path = "contract/waiting.rs"]
mod waiting;

/// One `#[tokio::test]` per contract for the target built by `$target`.
macro_rules! contract_tests {
    ($target:expr; $($module:ident :: $case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                crate::$module::$case(&$target).await;
            }
        )*
    };
}

/// Every contract, for one backend's target: the one list of contracts.
macro_rules! every_contract {
    ($target:expr) => {
        contract_tests!($target;
            reading::tree_shape_and_paths,
            reading::find,
            acting::actions_are_verified,
            acting::values_are_coerced_and_read_back,
            acting::menus,
            acting::list_rows_select,
            input::typing_reads_back_exactly,
            input::keys,
            system::windows,
            system::lifecycle,
            system::screenshots,
            system::capabilities,
            waiting::waits,
            waiting::events,
            failures::stale_handle,
            failures::disabled_element,
            failures::hung_app,
            failures::app_exited,
        );
    };
}

#[path = "contract/demo.rs"]
mod demo;

#[cfg(target_os = "linux")]
#[path = "contract/atspi.rs"]
mod atspi;

#[cfg(target_os = "macos")]
#[path = "contract/macos.rs"]
mod macos;
