//! When the client tries again, and after how long: a busy server (HTTP 503 or 429, with or
//! without `Retry-After`), a connection that did not open, and a tool result that says the
//! caller is rate limited or the app busy ("… retry after 250 ms", "… retry after 2 s").
//! Every retry loop draws from one [`Budget`]: bounded in attempts and in total time.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::Value;

/// How persistent the client is.
#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    /// Most attempts of one request (the first included).
    pub attempts: u32,
    /// Most time spent retrying one request, waits included.
    pub total: Duration,
    /// The first backoff when the server gives no hint; doubled each time.
    pub first_backoff: Duration,
    /// The longest single wait, hinted or not.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 8,
            total: Duration::from_secs(60),
            first_backoff: Duration::from_millis(250),
            max_wait: Duration::from_secs(15),
        }
    }
}

impl RetryPolicy {
    /// A fresh budget for one request.
    pub fn budget(&self) -> Budget {
        Budget {
            policy: *self,
            started: Instant::now(),
            tries: 1,
        }
    }
}

/// What is left of the retries of one request.
pub struct Budget {
    policy: RetryPolicy,
    started: Instant,
    tries: u32,
}

impl Budget {
    /// The wait before the next attempt — the server's `hint` if it gave one, else the
    /// backoff — or `None` when the attempts or the time are spent.
    pub fn next(&mut self, hint: Option<Duration>) -> Option<Duration> {
        if self.tries >= self.policy.attempts {
            return None;
        }
        let backoff = self
            .policy
            .first_backoff
            .saturating_mul(1 << (self.tries - 1).min(16));
        let wait = hint.unwrap_or(backoff).min(self.policy.max_wait);
        if self.started.elapsed() + wait > self.policy.total {
            return None;
        }
        self.tries += 1;
        Some(wait)
    }

    /// Attempts made so far.
    pub fn tries(&self) -> u32 {
        self.tries
    }

    /// Time since the first attempt.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// A `Retry-After` header's delay: seconds (`3`), or an HTTP date.
pub fn retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or_default(),
    )
}

static HINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(rate limited|is busy)\b.*\bretry after (\d+(?:\.\d+)?) ?(ms|s)\b")
        .expect("valid regex")
});

/// The wait a tool result asks for: an `isError` result whose text says the caller is rate
/// limited or the app busy and names the delay (`policy::limits`, `ax::error`'s busy error).
pub fn result_hint(result: &Value) -> Option<Duration> {
    if result.get("isError") != Some(&Value::Bool(true)) {
        return None;
    }
    let texts = result.get("content")?.as_array()?;
    texts
        .iter()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .find_map(|text| {
            let captures = HINT.captures(text)?;
            let amount: f64 = captures[2].parse().ok()?;
            let millis = match &captures[3].to_ascii_lowercase()[..] {
                "ms" => amount,
                _ => amount * 1000.0,
            };
            Some(Duration::from_millis(millis.ceil() as u64))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(text: &str) -> Value {
        json!({"isError": true, "content": [{"type": "text", "text": text}]})
    }

    #[test]
    fn hints_come_from_the_servers_wording() {
        let limited = error(
            "rate limited: at most 1 calls per second for this principal \
             (limits.calls_per_second); retry after 250 ms",
        );
        assert_eq!(result_hint(&limited), Some(Duration::from_millis(250)));
        let busy = error(
            "Form is busy: 64 calls are already running or waiting for it \
             (backend.max_queued_calls); retry after 2 s",
        );
        assert_eq!(result_hint(&busy), Some(Duration::from_secs(2)));
        // Not an error, or an error that is no refusal: no retry.
        let ok = json!({"isError": false, "content": [{"type": "text", "text": "rate limited; retry after 1 s"}]});
        assert_eq!(result_hint(&ok), None);
        assert_eq!(result_hint(&error("no element at window[0]")), None);
    }

    #[test]
    fn a_budget_ends_by_attempts_and_by_time() {
        let policy = RetryPolicy {
            attempts: 3,
            total: Duration::from_secs(10),
            first_backoff: Duration::from_millis(100),
            max_wait: Duration::from_secs(5),
        };
        let mut budget = policy.budget();
        assert_eq!(budget.next(None), Some(Duration::from_millis(100)));
        assert_eq!(
            budget.next(Some(Duration::from_secs(60))),
            Some(Duration::from_secs(5))
        );
        assert_eq!(budget.next(None), None, "three attempts in all");
        let short = RetryPolicy {
            total: Duration::from_secs(1),
            ..policy
        };
        assert_eq!(short.budget().next(Some(Duration::from_secs(2))), None);
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO),
            "a date in the past: at once"
        );
        assert_eq!(retry_after("soon"), None);
    }
}
