//! The soak (`bench/soak.sh`, `axgate-load --soak SECS`): one axgate (bearer auth, audit on)
//! under a mixed load for minutes — readers, a big reader, writers, a subscriber whose GET
//! stream reconnects with `Last-Event-ID`, and clients that open sessions and leave, half of
//! them without DELETE — while every 10 s a line shows the server's RSS, sessions, open
//! streams, replay-log bytes, calls and errors. It ends with the growth of RSS between the
//! first and the second half: a leak shows as growth that does not level off.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::client::{Conn, Sse, Target};
use crate::servers::Server;

/// What every worker adds to.
#[derive(Default)]
struct Tally {
    calls: AtomicU64,
    errors: AtomicU64,
    events: AtomicU64,
    reconnects: AtomicU64,
    first_error: Mutex<Option<String>>,
}

impl Tally {
    async fn note(&self, result: anyhow::Result<()>) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = result {
            self.errors.fetch_add(1, Ordering::Relaxed);
            let mut first = self.first_error.lock().await;
            if first.is_none() {
                *first = Some(format!("{e:#}").chars().take(200).collect());
            }
        }
    }
}

async fn session(target: &Target) -> anyhow::Result<Conn> {
    let mut conn = Conn::open(target).await?;
    conn.initialize().await?;
    Ok(conn)
}

/// A call on `conn`, reopening the connection and session once when it fails.
async fn call(conn: &mut Conn, target: &Target, tool: &str, args: &Value) -> anyhow::Result<()> {
    if conn.call(tool, args).await.is_ok() {
        return Ok(());
    }
    *conn = session(target).await?;
    conn.call(tool, args).await.map(drop)
}

/// axgate's `/metrics` exposition.
async fn scrape(target: &Target) -> anyhow::Result<String> {
    use http_body_util::BodyExt as _;
    let mut metrics = target.clone();
    metrics.path = "/metrics".into();
    let resp = Conn::open(&metrics).await?.send("GET", None, &[]).await?;
    anyhow::ensure!(resp.status() == 200, "/metrics: {}", resp.status());
    let body = resp.into_body().collect().await?.to_bytes();
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// One sample of the exposition (0 when absent).
fn sample(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// Runs the soak for `length`; prints a line every 10 s and a closing summary.
pub(crate) async fn run(server: &Server, target: &Target, length: Duration) -> anyhow::Result<()> {
    let tally = Arc::new(Tally::default());
    let end = Instant::now() + length;
    let mut tasks = Vec::new();
    let spawn_worker = |pause: Duration, tool: &'static str, args: Value| {
        let (tally, target) = (tally.clone(), target.clone());
        tokio::spawn(async move {
            let Ok(mut conn) = session(&target).await else {
                tally.note(Err(anyhow::anyhow!("{tool}: no session"))).await;
                return;
            };
            while Instant::now() < end {
                tally
                    .note(call(&mut conn, &target, tool, &args).await)
                    .await;
                tokio::time::sleep(pause).await;
            }
        })
    };
    for _ in 0..3 {
        tasks.push(spawn_worker(Duration::ZERO, "list_apps", json!({})));
    }
    let form = json!({"app": "Form", "depth": 4});
    tasks.push(spawn_worker(Duration::from_millis(5), "get_tree", form));
    let huge = json!({"app": "Huge", "depth": 64, "max_nodes": 20000});
    tasks.push(spawn_worker(Duration::from_secs(2), "get_tree", huge));
    // One writer per field: two writers of one field would each see the other's value.
    for field in ["Name", "Email"] {
        let path = format!("window[0]/text_field[\"{field}\"]");
        let args = json!({"app": "Form", "target": path, "value": format!("soak {field}")});
        tasks.push(spawn_worker(Duration::from_millis(20), "set_value", args));
    }
    tasks.push(tokio::spawn(subscriber(target.clone(), tally.clone(), end)));
    tasks.push(tokio::spawn(churn(target.clone(), tally.clone(), end)));

    println!(
        "| s | RSS MiB | sessions | SSE streams | replay-log KiB | calls | errors | stream events | reconnects |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let started = Instant::now();
    let mut rss = Vec::new();
    while Instant::now() < end {
        tokio::time::sleep(Duration::from_secs(10).min(end - Instant::now())).await;
        let metrics = match scrape(target).await {
            Ok(text) => text,
            Err(e) => {
                println!("scrape failed: {e}");
                String::new()
            }
        };
        let kib = server.rss_kib();
        rss.push(kib);
        println!(
            "| {:.0} | {:.1} | {} | {} | {:.0} | {} | {} | {} | {} |",
            started.elapsed().as_secs_f64(),
            kib as f64 / 1024.0,
            sample(&metrics, "axgate_sessions_active"),
            sample(&metrics, "axgate_sse_streams_open"),
            sample(&metrics, "axgate_event_log_bytes") / 1024.0,
            tally.calls.load(Ordering::Relaxed),
            tally.errors.load(Ordering::Relaxed),
            tally.events.load(Ordering::Relaxed),
            tally.reconnects.load(Ordering::Relaxed),
        );
    }
    for task in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(30), task).await;
    }
    let half = rss.len() / 2;
    let peak = |s: &[u64]| s.iter().copied().max().unwrap_or(0) as f64 / 1024.0;
    println!(
        "\npeak RSS {:.1} MiB in the first half, {:.1} MiB in the second; {} calls, {} errors{}",
        peak(&rss[..half]),
        peak(&rss[half..]),
        tally.calls.load(Ordering::Relaxed),
        tally.errors.load(Ordering::Relaxed),
        match tally.first_error.lock().await.as_deref() {
            Some(e) => format!(" (first: {e})"),
            None => String::new(),
        }
    );
    Ok(())
}

/// Subscribes to the apps list on a session, holds its GET stream (the session's changes
/// arrive there), and every 15 s drops it and resumes with `Last-Event-ID`.
async fn subscriber(target: Target, tally: Arc<Tally>, end: Instant) {
    let Ok(mut conn) = session(&target).await else {
        tally
            .note(Err(anyhow::anyhow!("subscriber: no session")))
            .await;
        return;
    };
    let subscribed = conn
        .rpc("resources/subscribe", &json!({"uri": "axgate://apps"}))
        .await
        .map(drop);
    // At level info each call of the session sends a log message on its GET stream: a call
    // every 100 ms gives the stream steady traffic to resume.
    let _ = conn
        .rpc("logging/setLevel", &json!({"level": "info"}))
        .await;
    tally.note(subscribed).await;
    let (caller_target, caller_tally) = (target.clone(), tally.clone());
    let session_id = conn.session.clone();
    let caller = tokio::spawn(async move {
        let Ok(mut caller) = Conn::open(&caller_target).await else {
            return;
        };
        caller.session = session_id;
        while Instant::now() < end {
            let result = caller.call("list_apps", &json!({})).await.map(drop);
            caller_tally.note(result).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let mut last = String::new();
    while Instant::now() < end {
        let opened = async {
            let mut get = Conn::open(&target).await?;
            get.session = conn.session.clone();
            let mut headers = vec![("accept", "text/event-stream")];
            if !last.is_empty() {
                headers.push(("last-event-id", last.as_str()));
            }
            let resp = get.send("GET", None, &headers).await?;
            anyhow::ensure!(resp.status() == 200, "GET stream: {}", resp.status());
            Ok((get, Sse::new(resp)))
        };
        let (_get, mut sse) = match opened.await {
            Ok(open) => open,
            Err(e) => {
                tally.note(Err(e)).await;
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let until = (Instant::now() + Duration::from_secs(15)).min(end);
        while Instant::now() < until {
            match sse.next_event(until - Instant::now()).await {
                Some((id, data)) => {
                    if data {
                        tally.events.fetch_add(1, Ordering::Relaxed);
                    }
                    if !id.is_empty() {
                        last = id;
                    }
                }
                None => break,
            }
        }
        tally.reconnects.fetch_add(1, Ordering::Relaxed);
    }
    let _ = caller.await;
}

/// Opens a session, makes a call, and leaves: with DELETE two times in three, else without
/// a word (as a one-shot CLI does).
async fn churn(target: Target, tally: Arc<Tally>, end: Instant) {
    let mut n = 0u64;
    while Instant::now() < end {
        n += 1;
        let polite = !n.is_multiple_of(3);
        let result = async {
            let mut conn = session(&target).await?;
            conn.call("list_windows", &json!({"app": "Form"})).await?;
            if polite {
                let resp = conn.send("DELETE", None, &[]).await?;
                anyhow::ensure!(resp.status() == 200, "DELETE: {}", resp.status());
            }
            Ok(())
        };
        tally.note(result.await).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
