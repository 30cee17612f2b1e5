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
//! cargo test --release --test contract replay::     # the Mac app's predicted tree, replayed
//! ```
//!
//! The AT-SPI contracts need the headless desktop and fail (never skip) without it; they take
//! turns on it (`DESKTOP`). What a backend cannot do it says through `Backend::capabilities`,
//! and the `capabilities` contract checks the "unsupported" error of every flag it leaves off
//! (and that the target's own account of them is the server's): a contract that needs one of
//! them is skipped on that backend, which is how the replay backend (a recording of the macOS
//! contract app, `tests/recordings/contract-app.json`: reading only) runs the read contracts.

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

/// One `#[tokio::test]` per contract for the target built by `$target`; a contract whose
/// needs (`[Act, ...]`, [`run::Need`]) the target does not meet is skipped, saying why.
macro_rules! contract_tests {
    ($target:expr; $($module:ident :: $case:ident [$($need:ident),*]),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let target = $target;
                if crate::run::unmet(&target, &[$(crate::run::Need::$need),*]) {
                    return;
                }
                crate::$module::$case(&target).await;
            }
        )*
    };
}

/// Every contract, for one backend's target: the one list of contracts, each with what it
/// needs beyond reading (the backend's capabilities, `LiveApp`: an app process to freeze
/// or kill).
macro_rules! every_contract {
    ($target:expr) => {
        contract_tests!($target;
            reading::tree_shape_and_paths [],
            reading::find [],
            reading::apps_windows_and_waits_read [],
            acting::actions_are_verified [Act],
            acting::values_are_coerced_and_read_back [Act],
            acting::menus [Act],
            acting::list_rows_select [Act, Select],
            input::typing_reads_back_exactly [Act, Typing],
            input::keys [Act, Keys],
            system::windows [Windows, Activate],
            system::lifecycle [Quit, Launch],
            system::screenshots [Screenshots],
            system::capabilities [],
            waiting::waits [Act],
            waiting::events [Act],
            failures::stale_handle [Act],
            failures::disabled_element [Act],
            failures::hung_app [LiveApp],
            failures::app_exited [LiveApp],
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

#[path = "contract/replay.rs"]
mod replay;
