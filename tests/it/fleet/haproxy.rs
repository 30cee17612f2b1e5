//! Three `axgate serve` (demo backend, auth on, exclusive mode, agent-check port) behind the
//! real HAProxy running `deploy/haproxy/haproxy.cfg` (checked with `haproxy -c` first), and
//! the real Prometheus running `deploy/prometheus/prometheus.yml` over file_sd targets with
//! per-Mac labels. Which Mac served what is read from each Mac's own `/metrics`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use axgate::audit::session_tag;
use serde_json::{Value, json};

use super::Tokens;
use super::exclusive::{agent_in_log, signal};
use crate::spawned::Axgate;
use crate::support::{Client, PROTOCOL};

pub(super) const HAPROXY: &str = "/usr/sbin/haproxy";
const PROMETHEUS: &str = "/usr/bin/prometheus";
const NAMES: [&str; 3] = ["mac1", "mac2", "mac3"];

pub(super) fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(super) fn require(binary: &str, package: &str) {
    assert!(
        Path::new(binary).exists(),
        "{binary} is missing: install Debian's {package} package (apt-get install {package}; \
         .ci/run does)"
    );
}

/// A loopback port free a moment ago (HAProxy and Prometheus cannot report a port 0 bind).
pub(super) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A child process killed on drop, its output in a file for failure messages.
pub(super) struct Proc {
    child: std::process::Child,
    log: std::path::PathBuf,
}

impl Proc {
    pub(super) fn start(command: &mut Command, log: std::path::PathBuf) -> Proc {
        let file = std::fs::File::create(&log).unwrap();
        let child = command
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        Proc { child, log }
    }

    pub(super) fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One Mac of the rack: its axgate and what HAProxy is told about it.
pub(super) struct Mac {
    pub(super) name: &'static str,
    pub(super) axgate: Axgate,
    pub(super) addr: SocketAddr,
    pub(super) agent: SocketAddr,
}

pub(super) fn start_mac(name: &'static str, config: &Path) -> Mac {
    let axgate = Axgate::serve(&["--backend", "demo", "--config", config.to_str().unwrap()]);
    let addr = axgate
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let agent = agent_in_log(&axgate);
    Mac {
        name,
        axgate,
        addr,
        agent,
    }
}

/// A sample of one Mac's `/metrics` (0 when the series is absent).
pub(super) async fn sample(mac: &Mac, token: &str, series: &str) -> f64 {
    let text = crate::support::scrape(mac.addr, Some(token)).await;
    crate::support::sample_of(&text, series).unwrap_or(0.0)
}

/// The Mac whose `axgate_sessions_active` is `n`... of those listed, exactly one.
async fn mac_with_sessions<'a>(macs: &[&'a Mac], token: &str, n: f64) -> &'a Mac {
    let mut found = Vec::new();
    for mac in macs {
        if sample(mac, token, "axgate_sessions_active").await == n {
            found.push(*mac);
        }
    }
    assert_eq!(found.len(), 1, "exactly one Mac has {n} session(s)");
    found[0]
}

/// HAProxy's view of the `macs` backend: server name → status (UP, DRAIN, DOWN, …).
async fn statuses(stats: &str) -> BTreeMap<String, String> {
    // Empty until HAProxy listens.
    let Ok(resp) = reqwest::get(format!("http://{stats}/stats;csv")).await else {
        return BTreeMap::new();
    };
    let text = resp.text().await.unwrap_or_default();
    if !text.starts_with("# ") {
        return BTreeMap::new();
    }
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap()
        .trim_start_matches("# ")
        .split(',')
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (px, sv, status) = (col("pxname"), col("svname"), col("status"));
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f.len() > status && f[px] == "macs" && NAMES.contains(&f[sv]))
        .map(|f| (f[sv].to_owned(), f[status].to_owned()))
        .collect()
}

/// HAProxy with the configuration under test, the file in deploy/, given the front's and the
/// stats page's addresses (free loopback ports) and each member's address and agent-check port
/// (`MAC1_…` for the first): checked with `haproxy -c`, then started. The process, the front's
/// and the stats page's addresses.
pub(super) fn shipped_haproxy(dir: &Path, members: &[(String, u16)]) -> (Proc, String, String) {
    let cfg = repo().join("deploy/haproxy/haproxy.cfg");
    let front = format!("127.0.0.1:{}", free_port());
    let stats = format!("127.0.0.1:{}", free_port());
    let mut env = vec![
        ("FLEET_BIND".to_owned(), front.clone()),
        ("FLEET_STATS_BIND".to_owned(), stats.clone()),
    ];
    for (i, (addr, agent)) in members.iter().enumerate() {
        env.push((format!("MAC{}_ADDR", i + 1), addr.clone()));
        env.push((format!("MAC{}_AGENT_PORT", i + 1), agent.to_string()));
    }
    let checked = Command::new(HAPROXY)
        .args(["-c", "-f"])
        .arg(&cfg)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "haproxy -c: {}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    let haproxy = Proc::start(
        Command::new(HAPROXY)
            .args(["-db", "-f"])
            .arg(&cfg)
            .envs(env.iter().map(|(k, v)| (k, v))),
        dir.join("haproxy.log"),
    );
    (haproxy, front, stats)
}

/// Waits (at most 10 s) until HAProxy shows each named server in the wanted state.
pub(super) async fn haproxy_sees(stats: &str, want: &[(&str, &str)], haproxy: &Proc) {
    let mut seen = BTreeMap::new();
    for _ in 0..200 {
        seen = statuses(stats).await;
        if want
            .iter()
            .all(|(name, state)| seen.get(*name).is_some_and(|s| s.starts_with(state)))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "HAProxy shows {seen:?}, not {want:?}; its log:\n{}",
        haproxy.output()
    );
}

fn client(url: &str, token: &str) -> Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse().unwrap(),
    );
    Client {
        http: reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap(),
        url: url.to_owned(),
        session: None,
        next_id: 1,
    }
}

/// An `initialize` that must be refused with 503 and Retry-After; its JSON-RPC message.
async fn refused(client: &Client) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "fleet-test", "version": "1"}}
    });
    let resp = client.post(&body).send().await.unwrap();
    assert_eq!(resp.status(), 503);
    assert!(resp.headers().contains_key("retry-after"), "Retry-After");
    let body: Value = resp.json().await.expect("a JSON-RPC body");
    body["error"]["message"].as_str().unwrap().to_owned()
}

/// The HTTP status of a `tools/call` of `list_apps` in the client's session.
async fn call_status(client: &mut Client) -> u16 {
    let id = client.next_id;
    client.next_id += 1;
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "list_apps", "arguments": {}}});
    let resp = client.post(&body).send().await.unwrap();
    let status = resp.status().as_u16();
    // Read to the end: the call has finished (and is counted) when its stream ends.
    let text = resp.text().await.unwrap();
    if status == 200 {
        assert!(text.contains("\"result\""), "{text}");
    }
    status
}

const LIST_APPS_OK: &str = "axgate_tool_calls_total{outcome=\"ok\",tool=\"list_apps\"}";

/// Starts Prometheus with the deploy configuration (scrape interval shortened, the token and
/// the targets staged in `dir`) over file_sd targets naming each Mac.
fn start_prometheus(dir: &Path, macs: &[Mac], token: &str) -> (Proc, String) {
    let config = std::fs::read_to_string(repo().join("deploy/prometheus/prometheus.yml")).unwrap();
    std::fs::write(dir.join("scrape.token"), token).unwrap();
    let config = config
        .replace(
            "/etc/prometheus/axgate-scrape.token",
            &dir.join("scrape.token").display().to_string(),
        )
        .replace("15s", "1s")
        .replace("scrape_timeout: 10s", "scrape_timeout: 1s");
    std::fs::write(dir.join("prometheus.yml"), config).unwrap();
    std::fs::copy(
        repo().join("deploy/prometheus/axgate.rules.yml"),
        dir.join("axgate.rules.yml"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("targets")).unwrap();
    let groups: Vec<Value> = macs
        .iter()
        .map(|m| json!({"targets": [m.addr.to_string()], "labels": {"mac": m.name, "pool": "fleet-test"}}))
        .collect();
    std::fs::write(
        dir.join("targets/fleet.json"),
        serde_json::to_string(&groups).unwrap(),
    )
    .unwrap();
    let port = free_port();
    let prometheus = Proc::start(
        &mut crate::support::prometheus_command(PROMETHEUS, dir, port),
        dir.join("prometheus.log"),
    );
    (prometheus, format!("http://127.0.0.1:{port}"))
}

/// The `mac` labels of the series a PromQL query returns.
async fn macs_in(base: &str, query: &str) -> Vec<String> {
    let Ok(resp) = reqwest::Client::new()
        .get(format!("{base}/api/v1/query"))
        .query(&[("query", query)])
        .send()
        .await
    else {
        return Vec::new();
    };
    let body: Value = resp.json().await.unwrap_or_default();
    let mut macs: Vec<String> = body["data"]["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["metric"]["mac"].as_str().map(str::to_owned))
        .collect();
    macs.sort();
    macs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_exclusive_macs_behind_haproxy() {
    require(HAPROXY, "haproxy");
    require(PROMETHEUS, "prometheus");
    let tokens = Tokens::new();
    let dir = tempfile::tempdir().unwrap();
    let fleet = "[fleet]\nexclusive = true\nagent_listen = \"127.0.0.1:0\"\n\
                 [limits]\ncalls_per_second = 100000\n";
    let config = tokens.config_file(dir.path(), fleet);
    let mut macs: Vec<Mac> = NAMES.iter().map(|n| start_mac(n, &config)).collect();
    let (prometheus, prom) = start_prometheus(dir.path(), &macs, &tokens.admin);

    let members: Vec<(String, u16)> = macs
        .iter()
        .map(|m| (m.addr.to_string(), m.agent.port()))
        .collect();
    let (haproxy, front, stats) = shipped_haproxy(dir.path(), &members);
    let url = format!("http://{front}/mcp");
    let everyone: Vec<(&str, &str)> = NAMES.iter().map(|n| (*n, "UP")).collect();
    haproxy_sees(&stats, &everyone, &haproxy).await;

    // Three exclusive clients land on three distinct Macs; HAProxy learns each is busy.
    let mut clients = Vec::new();
    let mut placed: Vec<&'static str> = Vec::new();
    for _ in 0..3 {
        let mut c = client(&url, &tokens.ci);
        c.initialize().await;
        let free: Vec<&Mac> = macs.iter().filter(|m| !placed.contains(&m.name)).collect();
        let mac = mac_with_sessions(&free, &tokens.admin, 1.0).await;
        placed.push(mac.name);
        haproxy_sees(&stats, &[(mac.name, "DRAIN")], &haproxy).await;
        clients.push(c);
    }
    let mac_of = |i: usize| macs.iter().position(|m| m.name == placed[i]).unwrap();
    let (a, b, c) = (mac_of(0), mac_of(1), mac_of(2));
    // The fourth: every Mac is busy, HAProxy answers with the errorfile's JSON-RPC body ...
    let message = refused(&client(&url, &tokens.other)).await;
    assert!(message.contains("No Mac behind this address"), "{message}");
    // ... and a client that names a Mac gets that Mac's own answer, naming the holder.
    let named = format!("http://{front}/mac/{}/mcp", macs[a].name);
    let message = refused(&client(&named, &tokens.other)).await;
    let holder = session_tag(clients[0].session.as_deref().unwrap());
    assert!(message.contains(&holder), "names the holder: {message}");

    // Prometheus sees the three Macs busy, each under its own mac label from file_sd.
    let query = "axgate_capacity_state{job=\"axgate\",pool=\"fleet-test\",state=\"busy\"} == 1";
    let mut seen = Vec::new();
    for _ in 0..60 {
        seen = macs_in(&prom, query).await;
        if seen.len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(seen, NAMES, "Prometheus log:\n{}", prometheus.output());

    // A session sticks to its Mac across 100 calls.
    for _ in 0..100 {
        assert_eq!(call_status(&mut clients[0]).await, 200);
    }
    for (i, mac) in macs.iter().enumerate() {
        let calls = sample(mac, &tokens.admin, LIST_APPS_OK).await;
        assert_eq!(calls, if i == a { 100.0 } else { 0.0 }, "{}", mac.name);
    }

    // B ends its session; A's Mac drains: A goes on, and the next session goes to B's Mac.
    let ended = clients[1]
        .http
        .delete(&url)
        .header("mcp-session-id", clients[1].session.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 200);
    signal(&macs[a].axgate, "USR1");
    assert_eq!(call_status(&mut clients[0]).await, 200, "draining serves A");
    assert_eq!(sample(&macs[a], &tokens.admin, LIST_APPS_OK).await, 101.0);
    let ended = clients[0]
        .http
        .delete(&url)
        .header("mcp-session-id", clients[0].session.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 200);
    let want = [(macs[a].name, "DRAIN"), (macs[b].name, "UP")];
    haproxy_sees(&stats, &want, &haproxy).await;
    let mut next = client(&url, &tokens.other);
    next.initialize().await;
    assert_eq!(
        sample(&macs[b], &tokens.admin, "axgate_sessions_active").await,
        1.0
    );
    assert_eq!(
        sample(&macs[a], &tokens.admin, "axgate_sessions_active").await,
        0.0
    );

    // A's Mac is back; C's Mac dies: C's next request gets 404 from another Mac, and C
    // starts over there.
    signal(&macs[a].axgate, "USR2");
    haproxy_sees(&stats, &[(macs[a].name, "UP")], &haproxy).await;
    macs[c].axgate.kill_9();
    let status = call_status(&mut clients[2]).await;
    assert_eq!(status, 404, "HAProxy log:\n{}", haproxy.output());
    clients[2].session = None;
    clients[2].initialize().await;
    assert_eq!(call_status(&mut clients[2]).await, 200);
    assert_eq!(sample(&macs[a], &tokens.admin, LIST_APPS_OK).await, 102.0);
    haproxy_sees(&stats, &[(macs[c].name, "DOWN")], &haproxy).await;
    drop(haproxy);
    drop(prometheus);
}

#[test]
fn the_fleet_alert_rules_pass_promtool_test_rules() {
    let out = Command::new("promtool")
        .args(["test", "rules", "deploy/prometheus/axgate.rules.test.yml"])
        .current_dir(repo())
        .output()
        .expect("promtool runs: install Debian's prometheus package");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tests =
        std::fs::read_to_string(repo().join("deploy/prometheus/axgate.rules.test.yml")).unwrap();
    for alert in ["AxgateBusyTooLong", "AxgateDrainingTooLong"] {
        assert!(
            tests.contains(&format!("alertname: {alert}")),
            "{alert} is tested"
        );
    }
}

/// `deploy/haproxy/fleet.env.example` sets every variable `haproxy.cfg` reads, and the real
/// HAProxy accepts the configuration with exactly those (`haproxy -c`), as FLEET.md says to
/// check it.
#[test]
fn the_example_environment_file_sets_every_variable_haproxy_checks() {
    require(HAPROXY, "haproxy");
    let cfg = std::fs::read_to_string(repo().join("deploy/haproxy/haproxy.cfg")).unwrap();
    let example = std::fs::read_to_string(repo().join("deploy/haproxy/fleet.env.example")).unwrap();
    let env: BTreeMap<&str, &str> = example
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            l.split_once('=')
                .unwrap_or_else(|| panic!("not NAME=value: {l}"))
        })
        .collect();
    let used: std::collections::BTreeSet<&str> = cfg
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split("${").skip(1))
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect();
    let set: std::collections::BTreeSet<&str> = env.keys().copied().collect();
    assert_eq!(used, set, "haproxy.cfg's variables and the example's");
    let checked = Command::new(HAPROXY)
        .args(["-c", "-f"])
        .arg(repo().join("deploy/haproxy/haproxy.cfg"))
        .env_clear()
        .envs(env)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "haproxy -c with fleet.env.example: {}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}
