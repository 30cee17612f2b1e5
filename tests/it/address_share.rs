//! Per-address shares before authentication (issue 33, "connections are bounded per source
//! address before authentication"): one address's silent connections fill only its own
//! share (`server.max_unauthenticated_per_address`) and never take another address's place,
//! nor stop `/healthz` from another address answering within a second; a trusted proxy's
//! connections are not refused at the share; a kept-alive connection that carried an
//! authenticated request no longer counts against its address. Two addresses: 127.0.0.1 and
//! 127.0.0.2 (Linux routes all of 127/8 to lo; the client socket binds before it connects).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use axgate::http::auth::tokens;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::connections::{closed_by, read_to_close};
use crate::support::wait::until;
use crate::support::{TestServer, config};

const SECOND: Duration = Duration::from_secs(1);
const ONE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
const TWO: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// A server with a token (read and metrics scopes) and `server` settings; the token.
async fn server_with(server: &str) -> (TestServer, String) {
    let token = tokens::generate().unwrap();
    let scopes = [
        axgate::identity::Scope::Read,
        axgate::identity::Scope::Metrics,
    ];
    let entry = tokens::config_entry("ci", &tokens::sha256(&token), &scopes.into_iter().collect());
    let server = TestServer::with_config(config(&format!(
        "[server]\n{server}\n[auth]\ntokens = [{entry}]\n"
    )))
    .await;
    (server, token)
}

/// A connection to `to` from the address `from`.
async fn connect_from(from: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::new(from, 0))
        .expect("bind the client address");
    socket.connect(to).await.expect("connect")
}

/// Sends `GET path` (with `token` as bearer, if any) on a kept-alive connection and reads
/// the answer's head and `Content-Length` body; the status, or `None` when the connection
/// was closed or nothing came within `limit`.
async fn get(tcp: &mut TcpStream, path: &str, token: Option<&str>, limit: Duration) -> Option<u16> {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n");
    let exchange = async {
        tcp.write_all(head.as_bytes()).await.ok()?;
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        let end = loop {
            if let Some(at) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        };
        let text = String::from_utf8_lossy(&got[..end]).to_lowercase();
        let status: u16 = text.get(9..12)?.parse().ok()?;
        let length: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        while got.len() < end + length {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        Some(status)
    };
    tokio::time::timeout(limit, exchange).await.ok().flatten()
}

/// What became of a silent connection: what the server sent before closing it, or `None`
/// while it is still open after `limit`.
async fn fate(mut tcp: TcpStream, limit: Duration) -> Option<String> {
    let out = read_to_close(&mut tcp, limit).await?;
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_another_addresss_places_nor_silence_its_health() {
    let (server, _token) = server_with(
        "max_connections = 16\nmax_unauthenticated_per_address = 4\nheader_timeout_ms = 20000",
    )
    .await;
    // 127.0.0.2 holds three silent connections, old enough to be evicted by anyone.
    let mut theirs = Vec::new();
    for _ in 0..3 {
        theirs.push(connect_from(TWO, server.addr).await);
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    // 127.0.0.1 opens 40 silent ones as fast as it can.
    let mut flood = Vec::new();
    for _ in 0..40 {
        flood.push(connect_from(ONE, server.addr).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A new connection from 127.0.0.2 answers /healthz within a second...
    let mut fresh = connect_from(TWO, server.addr).await;
    assert_eq!(
        get(&mut fresh, "/healthz", None, SECOND).await,
        Some(200),
        "/healthz from 127.0.0.2 within 1 s beside the flood"
    );
    // ...and every one of its held connections is still there and served.
    for (i, tcp) in theirs.iter_mut().enumerate() {
        assert_eq!(
            get(tcp, "/healthz", None, SECOND).await,
            Some(200),
            "127.0.0.2's connection {i} lost its place to 127.0.0.1's flood"
        );
    }
    // 127.0.0.1 holds at most its share; the rest were refused at the share (or gave way
    // to its own newer ones).
    let fates = futures::future::join_all(flood.into_iter().map(|t| fate(t, SECOND))).await;
    let open = fates.iter().filter(|f| f.is_none()).count();
    let refused = fates
        .iter()
        .flatten()
        .filter(|text| {
            text.starts_with("HTTP/1.1 503")
                && text.contains("Retry-After: 1")
                && text.contains("server.max_unauthenticated_per_address")
        })
        .count();
    assert!(
        open <= 4,
        "127.0.0.1 holds {open} silent connections, over its share of 4"
    );
    assert!(
        refused >= 1,
        "no newcomer of 127.0.0.1 was refused at its share"
    );
    assert!(closed_by(&server, "address_share") >= 1);
    assert_eq!(
        closed_by(&server, "cap"),
        0,
        "the total cap was never reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxys_connections_are_not_refused_at_the_share() {
    let (server, _token) = server_with(
        "max_connections = 64\nmax_unauthenticated_per_address = 4\nheader_timeout_ms = 20000\n\
         trusted_proxies = [\"127.0.0.2/32\"]",
    )
    .await;
    let mut proxied = Vec::new();
    for _ in 0..20 {
        proxied.push(connect_from(TWO, server.addr).await);
    }
    let open = &server.state.metrics.http.connections_open;
    until("the proxy's 20 connections accepted", || open.get() >= 20).await;
    for (i, tcp) in proxied.iter_mut().enumerate() {
        assert_eq!(
            get(tcp, "/healthz", None, SECOND).await,
            Some(200),
            "the trusted proxy's connection {i} was not served"
        );
    }
    assert_eq!(closed_by(&server, "address_share"), 0);
    assert_eq!(closed_by(&server, "evicted"), 0);
    assert_eq!(server.state.metrics.http.connection_sources.get(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authenticated_keep_alive_connection_no_longer_counts_against_its_address() {
    let (server, token) = server_with(
        "max_connections = 64\nmax_unauthenticated_per_address = 2\nheader_timeout_ms = 20000",
    )
    .await;
    // Two kept-alive connections, each carrying an authenticated request, then idle.
    let mut callers = Vec::new();
    for _ in 0..2 {
        let mut tcp = connect_from(ONE, server.addr).await;
        assert_eq!(
            get(&mut tcp, "/metrics", Some(&token), SECOND).await,
            Some(200)
        );
        callers.push(tcp);
    }
    assert_eq!(server.state.metrics.http.connection_sources.get(), 0);
    tokio::time::sleep(Duration::from_millis(150)).await;
    // Two more from the same address, unauthenticated: within the share, as the idle
    // authenticated ones count against their principal, not the address.
    let mut probes = Vec::new();
    for _ in 0..2 {
        probes.push(connect_from(ONE, server.addr).await);
    }
    let open = &server.state.metrics.http.connections_open;
    until("the two probes accepted", || open.get() >= 4).await;
    assert_eq!(server.state.metrics.http.connection_sources.get(), 1);
    for (i, tcp) in probes.iter_mut().enumerate() {
        assert_eq!(
            get(tcp, "/healthz", None, SECOND).await,
            Some(200),
            "probe {i}"
        );
    }
    for (i, tcp) in callers.iter_mut().enumerate() {
        assert_eq!(
            get(tcp, "/metrics", Some(&token), SECOND).await,
            Some(200),
            "the authenticated connection {i} was evicted for its address's newcomers"
        );
    }
    assert_eq!(closed_by(&server, "evicted"), 0);
    assert_eq!(closed_by(&server, "address_share"), 0);
}
