//! Where a call comes from, decided once at its entry: [`CallOrigin`] (transport, protocol
//! era, session, request id, principal). The HTTP intake (`http/intake`) builds it from the
//! request's headers and the auth layer's `Principal` and puts it in the request's
//! extensions, the WebDriver bridge (`wd/bridge`) sets its own, and the stdio entry stamps
//! each request it reads as the local user's ([`CallOrigin::local`]). Every later stage — the
//! handler, the gate, tasks, outcome logging and the audit line — reads it from there, so no
//! stage after the entry parses a header again.

use std::borrow::Cow;

use rmcp::model::Extensions;

use crate::identity::Principal;

/// Who made a call, through which entry, in which session and under which revision.
#[derive(Clone, Debug)]
pub struct CallOrigin {
    pub transport: Transport,
    pub era: Era,
    /// The session the call runs in: the MCP session id the intake checked (it exists and
    /// belongs to `principal`), or the WebDriver session's. The whole id, since the lease
    /// book and the direct path key on it; logs and audit lines show only its tag
    /// (`audit::session_tag`). `None` on stdio, for a sessionless request and for the
    /// `initialize` that makes a session.
    pub session: Option<String>,
    /// The HTTP request's id (`x-request-id`, made by the outermost layer when the client
    /// sent none), for the call's log line.
    pub request_id: Option<String>,
    /// The authenticated caller; `None` when authentication is off or on stdio (the local
    /// user, who holds every scope).
    pub principal: Option<Principal>,
}

/// The entry a call came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// MCP over Streamable HTTP on `/mcp`.
    Http,
    /// MCP over standard input and output (`serve --stdio`).
    Stdio,
    /// A WebDriver command running an MCP tool (`wd/bridge`).
    WebDriver,
}

/// The protocol era of a request, as its entry decided it.
#[derive(Clone, Debug)]
pub enum Era {
    /// The revisions with the initialize handshake (2025-11-25 and earlier): `version` is the
    /// revision the request is served under (inside a session its negotiated one), `None`
    /// where the request named none (an `initialize`, stdio, WebDriver).
    Session { version: Option<String> },
    /// A sessionless 2026-07-28 request: its state lives for this one request.
    Sessionless(Sessionless),
}

/// What a sessionless (2026-07-28) request carries: a token cancelled when the client closes
/// the response stream (which that revision defines as cancelling the request) and once the
/// response has been sent.
#[derive(Clone, Debug)]
pub struct Sessionless {
    pub closed: tokio_util::sync::CancellationToken,
}

impl Sessionless {
    /// A token cancelled when either `request` (rmcp's own cancellation) or the client's
    /// closing of the stream is.
    pub fn either(
        &self,
        request: &tokio_util::sync::CancellationToken,
    ) -> tokio_util::sync::CancellationToken {
        let both = request.child_token();
        let (closed, watched) = (self.closed.clone(), both.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = closed.cancelled() => watched.cancel(),
                () = watched.cancelled() => {}
            }
        });
        both
    }
}

impl CallOrigin {
    /// The origin of the request whose rmcp context has `extensions`, as its entry set it:
    /// the stdio entry stamps the request itself, the HTTP intake and the WebDriver bridge
    /// put it in the HTTP request's extensions (rmcp hands the request's parts on). HTTP
    /// parts without an origin never passed an entry that sets one; the auth layer's
    /// `Principal` still names the caller, so such a call is never the local user's. A
    /// request with neither came through no entry at all: it gets a principal without any
    /// scope ([`CallOrigin::unstamped`]), never the local user's every scope.
    pub fn of(extensions: &Extensions) -> Cow<'_, CallOrigin> {
        if let Some(origin) = extensions.get::<CallOrigin>() {
            return Cow::Borrowed(origin);
        }
        let Some(parts) = extensions.get::<http::request::Parts>() else {
            return Cow::Owned(CallOrigin::unstamped());
        };
        match parts.extensions.get::<CallOrigin>() {
            Some(origin) => Cow::Borrowed(origin),
            None => Cow::Owned(CallOrigin {
                transport: Transport::Http,
                principal: parts.extensions.get::<Principal>().cloned(),
                ..CallOrigin::local()
            }),
        }
    }

    /// A request no entry stamped: a principal that holds no scope, named so that the
    /// refusal says what is wrong.
    fn unstamped() -> CallOrigin {
        CallOrigin {
            principal: Some(Principal::static_token(
                "(a request no entry stamped)",
                Default::default(),
            )),
            ..CallOrigin::local()
        }
    }

    /// A call of the local user over stdio: no principal, session or request id.
    pub fn local() -> CallOrigin {
        CallOrigin {
            transport: Transport::Stdio,
            era: Era::Session { version: None },
            session: None,
            request_id: None,
            principal: None,
        }
    }

    /// A WebDriver command's call in the WebDriver session `session`.
    pub fn webdriver(
        session: Option<&str>,
        principal: Option<Principal>,
        request_id: Option<String>,
    ) -> CallOrigin {
        CallOrigin {
            transport: Transport::WebDriver,
            session: session.map(str::to_owned),
            request_id,
            principal,
            ..CallOrigin::local()
        }
    }

    /// The marker of a sessionless (2026-07-28) request, when this is one.
    pub fn sessionless(&self) -> Option<&Sessionless> {
        match &self.era {
            Era::Sessionless(marker) => Some(marker),
            Era::Session { .. } => None,
        }
    }

    /// The request id for a log line, `-` when there is none.
    pub fn request_id(&self) -> &str {
        self.request_id.as_deref().unwrap_or("-")
    }
}

/// The id the outermost layer gave the HTTP request behind `parts` (tower-http's
/// `SetRequestId` keeps it in the extensions as well as in the `x-request-id` header).
pub fn request_id(parts: &http::request::Parts) -> Option<String> {
    parts
        .extensions
        .get::<tower_http::request_id::RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> http::request::Parts {
        let (mut parts, ()) = http::Request::new(()).into_parts();
        parts
            .headers
            .insert("mcp-session-id", "forged".parse().unwrap());
        parts
    }

    #[test]
    fn the_origin_is_read_from_the_request_never_its_headers() {
        let mut parts = parts();
        parts.extensions.insert(CallOrigin {
            session: Some("checked".into()),
            ..CallOrigin::local()
        });
        let mut extensions = Extensions::new();
        extensions.insert(parts);
        assert_eq!(
            CallOrigin::of(&extensions).session.as_deref(),
            Some("checked")
        );
    }

    #[test]
    fn parts_without_an_origin_keep_the_auth_layers_principal_and_no_session() {
        let mut parts = parts();
        let principal = Principal::static_token("ci", Default::default());
        parts.extensions.insert(principal.clone());
        let mut extensions = Extensions::new();
        extensions.insert(parts);
        let origin = CallOrigin::of(&extensions);
        assert_eq!(origin.transport, Transport::Http);
        assert_eq!(origin.principal, Some(principal));
        assert_eq!(origin.session, None);
    }

    /// The stdio entry's stamp makes the local user (every scope); a request that no entry
    /// stamped is nobody's: a principal without any scope.
    #[test]
    fn only_a_stamped_request_is_the_local_users() {
        let mut stamped = Extensions::new();
        stamped.insert(CallOrigin::local());
        let stdio = CallOrigin::of(&stamped);
        assert_eq!(
            (stdio.transport, stdio.principal.is_none()),
            (Transport::Stdio, true)
        );
        let unstamped = Extensions::new();
        let principal = CallOrigin::of(&unstamped).principal.clone();
        let scopes = principal.map(|p| p.scopes.len());
        assert_eq!(scopes, Some(0), "no scope without an entry's stamp");
    }
}
