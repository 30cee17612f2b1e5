//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for the long-running
//! tools: `wait_for`, `wait_idle`, `launch_app` and `get_tree` (their records say
//! `TaskSupport::Optional`; `tools/list` shows it as `execution.taskSupport`, `listing.rs`)
//! run as a task when the request asks for one — a `task` object in its params, as the
//! spec's tool-level negotiation has requestors do — and declared the extension (at
//! `initialize`, or per request in `_meta`'s client capabilities). A call without `task`
//! is answered in its own request, whatever the client declared: a client that declares the
//! extension but calls a tool plainly (the MCP Inspector does) gets the tool's result, not a
//! task it never asked for. The HTTP intake reads `task` (rmcp's `CallToolRequestParams`
//! drops it) and marks the request with [`TaskAsked`]; over stdio there is no such mark and
//! every call is answered in its request. A task call answers at once with a
//! `CreateTaskResult`; `tasks/get` polls it
//! and inlines the tool result once it is done; `tasks/cancel` cancels the running call
//! (its cancellation token, as `notifications/cancelled` does); `tasks/update` is
//! acknowledged (these tools ask for no input).
//!
//! The store is bounded: a principal holds at most `limits.max_tasks_per_principal` tasks
//! (running or kept), finished results are kept within `limits.max_task_bytes` over all
//! principals (gauge `axgate_task_result_bytes`), and a task is dropped `limits.task_ttl_secs`
//! after it was created. The budget weighs what is held: a result is kept as its serialized
//! JSON text (one allocation of exactly the counted bytes), not as a tree of JSON values,
//! which held about nine times as much as it counted; `tasks/get` parses it again. A result that does not fit the byte budget is not kept: the task
//! fails with an error naming the key. A task is seen only by the principal that made it;
//! any other id is −32602 unknown task.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use prometheus::IntGauge;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, ErrorCode, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::current_timestamp;
use rmcp::{ErrorData as McpError, RoleServer};
use tokio_util::sync::CancellationToken;

use super::tools::{TaskSupport, ToolDef};
use crate::policy::PolicyConfig;

/// The polling interval suggested to clients.
const POLL_MS: u64 = 500;

/// Marks a `tools/call` whose params carry a `task` object: the request asks to run as a
/// task. The HTTP intake puts it in the request's extensions.
#[derive(Clone, Copy, Debug)]
pub struct TaskAsked;

impl TaskAsked {
    /// Whether `params` (a `tools/call`'s) ask for a task.
    pub fn asked_by(params: Option<&serde_json::Value>) -> bool {
        params
            .and_then(|p| p.get("task"))
            .is_some_and(serde_json::Value::is_object)
    }
}

/// Whether this call of `tool` should run as a task: a tool that may (its record's `task`),
/// a request that asked for one ([`TaskAsked`]) and declared the extension (without it the
/// client could not read a task; rmcp refuses to send one).
pub fn wanted(tool: &ToolDef, context: &RequestContext<RoleServer>) -> bool {
    tool.profile.task == TaskSupport::Optional
        && context
            .extensions
            .get::<http::request::Parts>()
            .is_some_and(|parts| parts.extensions.get::<TaskAsked>().is_some())
        && context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks())
}

/// One task: who made it, its wire state and how it ends.
struct Entry {
    owner: String,
    task: Task,
    created: Instant,
    ttl: Duration,
    /// Cancels the running call; `None` once it ended.
    running: Option<CancellationToken>,
    /// The terminal payload and the bytes it counts against the budget.
    done: Option<(Kept, usize)>,
}

/// A terminal payload as it is held: a completed result as its JSON text (what the budget
/// counts is what is held), anything else (small: an error, a cancellation) as it is.
enum Kept {
    Completed(Box<str>),
    Other(TaskPayload),
}

impl Kept {
    fn payload(&self) -> TaskPayload {
        match self {
            Kept::Completed(text) => TaskPayload::Completed {
                result: serde_json::from_str(text).unwrap_or_default(),
            },
            Kept::Other(payload) => payload.clone(),
        }
    }

    fn status(&self) -> TaskStatus {
        match self {
            Kept::Completed(_) => TaskStatus::Completed,
            Kept::Other(payload) => payload.status(),
        }
    }
}

impl Entry {
    fn detailed(&self) -> DetailedTask {
        let payload = match &self.done {
            Some((kept, _)) => kept.payload(),
            None => TaskPayload::Working,
        };
        DetailedTask::new(self.task.clone(), payload)
    }

    fn settle(&mut self, kept: Kept, bytes: usize) {
        self.task.status = kept.status();
        self.task.last_updated_at = current_timestamp();
        self.running = None;
        self.done = Some((kept, bytes));
    }
}

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Entry>,
    /// Bytes of the kept results.
    bytes: usize,
}

/// The tasks of every session of the server.
pub struct TaskStore {
    inner: Mutex<Inner>,
    bytes_gauge: IntGauge,
    tasks_gauge: IntGauge,
}

/// Answer to an unknown (or someone else's, or expired) task id.
fn unknown(task_id: &str) -> McpError {
    McpError::invalid_params(
        format!(
            "unknown task {task_id:?}: no task of this principal has that id (a task is kept \
             limits.task_ttl_secs after it was created; start the call again)"
        ),
        None,
    )
}

impl TaskStore {
    pub fn new(bytes_gauge: IntGauge, tasks_gauge: IntGauge) -> TaskStore {
        TaskStore {
            inner: Mutex::default(),
            bytes_gauge,
            tasks_gauge,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops the tasks past their TTL (cancelling those still running) and updates the
    /// gauges.
    fn sweep(&self, inner: &mut Inner) {
        let now = Instant::now();
        let mut freed = 0;
        inner.tasks.retain(|_, entry| {
            let keep = now.duration_since(entry.created) < entry.ttl;
            if !keep {
                if let Some(token) = &entry.running {
                    token.cancel();
                }
                freed += entry.done.as_ref().map_or(0, |(_, bytes)| *bytes);
            }
            keep
        });
        inner.bytes -= freed;
        self.gauges(inner);
    }

    fn gauges(&self, inner: &Inner) {
        self.bytes_gauge.set(inner.bytes as i64);
        self.tasks_gauge.set(inner.tasks.len() as i64);
    }

    /// Registers a task of `owner` for a call of `tool` and returns its `CreateTaskResult`
    /// and the token that cancels the call; a principal at its cap gets a tool error naming
    /// the key instead.
    pub fn create(
        &self,
        owner: &str,
        tool: &str,
        limits: &PolicyConfig,
    ) -> Result<(CreateTaskResult, String, CancellationToken), CallToolResult> {
        let mut inner = self.lock();
        self.sweep(&mut inner);
        let held = inner.tasks.values().filter(|e| e.owner == owner).count();
        if held >= limits.max_tasks_per_principal {
            return Err(CallToolResult::error(vec![
                rmcp::model::ContentBlock::text(format!(
                    "{tool} cannot run as a task: this principal already holds {held} tasks \
                     (limits.max_tasks_per_principal = {}); wait until one expires \
                     (limits.task_ttl_secs = {}), or call without the tasks extension",
                    limits.max_tasks_per_principal, limits.task_ttl_secs
                )),
            ]));
        }
        let id = uuid::Uuid::new_v4().to_string();
        let now = current_timestamp();
        let ttl = Duration::from_secs(limits.task_ttl_secs);
        let task = Task::new(id.clone(), TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(ttl.as_millis() as u64)
            .with_poll_interval_ms(POLL_MS);
        let token = CancellationToken::new();
        inner.tasks.insert(
            id.clone(),
            Entry {
                owner: owner.to_owned(),
                task: task.clone(),
                created: Instant::now(),
                ttl,
                running: Some(token.clone()),
                done: None,
            },
        );
        self.gauges(&inner);
        Ok((CreateTaskResult::new(task), id, token))
    }

    /// Records the result of task `id`: kept when it fits `limits.max_task_bytes`, else
    /// replaced by an error saying so. A task cancelled meanwhile stays cancelled.
    pub fn finish(&self, id: &str, tool: &str, result: CallToolResult, limits: &PolicyConfig) {
        let text: Box<str> = serde_json::to_string(&result)
            .unwrap_or_else(|_| "{}".to_owned())
            .into_boxed_str();
        let size = text.len();
        let mut inner = self.lock();
        self.sweep(&mut inner);
        let free = limits.max_task_bytes.saturating_sub(inner.bytes);
        let Some(entry) = inner.tasks.get_mut(id) else {
            return;
        };
        if entry.done.is_some() {
            return;
        }
        let (kept, bytes) = if size <= free {
            (Kept::Completed(text), size)
        } else {
            let message = format!(
                "the result of {tool} is {size} bytes, more than the {free} bytes left of the \
                 task results' budget (limits.max_task_bytes = {}); narrow the call (for get_tree \
                 a smaller depth or max_nodes, or a page), call it without the tasks extension, \
                 or raise limits.max_task_bytes",
                limits.max_task_bytes
            );
            let error = McpError::new(ErrorCode::INTERNAL_ERROR, message, None);
            let error = match serde_json::to_value(&error) {
                Ok(serde_json::Value::Object(object)) => object,
                _ => JsonObject::new(),
            };
            (Kept::Other(TaskPayload::Failed { error }), 0)
        };
        entry.settle(kept, bytes);
        inner.bytes += bytes;
        self.gauges(&inner);
    }

    /// Ends every task of an owner `gone` says lost its credential (a token or issuer removed
    /// on reload): running calls are cancelled and every such task is forgotten, so none is
    /// readable if the credential comes back. Returns how many ended.
    pub fn revoke(&self, gone: impl Fn(&str) -> bool) -> usize {
        let mut inner = self.lock();
        let mut freed = 0;
        let before = inner.tasks.len();
        inner.tasks.retain(|_, entry| {
            if !gone(&entry.owner) {
                return true;
            }
            if let Some(token) = entry.running.take() {
                token.cancel();
            }
            freed += entry.done.as_ref().map_or(0, |(_, bytes)| *bytes);
            false
        });
        inner.bytes -= freed;
        let ended = before - inner.tasks.len();
        self.gauges(&inner);
        ended
    }

    /// `tasks/get`.
    pub fn get(&self, owner: &str, id: &str) -> Result<DetailedTask, McpError> {
        let mut inner = self.lock();
        self.sweep(&mut inner);
        match inner.tasks.get(id) {
            Some(entry) if entry.owner == owner => Ok(entry.detailed()),
            _ => Err(unknown(id)),
        }
    }

    /// `tasks/update`: these tools ask for no input, so a known task just acknowledges.
    pub fn update(&self, owner: &str, id: &str) -> Result<(), McpError> {
        self.get(owner, id).map(drop)
    }

    /// `tasks/cancel`: cancels the running call; the task is `cancelled` at once. A task
    /// already finished keeps its status (the ack is the same).
    pub fn cancel(&self, owner: &str, id: &str) -> Result<(), McpError> {
        let mut inner = self.lock();
        self.sweep(&mut inner);
        match inner.tasks.get_mut(id) {
            Some(entry) if entry.owner == owner => {
                if let Some(token) = entry.running.take() {
                    token.cancel();
                    entry.settle(Kept::Other(TaskPayload::Cancelled), 0);
                }
                Ok(())
            }
            _ => Err(unknown(id)),
        }
    }
}
