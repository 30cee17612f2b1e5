//! `tools/list`: the tools a principal may call, and what rmcp's `Tool` cannot say about
//! them: `execution.taskSupport` (the tasks extension's tool-level negotiation). A tool whose
//! record may run as a task is listed with `"execution": {"taskSupport": "optional"}`; any
//! other leaves it out, which means `forbidden` (the spec's default) and keeps the list small.
//!
//! rmcp 3.11's `Tool` has no `execution` field and its `ServerHandler::list_tools` returns
//! that typed list, which rmcp serializes itself. So over HTTP the intake hands a
//! `tools/list` to the handler as [`LIST_METHOD`] (a custom request, whose result is free
//! JSON; its `Mcp-Method` header, where sent, is renamed too), and [`answer`] builds the same list with `execution` added, shaped as rmcp would
//! for the negotiated revision. The response keeps the request's id, so the client sees the
//! answer to its `tools/list`. Over stdio `tools/list` stays rmcp's: no call there runs as a
//! task (tasks need the intake's [`super::tasks::TaskAsked`]), so every tool is `forbidden`,
//! which is what an absent `execution` says.

use bytes::Bytes;
use rmcp::model::{
    CustomRequest, CustomResult, ErrorCode, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::cache::{self, Cacheable as _};
use super::gate;
use super::server::AxServer;
use super::tasks::TaskAsked;
use super::tools::{self, TaskSupport};

/// The method a `tools/list` reaches the handler as over HTTP.
pub const LIST_METHOD: &str = "axgate/tools/list";

/// The 2026-07-28 standard header naming a request's method, renamed with it.
pub const METHOD_HEADER: &str = "mcp-method";

/// Prepares a request for rmcp, for what its typed requests drop: a `tools/call` whose
/// params ask for a task is marked [`TaskAsked`] (rmcp's `CallToolRequestParams` has no
/// `task`), and a `tools/list` is renamed to [`LIST_METHOD`] (body, and the 2026-07-28
/// `Mcp-Method` header where sent).
pub fn route(
    parts: &mut http::request::Parts,
    method: &str,
    params: Option<&Value>,
    bytes: &mut Bytes,
) {
    if method == "tools/call" && TaskAsked::asked_by(params) {
        parts.extensions.insert(TaskAsked);
    }
    if method == "tools/list"
        && let Some(body) = renamed(bytes)
    {
        parts.headers.remove(http::header::CONTENT_LENGTH);
        if parts.headers.contains_key(METHOD_HEADER) {
            parts
                .headers
                .insert(METHOD_HEADER, http::HeaderValue::from_static(LIST_METHOD));
        }
        *bytes = body;
    }
}

/// The body of a `tools/list` request renamed to [`LIST_METHOD`]; `None` when it is not a
/// JSON object (the intake has already checked it is).
pub fn renamed(body: &[u8]) -> Option<Bytes> {
    let mut message: Value = serde_json::from_slice(body).ok()?;
    message
        .as_object_mut()?
        .insert("method".into(), LIST_METHOD.into());
    serde_json::to_vec(&message).ok().map(Bytes::from)
}

/// The tools the caller of `context` may call under the current policy; the admin tools only
/// where there are sessions to administer (not on stdio).
pub(super) fn listed(
    server: &AxServer,
    context: &RequestContext<RoleServer>,
) -> Result<ListToolsResult, McpError> {
    server.admit(context, "tools/list")?;
    let principal = gate::principal_of(context);
    let policy = server.shared.policy.load();
    let administers = server.shared.admin.is_some();
    let tools: Vec<Tool> = tools::all()
        .into_iter()
        .filter(|t| !t.profile.effect.administers() || administers)
        .filter(|t| gate::visible(&policy, principal.as_ref(), t))
        .map(|t| t.to_wire())
        .collect();
    Ok(ListToolsResult::with_all_items(tools).cached(cache::TOOLS))
}

/// Answers a custom request: [`LIST_METHOD`] with the list and its `execution`s; anything
/// else is −32601, as rmcp answers an unknown method.
pub(super) async fn answer(
    server: &AxServer,
    request: CustomRequest,
    context: RequestContext<RoleServer>,
) -> Result<CustomResult, McpError> {
    if request.method != LIST_METHOD {
        return Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ));
    }
    // Only a cursor could be asked for, and the list is one page.
    let _: Option<PaginatedRequestParams> = request
        .params
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| McpError::invalid_params(format!("tools/list: {e}"), None))?;
    // As rmcp shapes a list: `resultType` is a 2026-07-28 field, left out for older peers.
    let modern = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    let mut list = listed(server, &context)?;
    if !modern {
        list.result_type = None;
    }
    Ok(CustomResult(with_execution(&list)))
}

/// The wire value of a tool's task support; `None` for the default (`forbidden`).
pub fn task_support(task: TaskSupport) -> Option<&'static str> {
    match task {
        TaskSupport::Never => None,
        TaskSupport::Optional => Some("optional"),
    }
}

/// `list` as JSON, each tool that may run as a task carrying its `execution`.
pub fn with_execution(list: &ListToolsResult) -> Value {
    let mut value = serde_json::to_value(list).unwrap_or_else(|_| json!({"tools": []}));
    if let Some(listed) = value.get_mut("tools").and_then(Value::as_array_mut) {
        for tool in listed {
            let support = tool
                .get("name")
                .and_then(Value::as_str)
                .and_then(tools::find_def)
                .and_then(|def| task_support(def.profile.task));
            if let (Some(support), Some(object)) = (support, tool.as_object_mut()) {
                object.insert("execution".into(), json!({"taskSupport": support}));
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tools_that_may_run_as_tasks_declare_it() {
        let list = ListToolsResult::with_all_items(
            tools::all().into_iter().map(|t| t.to_wire()).collect(),
        );
        let value = with_execution(&list);
        let declared: Vec<(&str, &str)> = value["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| Some((t["name"].as_str()?, t["execution"]["taskSupport"].as_str()?)))
            .collect();
        assert_eq!(
            declared,
            [
                ("get_tree", "optional"),
                ("launch_app", "optional"),
                ("wait_for", "optional"),
                ("wait_idle", "optional"),
            ]
        );
    }

    #[test]
    fn a_list_request_is_renamed_and_keeps_its_id_and_params() {
        let body = br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"a":1}}}"#;
        let renamed: Value = serde_json::from_slice(&renamed(body).expect("renamed")).unwrap();
        assert_eq!(
            renamed,
            json!({"jsonrpc":"2.0","id":7,"method":LIST_METHOD,"params":{"_meta":{"a":1}}})
        );
    }
}
