//! `--after CALLS`: the outside run of issue 33 — `CALLS` `tools/call list_apps` over 32
//! keep-alive connections, each with its own session, against the bare rmcp reference and
//! then axgate (demo backend, auth off, audit on) in the same run; the resident set of each
//! before, right after, and after 10 s idle. `--after CALLS --url URL`: only the load, against
//! a server started by hand (under a heap profiler: it prints no RSS). Bounded by count and
//! by time (`LIMIT`).

use std::time::Duration;

use tokio::time::Instant;

use crate::client::{Conn, Target};
use crate::servers::{self, AuthMode, Credentials, Server};

/// Connections, each with its own session.
const CONNS: usize = 32;

/// Longest one server's load may take, whatever `CALLS`.
const LIMIT: Duration = Duration::from_secs(900);

/// Runs `calls` `list_apps` calls against `target`; (calls made, errors, seconds).
pub(crate) async fn load(target: &Target, calls: usize) -> anyhow::Result<(usize, usize, f64)> {
    let mut conns = Vec::with_capacity(CONNS);
    for _ in 0..CONNS {
        let mut conn = Conn::open(target).await?;
        conn.initialize().await?;
        conns.push(conn);
    }
    let end = Instant::now() + LIMIT;
    let t0 = Instant::now();
    let args = serde_json::json!({});
    let mut tasks = Vec::new();
    for (i, mut conn) in conns.into_iter().enumerate() {
        let mine = calls / CONNS + usize::from(i < calls % CONNS);
        let args = args.clone();
        tasks.push(tokio::spawn(async move {
            let (mut made, mut errors) = (0usize, 0usize);
            while made < mine && Instant::now() < end {
                if conn.call("list_apps", &args).await.is_err() {
                    errors += 1;
                }
                made += 1;
            }
            (made, errors)
        }));
    }
    let (mut made, mut errors) = (0, 0);
    for task in tasks {
        let (m, e) = task.await?;
        made += m;
        errors += e;
    }
    Ok((made, errors, t0.elapsed().as_secs_f64()))
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// One row: the server's RSS idle, after the load, and after 10 s more idle.
async fn row(name: &str, server: &Server, target: &Target, calls: usize) -> anyhow::Result<()> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle = server.rss_kib();
    let (made, errors, secs) = load(target, calls).await?;
    let after = server.rss_kib();
    tokio::time::sleep(Duration::from_secs(10)).await;
    let settled = server.rss_kib();
    println!(
        "| {name} | {made} | {errors} | {:.0} | {} | {} | {} |",
        made as f64 / secs.max(1e-9),
        mib(idle),
        mib(after),
        mib(settled)
    );
    Ok(())
}

/// The whole mode: with `url`, only the load against it; else rmcp, then axgate.
pub(crate) async fn run(
    calls: usize,
    url: Option<String>,
    creds: &Credentials,
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    if let Some(url) = url {
        let (made, errors, secs) = load(&Target::from_url(&url, None)?, calls).await?;
        println!("{made} list_apps calls ({errors} errors) in {secs:.1} s against {url}");
        return Ok(());
    }
    println!("\n## RSS after {calls} list_apps calls ({CONNS} connections, a session each)\n");
    println!("| server | calls | errors | calls/s | RSS idle | RSS after | RSS 10 s later |");
    println!("|---|---|---|---|---|---|---|");
    let rmcp = servers::reference("ref-rmcp", dir)?;
    row(
        "ref-rmcp",
        &rmcp,
        &Target::from_url(&rmcp.url, None)?,
        calls,
    )
    .await?;
    drop(rmcp);
    let axgate = servers::axgate(creds, AuthMode::Off, dir)?;
    row(
        "axgate (auth off, audit on)",
        &axgate,
        &Target::from_url(&axgate.url, None)?,
        calls,
    )
    .await?;
    Ok(())
}
