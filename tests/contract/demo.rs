//! The contract suite on the demo backend: the Contract demo app (launched before the server
//! starts, windows at once), in-process; its hung app is Hung; the app's own view of a field
//! is its element's value.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axgate::ax::{AxValue, Backend, CallCtx, Capabilities, Pid};
use axgate::platform::demo::{DemoBackend, DemoOptions};

use crate::run::{self, AppSide, Run, Target};
use crate::support;

/// The demo backend's contract target.
pub(crate) struct Demo;

const APP: &str = "Contract";

impl Target for Demo {
    async fn start(&self, toml: &str) -> Run {
        let demo = Arc::new(
            DemoBackend::with_options(DemoOptions {
                hang_extra: Duration::from_millis(500),
            })
            .with_launch_delay(Duration::ZERO),
        );
        let pid = demo
            .launch_app(&axgate::ax::LaunchRequest::app(APP), &mut ctx())
            .expect("the demo backend launches Contract")
            .pid;
        let served = support::serve(run::config(toml), demo.clone()).await;
        let side = DemoSide {
            demo: demo.clone(),
            pid,
        };
        Run::new(
            served.url,
            APP,
            Box::new(side),
            Some(demo),
            vec![Box::new(served.stop)],
        )
        .await
    }

    fn launch_spec(&self) -> String {
        APP.to_owned()
    }

    fn capabilities(&self) -> Capabilities {
        DemoBackend::new().capabilities()
    }
}

fn ctx() -> CallCtx {
    CallCtx::new(Instant::now() + Duration::from_secs(5))
}

struct DemoSide {
    demo: Arc<DemoBackend>,
    pid: Pid,
}

impl AppSide for DemoSide {
    fn field(&self, field: &str) -> Option<String> {
        let node = self.demo.node_by_identifier(APP, field)?;
        node.value.as_ref().map(AxValue::to_string)
    }

    fn hang(&mut self) -> String {
        "Hung".to_owned()
    }

    fn kill(&mut self) {
        self.demo
            .quit_app(self.pid, true, &mut ctx())
            .expect("a forced quit of Contract");
    }
}

every_contract!(Demo);
