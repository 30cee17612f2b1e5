//! Shares, not one pool (issue 33, findings 2 and 3): one principal's long waits or trickled
//! bodies fill its own share of `server.max_in_flight` (`server.max_in_flight_per_caller`)
//! and another principal's calls and `/healthz` still answer within a second; a flood of
//! half-open connections at `server.max_connections` churns among itself while `/healthz`
//! answers within a second; the rate limit counts a request when it arrives, so a caller
//! over its rate is refused at once however slowly it sends. Bounded counts, 127.0.0.1 only.

use std::time::{Duration, Instant};

use axgate::http::auth::tokens;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::wait::until;
use crate::support::{Client, TestServer, client_with, config};

const SECOND: Duration = Duration::from_secs(1);

fn entry(name: &str, token: &str) -> String {
    tokens::config_entry(
        name,
        &tokens::sha256(token),
        &[axgate::identity::Scope::Read].into_iter().collect(),
    )
}

/// A server with tokens for alice and bob and `server` settings.
async fn two_principals(server: &str) -> (TestServer, String, String) {
    let (alice, bob) = (tokens::generate().unwrap(), tokens::generate().unwrap());
    let server = TestServer::with_config(config(&format!(
        "[server]\n{server}\n[auth]\ntokens = [{}, {}]\n[limits]\ncalls_per_second = 1000\n",
        entry("alice", &alice),
        entry("bob", &bob)
    )))
    .await;
    (server, alice, bob)
}

/// `/healthz` and a `list_apps` of `bob` each answer 200 within a second.
async fn others_answer(server: &TestServer, bob: &mut Client) {
    let health = reqwest::Client::builder()
        .timeout(SECOND)
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let started = Instant::now();
    let status = health
        .get(format!("http://{}/healthz", server.addr))
        .send()
        .await
        .map(|r| r.status().as_u16());
    assert_eq!(status.ok(), Some(200), "/healthz within 1 s");
    let body = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
                      "params": {"name": "list_apps", "arguments": {}}});
    let answer = tokio::time::timeout(SECOND, async {
        let resp = bob.post(&body).send().await.expect("send");
        (
            resp.status().as_u16(),
            resp.text().await.unwrap_or_default(),
        )
    })
    .await
    .expect("bob's call answered within 1 s");
    assert_eq!(answer.0, 200, "{}", answer.1);
    assert!(answer.1.contains("Form"), "{}", answer.1);
    assert!(started.elapsed() < 2 * SECOND);
}

/// A POST of `token` whose head and first body bytes are sent, the rest never.
async fn trickle(addr: std::net::SocketAddr, token: &str) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: 1000\r\n\r\n{{\"jsonrpc\""
    );
    tcp.write_all(head.as_bytes()).await.expect("head");
    tcp
}

/// What the server answered on `tcp` within `limit` (empty: nothing).
async fn answer_within(tcp: &mut TcpStream, limit: Duration) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    let _ = tokio::time::timeout(limit, async {
        while !String::from_utf8_lossy(&got).contains("jsonrpc") {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    String::from_utf8_lossy(&got).into_owned()
}

/// A server with 16 connection places and a header timeout (20 s) that frees none of them
/// while a test runs: only the cap's own rules can make room.
async fn sixteen_places() -> TestServer {
    TestServer::with_config(config(
        "[server]\nmax_connections = 16\nheader_timeout_ms = 20000\n",
    ))
    .await
}

/// `/healthz` answers 200 within a second, `probes` times, `pause` apart, each on a new
/// connection (the client keeps none idle).
async fn health_answers(addr: std::net::SocketAddr, probes: u32, pause: Duration) {
    let health = reqwest::Client::builder()
        .timeout(SECOND)
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    for probe in 0..probes {
        let started = Instant::now();
        let status = health
            .get(format!("http://{addr}/healthz"))
            .send()
            .await
            .map(|r| r.status().as_u16());
        assert_eq!(
            status.as_ref().ok(),
            Some(&200),
            "probe {probe}: {status:?} after {:?}",
            started.elapsed()
        );
        tokio::time::sleep(pause).await;
    }
}

/// Issue 33: the rate limit counted a request only once its body was parsed, so a caller
/// over its rate could hold places with trickled bodies. A POST takes its call on arrival.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_is_counted_when_it_arrives_not_when_its_body_ends() {
    let (alice, bob) = (tokens::generate().unwrap(), tokens::generate().unwrap());
    let server = TestServer::with_config(config(&format!(
        "[server]\nbody_timeout_ms = 20000\n[auth]\ntokens = [{}, {}]\n\
         [limits]\ncalls_per_second = 1\n",
        entry("alice", &alice),
        entry("bob", &bob)
    )))
    .await;
    // The handshake costs nothing (initialize and a notification are given back)...
    let mut c = client_with(&server, &alice);
    c.initialize().await;
    let listed = c.call("list_apps", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
    // ...the call took this second's allowance: the next POST is refused as its head
    // arrives, though its body never comes.
    let started = Instant::now();
    let mut over = trickle(server.addr, &alice).await;
    let answer = answer_within(&mut over, SECOND).await;
    assert!(answer.starts_with("HTTP/1.1 429"), "at once: {answer:?}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 1"),
        "{answer}"
    );
    assert!(answer.contains("limits.calls_per_second"), "{answer}");
    assert!(answer.contains("retry_after_ms"), "{answer}");
    assert!(started.elapsed() < SECOND);
    // A trickled body is counted while it trickles: the next second's call is taken by the
    // first trickle, and a second one is refused at once.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let mut first = trickle(server.addr, &alice).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut second = trickle(server.addr, &alice).await;
    let answer = answer_within(&mut second, SECOND).await;
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer:?}");
    assert_eq!(
        answer_within(&mut first, Duration::from_millis(100)).await,
        ""
    );
    // Another principal has its own allowance.
    let mut bobs = client_with(&server, &bob);
    bobs.initialize().await;
    let listed = bobs.call("list_apps", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
    let refused = server
        .state
        .metrics
        .http
        .rate_limited
        .with_label_values(&["calls"])
        .get();
    assert_eq!(refused, 2, "each refusal counted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_principals_long_waits_leave_another_and_health_answering() {
    let (server, alice, bob) =
        two_principals("max_in_flight = 8\nmax_in_flight_per_caller = 4").await;
    let mut waiter = client_with(&server, &alice);
    waiter.initialize().await;
    let mut bob = client_with(&server, &bob);
    bob.initialize().await;
    // Alice asks for as many 60 s waits as the whole bound holds.
    let mut held = Vec::new();
    for id in 0..8u64 {
        let body = json!({"jsonrpc": "2.0", "id": 100 + id, "method": "tools/call",
            "params": {"name": "wait_for", "arguments": {
                "app": "Form", "target": "window[0]/static_text[0]",
                "condition": "value_equals", "value": "never", "timeout_ms": 60000}}});
        let pending = waiter.post(&body).send();
        held.push(tokio::spawn(async move {
            let resp = pending.await.expect("send");
            (
                resp.status().as_u16(),
                resp.text().await.unwrap_or_default(),
            )
        }));
    }
    // Four answered at once (refused) and four running.
    let running = &server.state.metrics.http.requests_in_flight;
    until("four waits refused and four running", || {
        held.iter().filter(|call| call.is_finished()).count() >= 4 && running.get() >= 4
    })
    .await;
    let mut refused = Vec::new();
    for call in &mut held {
        if call.is_finished() {
            refused.push(call.await.expect("a refused wait"));
        }
    }
    assert_eq!(refused.len(), 4, "alice keeps her share of 4: {refused:?}");
    for (status, body) in &refused {
        assert_eq!(*status, 503, "{body}");
        assert!(body.contains("server.max_in_flight_per_caller"), "{body}");
    }
    others_answer(&server, &mut bob).await;
    for call in held {
        call.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_principals_trickled_bodies_leave_another_and_health_answering() {
    let (server, alice, bob) =
        two_principals("max_in_flight = 8\nmax_in_flight_per_caller = 4\nbody_timeout_ms = 20000")
            .await;
    let mut bob = client_with(&server, &bob);
    bob.initialize().await;
    // Eight POSTs whose bodies never come: heads only.
    let mut trickles = Vec::new();
    for _ in 0..8 {
        trickles.push(trickle(server.addr, &alice).await);
    }
    // Alice's share is full before bob asks.
    let running = &server.state.metrics.http.requests_in_flight;
    until("four of alice's trickles in flight", || running.get() >= 4).await;
    others_answer(&server, &mut bob).await;
    drop(trickles);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_half_open_connections_leaves_health_answering_within_a_second() {
    let server = sixteen_places().await;
    let addr = server.addr;
    // About 200 new silent connections a second, for three seconds, none closed by us.
    let flood = tokio::spawn(async move {
        let mut open = Vec::new();
        let until = Instant::now() + Duration::from_secs(3);
        while Instant::now() < until {
            if let Ok(tcp) = TcpStream::connect(addr).await {
                open.push(tcp);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        open.len()
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    health_answers(addr, 10, Duration::from_millis(200)).await;
    let opened = flood.await.expect("flood");
    assert!(opened > 100, "the flood opened {opened} connections");
    let evicted = server
        .state
        .metrics
        .http
        .connections_closed
        .with_label_values(&["evicted"])
        .get();
    assert!(
        evicted > 50,
        "silent connections gave their places: {evicted}"
    );
}

/// Open streams per caller (issue 33): a principal's GET streams — one per session, up to
/// its session quota (32 by default), and resumes — each held a connection until
/// `server.max_connections` left no place for `/healthz`. At most
/// `server.max_streams_per_caller` of them are one caller's; the rest get 503 at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_principals_get_streams_leave_another_and_health_answering() {
    let (server, alice, bob) =
        two_principals("max_connections = 24\nmax_streams = 16\nmax_streams_per_caller = 4").await;
    let mut bob = client_with(&server, &bob);
    bob.initialize().await;
    // Twenty-four sessions of alice's, a GET stream on each (a connection each): as many
    // as the cap.
    let mut open = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..24 {
        let mut streamer = client_with(&server, &alice);
        streamer.initialize().await;
        let Ok(response) = streamer.get().timeout(SECOND).send().await else {
            continue;
        };
        if response.status() == 200 {
            open.push((streamer, response));
        } else {
            let status = response.status().as_u16();
            refused.push((status, response.text().await.unwrap_or_default()));
        }
    }
    assert_eq!(
        open.len(),
        4,
        "alice keeps her share of 4 streams: {refused:?}"
    );
    for (status, body) in &refused {
        assert_eq!(*status, 503, "{body}");
        assert!(body.contains("server.max_streams_per_caller"), "{body}");
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    others_answer(&server, &mut bob).await;
    assert_eq!(
        server.state.metrics.http.get_streams.get(),
        4,
        "axgate_get_streams"
    );
    drop(open);
}

/// A connection that sends one quick request and then idles (a `/healthz` every few
/// seconds keeps it from the header timeout) held its place for good: 16 of them filled
/// `server.max_connections`. At the cap an idle kept-alive connection gives its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_idle_after_a_quick_request_give_their_places() {
    let server = sixteen_places().await;
    let addr = server.addr;
    let mut kept = Vec::new();
    for _ in 0..40 {
        let Ok(mut tcp) = TcpStream::connect(addr).await else {
            continue;
        };
        let head = format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        if tcp.write_all(head.as_bytes()).await.is_ok() {
            let mut buf = [0u8; 1024];
            let _ = tokio::time::timeout(SECOND, tcp.read(&mut buf)).await;
        }
        kept.push(tcp);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    health_answers(addr, 5, Duration::ZERO).await;
    drop(kept);
}
