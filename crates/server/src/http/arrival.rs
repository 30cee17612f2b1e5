//! The rate limit at the door of `/mcp`: a POST takes one call from its caller's allowance
//! (`limits.calls_per_second`) when it arrives, once the caller is known from its headers
//! (its principal; without authentication the local caller every request is), before its
//! body is read. A caller over its rate is refused at once with 429, `Retry-After` and a
//! JSON-RPC error naming the limit, however slowly it would have sent its body: a trickled
//! body no longer runs ahead of the count (issue 33). The call taken rides in the request
//! ([`Prepaid`]): the handler then takes only a writing tool's write, and the intake gives
//! the call back ([`settle`]) for a POST that turns out to be no counted request (a
//! notification, a response, `initialize`), so a session's handshake costs nothing.
//! `GET` streams and `DELETE` are not counted here.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, StatusCode};

use crate::http::auth::Principal;
use crate::http::intake::Inspected;
use crate::metrics::Metrics;
use crate::policy::principal::{LOCAL, Subject};
use crate::policy::{Prepaid, SharedPolicy};

/// What the door needs: the current policy (its allowances) and the refusal counter.
pub struct Arrival {
    pub policy: SharedPolicy,
    pub metrics: Metrics,
}

/// Takes one call for a POST from its caller's allowance, or refuses it with 429.
pub async fn layer(
    State(arrival): State<Arc<Arrival>>,
    mut request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let policy = arrival.policy.load_full();
    let principal = request.extensions().get::<Principal>();
    let who = principal.map_or(Subject::from(LOCAL), Subject::of);
    match Prepaid::take(policy, who) {
        Ok(prepaid) => {
            request.extensions_mut().insert(prepaid);
            next.run(request).await
        }
        Err(limited) => {
            arrival
                .metrics
                .http
                .rate_limited
                .with_label_values(&[limited.limit.as_str()])
                .inc();
            let retry_ms = limited.retry_after.as_millis().max(1) as u64;
            let body = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {
                    "code": -32000,
                    "message": format!("Request refused: {limited}"),
                    "data": { "retry_after_ms": retry_ms },
                },
            });
            let mut response = (
                StatusCode::TOO_MANY_REQUESTS,
                [(http::header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
            response.headers_mut().insert(
                http::header::RETRY_AFTER,
                HeaderValue::from(retry_ms.div_ceil(1000)),
            );
            response
        }
    }
}

/// Once the body is read: gives the call back when the POST is no counted request.
pub fn settle(parts: &http::request::Parts, message: &Inspected) {
    let request = message.id.is_some() && !message.method.is_empty();
    if (!request || message.method == "initialize")
        && let Some(prepaid) = parts.extensions.get::<Prepaid>()
    {
        prepaid.give_back();
    }
}
