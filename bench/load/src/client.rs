//! The load generator's client: one HTTP/1 keep-alive connection per virtual client (hyper's
//! low-level `client::conn`, TCP_NODELAY), and on it MCP over Streamable HTTP — `initialize`,
//! `notifications/initialized`, then `MCP-Session-Id` and `MCP-Protocol-Version` on every
//! request. Every response is read whole (SSE bodies until the server ends them).

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

pub(crate) const PROTOCOL: &str = "2025-11-25";

/// Where and how to reach one server.
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) addr: SocketAddr,
    pub(crate) path: String,
    /// `Authorization` value, when auth is on.
    pub(crate) auth: Option<String>,
}

impl Target {
    pub(crate) fn from_url(url: &str, auth: Option<String>) -> anyhow::Result<Target> {
        let rest = url.strip_prefix("http://").context("an http:// URL")?;
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        Ok(Target {
            addr: host.parse().context("a host:port")?,
            path: if path.is_empty() {
                "/".into()
            } else {
                path.into()
            },
            auth,
        })
    }
}

/// One keep-alive connection; `session` set after [`Conn::initialize`] or by hand.
pub(crate) struct Conn {
    send: SendRequest<Full<Bytes>>,
    target: Target,
    pub(crate) session: Option<String>,
}

/// The next JSON-RPC request id, for every connection of the process.
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Conn {
    pub(crate) async fn open(target: &Target) -> anyhow::Result<Conn> {
        let tcp = TcpStream::connect(target.addr).await?;
        tcp.set_nodelay(true)?;
        let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Conn {
            send,
            target: target.clone(),
            session: None,
        })
    }

    fn request(&self, method: &str, body: Option<&Value>) -> Request<Full<Bytes>> {
        let mut b = Request::builder()
            .method(method)
            .uri(&self.target.path)
            .header("host", self.target.addr.to_string())
            .header("accept", "application/json, text/event-stream");
        if let Some(auth) = &self.target.auth {
            b = b.header("authorization", auth);
        }
        if let Some(s) = &self.session {
            b = b
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", PROTOCOL);
        }
        let bytes = match body {
            Some(v) => {
                b = b.header("content-type", "application/json");
                Bytes::from(serde_json::to_vec(v).unwrap_or_default())
            }
            None => Bytes::new(),
        };
        b.body(Full::new(bytes)).expect("a valid request")
    }

    /// Sends a request and returns the response head (the body still to read).
    pub(crate) async fn send(
        &mut self,
        method: &str,
        body: Option<&Value>,
        extra: &[(&str, &str)],
    ) -> anyhow::Result<Response<Incoming>> {
        let mut req = self.request(method, body);
        for (k, v) in extra {
            req.headers_mut().insert(
                hyper::header::HeaderName::from_bytes(k.as_bytes())?,
                v.parse()?,
            );
        }
        self.send.ready().await?;
        Ok(self.send.send_request(req).await?)
    }

    /// POSTs a JSON-RPC message and reads the whole response: (status, body).
    pub(crate) async fn post(
        &mut self,
        body: &Value,
    ) -> anyhow::Result<(u16, Bytes, Option<String>)> {
        let resp = self.send("POST", Some(body), &[]).await?;
        let status = resp.status().as_u16();
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = resp.into_body().collect().await?.to_bytes();
        Ok((status, bytes, session))
    }

    /// `initialize` + `notifications/initialized`; the session id is kept.
    pub(crate) async fn initialize(&mut self) -> anyhow::Result<()> {
        self.session = None;
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "axgate-load", "version": "1"}}});
        let (status, body, session) = self.post(&init).await?;
        if status != 200 {
            bail!("initialize: {status} {}", String::from_utf8_lossy(&body));
        }
        self.session = Some(session.context("initialize: no MCP-Session-Id")?);
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, body, _) = self.post(&done).await?;
        if status != 202 {
            bail!("initialized: {status} {}", String::from_utf8_lossy(&body));
        }
        Ok(())
    }

    /// A JSON-RPC request; Ok when the answer is a result (and, for a tool, not an error).
    pub(crate) async fn rpc(&mut self, method: &str, params: &Value) -> anyhow::Result<Bytes> {
        // Unique across connections: clients that share a session must not reuse an id
        // while it is in flight (the server routes each response by its id).
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (status, bytes, _) = self.post(&body).await?;
        if status != 200
            || !contains(&bytes, b"\"result\"")
            || contains(&bytes, b"\"isError\":true")
        {
            let text = String::from_utf8_lossy(&bytes);
            bail!("{method}: {status} {}", &text[..text.len().min(400)]);
        }
        Ok(bytes)
    }

    pub(crate) async fn call(&mut self, tool: &str, args: &Value) -> anyhow::Result<Bytes> {
        self.rpc("tools/call", &json!({"name": tool, "arguments": args}))
            .await
    }
}

pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// An open SSE body: yields the `id:` of each event as it arrives.
pub(crate) struct Sse {
    body: Incoming,
    buf: Vec<u8>,
}

impl Sse {
    pub(crate) fn new(resp: Response<Incoming>) -> Sse {
        Sse {
            body: resp.into_body(),
            buf: Vec::new(),
        }
    }

    /// Waits up to `within` for the next complete event; returns its id (empty when it has
    /// none, such as a keep-alive comment) and whether it carried data. `None`: ended or
    /// timed out.
    pub(crate) async fn next_event(&mut self, within: Duration) -> Option<(String, bool)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(end) = find(&self.buf, b"\n\n") {
                let event: Vec<u8> = self.buf.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&event);
                let id = text
                    .lines()
                    .find_map(|l| l.strip_prefix("id:"))
                    .map(|s| s.trim().to_owned())
                    .unwrap_or_default();
                let data = text.lines().any(|l| l.starts_with("data:") && l.len() > 6);
                return Some((id, data));
            }
            let frame = tokio::time::timeout_at(deadline, self.body.frame())
                .await
                .ok()??
                .ok()?;
            if let Ok(data) = frame.into_data() {
                self.buf.extend_from_slice(&data);
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
