//! `--versus BIN`: the same axgate built two ways, side by side in one run — the release
//! build next to this harness and the binary `BIN` (bench/dist.sh passes the `dist`
//! profile's). Only `tools/call list_apps` (bearer): one session at c = 1 and c = 32, and
//! a session per connection at c = 32, alternating between the two servers for a few rounds so that machine noise falls on both;
//! prints each round and the median ratio of each figure (BIN ÷ release). Before that, on
//! the fresh servers, the resident set of 1,000 idle sessions with open GET streams.

use std::path::Path;
use std::time::Duration;

use crate::cells::{self, Figures, Sessions};
use crate::client::Target;
use crate::servers::{self, AuthMode, Credentials, Server};
use crate::{list_op, ms, sessions};

const ROUNDS: usize = 3;

/// Runs the comparison; `dir` holds each server's configuration and audit folder.
pub(crate) async fn run(
    bin: &Path,
    creds: &Credentials,
    dir: &Path,
    measure: Duration,
) -> anyhow::Result<()> {
    let mode = AuthMode::Bearer;
    let mut servers: Vec<(String, Server)> = Vec::new();
    for (name, path) in [
        ("release", servers::bin_dir()?.join("axgate")),
        ("versus", bin.to_path_buf()),
    ] {
        let own = dir.join(name);
        std::fs::create_dir_all(&own)?;
        let server = servers::axgate_binary(&path, name, creds, mode, &own)?;
        servers.push((path.display().to_string(), server));
    }
    println!("\n## One axgate, two builds (bearer, list_apps)\n");
    for (i, (path, _)) in servers.iter().enumerate() {
        println!("- build {}: `{path}`", ["A (release)", "B"][i]);
    }
    // Fresh servers first: what an idle session with an open GET stream costs each build
    // (the allocator shows here as much as in the throughput below).
    println!("\n| build | sessions | RSS before | RSS with them | KiB per idle session |");
    println!("|---|---|---|---|---|");
    for (i, (_, server)) in servers.iter().enumerate() {
        let target = Target::from_url(&server.url, creds.header(mode))?;
        let s = sessions::idle_sessions(server, &target, 1000, 8, Duration::from_secs(30)).await?;
        println!(
            "| {} | {} | {:.1} MiB | {:.1} MiB | {:.1} |",
            ["A", "B"][i],
            s.created,
            s.rss_base_kib as f64 / 1024.0,
            s.rss_kib as f64 / 1024.0,
            s.kib_per_session
        );
    }
    println!("\n| sessions | c | round | build | req/s | p50 ms | p99 ms | server CPU µs/call |");
    println!("|---|---|---|---|---|---|---|---|");
    let list = list_op();
    for (sessions, c) in [
        (Sessions::One, 1),
        (Sessions::One, 32),
        (Sessions::PerConnection, 32),
    ] {
        let mut ratios: Vec<[f64; 3]> = Vec::new();
        for round in 1..=ROUNDS {
            let mut figures: Vec<Figures> = Vec::new();
            for (i, (_, server)) in servers.iter().enumerate() {
                let target = Target::from_url(&server.url, creds.header(mode))?;
                let f = cells::run(server, &target, &list, c, sessions, measure, 200_000).await?;
                println!(
                    "| {} | {c} | {round} | {} | {:.0} | {} | {} | {:.0} |",
                    sessions.label(),
                    ["A", "B"][i],
                    f.per_sec,
                    ms(f.p50_us),
                    ms(f.p99_us),
                    f.cpu_us_per_call
                );
                figures.push(f);
            }
            let (a, b) = (&figures[0], &figures[1]);
            ratios.push([
                b.per_sec / a.per_sec.max(1e-9),
                f64::from(b.p50_us) / f64::from(a.p50_us.max(1)),
                b.cpu_us_per_call / a.cpu_us_per_call.max(1e-9),
            ]);
        }
        let median = |k: usize| {
            let mut v: Vec<f64> = ratios.iter().map(|r| r[k]).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "\n{}, c={c}, B ÷ A (median of {ROUNDS} rounds): req/s {:.2}×, p50 {:.2}×, CPU per call {:.2}×\n",
            sessions.label(),
            median(0),
            median(1),
            median(2)
        );
    }
    Ok(())
}
