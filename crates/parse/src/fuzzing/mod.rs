//! The fuzzed entry points, one function per cargo-fuzz target (`fuzz/fuzz_targets/`). The
//! targets are one-line calls into these functions, and `tests/it/fuzz_corpus.rs` replays every
//! committed corpus file through the same functions on stable Rust. Each function takes
//! arbitrary bytes, must never panic, and asserts the properties of its input (a failed
//! assertion is a crash to the fuzzer):
//!
//! - [`element_path`]: the element path grammar — a parsed path displays to text that parses
//!   back to the same path; an error points at a character boundary inside the input;
//! - [`intake`]: the JSON-RPC checks on a POST body ([`crate::jsonrpc::inspect`]) agree
//!   with what the body is, and every refusal is a JSON-RPC error that echoes the request id;
//! - [`token`]: the `Authorization` header parse, the static-token lookup and JWT verification
//!   against a generated key ([`token`] describes its two input modes) — never accepting
//!   anything that is not a validly signed, currently valid token for this server.

mod token;

use serde_json::Value;

use crate::element_path::ElementPath;
use crate::jsonrpc::{IntakeError, error_body, inspect};

pub use token::token;

/// The element path grammar: parse, and for inputs that parse, display → parse round-trips.
pub fn element_path(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ElementPath::parse(text) {
        Ok(path) => {
            let shown = path.to_string();
            match ElementPath::parse(&shown) {
                Ok(again) => {
                    assert_eq!(
                        again, path,
                        "{text:?} displays as {shown:?}, a different path"
                    );
                    assert_eq!(again.to_string(), shown, "display is not canonical");
                }
                Err(e) => panic!("{text:?} parses, but its display {shown:?} does not: {e}"),
            }
        }
        Err(e) => assert!(
            e.at <= text.len() && text.is_char_boundary(e.at),
            "error offset {} is not a character boundary of {text:?}",
            e.at
        ),
    }
}

/// JSON-RPC intake: [`inspect`] classifies the body as what it is, and the JSON-RPC error
/// bodies answered for it parse and echo its id.
pub fn intake(data: &[u8]) {
    let parsed = serde_json::from_slice::<Value>(data);
    match inspect(data) {
        Ok(message) => {
            let object = parsed
                .as_ref()
                .ok()
                .and_then(Value::as_object)
                .expect("inspect accepted a body that is not one JSON object");
            assert_eq!(message.id.as_ref(), object.get("id"), "id");
            let method = object.get("method").and_then(Value::as_str).unwrap_or("");
            assert_eq!(message.method, method, "method");
            let meta_version = object
                .get("params")
                .and_then(|p| p.get("_meta"))
                .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"));
            assert_eq!(
                message.sessionless,
                method == "server/discover" || (meta_version.is_some() && method != "initialize"),
                "sessionless"
            );
            // The 503 of a full server answers with the same id.
            check_error_body(message.id, -32000, "full".into());
        }
        Err(refusal) => {
            match (&refusal, &parsed) {
                (IntakeError::Parse(_), Err(_)) => {}
                (IntakeError::Batch, Ok(Value::Array(_))) => {}
                (IntakeError::NotAnObject, Ok(v)) if !v.is_object() && !v.is_array() => {}
                (refusal, parsed) => {
                    panic!("refused as {refusal:?}, but the body parses as {parsed:?}")
                }
            }
            let expected_code = if parsed.is_err() { -32700 } else { -32600 };
            assert_eq!(refusal.code(), expected_code, "error code");
            check_error_body(None, refusal.code(), refusal.to_string());
        }
    }
}

/// The error body is JSON-RPC 2.0 with the given id, code and message.
fn check_error_body(id: Option<Value>, code: i64, message: String) {
    let body = error_body(id.clone(), code, message.clone());
    let parsed: Value = serde_json::from_str(&body).expect("the error body is JSON");
    assert_eq!(parsed["jsonrpc"], "2.0");
    assert_eq!(parsed["error"]["code"], code);
    assert_eq!(parsed["error"]["message"], message.as_str());
    let sent = id.unwrap_or(Value::Null);
    assert!(
        same_json(&parsed["id"], &sent),
        "the error body's id {} is not the request's {sent}",
        parsed["id"]
    );
}

/// JSON equality where floats compare with a relative tolerance (serde_json's default float
/// parsing is not exact to the last bit, so a re-parsed float may differ in its last digit).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}
