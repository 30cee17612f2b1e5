//! The destructive-act confirmation of a sessionless (2026-07-28) `tools/call`, asked through
//! an MRTR input-required result (SEP-2322) instead of a server-to-client request, which that
//! revision cannot carry.
//!
//! When the decision point (`confirm.rs`) would ask and the request's own client capabilities
//! (`_meta` `io.modelcontextprotocol/clientCapabilities`) declare form elicitation, the call
//! stops before acting and answers with an `InputRequiredResult`: one form elicitation
//! (`confirm`, a boolean) and a sealed `requestState`. The client asks its user and calls the
//! tool again with the same arguments, its `inputResponses` and the echoed state.
//!
//! The state is sealed with rmcp's `RequestStateCodec` (HMAC-SHA256) under a key drawn at
//! start from the OS (never logged, never configured, gone at restart: a state outlives no
//! process). It binds, as associated data that is authenticated but not carried, the tool, a
//! digest of its arguments and the caller's principal; it carries a random id, a digest of
//! the act's subject (what the user was told will be touched) and its expiry
//! ([`STATE_TTL`]). Nothing in it is typed text or a secret: only digests, an id and a time.
//!
//! One accepted state confirms one act: its id is spent when the act goes ahead, and spent
//! ids are kept until their state expires — at most [`MAX_SPENT`] of them (each a 32-byte
//! hex id and a time, under 200 bytes with the map's overhead: under 1 MiB in all); with that
//! many confirmations pending, another is refused until some expire.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{
    CallToolResult, ClientCapabilities, ElicitRequest, ElicitRequestParams, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, JsonObject,
    RequestStateCodec, SealOptions,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::errors::{ToolError, tool_error};

/// The form the user answers, in an elicitation (`confirm.rs`) or an input-required result.
#[derive(Deserialize, JsonSchema)]
pub(super) struct Confirm {
    /// Tick to go ahead with the action.
    pub(super) confirm: bool,
}

rmcp::elicit_safe!(Confirm);

/// How long a user has to answer, and the retry to arrive.
pub const STATE_TTL: Duration = Duration::from_secs(300);

/// How many spent states are remembered at most (see the module documentation).
pub const MAX_SPENT: usize = 4096;

/// The key of the one input request, in `inputRequests` and `inputResponses`.
pub const KEY: &str = "confirm";

/// What every failure to honour an echoed state tells the caller (one message for all of
/// them, as rmcp advises: which check failed is for the server's log).
const STALE: &str = "not done: the requestState of this call cannot confirm it: it was altered, \
has expired, was issued for other arguments or another caller, or was already used. Call the \
tool again without requestState (and inputResponses) to be asked anew";

/// The sealed payload. Digests, an id and a time only.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// Random, hex: what a spent state is remembered by.
    id: String,
    /// SHA-256 (hex) of the act's subject, as the user was told it.
    subject: String,
    /// Unix milliseconds after which the state is expired (the codec checks its own copy).
    expires: u64,
}

/// The server's confirmation states: the sealing key and the spent ids. One per server.
pub struct Confirmations {
    /// `None` when the OS gave no random key: then no client is asked this way.
    codec: Option<RequestStateCodec>,
    /// Spent ids and when their states expire (unix ms).
    spent: Mutex<HashMap<String, u64>>,
}

impl Default for Confirmations {
    fn default() -> Self {
        Confirmations::new()
    }
}

impl Confirmations {
    /// A fresh random sealing key from the OS.
    pub fn new() -> Confirmations {
        let mut key = vec![0u8; RequestStateCodec::MIN_KEY_LENGTH];
        let codec = match getrandom::fill(&mut key) {
            Ok(()) => RequestStateCodec::try_new(key).ok(),
            Err(error) => {
                tracing::warn!(
                    %error,
                    "no random key for confirmation states; sessionless clients are not asked"
                );
                None
            }
        };
        Confirmations {
            codec,
            spent: Mutex::new(HashMap::new()),
        }
    }

    /// How many spent states are remembered now.
    pub fn spent(&self) -> usize {
        self.spent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Spends `id` (valid until `expires`): false when it was spent already, or when
    /// [`MAX_SPENT`] unexpired states are remembered.
    fn spend(&self, id: &str, expires: u64) -> bool {
        let now = now_ms();
        let mut spent = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
        spent.retain(|_, until| *until > now);
        if spent.contains_key(id) || spent.len() >= MAX_SPENT {
            return false;
        }
        spent.insert(id.to_owned(), expires);
        true
    }
}

/// A sessionless call as the confirmation sees it.
pub struct Call<'a> {
    pub tool: &'a str,
    pub args: &'a JsonObject,
    /// The caller's [`Principal::key`](crate::identity::Principal::key), or `local`.
    pub principal: &'a str,
    /// The request's own client capabilities.
    pub capabilities: Option<ClientCapabilities>,
    pub state: Option<&'a str>,
    pub responses: Option<&'a InputResponses>,
}

/// The user's answer carried by a retry whose state opened.
struct Answer {
    id: String,
    subject: String,
    expires: u64,
    accepted: bool,
}

/// The question a call stopped at, to be sent as an input-required result.
struct Question {
    message: String,
    subject: String,
}

/// The input-required side of one sessionless call.
pub struct CallInput {
    confirmations: Arc<Confirmations>,
    /// The associated data of this call's state: tool, arguments, principal.
    binding: Vec<u8>,
    /// The client declared form elicitation in this request.
    may_ask: bool,
    answer: Mutex<Option<Answer>>,
    asked: Mutex<Option<Question>>,
}

/// What the decision point does with a destructive act of a sessionless call.
pub enum Route {
    /// The user answered (accepted or not) in this retry.
    Answered(bool),
    /// Stop before acting and ask through an input-required result.
    Ask,
    /// The answer cannot confirm this act; nothing is done.
    Refused(ToolError),
    /// The client cannot be asked: the policy decides, as without elicitation.
    Unasked,
}

/// The input side of a sessionless call, or `Err` when its echoed state cannot be honoured
/// (the call must then not run). `Ok(None)`: nothing to ask with and nothing answered.
pub fn prepare(
    confirmations: &Arc<Confirmations>,
    call: &Call<'_>,
) -> Result<Option<CallInput>, ToolError> {
    let may_ask = call.capabilities.as_ref().is_some_and(declares_form);
    let Some(codec) = &confirmations.codec else {
        return match call.state {
            Some(_) => Err(stale("no sealing key")),
            None => Ok(None),
        };
    };
    let binding = binding(call);
    let answer = match call.state {
        None if !may_ask => return Ok(None),
        None => None,
        Some(state) => {
            let sealed: Sealed = codec
                .open_json_with(state, &binding)
                .map_err(|error| stale(&error.to_string()))?;
            let accepted = call
                .responses
                .and_then(|r| r.get(KEY))
                .ok_or_else(|| stale("no inputResponses.confirm"))
                .and_then(accepted)?;
            Some(Answer {
                id: sealed.id,
                subject: sealed.subject,
                expires: sealed.expires,
                accepted,
            })
        }
    };
    Ok(Some(CallInput {
        confirmations: confirmations.clone(),
        binding,
        may_ask,
        answer: Mutex::new(answer),
        asked: Mutex::new(None),
    }))
}

/// The input side of a call (`None` outside a sessionless request) and the refusal of an
/// echoed state that cannot be honoured, apart.
pub fn split(
    prepared: Option<Result<Option<CallInput>, ToolError>>,
) -> (Option<CallInput>, Option<ToolError>) {
    match prepared {
        Some(Err(error)) => (None, Some(error)),
        Some(Ok(input)) => (input, None),
        None => (None, None),
    }
}

impl CallInput {
    /// Routes the decision about `what` (the act as the user is told it); `first` when no
    /// earlier decision of this call was made (an earlier one may have acted, which a retry
    /// would repeat, so only the first decision is asked this way).
    pub fn route(&self, what: &str, message: &str, first: bool) -> Route {
        let subject = digest(what.as_bytes());
        let answer = self
            .answer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match answer {
            Some(answer) if answer.subject != subject => Route::Refused(stale("other subject")),
            Some(answer) if !answer.accepted => Route::Answered(false),
            Some(answer) if self.confirmations.spend(&answer.id, answer.expires) => {
                Route::Answered(true)
            }
            Some(_) => Route::Refused(stale("spent, or too many pending")),
            None if self.may_ask && first => {
                *self.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(Question {
                    message: message.to_owned(),
                    subject,
                });
                Route::Ask
            }
            None => Route::Unasked,
        }
    }

    /// The input-required result of a call that stopped to ask, sealed for this call.
    pub fn result(&self) -> Option<InputRequiredResult> {
        let question = self
            .asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        let codec = self.confirmations.codec.as_ref()?;
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).ok()?;
        let sealed = Sealed {
            id: hex::encode(id),
            subject: question.subject,
            expires: now_ms() + STATE_TTL.as_millis() as u64,
        };
        let options = SealOptions::new()
            .associated_data(&self.binding)
            .ttl(STATE_TTL);
        let state = codec.seal_json_with(&sealed, &options).ok()?;
        let schema = ElicitationSchema::from_type::<Confirm>().ok()?;
        let form = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: question.message,
            requested_schema: schema,
        };
        let requests = InputRequests::from([(
            KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(form)),
        )]);
        Some(InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// The result and outcome of a call whose echoed state could not be honoured.
pub fn refused(error: ToolError) -> (CallToolResult, &'static str) {
    let outcome = error.outcome();
    (tool_error(error), outcome)
}

fn stale(why: &str) -> ToolError {
    tracing::info!(why, "a confirmation requestState was not honoured");
    ToolError::Refused(STALE.to_owned())
}

/// Whether the client can answer a form elicitation (an empty `elicitation` means form).
fn declares_form(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// Whether an elicitation response accepts with `confirm: true`; anything else (decline,
/// cancel, `false`) does not. A response that is no elicitation result is an error.
fn accepted(response: &Value) -> Result<bool, ToolError> {
    match response.get("action").and_then(Value::as_str) {
        Some("accept") => Ok(response
            .get("content")
            .and_then(|c| c.get(KEY))
            .and_then(Value::as_bool)
            .unwrap_or(false)),
        Some("decline" | "cancel") => Ok(false),
        _ => Err(stale("inputResponses.confirm is no elicitation result")),
    }
}

/// The associated data of a call's state: its tool, its arguments' digest and its caller.
fn binding(call: &Call<'_>) -> Vec<u8> {
    let mut hasher = Sha256::new();
    canonical(&Value::Object(call.args.clone()), &mut hasher);
    let args = hex::encode(hasher.finalize());
    format!(
        "axgate/confirm/v1\n{}\n{args}\n{}",
        call.tool, call.principal
    )
    .into_bytes()
}

/// Feeds `value` to `hasher` with object keys sorted, so the digest does not depend on the
/// order the client wrote them in.
fn canonical(value: &Value, hasher: &mut Sha256) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            hasher.update(b"{");
            for key in keys {
                hasher.update(serde_json::to_string(key).unwrap_or_default().as_bytes());
                hasher.update(b":");
                canonical(&map[key], hasher);
                hasher.update(b",");
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                canonical(item, hasher);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        other => hasher.update(other.to_string().as_bytes()),
    }
}

fn digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call<'a>(args: &'a JsonObject, principal: &'a str) -> Call<'a> {
        Call {
            tool: "click",
            args,
            principal,
            capabilities: serde_json::from_value(json!({"elicitation": {"form": {}}})).ok(),
            state: None,
            responses: None,
        }
    }

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn argument_digests_ignore_key_order_only() {
        let a = object(json!({"app": "Form", "target": "x"}));
        let b = object(json!({"target": "x", "app": "Form"}));
        let c = object(json!({"target": "y", "app": "Form"}));
        assert_eq!(binding(&call(&a, "token:a")), binding(&call(&b, "token:a")));
        assert_ne!(binding(&call(&a, "token:a")), binding(&call(&c, "token:a")));
        assert_ne!(binding(&call(&a, "token:a")), binding(&call(&a, "token:b")));
    }

    #[test]
    fn a_state_confirms_its_own_call_once() {
        let confirmations = Arc::new(Confirmations::new());
        let args = object(json!({"app": "Form"}));
        let first = prepare(&confirmations, &call(&args, "token:a"))
            .expect("no state")
            .expect("may ask");
        assert!(matches!(
            first.route("press it", "Allow?", true),
            Route::Ask
        ));
        let asked = first.result().expect("asked");
        let state = asked.request_state.expect("a state");
        assert!(!state.contains("press it"), "only digests in the state");
        let yes = InputResponses::from([(
            KEY.to_owned(),
            json!({"action": "accept", "content": {"confirm": true}}),
        )]);
        let retry = |principal: &str| {
            let mut c = call(&args, "token:a");
            c.principal = principal;
            c.state = Some(&state);
            c.responses = Some(&yes);
            prepare(&confirmations, &c).map(|i| i.expect("answered"))
        };
        assert!(retry("token:b").is_err(), "another principal");
        let again = retry("token:a").expect("opens");
        assert!(matches!(
            again.route("press that", "", true),
            Route::Refused(_)
        ));
        let again = retry("token:a").expect("opens");
        assert!(matches!(
            again.route("press it", "", true),
            Route::Answered(true)
        ));
        let replayed = retry("token:a").expect("opens");
        assert!(matches!(
            replayed.route("press it", "", true),
            Route::Refused(_)
        ));
        assert_eq!(confirmations.spent(), 1);
    }
}
