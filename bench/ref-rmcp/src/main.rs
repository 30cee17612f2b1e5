//! The reference of the load harness: a bare rmcp 3.11 server, nothing of axgate. rmcp's
//! stateful `StreamableHttpService` with its `LocalSessionManager` and SSE responses (the
//! defaults: sessions on, no JSON responses), one tool `list_apps` whose result has the
//! shape and size of axgate's demo `list_apps` (six apps, as text and as structured
//! content). Binds 127.0.0.1:0 with TCP_NODELAY, prints `http://127.0.0.1:<port>/mcp` and
//! serves until killed, on tokio's default multi-thread runtime (as axgate).

use std::sync::Arc;

use axum::Router;
use axum::serve::ListenerExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// The six demo apps, as axgate's `list_apps` returns them.
const APPS: [(&str, u32, &str); 6] = [
    ("Form", 41001, "dev.axgate.demo.form"),
    ("Editor", 41002, "dev.axgate.demo.editor"),
    ("Huge", 41003, "dev.axgate.demo.huge"),
    ("Hung", 41004, "dev.axgate.demo.hung"),
    ("Settings", 41005, "dev.axgate.demo.settings"),
    ("List", 41006, "dev.axgate.demo.list"),
];

#[derive(Clone)]
struct Reference;

fn result() -> CallToolResult {
    let mut text = String::new();
    let mut apps = Vec::new();
    for (i, (name, pid, bundle)) in APPS.iter().enumerate() {
        let front = i == 0;
        text.push_str(&format!(
            "{name} pid={pid} {bundle}{}\n",
            if front { " frontmost" } else { "" }
        ));
        apps.push(json!({"name": name, "pid": pid, "bundle_id": bundle, "frontmost": front}));
    }
    let mut r = CallToolResult::structured(json!({ "apps": apps }));
    r.content = vec![ContentBlock::text(text)];
    r
}

impl ServerHandler for Reference {
    fn get_info(&self) -> InitializeResult {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let schema = match json!({"type": "object", "properties": {}}) {
            Value::Object(map) => map,
            _ => unreachable!("an object literal"),
        };
        let tool = Tool::new("list_apps", "Lists the apps (fixed).", Arc::new(schema));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != "list_apps" {
            return Err(McpError::invalid_params("unknown tool", None));
        }
        Ok(result().into())
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    println!("http://{addr}/mcp");
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let service = StreamableHttpService::new(
        || Ok(Reference),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = Router::new().route_service("/mcp", service);
    axum::serve(listener, app).await
}
