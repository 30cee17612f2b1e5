//! One throughput cell: `c` virtual clients, each on its own keep-alive connection, calling
//! one operation back to back for a bounded time and count, after a warm-up that is not
//! counted. Either all clients share one MCP session, or each has its own (a session per
//! connection). Measures requests per second, latency percentiles (every call recorded,
//! sorted) and the server's CPU per call from `/proc/<pid>/stat` over the same window.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::client::{Conn, Target};
use crate::servers::Server;

/// What each call is.
#[derive(Clone)]
pub(crate) enum Op {
    /// `tools/call` with these arguments.
    Tool(&'static str, Value),
    /// A plain `GET` (the axum reference: no MCP).
    Plain,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sessions {
    One,
    PerConnection,
}

impl Sessions {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Sessions::One => "one session",
            Sessions::PerConnection => "session per conn",
        }
    }
}

/// The figures of one cell.
#[derive(Clone, Default)]
pub(crate) struct Figures {
    pub(crate) calls: usize,
    pub(crate) errors: usize,
    pub(crate) first_error: Option<String>,
    pub(crate) per_sec: f64,
    pub(crate) p50_us: u32,
    pub(crate) p90_us: u32,
    pub(crate) p99_us: u32,
    /// The slowest counted call, failed calls included.
    pub(crate) max_us: u32,
    pub(crate) cpu_us_per_call: f64,
}

/// Runs one cell against `server`.
pub(crate) async fn run(
    server: &Server,
    target: &Target,
    op: &Op,
    c: usize,
    sessions: Sessions,
    measure: Duration,
    max_calls: usize,
) -> anyhow::Result<Figures> {
    let mcp = matches!(op, Op::Tool(..));
    let mut conns = Vec::with_capacity(c);
    let shared = if mcp && sessions == Sessions::One {
        let mut first = Conn::open(target).await?;
        first.initialize().await?;
        first.session.clone()
    } else {
        None
    };
    for _ in 0..c {
        let mut conn = Conn::open(target).await?;
        if mcp {
            match &shared {
                Some(id) => conn.session = Some(id.clone()),
                None => conn.initialize().await?,
            }
        }
        conns.push(conn);
    }
    let warm = (measure / 5).max(Duration::from_millis(200));
    let start = Instant::now() + Duration::from_millis(20);
    let counted_from = start + warm;
    let end = counted_from + measure;
    let per_client = max_calls.div_ceil(c);
    let mut tasks = Vec::new();
    for mut conn in conns {
        let op = op.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat: Vec<u32> = Vec::with_capacity(per_client.min(1 << 16));
            let mut errors = 0usize;
            let mut first_error = None;
            let mut slowest = 0u32;
            tokio::time::sleep_until(start).await;
            let mut n = 0;
            while n < per_client {
                let t0 = Instant::now();
                if t0 >= end {
                    break;
                }
                let result = match &op {
                    Op::Tool(name, args) => conn.call(name, args).await.map(drop),
                    Op::Plain => plain(&mut conn).await,
                };
                if t0 >= counted_from {
                    n += 1;
                    let took = t0.elapsed().as_micros() as u32;
                    slowest = slowest.max(took);
                    match result {
                        Ok(()) => lat.push(took),
                        Err(e) => {
                            errors += 1;
                            first_error.get_or_insert_with(|| format!("{e:#}"));
                        }
                    }
                } else if let Err(e) = result {
                    first_error.get_or_insert_with(|| format!("{e:#}"));
                }
            }
            (lat, errors, first_error, slowest)
        }));
    }
    tokio::time::sleep_until(counted_from).await;
    let cpu0 = server.cpu_secs();
    let t0 = Instant::now();
    let mut lat = Vec::new();
    let mut fig = Figures::default();
    for task in tasks {
        let (l, e, first, slowest) = task.await?;
        fig.max_us = fig.max_us.max(slowest);
        lat.extend(l);
        fig.errors += e;
        if fig.first_error.is_none() {
            fig.first_error = first;
        }
    }
    let cpu = server.cpu_secs() - cpu0;
    let secs = t0.elapsed().as_secs_f64();
    lat.sort_unstable();
    fig.calls = lat.len();
    fig.per_sec = lat.len() as f64 / secs;
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0)
    };
    fig.p50_us = pct(0.50);
    fig.p90_us = pct(0.90);
    fig.p99_us = pct(0.99);
    fig.cpu_us_per_call = cpu * 1e6 / (lat.len() + fig.errors).max(1) as f64;
    Ok(fig)
}

async fn plain(conn: &mut Conn) -> anyhow::Result<()> {
    use http_body_util::BodyExt as _;
    let resp = conn.send("GET", None, &[]).await?;
    let status = resp.status();
    resp.into_body().collect().await?;
    anyhow::ensure!(status.is_success(), "GET: {status}");
    Ok(())
}
