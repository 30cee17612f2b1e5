//! The fixture's multi round-trip requests (MRTR, SEP-2322, revision 2026-07-28): the tools
//! and the prompt the suite's `input-required-result-*` scenarios call. Each answers a call
//! without `inputResponses` with an `InputRequiredResult` (elicitation, sampling or
//! `roots/list` requests keyed by name), and the retry carrying the answers with the
//! complete result. `requestState` is sealed with rmcp's `RequestStateCodec` (HMAC-SHA256
//! under a key made at start, bound to the tool or prompt name, ten minutes long): a state
//! that fails to open is a −32602 error, never trusted. Answers that are missing or name
//! the wrong keys are asked for again; an answer of the wrong shape is −32602; keys the
//! fixture did not ask for are ignored.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, JsonObject, PromptMessage, RequestStateCodec, Role,
    SealOptions, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

/// The MRTR tools, as `tools/list` shows them.
const TOOLS: &[(&str, &str)] = &[
    (
        "test_input_required_result_elicitation",
        "Asks for the user's name (elicitation), then greets them.",
    ),
    (
        "test_input_required_result_sampling",
        "Asks the client's LLM for the capital of France (sampling), then reports the answer.",
    ),
    (
        "test_input_required_result_list_roots",
        "Asks for the client's roots (roots/list), then lists them.",
    ),
    (
        "test_input_required_result_request_state",
        "Asks for a confirmation with a sealed requestState; the retry's state is verified.",
    ),
    (
        "test_input_required_result_multiple_inputs",
        "Asks for a name, a sampled greeting and the roots at once.",
    ),
    (
        "test_input_required_result_multi_round",
        "Asks for a name, then for a favourite colour, then answers (three rounds).",
    ),
    (
        "test_input_required_result_tampered_state",
        "Asks for a confirmation; a retry whose requestState was altered is refused.",
    ),
    (
        "test_input_required_result_capabilities",
        "Asks only for what the request's client capabilities allow.",
    ),
];

/// The prompt that needs elicited input before it can be rendered.
pub(crate) const PROMPT: &str = "test_input_required_result_prompt";
/// How long a sealed `requestState` stays valid.
const STATE_TTL: Duration = Duration::from_secs(600);

/// Seals and opens `requestState`; one per fixture server, its key made at start.
#[derive(Clone)]
pub(crate) struct States(Arc<RequestStateCodec>);

impl States {
    pub(crate) fn new() -> Result<States, McpError> {
        let key = axgate::http::auth::tokens::generate()
            .map_err(|e| McpError::internal_error(format!("no random key: {e}"), None))?;
        let codec = RequestStateCodec::try_new(key.into_bytes())
            .map_err(|e| McpError::internal_error(format!("requestState key: {e}"), None))?;
        Ok(States(Arc::new(codec)))
    }

    fn seal(&self, bound_to: &str, state: &Value) -> Result<String, McpError> {
        let options = SealOptions::new()
            .associated_data(bound_to.as_bytes())
            .ttl(STATE_TTL);
        self.0
            .seal_json_with(state, &options)
            .map_err(|e| McpError::internal_error(format!("cannot seal requestState: {e}"), None))
    }

    /// The state sealed for `bound_to`, or −32602 when it was altered, expired or made for
    /// something else.
    fn open(&self, bound_to: &str, sealed: &str) -> Result<Value, McpError> {
        self.0
            .open_json_with(sealed, bound_to.as_bytes())
            .map_err(|e| {
                McpError::invalid_params(
                    format!(
                        "requestState failed its integrity check ({e}); send it back exactly as \
                         received, or call again without it to start over"
                    ),
                    None,
                )
            })
    }
}

/// The MRTR tools.
pub(crate) fn tools() -> Vec<Tool> {
    TOOLS
        .iter()
        .map(|(name, about)| {
            let schema = json!({ "type": "object", "properties": {} });
            let schema: JsonObject = serde_json::from_value(schema).unwrap_or_default();
            Tool::new(*name, *about, Arc::new(schema))
        })
        .collect()
}

pub(crate) fn is_tool(name: &str) -> bool {
    TOOLS.iter().any(|(n, _)| *n == name)
}

/// What one round of a call carries: the client's answers and the echoed state.
struct Round<'a> {
    responses: Option<&'a InputResponses>,
    state: Option<&'a str>,
}

impl Round<'_> {
    /// The answer to `key`: `None` when it was not given (ask again), −32602 when it is
    /// not an object (a malformed answer is a protocol error).
    fn answer(&self, key: &str) -> Result<Option<&Value>, McpError> {
        match self.responses.and_then(|r| r.get(key)) {
            None | Some(Value::Null) => Ok(None),
            Some(answer @ Value::Object(_)) => Ok(Some(answer)),
            Some(other) => Err(McpError::invalid_params(
                format!(
                    "inputResponses.{key} must be the result object of its request, not {other}"
                ),
                None,
            )),
        }
    }

    /// The accepted elicitation's `content.<field>` (a string or boolean), `None` when the
    /// answer is absent; a declined answer or one without the field is −32602.
    fn elicited(&self, key: &str, field: &str) -> Result<Option<String>, McpError> {
        let Some(answer) = self.answer(key)? else {
            return Ok(None);
        };
        if answer["action"] != "accept" {
            return Err(McpError::invalid_params(
                format!("inputResponses.{key}: the elicitation was not accepted ({answer})"),
                None,
            ));
        }
        match &answer["content"][field] {
            Value::String(s) => Ok(Some(s.clone())),
            Value::Bool(b) => Ok(Some(b.to_string())),
            _ => Err(McpError::invalid_params(
                format!("inputResponses.{key}.content.{field} is missing"),
                None,
            )),
        }
    }

    /// The sampled message's text.
    fn sampled(&self, key: &str) -> Result<Option<String>, McpError> {
        let Some(answer) = self.answer(key)? else {
            return Ok(None);
        };
        match answer["content"]["text"].as_str() {
            Some(text) => Ok(Some(text.to_owned())),
            None => Err(McpError::invalid_params(
                format!("inputResponses.{key} is not a sampling result with text content"),
                None,
            )),
        }
    }

    /// The listed roots' URIs.
    fn roots(&self, key: &str) -> Result<Option<Vec<String>>, McpError> {
        let Some(answer) = self.answer(key)? else {
            return Ok(None);
        };
        match answer["roots"].as_array() {
            Some(roots) => Ok(Some(
                roots
                    .iter()
                    .filter_map(|r| r["uri"].as_str().map(str::to_owned))
                    .collect(),
            )),
            None => Err(McpError::invalid_params(
                format!("inputResponses.{key} is not a roots/list result"),
                None,
            )),
        }
    }
}

fn request(method: &str, params: Value) -> Result<InputRequest, McpError> {
    serde_json::from_value(json!({ "method": method, "params": params }))
        .map_err(|e| McpError::internal_error(format!("cannot build {method}: {e}"), None))
}

fn ask_text(message: &str, field: &str, kind: &str) -> Result<InputRequest, McpError> {
    request(
        "elicitation/create",
        json!({
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": kind } },
                "required": [field],
            },
        }),
    )
}

fn ask_llm(prompt: &str, max_tokens: u32) -> Result<InputRequest, McpError> {
    request(
        "sampling/createMessage",
        json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
            "maxTokens": max_tokens,
        }),
    )
}

fn ask_roots() -> Result<InputRequest, McpError> {
    request("roots/list", json!({}))
}

fn input_required(
    asks: Vec<(&str, InputRequest)>,
    state: Option<String>,
) -> Result<CallToolResponse, McpError> {
    let requests: InputRequests = asks
        .into_iter()
        .map(|(key, ask)| (key.to_owned(), ask))
        .collect::<BTreeMap<_, _>>();
    Ok(InputRequiredResult::new(Some(requests), state).into())
}

fn done(text: String) -> Result<CallToolResponse, McpError> {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
}

/// `tools/call` of an MRTR tool.
pub(crate) fn call(
    states: &States,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let name = request.name.as_ref();
    let round = Round {
        responses: request.input_responses.as_ref(),
        state: request.request_state.as_deref(),
    };
    // A state the fixture sealed for this tool, or none; anything else is refused.
    let state = match round.state {
        Some(sealed) => Some(states.open(name, sealed)?),
        None => None,
    };
    match name {
        "test_input_required_result_elicitation" => match round.elicited("user_name", "name")? {
            Some(name) => done(format!("Hello, {name}!")),
            None => input_required(
                vec![(
                    "user_name",
                    ask_text("What is your name?", "name", "string")?,
                )],
                None,
            ),
        },
        "test_input_required_result_sampling" => match round.sampled("capital_question")? {
            Some(text) => done(format!("The client's LLM answered: {text}")),
            None => input_required(
                vec![(
                    "capital_question",
                    ask_llm("What is the capital of France?", 100)?,
                )],
                None,
            ),
        },
        "test_input_required_result_list_roots" => match round.roots("client_roots")? {
            Some(roots) => done(format!("The client's roots: {}", roots.join(", "))),
            None => input_required(vec![("client_roots", ask_roots()?)], None),
        },
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            match (state, round.elicited("confirm", "ok")?) {
                (Some(_), Some(ok)) => done(format!(
                    "state-ok: the sealed requestState was verified; ok={ok}"
                )),
                _ => input_required(
                    vec![("confirm", ask_text("Please confirm", "ok", "boolean")?)],
                    Some(states.seal(name, &json!({ "round": 1 }))?),
                ),
            }
        }
        "test_input_required_result_multiple_inputs" => {
            let name_ = round.elicited("user_name", "name")?;
            let greeting = round.sampled("greeting")?;
            let roots = round.roots("client_roots")?;
            match (state, name_, greeting, roots) {
                (Some(_), Some(name_), Some(greeting), Some(roots)) => done(format!(
                    "name={name_}; greeting={greeting}; roots={}",
                    roots.join(", ")
                )),
                _ => input_required(
                    vec![
                        (
                            "user_name",
                            ask_text("What is your name?", "name", "string")?,
                        ),
                        ("greeting", ask_llm("Generate a greeting", 50)?),
                        ("client_roots", ask_roots()?),
                    ],
                    Some(states.seal(name, &json!({ "round": 1 }))?),
                ),
            }
        }
        "test_input_required_result_multi_round" => multi_round(states, name, &round, state),
        "test_input_required_result_capabilities" => capabilities(context),
        other => Err(McpError::invalid_params(
            format!("{other:?} is not an MRTR tool"),
            None,
        )),
    }
}

/// Round 1 asks for a name; round 2 (with the name and round 1's state) for a colour,
/// under a new state carrying the name; round 3 answers with both.
fn multi_round(
    states: &States,
    tool: &str,
    round: &Round<'_>,
    state: Option<Value>,
) -> Result<CallToolResponse, McpError> {
    let step1 = || -> Result<CallToolResponse, McpError> {
        input_required(
            vec![(
                "step1",
                ask_text("Step 1: What is your name?", "name", "string")?,
            )],
            Some(states.seal(tool, &json!({ "round": 1 }))?),
        )
    };
    let Some(state) = state else {
        return step1();
    };
    match state["round"].as_u64() {
        Some(1) => match round.elicited("step1", "name")? {
            Some(name) => input_required(
                vec![(
                    "step2",
                    ask_text("Step 2: What is your favorite color?", "color", "string")?,
                )],
                Some(states.seal(tool, &json!({ "round": 2, "name": name }))?),
            ),
            None => step1(),
        },
        Some(2) => {
            let name = state["name"].as_str().unwrap_or_default().to_owned();
            match round.elicited("step2", "color")? {
                Some(color) => done(format!("{name}'s favorite color is {color}.")),
                None => input_required(
                    vec![(
                        "step2",
                        ask_text("Step 2: What is your favorite color?", "color", "string")?,
                    )],
                    Some(states.seal(tool, &json!({ "round": 2, "name": name }))?),
                ),
            }
        }
        _ => step1(),
    }
}

/// Asks only for what the request's client declared: sampling, elicitation, roots.
fn capabilities(context: &RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
    let declared: ClientCapabilities = context.client_capabilities().unwrap_or_default();
    let mut asks = Vec::new();
    if declared.sampling.is_some() {
        asks.push(("summary", ask_llm("Summarise the weather in one word", 20)?));
    }
    if declared.elicitation.is_some() {
        asks.push((
            "user_name",
            ask_text("What is your name?", "name", "string")?,
        ));
    }
    if declared.roots.is_some() {
        asks.push(("client_roots", ask_roots()?));
    }
    if asks.is_empty() {
        return done(
            "The client declared none of sampling, elicitation and roots: nothing to ask.".into(),
        );
    }
    input_required(asks, None)
}

/// `prompts/get` of [`PROMPT`]: asks for the context, then renders the prompt with it.
pub(crate) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResponse, McpError> {
    let round = Round {
        responses: request.input_responses.as_ref(),
        state: request.request_state.as_deref(),
    };
    match round.elicited("user_context", "context")? {
        Some(context) => Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Answer with this context in mind: {context}"),
        )])
        .into()),
        None => {
            let ask = ask_text("What context should the prompt use?", "context", "string")?;
            let requests: InputRequests = [("user_context".to_owned(), ask)].into();
            Ok(InputRequiredResult::from_input_requests(requests).into())
        }
    }
}
