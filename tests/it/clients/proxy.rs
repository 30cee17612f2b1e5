//! A loopback TCP proxy that breaks one SSE stream, for the resumability step of the client
//! matrix: it forwards bytes both ways unchanged, and the first time a server-to-client
//! stream carries a complete SSE event containing `marker` (a `notifications/progress`), it
//! forwards that event and then closes the connection — the network failing mid-response.
//! It records the last event id the client got before the cut and every `Last-Event-ID`
//! header the clients send afterwards, so the test can show the SDK resumed from there.
#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy did and saw.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    /// One entry per cut stream: the id of the last SSE event forwarded before the cut.
    pub cuts: Vec<Option<String>>,
    /// Every `Last-Event-ID` request header value, in order.
    pub resumes: Vec<String>,
}

struct Shared {
    marker: &'static str,
    cut_done: AtomicBool,
    observed: Mutex<Observed>,
}

pub struct BreakingProxy {
    pub url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl BreakingProxy {
    /// Listens on a port-0 loopback address and forwards every connection to `upstream`.
    pub async fn start(upstream: SocketAddr, marker: &'static str) -> BreakingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let shared = Arc::new(Shared {
            marker,
            cut_done: AtomicBool::new(false),
            observed: Mutex::new(Observed::default()),
        });
        let for_task = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(upstream).await else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                tokio::spawn(connection(client, server, for_task.clone()));
            }
        });
        BreakingProxy {
            url: format!("http://{addr}/mcp"),
            shared,
            task,
        }
    }

    pub fn observed(&self) -> Observed {
        lock(&self.shared).clone()
    }
}

impl Drop for BreakingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Observed> {
    shared
        .observed
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Pumps both directions until either ends (or the stream is cut); then both sockets close.
async fn connection(client: TcpStream, server: TcpStream, shared: Arc<Shared>) {
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::select! {
        () = requests(client_read, server_write, &shared) => {}
        () = responses(server_read, client_write, &shared) => {}
    }
}

/// Client to server, unchanged; notes `Last-Event-ID` headers (header lines are the only place
/// a raw CR LF appears: JSON bodies escape it).
async fn requests(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, shared: &Shared) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut text = String::new();
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
        // Keep only what may still hold an unfinished header line.
        while let Some(at) = text.to_ascii_lowercase().find("\r\nlast-event-id:") {
            let rest = &text[at + "\r\nlast-event-id:".len()..];
            let Some(end) = rest.find("\r\n") else { break };
            let value = rest[..end].trim().to_owned();
            lock(shared).resumes.push(value);
            text.drain(..at + 2);
        }
        let keep = text.len().saturating_sub(256);
        let keep = (keep..=text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(text.len());
        text.drain(..keep);
    }
}

/// Server to client, unchanged until the first complete SSE event holding the marker: that
/// event is forwarded, then the connection ends.
async fn responses(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, shared: &Shared) {
    let mut buf = vec![0u8; 64 * 1024];
    // The bytes since the last complete event (already forwarded, but for the newest chunk).
    let mut tail: Vec<u8> = Vec::new();
    let mut last_id: Option<String> = None;
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        // Where tail[0] lies in chunk coordinates (negative: in earlier chunks).
        let mut tail_start = -(tail.len() as isize);
        tail.extend_from_slice(chunk);
        let mut cut_at = None;
        while let Some(end) = find(&tail, b"\n\n") {
            let event = String::from_utf8_lossy(&tail[..end + 2]).into_owned();
            for line in event.lines() {
                if let Some(id) = line.strip_prefix("id:") {
                    last_id = Some(id.trim().to_owned());
                }
            }
            let consumed = end + 2;
            if event.contains(shared.marker)
                && shared
                    .cut_done
                    .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            {
                // The event ends inside this chunk: everything before this chunk went out.
                cut_at = usize::try_from(tail_start + consumed as isize).ok();
                break;
            }
            tail.drain(..consumed);
            tail_start += consumed as isize;
        }
        match cut_at {
            Some(at) => {
                let _ = to.write_all(&chunk[..at]).await;
                let _ = to.flush().await;
                lock(shared).cuts.push(last_id);
                return;
            }
            None => {
                if to.write_all(chunk).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
