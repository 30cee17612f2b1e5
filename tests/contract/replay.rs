//! The contract suite on the replay backend, on any OS: the macOS contract app's tree as
//! `tests/contract/macos/ContractApp.swift` declares it, written as a recording
//! (`tests/recordings/contract-app.json`), served as `--backend replay --recording FILE` sets
//! it (`backend.kind = "replay"`, `backend.recording`, through `platform::select`), in-process.
//! So the read contracts run over the macOS decoding, naming, role mapping and walk on Linux.
//! A recording cannot act: the backend lacks every capability, `act` included, and the
//! contracts that need one are skipped (the `capabilities` contract checks each "unsupported"
//! error). Nothing in a recording says anything from the app's side, freezes or exits.

use std::path::PathBuf;

use axgate::ax::{Backend, Capabilities};
use axgate::platform::replay::ReplayBackend;

use crate::run::{self, AppSide, Run, Target};
use crate::support;

/// The replay backend's contract target.
pub(crate) struct Replay;

/// The app's name as the recording lists it (its process name on the Mac).
const APP: &str = "ContractApp";

fn recording() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/recordings/contract-app.json")
}

impl Target for Replay {
    async fn start(&self, toml: &str) -> Run {
        let file = recording();
        let mut config = run::config(toml);
        config.backend.choice = axgate::ax::settings::BackendChoice::Replay;
        config.backend.recording = Some(file.clone());
        let selected = axgate::platform::select(&config.backend)
            .unwrap_or_else(|e| panic!("the replay backend over {}: {e}", file.display()));
        assert_eq!(selected.backend.name(), "replay", "{}", selected.reason);
        let served = support::serve(config, selected.backend.clone()).await;
        Run::new(
            served.url,
            APP,
            Box::new(Recorded),
            Some(selected.backend),
            vec![Box::new(served.stop)],
        )
        .await
    }

    fn launch_spec(&self) -> String {
        APP.to_owned()
    }

    fn capabilities(&self) -> Capabilities {
        ReplayBackend::open(&recording())
            .expect("the contract app's recording")
            .capabilities()
    }

    fn live_app(&self) -> bool {
        false
    }
}

/// The app's side of a recording: it says nothing, and no contract that would freeze or
/// kill it runs (`live_app` is false).
struct Recorded;

impl AppSide for Recorded {
    fn field(&self, _field: &str) -> Option<String> {
        None
    }

    fn hang(&mut self) -> String {
        unreachable!("a recording cannot hang: hung_app needs a live app")
    }

    fn kill(&mut self) {
        unreachable!("a recording cannot exit: app_exited needs a live app")
    }
}

every_contract!(Replay);
