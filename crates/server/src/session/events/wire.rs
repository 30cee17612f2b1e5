//! Stored events as the bytes that go on the wire, and back. An event is serialized once, when
//! it is stored; what the log holds and weighs is that JSON. Delivering it (live or on replay)
//! rebuilds the `ServerJsonRpcMessage` rmcp's SSE writer needs from those bytes.
//!
//! A response's `result` is rebuilt as rmcp's `CustomResult` (a plain JSON value), never
//! re-read through the untagged `ServerResult`, which could pick another variant and drop
//! fields: what goes out is what was stored.

use bytes::Bytes;
use rmcp::model::{
    CustomResult, JsonRpcMessage, JsonRpcResponse, ServerJsonRpcMessage, ServerResult,
};

/// The JSON text of a message, as rmcp would write it.
pub(super) fn encode(message: &ServerJsonRpcMessage) -> Bytes {
    match serde_json::to_vec(message) {
        Ok(json) => Bytes::from(json),
        Err(error) => {
            // rmcp's own writer `expect`s this to succeed; a message that cannot be written
            // cannot be sent either way.
            tracing::error!(%error, "an outgoing MCP message cannot be serialized");
            Bytes::new()
        }
    }
}

/// Whether a message is a response with a result (rebuilt as a [`CustomResult`]).
pub(super) fn is_result(message: &ServerJsonRpcMessage) -> bool {
    matches!(message, JsonRpcMessage::Response(_))
}

/// The message of stored JSON; `result` says it is a response with a result.
pub(super) fn decode(json: &[u8], result: bool) -> Option<ServerJsonRpcMessage> {
    let decoded = if result {
        serde_json::from_slice::<JsonRpcResponse<CustomResult>>(json).map(|r| {
            JsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc: r.jsonrpc,
                id: r.id,
                result: ServerResult::CustomResult(r.result),
            })
        })
    } else {
        serde_json::from_slice::<ServerJsonRpcMessage>(json)
    };
    match decoded {
        Ok(message) => Some(message),
        Err(error) => {
            tracing::error!(%error, "a stored event cannot be read back; skipped");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolResult, ContentBlock, RequestId};

    #[test]
    fn a_result_goes_out_as_it_was_stored() {
        let message: ServerJsonRpcMessage = JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: Default::default(),
            id: RequestId::Number(7),
            result: ServerResult::CallToolResult(CallToolResult::success(vec![
                ContentBlock::text("hello"),
            ])),
        });
        let json = encode(&message);
        let back = decode(&json, is_result(&message)).expect("decodes");
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_slice(&json).unwrap(),
            serde_json::to_value(&back).unwrap(),
        );
        assert_eq!(a, b);
        assert_eq!(b["result"]["content"][0]["text"], "hello");
    }
}
