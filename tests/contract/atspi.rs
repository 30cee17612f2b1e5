//! The contract suite on the AT-SPI backend: `tests/desktop/apps/contract.py` (GTK3) under the
//! headless desktop of `tests/desktop/session.sh`, one contract at a time (`DESKTOP`); fails,
//! never skips, outside it. The app's own view of a field is the last line of its change log
//! naming the field; it hangs by blocking its main loop (`freeze`), and is killed as a child.

use std::sync::Arc;
use std::time::Duration;

use axgate::ax::{Backend, Capabilities};
use axgate::platform::atspi::AtspiBackend;

use crate::harness::{App, DESKTOP, repo, require_desktop};
use crate::run::{self, AppSide, Run, Target};
use crate::support;

/// The AT-SPI backend's contract target.
pub(crate) struct Atspi;

const APP: &str = "axgate-contract";

impl Target for Atspi {
    async fn start(&self, toml: &str) -> Run {
        require_desktop();
        let turn = DESKTOP.lock().await;
        let app = App::start("contract.py", &[], APP);
        let backend = Arc::new(AtspiBackend::new().expect("the AT-SPI backend"));
        let served = support::serve(run::config(toml), backend.clone()).await;
        Run::new(
            served.url,
            APP,
            Box::new(GtkSide { app: Some(app) }),
            Some(backend),
            vec![Box::new(served.stop), Box::new(turn)],
        )
        .await
    }

    fn launch_spec(&self) -> String {
        let script = repo().join("tests/desktop/apps/contract.py");
        format!("/usr/bin/python3 {}", script.display())
    }

    fn capabilities(&self) -> Capabilities {
        AtspiBackend::new()
            .expect("the AT-SPI backend")
            .capabilities()
    }
}

struct GtkSide {
    app: Option<App>,
}

impl GtkSide {
    fn app(&mut self) -> &mut App {
        self.app.as_mut().expect("the contract app runs")
    }
}

impl AppSide for GtkSide {
    fn field(&self, field: &str) -> Option<String> {
        let prefix = format!("{field}=");
        let lines = self.app.as_ref()?.lines();
        lines
            .iter()
            .rev()
            .find_map(|l| l.strip_prefix(&prefix).map(str::to_owned))
    }

    fn hang(&mut self) -> String {
        let app = self.app();
        app.send("freeze 8");
        app.wait_line(|l| l == "freeze-start", Duration::from_secs(5))
            .expect("the contract app froze");
        APP.to_owned()
    }

    fn kill(&mut self) {
        // Dropping the child kills it and reaps it.
        self.app = None;
    }
}

every_contract!(Atspi);
