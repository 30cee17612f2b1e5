//! The fixture's tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): the tools the
//! suite's `tasks-*` scenarios call and the task store behind `tasks/get`, `tasks/update`
//! and `tasks/cancel` (rmcp's `TaskManager`, one per fixture server, so a task made in one
//! session is seen from another — the suite cancels from a second connection).
//!
//! A call creates a task only when the request declared the extension (at `initialize` or
//! in its `_meta` client capabilities, SEP-2575). `slow_compute` then runs as a task and
//! otherwise synchronously; the tools whose task support is *required* (`failing_job`,
//! `protocol_error_job`, `confirm_delete`, `multi_input`, `test_tool_with_task`) answer a
//! request without it with −32021 Missing Required Client Capability. `greet` never makes a
//! task. A task settles as `cancelled` when `tasks/cancel` arrives while it runs.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    CreateTaskResult, InputRequest, InputRequests, InputRequiredResult, JsonObject, Tool,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

/// The tasks tools, as `tools/list` shows them: name, description, input schema.
const TOOLS: &[(&str, &str)] = &[
    ("greet", "Says hello to `name` (synchronous only)."),
    (
        "slow_compute",
        "Sleeps `seconds` seconds then reports `label`; a task when the client asks for tasks.",
    ),
    (
        "failing_job",
        "A task (required) that ends after about a second with a tool error.",
    ),
    (
        "protocol_error_job",
        "A task (required) that fails with a protocol error.",
    ),
    (
        "confirm_delete",
        "A task (required) that asks for a confirmation (elicitation) before it answers.",
    ),
    (
        "multi_input",
        "A task (required) that asks for two inputs at once.",
    ),
    (
        "test_tool_with_task",
        "Asks for the user's name (an InputRequiredResult), then continues as a task.",
    ),
];

/// The longest `slow_compute` sleeps.
const MAX_SECONDS: u64 = 120;
/// Suggested polling interval of the fixture's tasks.
const POLL_MS: u64 = 200;

/// The tasks tools.
pub(crate) fn tools() -> Vec<Tool> {
    TOOLS
        .iter()
        .map(|(name, about)| {
            let properties = match *name {
                "greet" => json!({ "name": { "type": "string" } }),
                "slow_compute" => json!({
                    "seconds": { "type": "number", "minimum": 0 },
                    "label": { "type": "string" },
                }),
                "confirm_delete" => json!({ "filename": { "type": "string" } }),
                _ => json!({}),
            };
            let schema = json!({ "type": "object", "properties": properties });
            let schema: JsonObject = serde_json::from_value(schema).unwrap_or_default();
            Tool::new(*name, *about, Arc::new(schema))
        })
        .collect()
}

pub(crate) fn is_tool(name: &str) -> bool {
    TOOLS.iter().any(|(n, _)| *n == name)
}

/// Whether this request declared the tasks extension (per request or at `initialize`).
fn wants_tasks(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|caps| caps.supports_tasks())
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

/// Starts `work` as a task and answers with its `CreateTaskResult`.
fn spawn(
    tasks: &TaskManager,
    work: impl FnOnce(TaskContext) -> TaskFuture,
) -> Result<CallToolResponse, McpError> {
    let options = TaskOptions::new().with_poll_interval_ms(POLL_MS);
    let task = tasks.spawn(options, work);
    Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
}

/// Sleeps `seconds`, or ends as cancelled when `tasks/cancel` comes first.
async fn sleep_or_cancel(ctx: &TaskContext, seconds: f64) -> Result<(), TaskExit> {
    tokio::select! {
        () = ctx.cancelled() => Err(TaskExit::Cancelled),
        () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => Ok(()),
    }
}

fn elicit(message: &str, properties: Value) -> Result<InputRequest, McpError> {
    serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": { "type": "object", "properties": properties },
        },
    }))
    .map_err(|e| McpError::internal_error(format!("cannot build an elicitation: {e}"), None))
}

/// The accepted answer's `content.<field>` as text, or why there is none.
fn answered(answer: &Value, field: &str) -> String {
    if answer["action"] != "accept" {
        return format!("not accepted ({})", answer["action"]);
    }
    match &answer["content"][field] {
        Value::String(s) => s.clone(),
        Value::Null => "(none)".to_owned(),
        other => other.to_string(),
    }
}

/// `tools/call` of a tasks tool.
pub(crate) async fn call(
    tasks: &TaskManager,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let name = request.name.as_ref();
    let args = request.arguments.clone().unwrap_or_default();
    if name == "greet" {
        let who = args.get("name").and_then(Value::as_str).unwrap_or("world");
        return Ok(text(format!("Hello, {who}!")).into());
    }
    let seconds = args
        .get("seconds")
        .and_then(Value::as_f64)
        .unwrap_or(1.0)
        .clamp(0.0, MAX_SECONDS as f64);
    let label = args
        .get("label")
        .and_then(Value::as_str)
        .unwrap_or("slow_compute")
        .to_owned();
    let tasked = wants_tasks(context);
    if name == "slow_compute" && !tasked {
        // No task without the extension: the same work, synchronously.
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
        return Ok(text(format!("{label}: computed after {seconds}s")).into());
    }
    if !tasked && name != "test_tool_with_task" {
        return Err(McpError::missing_required_client_capability(
            ClientCapabilities::builder().enable_tasks().build(),
        ));
    }
    match name {
        "slow_compute" => spawn(tasks, move |ctx| {
            Box::pin(async move {
                sleep_or_cancel(&ctx, seconds).await?;
                Ok(text(format!("{label}: computed after {seconds}s")))
            })
        }),
        "failing_job" => spawn(tasks, |ctx| {
            Box::pin(async move {
                sleep_or_cancel(&ctx, 1.0).await?;
                Ok(CallToolResult::error(vec![ContentBlock::text(
                    "failing_job: the job failed, as it always does",
                )]))
            })
        }),
        "protocol_error_job" => spawn(tasks, |ctx| {
            Box::pin(async move {
                sleep_or_cancel(&ctx, 0.2).await?;
                Err(TaskExit::Error(McpError::internal_error(
                    "protocol_error_job: an internal failure, as designed",
                    None,
                )))
            })
        }),
        "confirm_delete" => {
            let filename = args
                .get("filename")
                .and_then(Value::as_str)
                .unwrap_or("file.txt")
                .to_owned();
            let ask = elicit(
                &format!("Delete {filename}?"),
                json!({ "confirm": { "type": "boolean" } }),
            )?;
            spawn(tasks, move |ctx| {
                Box::pin(async move {
                    let answer = ctx.request_input("confirm", ask).await?;
                    let confirm = answered(&answer, "confirm");
                    Ok(text(format!("{filename}: confirm={confirm}")))
                })
            })
        }
        "multi_input" => {
            let first = elicit(
                "Your name?",
                json!({ "name": { "type": "string" }, "confirm": { "type": "boolean" } }),
            )?;
            let second = elicit(
                "Confirm?",
                json!({ "name": { "type": "string" }, "confirm": { "type": "boolean" } }),
            )?;
            spawn(tasks, move |ctx| {
                Box::pin(async move {
                    let (a, b) = tokio::join!(
                        ctx.request_input("first", first),
                        ctx.request_input("second", second)
                    );
                    let (a, b) = (a?, b?);
                    Ok(text(format!(
                        "first={}; second={}",
                        answered(&a, "name"),
                        answered(&b, "name")
                    )))
                })
            })
        }
        "test_tool_with_task" => with_task(tasks, request, tasked),
        other => Err(McpError::invalid_params(
            format!("{other:?} is not a tasks tool"),
            None,
        )),
    }
}

/// `test_tool_with_task`: round 1 asks for the name (MRTR); the retry carrying it becomes a
/// task whose result greets that name.
fn with_task(
    tasks: &TaskManager,
    request: &CallToolRequestParams,
    tasked: bool,
) -> Result<CallToolResponse, McpError> {
    let answer = request
        .input_responses
        .as_ref()
        .and_then(|responses| responses.get("user_name"))
        .filter(|answer| answer.is_object());
    let Some(answer) = answer else {
        let requests: InputRequests = BTreeMap::from([(
            "user_name".to_owned(),
            elicit(
                "What is your name?",
                json!({ "name": { "type": "string" } }),
            )?,
        )]);
        return Ok(InputRequiredResult::new(Some(requests), None).into());
    };
    if !tasked {
        return Err(McpError::missing_required_client_capability(
            ClientCapabilities::builder().enable_tasks().build(),
        ));
    }
    let name = answered(answer, "name");
    spawn(tasks, move |ctx| {
        Box::pin(async move {
            sleep_or_cancel(&ctx, 0.2).await?;
            Ok(text(format!("Hello, {name}! (from a task)")))
        })
    })
}
