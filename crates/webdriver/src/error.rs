//! W3C WebDriver errors: the codes (WebDriver §6.6), the HTTP status of each, and the error
//! body `{"value":{"error","message","stacktrace"}}` every failed command answers with.

use serde_json::{Value, json};

/// The W3C error codes a Mac2 client may see from axgate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidArgument,
    InvalidSelector,
    InvalidSessionId,
    NoSuchElement,
    NoSuchWindow,
    StaleElementReference,
    ElementNotInteractable,
    SessionNotCreated,
    UnknownCommand,
    UnknownMethod,
    UnsupportedOperation,
    Timeout,
    /// A script (`macos: appleScript`, `appium:prerun`) failed.
    JavascriptError,
    /// A script ran past its time.
    ScriptTimeout,
    UnknownError,
    /// Not a W3C code: the answer to a missing or rejected credential (401), in the same shape.
    Unauthorized,
    /// Not a W3C code: a credential without the scope a command needs (403).
    InsufficientScope,
    /// Not a W3C code: the caller's rate limit (429).
    RateLimited,
}

impl ErrorCode {
    /// The `error` string of the body.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid argument",
            ErrorCode::InvalidSelector => "invalid selector",
            ErrorCode::InvalidSessionId => "invalid session id",
            ErrorCode::NoSuchElement => "no such element",
            ErrorCode::NoSuchWindow => "no such window",
            ErrorCode::StaleElementReference => "stale element reference",
            ErrorCode::ElementNotInteractable => "element not interactable",
            ErrorCode::SessionNotCreated => "session not created",
            ErrorCode::UnknownCommand => "unknown command",
            ErrorCode::UnknownMethod => "unknown method",
            ErrorCode::UnsupportedOperation => "unsupported operation",
            ErrorCode::Timeout => "timeout",
            ErrorCode::JavascriptError => "javascript error",
            ErrorCode::ScriptTimeout => "script timeout",
            ErrorCode::UnknownError => "unknown error",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::InsufficientScope => "insufficient scope",
            ErrorCode::RateLimited => "rate limited",
        }
    }

    /// The HTTP status W3C gives the code.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::InvalidArgument
            | ErrorCode::InvalidSelector
            | ErrorCode::ElementNotInteractable => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::InsufficientScope => 403,
            ErrorCode::InvalidSessionId
            | ErrorCode::NoSuchElement
            | ErrorCode::NoSuchWindow
            | ErrorCode::StaleElementReference
            | ErrorCode::UnknownCommand => 404,
            ErrorCode::UnknownMethod => 405,
            ErrorCode::RateLimited => 429,
            ErrorCode::SessionNotCreated
            | ErrorCode::UnsupportedOperation
            | ErrorCode::Timeout
            | ErrorCode::JavascriptError
            | ErrorCode::ScriptTimeout
            | ErrorCode::UnknownError => 500,
        }
    }
}

/// A failed command: its code and a message that names the fix.
#[derive(Clone, Debug, PartialEq)]
pub struct WdError {
    pub code: ErrorCode,
    pub message: String,
}

impl WdError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        WdError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        WdError::new(ErrorCode::InvalidArgument, message)
    }

    pub fn invalid_selector(message: impl Into<String>) -> Self {
        WdError::new(ErrorCode::InvalidSelector, message)
    }

    /// The W3C error body; the stack trace is always empty (nothing of the server's insides
    /// leaves it).
    pub fn body(&self) -> Value {
        json!({
            "value": {
                "error": self.code.as_str(),
                "message": self.message,
                "stacktrace": "",
            }
        })
    }
}

impl std::fmt::Display for WdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for WdError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_has_the_w3c_shape_and_codes_their_statuses() {
        let e = WdError::invalid_selector("bad predicate");
        assert_eq!(
            e.body(),
            json!({"value": {"error": "invalid selector", "message": "bad predicate", "stacktrace": ""}})
        );
        for (code, status) in [
            (ErrorCode::InvalidSelector, 400),
            (ErrorCode::NoSuchElement, 404),
            (ErrorCode::StaleElementReference, 404),
            (ErrorCode::InvalidSessionId, 404),
            (ErrorCode::UnknownMethod, 405),
            (ErrorCode::SessionNotCreated, 500),
            (ErrorCode::Unauthorized, 401),
            (ErrorCode::InsufficientScope, 403),
        ] {
            assert_eq!(code.status(), status, "{}", code.as_str());
        }
    }
}
