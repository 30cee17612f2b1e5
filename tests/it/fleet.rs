//! The fleet (docs/FLEET.md): many machines behind one HAProxy address. `exclusive` drives one
//! axgate in this process: exclusive mode (503 naming the holder's tag, the holder never
//! evicted, sessionless requests by principal), draining (tool and signals), the capacity
//! word on the agent-check port and its metrics. `haproxy` runs the real components: three
//! `axgate serve` processes (demo backend, auth on) behind Debian's `haproxy` with the
//! configuration in `deploy/haproxy/`, and Prometheus scraping them through file_sd with
//! per-Mac labels; `webdriver` runs WebDriver sessions through the same HAProxy configuration,
//! each command reaching the Mac that made its session. HAProxy, Prometheus and promtool are required: these tests fail, never
//! skip, without them.

mod exclusive;
mod haproxy;
mod hold;
mod webdriver;

use std::time::Duration;

use axgate::http::auth::tokens;
use axgate::identity::Scope;
use tokio::io::AsyncReadExt;

/// One token per role, generated for this test run.
pub(crate) struct Tokens {
    pub(crate) ci: String,
    pub(crate) other: String,
    pub(crate) admin: String,
    /// `axgate:read` only.
    pub(crate) reader: String,
}

impl Tokens {
    pub(crate) fn new() -> Tokens {
        let t = || tokens::generate().expect("random token");
        Tokens {
            ci: t(),
            other: t(),
            admin: t(),
            reader: t(),
        }
    }

    /// The `[auth]` section granting each its scopes.
    pub(crate) fn section(&self) -> String {
        let entry = |name: &str, token: &str, scopes: &[Scope]| {
            tokens::config_entry(
                name,
                &tokens::sha256(token),
                &scopes.iter().copied().collect(),
            )
        };
        let act = [Scope::Read, Scope::Act];
        format!(
            "[auth]\ntokens = [{}, {}, {}, {}]\n",
            entry("ci", &self.ci, &act),
            entry("other", &self.other, &act),
            entry(
                "admin",
                &self.admin,
                &[Scope::Read, Scope::Act, Scope::Admin]
            ),
            entry("reader", &self.reader, &[Scope::Read]),
        )
    }

    /// A member's configuration file in `dir`: `fleet` (TOML sections) and these tokens.
    pub(crate) fn config_file(&self, dir: &std::path::Path, fleet: &str) -> std::path::PathBuf {
        let path = dir.join("axgate.toml");
        std::fs::write(&path, format!("{fleet}{}", self.section())).expect("write the config");
        path
    }
}

/// The word the agent-check port answers, as HAProxy reads it (one line, then close).
pub(crate) async fn agent_word(addr: std::net::SocketAddr) -> String {
    let read = async {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("agent port");
        let mut text = String::new();
        stream
            .read_to_string(&mut text)
            .await
            .expect("agent answer");
        text
    };
    let text = tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .expect("the agent answers within 5 s");
    assert!(text.ends_with('\n'), "one line: {text:?}");
    text.trim_end().to_owned()
}

/// Waits (at most 5 s) until the agent says `want`; fails with what it said last.
pub(crate) async fn agent_says(addr: std::net::SocketAddr, want: &str) {
    let mut last = String::new();
    for _ in 0..100 {
        last = agent_word(addr).await;
        if last == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the agent said {last:?}, not {want:?}");
}
