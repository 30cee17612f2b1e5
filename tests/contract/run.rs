//! What the contract suite needs from a backend ([`Target`]: start axgate on it with the
//! contract app running, and what `launch_app` is given to start the app anew), what a
//! started contract holds ([`Run`]: an MCP session on the server, the app's own view of its
//! fields through [`AppSide`], everything kept alive until the contract ends), and the calls
//! every contract makes.

use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axgate::ax::{Backend, Capabilities, Capability};
use serde_json::{Value, json};

use super::support::{self, Client, text_of};

/// The configuration every contract runs under, before its own: quitting and the Clear
/// buttons are destructive by the default words, and the suite is an unattended client.
const BASE: &str = "[policy]\nunconfirmed = \"allow\"\n";

/// The suite's configuration: [`BASE`], then `toml` (over the test harness's defaults).
pub(crate) fn config(toml: &str) -> axgate::config::Config {
    support::config(&format!("{BASE}{toml}"))
}

/// One backend the suite runs on: how to start axgate on it with the contract app.
#[allow(async_fn_in_trait)]
pub(crate) trait Target {
    /// Starts axgate on this backend under [`config`]`(toml)`, with the contract app running
    /// and shown, and holds what the backend needs exclusively (the desktop) while it runs.
    async fn start(&self, toml: &str) -> Run;

    /// What `launch_app` is given to start the contract app anew.
    fn launch_spec(&self) -> String;

    /// What this target's backend says it can do (`Backend::capabilities`); the
    /// `capabilities` contract checks that the server says the same.
    fn capabilities(&self) -> Capabilities;

    /// Whether the contract app is a process the target can freeze and kill from outside
    /// ([`AppSide::hang`], [`AppSide::kill`]); a recording is not.
    fn live_app(&self) -> bool {
        true
    }
}

/// What a contract needs beyond reading a running app.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Need {
    Act,
    Typing,
    Keys,
    Select,
    Windows,
    Activate,
    Launch,
    Quit,
    Screenshots,
    /// An app process to freeze or kill ([`Target::live_app`]).
    LiveApp,
}

impl Need {
    fn capability(self) -> Option<Capability> {
        Some(match self {
            Need::Act => Capability::Act,
            Need::Typing => Capability::Typing,
            Need::Keys => Capability::Keys,
            Need::Select => Capability::Select,
            Need::Windows => Capability::Windows,
            Need::Activate => Capability::Activate,
            Need::Launch => Capability::Launch,
            Need::Quit => Capability::Quit,
            Need::Screenshots => Capability::Screenshots,
            Need::LiveApp => return None,
        })
    }
}

/// Whether `target` lacks something of `needs`; says on stderr what, so a skipped contract
/// shows in the test output (`--nocapture`).
pub(crate) fn unmet(target: &impl Target, needs: &[Need]) -> bool {
    let caps = target.capabilities();
    let missing: Vec<String> = needs
        .iter()
        .filter(|n| match n.capability() {
            Some(cap) => !caps.has(cap),
            None => !target.live_app(),
        })
        .map(|n| match n.capability() {
            Some(cap) => format!("the `{}` capability", cap.as_str()),
            None => "an app process to freeze or kill".to_owned(),
        })
        .collect();
    if !missing.is_empty() {
        eprintln!("skipped: the target lacks {}", missing.join(", "));
    }
    !missing.is_empty()
}

/// The contract app seen from its own side (not through axgate), and what happens to it from
/// outside axgate.
pub(crate) trait AppSide: Send {
    /// The app's own latest value of a field (`name`, `password`, `subscribe`, `volume`,
    /// `status`), as text (`true`, `30`); `None` while it has not said.
    fn field(&self, field: &str) -> Option<String>;

    /// Makes an app stop answering accessibility calls and returns its name: the contract app
    /// itself where it can freeze, else the backend's hung app.
    fn hang(&mut self) -> String;

    /// Ends the contract app from outside axgate (to axgate, a crash).
    fn kill(&mut self);
}

/// A started contract: dropping it ends the app, then the server, then the desktop turn.
pub(crate) struct Run {
    pub(crate) c: Client,
    /// `http://127.0.0.1:<port>/mcp`.
    pub(crate) url: String,
    /// The contract app's name as axgate lists it.
    pub(crate) app: String,
    pub(crate) side: Box<dyn AppSide>,
    /// The backend, where the server runs in this process: for a capability that no tool
    /// exposes (`key_receiver`), checked directly.
    pub(crate) direct: Option<Arc<dyn Backend>>,
    _held: Vec<Box<dyn Any + Send>>,
}

impl Run {
    /// A started contract: a session is opened on `url`; `held` lives as long as the run.
    pub(crate) async fn new(
        url: String,
        app: &str,
        side: Box<dyn AppSide>,
        direct: Option<Arc<dyn Backend>>,
        held: Vec<Box<dyn Any + Send>>,
    ) -> Run {
        let c = session(&url).await;
        Run {
            c,
            url,
            app: app.to_owned(),
            side,
            direct,
            _held: held,
        }
    }

    /// `extra` with this run's `"app"` added.
    pub(crate) fn args(&self, extra: Value) -> Value {
        let mut args = extra;
        args["app"] = json!(self.app);
        args
    }

    /// Calls a tool on the contract app (`app` added) and returns the whole result.
    pub(crate) async fn call(&mut self, tool: &str, extra: Value) -> Value {
        let args = self.args(extra);
        self.c.call(tool, args).await
    }

    /// Calls a tool on the contract app; fails on a tool error; returns `structuredContent`.
    pub(crate) async fn ok(&mut self, tool: &str, extra: Value) -> Value {
        let args = self.args(extra);
        self.c.ok(tool, args).await
    }

    /// Calls a tool on the contract app that must fail with text holding every needle;
    /// returns the text.
    pub(crate) async fn err(&mut self, tool: &str, extra: Value, needles: &[&str]) -> String {
        let args = self.args(extra);
        let result = self.c.call(tool, args.clone()).await;
        assert_eq!(
            result["isError"], true,
            "{tool} {args} should fail: {result}"
        );
        let text = text_of(&result);
        for needle in needles {
            assert!(
                text.contains(needle),
                "{tool} {args}: {needle:?} not in {text:?}"
            );
        }
        text
    }

    /// The handle of the one element with this role and exact accessible name.
    pub(crate) async fn handle(&mut self, role: &str, title: &str) -> String {
        let found = self
            .ok(
                "find",
                json!({"role": role, "name": title, "mode": "exact", "case_sensitive": true}),
            )
            .await;
        let matches = found["matches"].as_array().expect("matches");
        assert_eq!(matches.len(), 1, "one {role} {title:?}: {found}");
        matches[0]["handle"].as_str().expect("handle").to_owned()
    }

    /// `get_element`'s element for a target (a path or a handle).
    pub(crate) async fn element(&mut self, target: &str) -> Value {
        self.ok("get_element", json!({"target": target})).await["element"].clone()
    }

    /// Waits (5 s) until the app itself says `field` is `want`.
    pub(crate) fn expect(&self, field: &str, want: &str) {
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            let seen = self.side.field(field);
            if seen.as_deref() == Some(want) {
                return;
            }
            assert!(
                Instant::now() < until,
                "the app never said {field}={want:?}; it last said {seen:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits (5 s) until the status label reads `text` (its title on AT-SPI, its value on
    /// the demo backend and macOS: the query matches either).
    pub(crate) async fn status_is(&mut self, text: &str) {
        let waited = self
            .ok(
                "wait_for",
                json!({"query": {"role": "static_text", "text": text},
                       "condition": "exists", "timeout_ms": 5000}),
            )
            .await;
        assert_eq!(waited["satisfied"], true, "{waited}");
        self.expect("status", text);
    }

    /// Which capabilities the server says its backend has (`/readyz`), and which it lacks.
    pub(crate) async fn capabilities(&self) -> (Vec<Capability>, Vec<Capability>) {
        let url = self.url.replace("/mcp", "/readyz");
        let body: Value = reqwest::get(&url)
            .await
            .expect("GET /readyz")
            .json()
            .await
            .expect("a JSON body");
        let list = |key: &str| -> Vec<Capability> {
            body[key]
                .as_array()
                .unwrap_or_else(|| panic!("/readyz has no {key}: {body}"))
                .iter()
                .map(|name| {
                    *Capability::ALL
                        .iter()
                        .find(|c| Some(c.as_str()) == name.as_str())
                        .unwrap_or_else(|| panic!("unknown capability {name}"))
                })
                .collect()
        };
        (list("capabilities"), list("lacks"))
    }
}

/// A fresh client with an initialised session on `url`.
pub(crate) async fn session(url: &str) -> Client {
    let mut c = Client {
        http: reqwest::Client::new(),
        url: url.to_owned(),
        session: None,
        next_id: 1,
    };
    c.initialize().await;
    c
}
