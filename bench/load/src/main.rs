//! `axgate-load`: the load harness of docs/PERFORMANCE.md ("Core under load"). Starts, from
//! the release build next to this binary, axgate (demo backend) once per auth mode (off,
//! static bearer, JWT with a JWKS served here) and the two references (`axgate-ref-rmcp`, a
//! bare rmcp server; `axgate-ref-axum`, a bare axum handler), then in one run, each
//! reference cell beside the axgate cells it is compared with:
//! - `tools/call list_apps` and `set_value` at c = 1, 8, 32, one session or one per
//!   connection: req/s, p50/p90/p99, server CPU per call, ratio to rmcp;
//! - session creations per second and RSS per idle session with an open GET stream;
//! - `Last-Event-ID` replay time against missed events and history length;
//! - RSS after big reads (`get_tree` of the demo Huge app).
//!
//! - `list_apps` beside clients of a hung app: p99 against its unloaded value.
//!
//! Prints Markdown tables; never fails on a figure. `--short` (CI): fewer cells, about a
//! second each. `--hold SECS`: only the one-session c=32 `list_apps` cell (bearer), for a
//! profiler (it prints axgate's pid); `--hold SECS --per-connection`: the same cell with a
//! session per connection. `--soak SECS`: only the soak (`soak.rs`). `--versus BIN`: only
//! the release build beside the axgate binary BIN (`versus.rs`, bench/dist.sh). `--after
//! CALLS [--url URL]`: only RSS after CALLS `list_apps` calls, rmcp beside axgate
//! (`after.rs`, issue 33). Run it
//! through `bench/load.sh`, which builds everything once.

mod after;
mod cells;
mod client;
mod servers;
mod sessions;
mod soak;
mod versus;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};

use cells::{Figures, Op, Sessions};
use client::Target;
use servers::{AuthMode, Credentials, Server};

struct Plan {
    short: bool,
    measure: Duration,
    max_calls: usize,
    groups: Vec<(Sessions, usize)>,
    sessions: usize,
    histories: Vec<usize>,
    missed: Vec<usize>,
    big_marks: Vec<usize>,
    big_limit: Duration,
}

impl Plan {
    fn new(short: bool) -> Plan {
        use Sessions::{One, PerConnection as Per};
        if short {
            Plan {
                short,
                measure: Duration::from_millis(1000),
                max_calls: 50_000,
                groups: vec![(One, 1), (One, 32), (Per, 32)],
                sessions: 300,
                histories: vec![1, 500],
                missed: vec![10, 100],
                big_marks: vec![10, 50],
                big_limit: Duration::from_secs(15),
            }
        } else {
            Plan {
                short,
                measure: Duration::from_secs(3),
                max_calls: 200_000,
                groups: vec![(One, 1), (One, 8), (One, 32), (Per, 1), (Per, 8), (Per, 32)],
                sessions: 1000,
                histories: vec![1, 2000],
                missed: vec![1, 10, 100, 400],
                big_marks: vec![10, 1000],
                big_limit: Duration::from_secs(150),
            }
        }
    }

    /// The axgate cells of a group: (auth, tool).
    fn axgate_cells(&self, group: (Sessions, usize)) -> Vec<(AuthMode, &'static str)> {
        let all = [AuthMode::Off, AuthMode::Bearer, AuthMode::Jwt];
        if !self.short {
            return all
                .iter()
                .flat_map(|&a| [(a, "list_apps"), (a, "set_value")])
                .collect();
        }
        let mut cells = vec![
            (AuthMode::Bearer, "list_apps"),
            (AuthMode::Bearer, "set_value"),
        ];
        if group == (Sessions::One, 32) {
            cells.push((AuthMode::Off, "list_apps"));
            cells.push((AuthMode::Jwt, "list_apps"));
        }
        cells
    }
}

fn tool_args(tool: &str) -> Value {
    match tool {
        // The same value every time: concurrent writers never see another's value on read-back.
        "set_value" => {
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]", "value": "axgate load"})
        }
        _ => json!({}),
    }
}

pub(crate) fn list_op() -> Op {
    Op::Tool("list_apps", json!({}))
}

/// The number after `flag` (`--hold SECS`: only the cell a profile is taken of; `--soak
/// SECS`: only the soak).
fn flag_secs(flag: &str) -> Option<u64> {
    flag_value(flag)?.parse().ok()
}

/// The word after `flag`.
fn flag_value(flag: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == flag)?;
    args.get(at + 1).cloned()
}

pub(crate) fn ms(us: u32) -> String {
    format!("{:.2}", f64::from(us) / 1e3)
}

fn row(
    group: (Sessions, usize),
    server: &str,
    auth: &str,
    tool: &str,
    f: &Figures,
    rmcp: Option<&Figures>,
) -> String {
    let ratio = rmcp.map_or("—".into(), |r| {
        format!("{:.2}×", f.per_sec / r.per_sec.max(1e-9))
    });
    let errors = match &f.first_error {
        Some(e) => format!("{} ({})", f.errors, e.chars().take(120).collect::<String>()),
        None => f.errors.to_string(),
    };
    format!(
        "| {} | {} | {server} | {auth} | {tool} | {:.0} | {} | {} | {} | {:.0} | {ratio} | {errors} |",
        group.0.label(),
        group.1,
        f.per_sec,
        ms(f.p50_us),
        ms(f.p90_us),
        ms(f.p99_us),
        f.cpu_us_per_call
    )
}

/// Isolation from a hung app: `list_apps` with a session per connection at c=8, alone and
/// then while 8 more clients call `get_tree` on the demo's Hung app (which never answers:
/// each call ends at its deadline, or is refused as busy or unresponsive). Target: the
/// loaded p99 within 2× of the unloaded one.
async fn hung_app(plan: &Plan, (server, target): (&Server, Target)) -> anyhow::Result<()> {
    println!("\n## A hung app beside the load (axgate, bearer, session per connection)\n");
    println!(
        "| load | list_apps req/s | p50 ms | p99 ms | Hung calls ended | of which errors | slowest Hung call ms |"
    );
    println!("|---|---|---|---|---|---|---|");
    let list = list_op();
    let c = 8;
    let per = Sessions::PerConnection;
    let alone = cells::run(server, &target, &list, c, per, plan.measure, plan.max_calls).await?;
    println!(
        "| list_apps alone | {:.0} | {} | {} | — | — | — |",
        alone.per_sec,
        ms(alone.p50_us),
        ms(alone.p99_us)
    );
    // The Hung clients call back to back from before the measured cell until it ends; each
    // call is timed to its end, whatever the answer.
    let stop = Arc::new(AtomicBool::new(false));
    let mut stuck = Vec::new();
    for _ in 0..c {
        let mut conn = client::Conn::open(&target).await?;
        conn.initialize().await?;
        let stop = stop.clone();
        stuck.push(tokio::spawn(async move {
            let (mut ended, mut errors, mut slowest) = (0u32, 0u32, 0u32);
            let args = json!({"app": "Hung"});
            while !stop.load(Ordering::Relaxed) {
                let t0 = std::time::Instant::now();
                if conn.call("get_tree", &args).await.is_err() {
                    errors += 1;
                }
                ended += 1;
                slowest = slowest.max(t0.elapsed().as_micros() as u32);
            }
            (ended, errors, slowest)
        }));
    }
    let loaded = cells::run(server, &target, &list, c, per, plan.measure, plan.max_calls).await?;
    stop.store(true, Ordering::Relaxed);
    let (mut ended, mut errors, mut slowest) = (0, 0, 0);
    for task in stuck {
        let (e, x, s) = task.await?;
        (ended, errors, slowest) = (ended + e, errors + x, slowest.max(s));
    }
    println!(
        "| beside {c} clients calling the Hung app | {:.0} | {} | {} | {ended} | {errors} | {} |",
        loaded.per_sec,
        ms(loaded.p50_us),
        ms(loaded.p99_us),
        ms(slowest)
    );
    println!(
        "\nloaded p99 ÷ unloaded p99: {:.2} (target ≤ 2); every Hung call ended (the slowest after {} ms; deadline 5,000 ms)",
        f64::from(loaded.p99_us) / f64::from(alone.p99_us.max(1)),
        ms(slowest)
    );
    Ok(())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let short = std::env::args().any(|a| a == "--short");
    let plan = Plan::new(short);
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let dir = std::env::temp_dir().join(format!("axgate-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let started = std::time::Instant::now();
    println!(
        "# axgate load harness ({}), {} cores, load average {} at start",
        if short { "short" } else { "full" },
        std::thread::available_parallelism().map_or(0, usize::from),
        load_average()
    );
    let creds = Credentials::new().await?;
    if let Some(secs) = flag_secs("--soak") {
        let server = servers::axgate(&creds, AuthMode::Bearer, &dir)?;
        let target = Target::from_url(&server.url, creds.header(AuthMode::Bearer))?;
        println!("\n## Soak: {secs} s of mixed load on axgate (bearer, audit on)\n");
        soak::run(&server, &target, Duration::from_secs(secs)).await?;
        drop(server);
        let _ = std::fs::remove_dir_all(&dir);
        return Ok(());
    }
    if let Some(calls) = flag_value("--after").and_then(|n| n.parse().ok()) {
        after::run(calls, flag_value("--url"), &creds, &dir).await?;
        let _ = std::fs::remove_dir_all(&dir);
        return Ok(());
    }
    if let Some(bin) = flag_value("--versus") {
        versus::run(bin.as_ref(), &creds, &dir, plan.measure).await?;
        let _ = std::fs::remove_dir_all(&dir);
        return Ok(());
    }
    let rmcp = servers::reference("ref-rmcp", &dir)?;
    let axum = servers::reference("ref-axum", &dir)?;
    let mut axgates: Vec<(AuthMode, Server)> = Vec::new();
    for mode in [AuthMode::Off, AuthMode::Bearer, AuthMode::Jwt] {
        axgates.push((mode, servers::axgate(&creds, mode, &dir)?));
    }
    let target_of = |mode: AuthMode| -> anyhow::Result<(&Server, Target)> {
        let (_, s) = axgates.iter().find(|(m, _)| *m == mode).context("server")?;
        Ok((s, Target::from_url(&s.url, creds.header(mode))?))
    };
    let rmcp_target = Target::from_url(&rmcp.url, None)?;
    if let Some(secs) = flag_secs("--hold") {
        // For a profiler: only the c=32 list_apps cell (bearer), held long; one session,
        // or with `--per-connection` a session per connection.
        let (server, target) = target_of(AuthMode::Bearer)?;
        let sessions = if std::env::args().any(|a| a == "--per-connection") {
            Sessions::PerConnection
        } else {
            Sessions::One
        };
        println!(
            "axgate (bearer) pid {}, holding c=32 ({}) for {secs} s",
            server.pid(),
            sessions.label()
        );
        let group = (sessions, 32);
        let f = cells::run(
            server,
            &target,
            &list_op(),
            32,
            sessions,
            Duration::from_secs(secs),
            usize::MAX,
        )
        .await?;
        println!("{}", row(group, "axgate", "bearer", "list_apps", &f, None));
        return Ok(());
    }
    let axum_target = Target::from_url(&axum.url, None)?;

    println!("\n## Throughput (each row beside its rmcp reference; ratio = req/s ÷ rmcp's)\n");
    println!(
        "| sessions | c | server | auth | tool | req/s | p50 ms | p90 ms | p99 ms | server CPU µs/call | vs rmcp | errors |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let list = list_op();
    let mut key: Vec<((Sessions, usize), Figures, Figures)> = Vec::new();
    for &group in &plan.groups {
        // One cell of this group, measured and printed; its figures are returned.
        let cell = async |server: &Server,
                          target: &Target,
                          op: &Op,
                          name: &str,
                          auth: &str,
                          tool: &str,
                          reference: Option<&Figures>|
               -> anyhow::Result<Figures> {
            let (sessions, c) = group;
            let f = cells::run(
                server,
                target,
                op,
                c,
                sessions,
                plan.measure,
                plan.max_calls,
            )
            .await?;
            println!("{}", row(group, name, auth, tool, &f, reference));
            Ok(f)
        };
        let reference = cell(
            &rmcp,
            &rmcp_target,
            &list,
            "ref-rmcp",
            "off",
            "list_apps (fixed)",
            None,
        )
        .await?;
        if group.0 == Sessions::One {
            cell(
                &axum,
                &axum_target,
                &Op::Plain,
                "ref-axum",
                "off",
                "GET \"ok\"",
                Some(&reference),
            )
            .await?;
        }
        for (mode, tool) in plan.axgate_cells(group) {
            let (server, target) = target_of(mode)?;
            let op = Op::Tool(tool, tool_args(tool));
            let f = cell(
                server,
                &target,
                &op,
                "axgate",
                mode.label(),
                tool,
                Some(&reference),
            )
            .await?;
            if mode == AuthMode::Bearer && tool == "list_apps" {
                key.push((group, f, reference.clone()));
            }
        }
    }

    hung_app(&plan, target_of(AuthMode::Bearer)?).await?;

    println!("\n## Sessions: creations per second, RSS per idle session with an open GET stream\n");
    println!(
        "| server | sessions created | creations/s | GET streams open | RSS before | RSS with the sessions | KiB per idle session |"
    );
    println!("|---|---|---|---|---|---|---|");
    let (bearer, bearer_target) = target_of(AuthMode::Bearer)?;
    let mut ours = None;
    for (name, server, target) in [
        ("ref-rmcp", &rmcp, &rmcp_target),
        ("axgate (bearer)", bearer, &bearer_target),
    ] {
        let s = sessions::idle_sessions(server, target, plan.sessions, 8, Duration::from_secs(30))
            .await?;
        println!(
            "| {name} | {} | {:.0} | {} | {:.1} MiB | {:.1} MiB | {:.1} |",
            s.created,
            s.per_sec,
            s.streams,
            s.rss_base_kib as f64 / 1024.0,
            s.rss_kib as f64 / 1024.0,
            s.kib_per_session
        );
        if name.starts_with("axgate") {
            ours = Some(s);
        }
    }

    println!("\n## Replay: GET with Last-Event-ID after N missed events (axgate, bearer)\n");
    println!("| history (calls before) | missed events | received | replay ms | µs per event |");
    println!("|---|---|---|---|---|");
    for &history in &plan.histories {
        for &missed in &plan.missed {
            match sessions::replay(&bearer_target, history, missed).await {
                Ok(r) => println!(
                    "| {} | {} | {} | {:.2} | {:.0} |",
                    r.history,
                    r.missed,
                    r.received,
                    r.ms,
                    r.ms * 1e3 / r.received.max(1) as f64
                ),
                Err(e) => println!("| {history} | {missed} | error: {e:#} | | |"),
            }
        }
    }

    println!(
        "\n## RSS after big reads (axgate, bearer; get_tree Huge, two clients on one session)\n"
    );
    let big = sessions::big_reads(
        bearer,
        &bearer_target,
        2000,
        &plan.big_marks,
        plan.big_limit,
    )
    .await?;
    println!("| reads | RSS | median ms per pair of reads |\n|---|---|---|");
    println!("| 0 | {:.1} MiB | — |", big.base_kib as f64 / 1024.0);
    for (reads, rss, median) in &big.points {
        println!(
            "| {reads} (max_nodes {}) | {:.1} MiB | {median:.1} |",
            big.max_nodes,
            *rss as f64 / 1024.0
        );
    }

    println!("\n## Against the targets (axgate with the static bearer, list_apps)\n");
    for (group, f, r) in &key {
        let (sessions, c) = *group;
        println!(
            "- {} c={c}: {:.2}× rmcp's req/s (target ≥ 0.8× at c=32); p50 {} ms (target ≤ 0.25 at c=1); p99 {} ms (target ≤ 5 at c=32); {:.0} µs CPU/call (target ≤ 150; rmcp {:.0})",
            sessions.label(),
            f.per_sec / r.per_sec.max(1e-9),
            ms(f.p50_us),
            ms(f.p99_us),
            f.cpu_us_per_call,
            r.cpu_us_per_call
        );
    }
    if let Some(s) = ours {
        println!(
            "- {} sessions with {} open GET streams; {:.1} KiB per idle session (target ≤ 56); {:.0} creations/s (target ≥ 1,500)",
            s.created, s.streams, s.kib_per_session, s.per_sec
        );
    }
    println!(
        "\nload average {} at the end; {:.0} s in all",
        load_average(),
        started.elapsed().as_secs_f64()
    );
    drop(axgates);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
