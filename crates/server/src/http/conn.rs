//! Connection hygiene on every listener, plain and TLS: axgate's own accept loop around
//! hyper's HTTP/1 connection, so that no client — silent, trickling or many — holds the
//! server's sockets or memory before any guard or auth has run.
//!
//! - **Header timeout** (`server.header_timeout_ms`): a request head must arrive whole within
//!   it once the server waits for one — on a new connection, after a TLS handshake (which
//!   has the same bound), and between requests on a kept-alive one. hyper enforces it.
//! - **Idle timeout** (`server.idle_timeout_secs`): a connection on which no byte moves either
//!   way for this long, while the server waits on it, is closed (a client that stopped
//!   reading a stream, a stalled body). SSE keep-alive comments count as traffic.
//! - **Connection cap** (`server.max_connections`, clamped below the open-file limit): at the
//!   cap a new connection takes the place of the oldest one that has not sent a request in
//!   [`GRACE`] since it opened (a half-open or silent connection: no client that means to
//!   be served waits that long before its first request), preferring one from the new
//!   connection's own address; failing that, of the oldest kept-alive connection that has
//!   had no request in progress for [`GRACE`] (an HTTP/1.1 client expects an idle
//!   connection to be closed, and opens another). So a flood of half-open connections, or
//!   of connections that each send a quick request and then idle (a `/healthz` every few
//!   seconds keeps a connection from the header timeout), from one address or many, only
//!   churns among itself, and a probe of `/healthz`, `/readyz` or `/metrics` or an
//!   authenticated caller still gets a place. Only connections with a request in progress
//!   hold their places, and those are bounded per caller (`http::inflight`: POSTs and GET
//!   streams). Only when every connection is busy or young does a plain connection get a
//!   `503` with `Retry-After` (a TLS one is closed); the accept loop never stops accepting,
//!   so the kernel backlog never fills.
//! - **Per-address share** (`server.max_unauthenticated_per_address`): before any request on
//!   it is authenticated, a connection counts against its source address (an IPv6 /64). At
//!   the share a newcomer takes the place of that address's own oldest silent connection, else
//!   of its own longest-idle one, and never another address's; failing both it is refused
//!   like one over the cap. So one address flooding silent connections crowds out only
//!   itself, whatever the cap. A connection that carried an authenticated request (the auth
//!   layer tells its [`Connection`]) no longer counts: its principal's shares bound it
//!   (`http::inflight`). `server.trusted_proxies` (a balancer, whose every connection comes
//!   from one address) are exempt, and still under the cap. The per-address table holds only
//!   addresses with such a connection open: at most `server.max_connections` entries.
//! - **Header size** (`server.max_header_bytes`): hyper's read buffer; a larger head gets 431.
//!
//! TCP_NODELAY is set on every accepted socket: without it an SSE response waits ~44 ms for
//! the client's delayed ACK.

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum_server::tls_rustls::RustlsConfig;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use prometheus::IntCounterVec;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::idle::Idle;
use super::places::{Busy, Opens};
pub use super::places::{Connection, GRACE};
use crate::config::AddrPrefix;

/// The source address of a request's connection (in its extensions): who a request counts
/// against before authentication.
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub IpAddr);

/// The router, noting while each request of its connection is in progress (until its
/// response body ends), and giving each request its [`Peer`] and [`Connection`].
#[derive(Clone)]
struct Marked {
    router: Router,
    conn: Connection,
    peer: IpAddr,
}

type Routed = Result<http::Response<axum::body::Body>, std::convert::Infallible>;

impl<B> tower::Service<http::Request<B>> for Marked
where
    Router: tower::Service<
            http::Request<B>,
            Response = http::Response<axum::body::Body>,
            Error = std::convert::Infallible,
        >,
    <Router as tower::Service<http::Request<B>>>::Future: Send + 'static,
{
    type Response = http::Response<axum::body::Body>;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Routed> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        <Router as tower::Service<http::Request<B>>>::poll_ready(&mut self.router, cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let busy = Busy::start(&self.conn.used);
        request.extensions_mut().insert(Peer(self.peer));
        request.extensions_mut().insert(self.conn.clone());
        let routed = <Router as tower::Service<http::Request<B>>>::call(&mut self.router, request);
        Box::pin(async move {
            let (parts, body) = routed.await?.into_parts();
            // In progress until the body ends or the client leaves (a stream holds its place).
            let body = http_body_util::BodyExt::map_frame(body, move |frame| {
                let _ = &busy;
                frame
            });
            Ok(http::Response::from_parts(
                parts,
                axum::body::Body::new(body),
            ))
        })
    }
}

/// The bounds of one listener, from `[server]`.
#[derive(Clone, Debug)]
pub struct ConnLimits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub max_header_bytes: usize,
    /// Most connections one source address holds before any request on them is
    /// authenticated (`server.max_unauthenticated_per_address`).
    pub max_unauthenticated_per_address: usize,
    /// Addresses exempt from that share (`server.trusted_proxies`): a balancer's.
    pub trusted_proxies: Vec<AddrPrefix>,
}

impl ConnLimits {
    /// The bounds `[server]` sets, the cap lowered to fit the open-file limit
    /// ([`effective_cap`]).
    pub fn of(server: &crate::config::ServerConfig, soft_fd_limit: Option<u64>) -> ConnLimits {
        ConnLimits {
            header_timeout: server.header_timeout,
            idle_timeout: server.idle_timeout,
            max_connections: effective_cap(server.max_connections, soft_fd_limit),
            max_header_bytes: server.max_header_bytes,
            max_unauthenticated_per_address: server.max_unauthenticated_per_address,
            trusted_proxies: server.trusted_proxies.clone(),
        }
    }
}

/// What the accept loop reports: connections refused at the cap, and cut by a timeout.
#[derive(Clone)]
pub struct ConnMetrics {
    /// `reason`: `cap`, `address_share`, `evicted`, `header_timeout`, `idle_timeout`,
    /// `tls_handshake`.
    pub closed: IntCounterVec,
    pub open: prometheus::IntGauge,
    /// Source addresses with an unauthenticated connection open (the per-address table).
    pub sources: prometheus::IntGauge,
}

/// Why a connection is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// `server.max_connections`, every connection busy or young.
    Cap,
    /// The source's share of unauthenticated connections, each busy or young.
    AddressShare,
}

impl Refusal {
    fn label(self) -> &'static str {
        match self {
            Refusal::Cap => "cap",
            Refusal::AddressShare => "address_share",
        }
    }

    /// The answer to a refused connection: read by people and by MCP clients alike.
    fn answer(self) -> String {
        let message = match self {
            Refusal::Cap => "too many open connections (server.max_connections); retry shortly",
            Refusal::AddressShare => {
                "too many unauthenticated connections from this address \
                 (server.max_unauthenticated_per_address); send credentials on the ones open, \
                 or retry shortly"
            }
        };
        let body = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32000,\"message\":\"{message}\"}}}}"
        );
        format!(
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }
}

/// How many descriptors stay free for everything else the process opens (audit, workers,
/// the metrics listener, outgoing JWKS fetches).
const RESERVED_FDS: u64 = 64;

/// The cap actually applied: the configured one, lowered to fit the process's open-file
/// limit (`soft`) with room for everything else. `None` for the limit: unknown.
pub fn effective_cap(configured: usize, soft_fd_limit: Option<u64>) -> usize {
    match soft_fd_limit {
        Some(limit) => {
            let room = limit.saturating_sub(RESERVED_FDS).max(1);
            configured.min(usize::try_from(room).unwrap_or(usize::MAX))
        }
        None => configured,
    }
}

/// Serves `router` on `listener` until `stop` resolves, then lets open connections finish
/// (the caller bounds how long). `tls`: handshake each connection with the current
/// certificate (a reload applies from the next handshake).
pub async fn serve(
    listener: TcpListener,
    tls: Option<RustlsConfig>,
    router: Router,
    limits: ConnLimits,
    metrics: ConnMetrics,
    stop: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let opens = Arc::new(Opens::new(metrics.sources.clone()));
    let share = limits.max_unauthenticated_per_address;
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192));
    let builder = Arc::new(builder);
    tokio::pin!(stop);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(error) => {
                    // Out of descriptors or a connection reset before accept: keep serving.
                    tracing::warn!(%error, "accept failed; retrying");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::warn!(%error, "cannot set TCP_NODELAY");
        }
        let refused = |why: Refusal, tcp: TcpStream| {
            metrics.closed.with_label_values(&[why.label()]).inc();
            tokio::spawn(refuse(tcp, tls.is_none(), why));
        };
        let trusted = limits.trusted_proxies.iter().any(|p| p.contains(peer.ip()));
        // At its address's share a newcomer takes the place of one of that address's own
        // unauthenticated connections, never another address's; else it is refused.
        let mut freed = false;
        if !trusted && opens.at_share(peer.ip(), share) {
            if !opens.evict_own(peer.ip()) {
                refused(Refusal::AddressShare, tcp);
                continue;
            }
            metrics.closed.with_label_values(&["evicted"]).inc();
            freed = true;
        }
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) if freed || opens.evict_for(peer.ip()) => {
                if !freed {
                    metrics.closed.with_label_values(&["evicted"]).inc();
                }
                // The evicted connection gives its place back as soon as its task sees the cut.
                match tokio::time::timeout(GRACE, slots.clone().acquire_owned()).await {
                    Ok(Ok(slot)) => slot,
                    _ => {
                        refused(Refusal::Cap, tcp);
                        continue;
                    }
                }
            }
            Err(_) => {
                refused(Refusal::Cap, tcp);
                continue;
            }
        };
        let (id, used, cut) = opens.add(peer.ip(), trusted);
        let service = TowerToHyperService::new(Marked {
            router: router.clone(),
            conn: Connection {
                id,
                opens: opens.clone(),
                used,
            },
            peer: peer.ip(),
        });
        let opens = opens.clone();
        let builder = builder.clone();
        let tls = tls.clone();
        let metrics = metrics.clone();
        let watcher = graceful.watcher();
        metrics.open.inc();
        tokio::spawn(async move {
            let io = Idle::new(tcp, limits.idle_timeout);
            let serve = async {
                match tls {
                    None => {
                        let conn = builder.serve_connection(TokioIo::new(io), service);
                        watcher.watch(conn).await
                    }
                    Some(tls) => {
                        let acceptor = tokio_rustls::TlsAcceptor::from(tls.get_inner());
                        match tokio::time::timeout(limits.header_timeout, acceptor.accept(io)).await
                        {
                            Ok(Ok(stream)) => {
                                let conn = builder.serve_connection(TokioIo::new(stream), service);
                                watcher.watch(conn).await
                            }
                            _ => {
                                metrics.closed.with_label_values(&["tls_handshake"]).inc();
                                Ok(())
                            }
                        }
                    }
                }
            };
            // A cut (eviction) drops the connection where it stands: it sent nothing.
            let outcome = tokio::select! {
                outcome = serve => outcome,
                () = cut.cancelled() => Ok(()),
            };
            opens.remove(id);
            if let Err(error) = outcome {
                let reason = if error.is_timeout() {
                    Some("header_timeout")
                } else if is_idle(&error) {
                    Some("idle_timeout")
                } else {
                    None
                };
                if let Some(reason) = reason {
                    metrics.closed.with_label_values(&[reason]).inc();
                }
            }
            metrics.open.dec();
            drop(slot);
        });
    }
    graceful.shutdown().await;
    Ok(())
}

/// Whether hyper's error came from [`Idle`] closing a connection nobody used.
fn is_idle(error: &hyper::Error) -> bool {
    std::error::Error::source(error)
        .and_then(|e| e.downcast_ref::<io::Error>())
        .is_some_and(|e| e.kind() == io::ErrorKind::TimedOut)
}

/// Answers a connection over the cap and closes it (plain HTTP: a 503; TLS: just closed).
/// The request head is read first (at most 8 KiB, for at most a second), so an HTTP client
/// gets the answer to the request it sent rather than a message it did not ask for.
async fn refuse(mut tcp: TcpStream, plain: bool, why: Refusal) {
    if plain {
        let mut head = Vec::with_capacity(1024);
        let mut buf = [0u8; 1024];
        let read_head = async {
            while head.len() < 8192 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match tcp.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), read_head).await;
        let _ = tokio::time::timeout(
            Duration::from_secs(1),
            tcp.write_all(why.answer().as_bytes()),
        )
        .await;
        let _ = tcp.shutdown().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_below_the_open_file_limit() {
        assert_eq!(effective_cap(1024, Some(256)), 192);
        assert_eq!(effective_cap(100, Some(256)), 100);
        assert_eq!(effective_cap(1024, None), 1024);
        assert_eq!(effective_cap(1024, Some(10)), 1);
    }

    #[test]
    fn the_refusals_are_well_formed_http() {
        for why in [Refusal::Cap, Refusal::AddressShare] {
            let answer = why.answer();
            let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|n| n.parse().ok())
                .expect("a content length");
            assert_eq!(length, body.len(), "Content-Length matches the body");
            let json: serde_json::Value = serde_json::from_str(body).expect("a JSON-RPC body");
            assert_eq!(json["error"]["code"], -32000);
        }
    }
}
