//! Host and Origin checks (DNS-rebinding and cross-site protection), applied to every route.
//! A request whose `Host` is not in the allow-list, or that carries an `Origin` not in the
//! allow-list, gets 403 before anything else looks at it. A request with two `Host` or two
//! `Origin` header lines gets 400: which one counts would depend on who reads them.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use std::sync::Arc;

/// The allow-lists, from configuration.
#[derive(Clone, Debug)]
pub struct Guard {
    hosts: Vec<HostRule>,
    origins: Vec<OriginRule>,
}

#[derive(Clone, Debug, PartialEq)]
struct HostRule {
    host: String,
    port: Option<u16>,
}

#[derive(Clone, Debug, PartialEq)]
enum Port {
    Any,
    Exact(u16),
    Default,
}

#[derive(Clone, Debug, PartialEq)]
struct OriginRule {
    scheme: String,
    host: String,
    port: Port,
}

impl Guard {
    /// Builds the guard; returns the entries that do not parse.
    pub fn new(hosts: &[String], origins: &[String]) -> Result<Guard, Vec<String>> {
        let mut bad = Vec::new();
        let hosts = hosts
            .iter()
            .filter_map(|h| {
                let rule = parse_authority(h).map(|(host, port)| HostRule { host, port });
                if rule.is_none() {
                    bad.push(format!(
                        "server.allowed_hosts: {h:?} is not host or host:port"
                    ));
                }
                rule
            })
            .collect();
        let origins = origins
            .iter()
            .filter_map(|o| {
                let rule = parse_origin_rule(o);
                if rule.is_none() {
                    bad.push(format!(
                        "server.allowed_origins: {o:?} is not scheme://host[:port|:*]"
                    ));
                }
                rule
            })
            .collect();
        if bad.is_empty() {
            Ok(Guard { hosts, origins })
        } else {
            Err(bad)
        }
    }

    /// `None` when the request may pass; otherwise why not.
    pub fn check(&self, host: Option<&str>, origin: Option<&str>) -> Option<String> {
        let Some(host) = host else {
            return Some("the request has no Host header".into());
        };
        let allowed_host = parse_authority(host).is_some_and(|(h, p)| {
            self.hosts
                .iter()
                .any(|r| r.host == h && (r.port.is_none() || r.port == p))
        });
        if !allowed_host {
            return Some(format!(
                "Host {host:?} is not allowed; add it to server.allowed_hosts if clients use that name"
            ));
        }
        if let Some(origin) = origin {
            let allowed = parse_origin(origin).is_some_and(|(scheme, h, port)| {
                self.origins.iter().any(|r| {
                    r.scheme == scheme
                        && r.host == h
                        && match r.port {
                            Port::Any => true,
                            Port::Exact(p) => p == port,
                            Port::Default => port == default_port(&scheme),
                        }
                })
            });
            if !allowed {
                return Some(format!(
                    "Origin {origin:?} is not allowed; add it to server.allowed_origins to let that page call axgate"
                ));
            }
        }
        None
    }
}

/// The middleware.
pub async fn layer(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if let Some(name) = repeated(request.headers()) {
        tracing::warn!(header = name, "request refused: the header is repeated");
        return (
            StatusCode::BAD_REQUEST,
            format!("Bad Request: the {name} header appears more than once; send it once\n"),
        )
            .into_response();
    }
    let refusal = {
        let headers = request.headers();
        let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
        let authority = request.uri().authority().map(|a| a.as_str());
        guard.check(
            text(http::header::HOST).or(authority),
            text(http::header::ORIGIN),
        )
    };
    if let Some(why) = refusal {
        tracing::warn!(reason = %why, "request refused by the Host/Origin guard");
        return (StatusCode::FORBIDDEN, format!("Forbidden: {why}\n")).into_response();
    }
    next.run(request).await
}

/// The first of `Host` and `Origin` that the request carries more than once.
fn repeated(headers: &http::HeaderMap) -> Option<&'static str> {
    [
        (http::header::HOST, "Host"),
        (http::header::ORIGIN, "Origin"),
    ]
    .into_iter()
    .find(|(header, _)| headers.get_all(header).iter().nth(1).is_some())
    .map(|(_, name)| name)
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" { 443 } else { 80 }
}

/// `host`, `host:port`, `[v6]`, `[v6]:port` → lowercase host and optional port.
fn parse_authority(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim();
    if text.is_empty() || text.contains(['/', '@', ' ']) {
        return None;
    }
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?.parse().ok()?),
        };
        (format!("[{}]", h.to_lowercase()), port)
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h.to_lowercase(), Some(p.parse().ok()?)),
            Some(_) => return None,
            None => (text.to_lowercase(), None),
        }
    };
    if host.is_empty() {
        None
    } else {
        Some((host, port))
    }
}

fn parse_origin(text: &str) -> Option<(String, String, u16)> {
    let (scheme, rest) = text.trim().split_once("://")?;
    let scheme = scheme.to_lowercase();
    let (host, port) = parse_authority(rest)?;
    let port = port.unwrap_or_else(|| default_port(&scheme));
    Some((scheme, host, port))
}

fn parse_origin_rule(text: &str) -> Option<OriginRule> {
    let (scheme, rest) = text.trim().split_once("://")?;
    let (authority, port) = match rest.strip_suffix(":*") {
        Some(a) => (a, Port::Any),
        None => (rest, Port::Default),
    };
    let (host, explicit) = parse_authority(authority)?;
    let port = match (port, explicit) {
        (Port::Any, None) => Port::Any,
        (Port::Any, Some(_)) => return None,
        (_, Some(p)) => Port::Exact(p),
        (_, None) => Port::Default,
    };
    Some(OriginRule {
        scheme: scheme.to_lowercase(),
        host,
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        let hosts = ["localhost", "127.0.0.1", "[::1]", "mac-7.example.net:8741"].map(String::from);
        let origins = [
            "http://localhost:*",
            "https://ci.example.net",
            "http://127.0.0.1:3000",
        ]
        .map(String::from);
        Guard::new(&hosts, &origins).expect("valid")
    }

    #[test]
    fn hosts() {
        let g = guard();
        for ok in [
            "localhost",
            "localhost:8741",
            "127.0.0.1:1",
            "[::1]:80",
            "LOCALHOST",
            "mac-7.example.net:8741",
        ] {
            assert_eq!(g.check(Some(ok), None), None, "{ok}");
        }
        for bad in [
            "evil.com",
            "evil.com:8741",
            "mac-7.example.net:9999",
            "mac-7.example.net",
            "127.0.0.2",
        ] {
            assert!(g.check(Some(bad), None).is_some(), "{bad}");
        }
        assert!(g.check(None, None).is_some());
    }

    #[test]
    fn origins() {
        let g = guard();
        let check = |o: &str| g.check(Some("localhost"), Some(o)).is_none();
        assert!(check("http://localhost:5173"));
        assert!(check("https://ci.example.net"));
        assert!(check("https://ci.example.net:443"));
        assert!(check("http://127.0.0.1:3000"));
        assert!(!check("http://127.0.0.1:3001"));
        assert!(!check("https://ci.example.net:8443"));
        assert!(!check("https://localhost:5173"));
        assert!(!check("http://evil.com"));
        assert!(!check("null"));
    }

    #[test]
    fn bad_entries_are_all_reported() {
        let err = Guard::new(
            &["a b".into(), "ok".into()],
            &["nope".into(), "http://x:1:*".into()],
        )
        .unwrap_err();
        assert_eq!(err.len(), 3);
    }
}
