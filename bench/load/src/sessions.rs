//! The figures that are not throughput: session creations per second and resident memory
//! per idle session (each with an open `GET` stream), `Last-Event-ID` replay time against
//! the number of missed events and the length of the session's history, and resident
//! memory after many big reads.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use crate::client::{Conn, Sse, Target};
use crate::servers::Server;

/// Creations per second and memory of `n` idle sessions.
pub(crate) struct SessionFigures {
    pub(crate) created: usize,
    pub(crate) per_sec: f64,
    pub(crate) streams: usize,
    pub(crate) rss_base_kib: u64,
    pub(crate) rss_kib: u64,
    pub(crate) kib_per_session: f64,
}

/// Creates `n` sessions (`initialize` + `notifications/initialized`) with `creators`
/// concurrent clients, each on one keep-alive connection; then opens a `GET` stream for
/// every session, each on its own connection, and reads the resident set once they idle.
/// The streams stay open until the figures are taken.
pub(crate) async fn idle_sessions(
    server: &Server,
    target: &Target,
    n: usize,
    creators: usize,
    limit: Duration,
) -> anyhow::Result<SessionFigures> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_base_kib = server.rss_kib();
    let started = Instant::now();
    let deadline = started + limit;
    let mut tasks = Vec::new();
    for k in 0..creators {
        let target = target.clone();
        let mine = n / creators + usize::from(k < n % creators);
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::with_capacity(mine);
            let mut conn = Conn::open(&target).await?;
            while ids.len() < mine && Instant::now() < deadline {
                conn.initialize().await?;
                ids.extend(conn.session.take());
            }
            anyhow::Ok(ids)
        }));
    }
    let mut ids = Vec::with_capacity(n);
    for task in tasks {
        ids.extend(task.await??);
    }
    let per_sec = ids.len() as f64 / started.elapsed().as_secs_f64();
    let mut streams = Vec::with_capacity(ids.len());
    for id in &ids {
        if Instant::now() >= deadline + limit {
            break;
        }
        let mut conn = Conn::open(target).await?;
        conn.session = Some(id.clone());
        let resp = conn
            .send("GET", None, &[("accept", "text/event-stream")])
            .await?;
        anyhow::ensure!(resp.status() == 200, "GET stream: {}", resp.status());
        streams.push((conn, Sse::new(resp)));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_kib = server.rss_kib();
    let figures = SessionFigures {
        created: ids.len(),
        per_sec,
        streams: streams.len(),
        rss_base_kib,
        rss_kib,
        kib_per_session: (rss_kib.saturating_sub(rss_base_kib)) as f64 / ids.len().max(1) as f64,
    };
    // End the sessions so later figures start from an empty server.
    drop(streams);
    let mut conn = Conn::open(target).await?;
    for id in ids {
        conn.session = Some(id);
        if let Ok(resp) = conn.send("DELETE", None, &[]).await {
            use http_body_util::BodyExt as _;
            let _ = resp.into_body().collect().await;
        }
    }
    Ok(figures)
}

/// One replay measurement.
pub(crate) struct Replay {
    pub(crate) history: usize,
    pub(crate) missed: usize,
    pub(crate) received: usize,
    pub(crate) ms: f64,
}

/// On a fresh session at log level info (every tool call then sends one
/// `notifications/message` on the session's standalone stream): `history` calls, a `GET`
/// that reads what they sent and closes, `missed` more calls, then a `GET` with
/// `Last-Event-ID` of the last event read: the time until the `missed` events arrive.
pub(crate) async fn replay(
    target: &Target,
    history: usize,
    missed: usize,
) -> anyhow::Result<Replay> {
    let mut conn = Conn::open(target).await?;
    conn.initialize().await?;
    conn.rpc("logging/setLevel", &json!({"level": "info"}))
        .await?;
    let args = json!({});
    for _ in 0..history {
        conn.call("list_apps", &args).await?;
    }
    let mut last = String::new();
    {
        let mut get = Conn::open(target).await?;
        get.session = conn.session.clone();
        let resp = get
            .send("GET", None, &[("accept", "text/event-stream")])
            .await?;
        anyhow::ensure!(resp.status() == 200, "GET: {}", resp.status());
        let mut sse = Sse::new(resp);
        while let Some((id, _)) = sse.next_event(Duration::from_millis(300)).await {
            if !id.is_empty() {
                last = id;
            }
        }
    }
    anyhow::ensure!(!last.is_empty(), "the standalone stream sent no event id");
    for _ in 0..missed {
        conn.call("list_apps", &args).await?;
    }
    let mut get = Conn::open(target).await?;
    get.session = conn.session.clone();
    let started = Instant::now();
    let resp = get
        .send(
            "GET",
            None,
            &[("accept", "text/event-stream"), ("last-event-id", &last)],
        )
        .await?;
    anyhow::ensure!(resp.status() == 200, "replay GET: {}", resp.status());
    let mut sse = Sse::new(resp);
    let mut received = 0;
    while received < missed {
        match sse.next_event(Duration::from_secs(5)).await {
            Some((_, true)) => received += 1,
            Some(_) => {}
            None => break,
        }
    }
    Ok(Replay {
        history,
        missed,
        received,
        ms: started.elapsed().as_secs_f64() * 1e3,
    })
}

/// Resident memory after big reads.
pub(crate) struct BigReads {
    pub(crate) max_nodes: u32,
    pub(crate) base_kib: u64,
    /// (reads done, resident KiB after them, median ms per read)
    pub(crate) points: Vec<(usize, u64, f64)>,
}

/// `get_tree` of the demo Huge app with `max_nodes` on one session, two clients at a
/// time; resident memory after each count in `marks` (bounded by `limit` overall).
pub(crate) async fn big_reads(
    server: &Server,
    target: &Target,
    max_nodes: u32,
    marks: &[usize],
    limit: Duration,
) -> anyhow::Result<BigReads> {
    let mut first = Conn::open(target).await?;
    first.initialize().await?;
    let mut second = Conn::open(target).await?;
    second.session = first.session.clone();
    let base_kib = server.rss_kib();
    let args = json!({"app": "Huge", "depth": 64, "max_nodes": max_nodes});
    let deadline = Instant::now() + limit;
    let mut done = 0;
    let mut points = Vec::new();
    for &mark in marks {
        let mut times = Vec::new();
        while done < mark && Instant::now() < deadline {
            let t = Instant::now();
            let (a, b) = tokio::join!(
                first.call("get_tree", &args),
                second.call("get_tree", &args)
            );
            a?;
            b?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
            done += 2;
        }
        times.sort_by(f64::total_cmp);
        let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
        points.push((done, server.rss_kib(), median));
    }
    Ok(BigReads {
        max_nodes,
        base_kib,
        points,
    })
}
