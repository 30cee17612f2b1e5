//! Helpers for tests and benchmarks that drive real GTK3 apps inside the headless desktop of
//! `tests/desktop/session.sh`: the desktop check, an axgate server over the AT-SPI backend
//! (built like `tests/support`'s demo server, through the same public API), the test apps as
//! child processes whose stdout change log is collected, and the pyatspi reference walk.
#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use axgate::config::{Config, Layers};
use axgate::platform::atspi::AtspiBackend;
use base64::Engine as _;
use serde_json::{Value, json};

use super::support::Client;
use super::support::change_log::ChangeLog;
use tokio::sync::oneshot;

/// Tests that drive the desktop run one at a time: pointer and keyboard input are global.
pub static DESKTOP: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Fails (never skips) when not inside the desktop session.
pub fn require_desktop() {
    if std::env::var("DESKTOP_AXGATE").as_deref() != Ok("1") {
        panic!(
            "these tests drive real GTK apps over AT-SPI: run under tests/desktop/session.sh, \
             e.g. `tests/desktop/session.sh -- cargo test --release --test atspi`"
        );
    }
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Config from TOML over the defaults.
pub fn config(toml: &str) -> Config {
    let mut layers = Layers::default();
    layers.toml_text(toml, "test");
    layers.build().expect("valid test config")
}

/// An axgate server over the AT-SPI backend on a loopback port.
pub struct AtspiServer {
    pub url: String,
    stop: Option<oneshot::Sender<()>>,
}

impl AtspiServer {
    pub async fn start(toml: &str) -> AtspiServer {
        require_desktop();
        let config = config(toml);
        let backend = Arc::new(AtspiBackend::new().expect("AT-SPI backend"));
        let served = super::support::serve(config, backend).await;
        AtspiServer {
            url: served.url,
            stop: Some(served.stop),
        }
    }

    /// A fresh client with an initialized session.
    pub async fn session(&self) -> super::support::Client {
        let mut c = super::support::Client {
            http: reqwest::Client::new(),
            url: self.url.clone(),
            session: None,
            next_id: 1,
        };
        c.initialize().await;
        c
    }
}

impl Drop for AtspiServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// One test's turn on the desktop: its app, an axgate server over AT-SPI and a session on
/// it. Fields drop in order: the session and server first, the app, then the turn.
pub struct Gtk {
    pub c: Client,
    pub server: AtspiServer,
    pub app: App,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

impl Gtk {
    /// Waits for the desktop, starts the app (`start`), then a server with `toml` over the
    /// defaults and a session.
    pub async fn open(toml: &str, start: impl FnOnce() -> App) -> Gtk {
        require_desktop();
        let turn = DESKTOP.lock().await;
        let app = start();
        let server = AtspiServer::start(toml).await;
        let c = server.session().await;
        Gtk {
            c,
            server,
            app,
            _turn: turn,
        }
    }

    /// Calls a tool on this test's app (its `app` argument is added), failing on a tool error.
    pub async fn ok(&mut self, tool: &str, mut args: Value) -> Value {
        args["app"] = json!(self.app.name);
        ok(&mut self.c, tool, args).await
    }

    /// The handle of the app's first element with this role and accessible name.
    pub async fn handle(&mut self, role: &str, title: &str) -> String {
        let app = self.app.name.clone();
        handle(&mut self.c, &app, role, title).await
    }
}

/// A test app running as a child, with its change log.
pub struct App {
    pub name: String,
    pub pid: u32,
    child: Child,
    stdin: Option<ChildStdin>,
    log: ChangeLog,
}

impl App {
    /// Starts `tests/desktop/apps/<script>` and waits until it says it is ready and shows up
    /// on the AT-SPI desktop as `name`.
    pub fn start(script: &str, args: &[&str], name: &str) -> App {
        require_desktop();
        let path = repo().join("tests/desktop/apps").join(script);
        let mut cmd = Command::new("/usr/bin/python3");
        cmd.arg(&path).args(args).env("TEST_APP_NAME", name);
        App::spawn(cmd, name, true)
    }

    /// Starts any program that shows up on the desktop as `name` (no change log).
    pub fn program(program: &str, name: &str) -> App {
        require_desktop();
        App::spawn(Command::new(program), name, false)
    }

    fn spawn(mut cmd: Command, name: &str, says_ready: bool) -> App {
        let mut child = cmd
            .env_remove("NO_AT_BRIDGE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let app = App {
            name: name.to_owned(),
            pid: child.id(),
            stdin: child.stdin.take(),
            log: ChangeLog::follow(&mut child),
            child,
        };
        if says_ready {
            app.wait_line(|l| l == "ready", Duration::from_secs(20))
                .unwrap_or_else(|| panic!("{name} did not start: {:?}", app.lines()));
        }
        wait_on_desktop(name, Duration::from_secs(20));
        app
    }

    pub fn lines(&self) -> Vec<String> {
        self.log.lines()
    }

    /// Waits until a line of the change log satisfies `pred`.
    pub fn wait_line(&self, pred: impl Fn(&str) -> bool, limit: Duration) -> Option<String> {
        self.log.wait_line(pred, limit)
    }

    /// Asserts the app logged `line` within five seconds.
    pub fn expect(&self, line: &str) {
        self.log.expect(line, Duration::from_secs(5), &self.name);
    }

    /// Sends a command line to the app's stdin.
    pub fn send(&mut self, command: &str) {
        let stdin = self.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{command}").expect("write to the app");
        stdin.flush().expect("flush");
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until an app named `name` is on the AT-SPI desktop (asked with pyatspi).
pub fn wait_on_desktop(name: &str, limit: Duration) {
    let script = "import sys, time, pyatspi\n\
                  until = time.time() + float(sys.argv[2])\n\
                  while time.time() < until:\n\
                  \x20   if any(a is not None and a.name == sys.argv[1] for a in pyatspi.Registry.getDesktop(0)):\n\
                  \x20       sys.exit(0)\n\
                  \x20   time.sleep(0.05)\n\
                  sys.exit(1)\n";
    let ok = Command::new("/usr/bin/python3")
        .args(["-c", script, name, &limit.as_secs_f64().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{name} did not appear on the AT-SPI desktop within {limit:?}"
    );
}

/// The pyatspi reference walk of an app: `{"seconds": …, "nodes": [...]}`.
pub fn pyatspi_walk(name: &str) -> Value {
    let out = Command::new("/usr/bin/python3")
        .arg(repo().join("tests/desktop/walk.py"))
        .arg(name)
        .output()
        .expect("run walk.py");
    assert!(
        out.status.success(),
        "walk.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("walk.py prints JSON")
}

/// The handle of the first element with this role and accessible name (`find`, exact).
pub async fn handle(c: &mut Client, app: &str, role: &str, title: &str) -> String {
    let args = json!({"app": app, "role": role, "name": title, "mode": "exact"});
    let found = ok(c, "find", args).await;
    found["matches"][0]["handle"]
        .as_str()
        .unwrap_or_else(|| panic!("no {role} {title:?} in {app}: {found}"))
        .to_owned()
}

/// Calls a tool and returns its structured content, failing on a tool error.
pub async fn ok(c: &mut Client, tool: &str, args: Value) -> Value {
    c.ok(tool, args).await
}

/// Decodes a screenshot result's PNG: (width, height, distinct colours seen).
pub fn decode_png(result: &Value) -> (u32, u32, usize) {
    let data = result["content"][0]["data"].as_str().expect("image block");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64");
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("pixels");
    let mut colours: Vec<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
    colours.sort();
    colours.dedup();
    (info.width, info.height, colours.len())
}

/// Checks axgate's `get_tree` result against the pyatspi walk of the same app: as many nodes
/// walked, and every node shown is one pyatspi saw (same native role and name), the others
/// being unlabelled groups the rendering collapses. Returns the node count. With
/// `DUMP_ATSPI_TREES=DIR`, both trees are written there.
pub fn assert_same_tree(ours: &Value, reference: &Value) -> usize {
    let theirs = reference["nodes"].as_array().expect("nodes");
    assert!(
        theirs.iter().all(|n| n.get("error").is_none()),
        "pyatspi walk failed"
    );
    let walked = ours["walked"].as_u64().unwrap() as usize;
    if let Ok(dir) = std::env::var("DUMP_ATSPI_TREES") {
        std::fs::write(format!("{dir}/ours.json"), ours.to_string()).unwrap();
        std::fs::write(format!("{dir}/theirs.json"), reference.to_string()).unwrap();
    }
    assert_eq!(
        walked,
        theirs.len(),
        "axgate walked as many nodes as pyatspi"
    );
    assert!(
        !ours["truncated"].as_bool().unwrap(),
        "{}",
        ours["truncated"]
    );
    // Every node axgate shows is one pyatspi saw (same native role and name); those it does
    // not show are the unlabelled single-child groups the tree rendering collapses.
    let mut left: HashMap<(String, String), usize> = HashMap::new();
    for n in theirs {
        let key = (
            n["role_name"].as_str().unwrap().to_owned(),
            n["name"].as_str().unwrap().to_owned(),
        );
        *left.entry(key).or_default() += 1;
    }
    let shown = ours["nodes"].as_array().unwrap();
    for n in shown {
        let key = (
            n["native_role"].as_str().unwrap().to_owned(),
            n["title"].as_str().unwrap_or("").to_owned(),
        );
        let count = left
            .get_mut(&key)
            .unwrap_or_else(|| panic!("pyatspi has no {key:?}"));
        assert!(
            *count > 0,
            "axgate shows {key:?} more often than pyatspi sees it"
        );
        *count -= 1;
    }
    let collapsed: usize = left.values().sum();
    assert_eq!(
        collapsed,
        walked - shown.len(),
        "only collapsed nodes are not shown"
    );
    assert!(
        left.iter().all(|((_, name), n)| *n == 0 || name.is_empty()),
        "collapsed nodes are unlabelled: {left:?}"
    );
    walked
}
