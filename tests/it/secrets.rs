//! Secrets an agent never sees (issue 32, item 7), through MCP over HTTP on the demo Form:
//! `type_text`/`set_value` with `secret: NAME` type a value from the operator's file store
//! into the password field, and the value is in the app but in no result, audit line,
//! replayed stream or task result; a plain field is refused unless the policy allows it (and
//! then masked, also in later reads); a name the caller's policy does not list, an unknown
//! name and a group-readable file are refused with the fix; the store reloads.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::support::wait::eventually;
use crate::support::{
    Client, TestServer, app_value, audit_lines, client_with, config, parse_sse, response_of,
    text_of,
};
use axgate::ax::AxValue;
use axgate::http::auth::{Scope, tokens};
use serde_json::{Value, json};

const PASSWORD: &str = "window[0]/secure_text_field[0]";
const NAME: &str = r#"window[0]/text_field["Name"]"#;

/// A value no result could contain by chance.
fn generated() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("pw{nanos:x}Zq")
}

/// A file store holding `DEPLOY_PW` (mode 600); the directory and the value.
fn file_store() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let value = generated();
    let path = dir.path().join("DEPLOY_PW");
    std::fs::write(&path, format!("{value}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    (dir, value)
}

fn store_section(dir: &tempfile::TempDir) -> String {
    format!(
        "[secrets]\nsource = \"file\"\ndir = {:?}\n",
        dir.path().display().to_string()
    )
}

async fn session(server: &TestServer) -> Client {
    let mut c = server.client();
    c.initialize().await;
    c
}

fn assert_hidden(what: &str, text: &str, value: &str) {
    assert!(
        !text.contains(value),
        "{what} shows the secret's value:\n{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_typed_into_the_password_field_is_in_the_app_and_nowhere_else() {
    let (dir, value) = file_store();
    let audit = dir.path().join("audit.jsonl");
    let server = TestServer::with_config(config(&format!(
        "{}[policy]\nsecrets = [\"DEPLOY_*\"]\n[audit]\npath = {:?}\n",
        store_section(&dir),
        audit.display().to_string()
    )))
    .await;
    let mut c = session(&server).await;
    let typed = c
        .call(
            "type_text",
            json!({"app": "Form", "target": PASSWORD, "secret": "DEPLOY_PW"}),
        )
        .await;
    assert_eq!(typed["isError"], false, "{typed}");
    assert_eq!(
        app_value(&server, "Form", "password"),
        Some(AxValue::Text(value.clone())),
        "the secret's value was typed"
    );
    assert_hidden("the type_text result", &typed.to_string(), &value);

    // set_value too, and through a stream that is then replayed from its first event.
    let body = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {
        "name": "set_value",
        "arguments": {"app": "Form", "target": PASSWORD, "secret": "DEPLOY_PW"}}});
    let text = c.post(&body).send().await.unwrap().text().await.unwrap();
    let events = parse_sse(&text);
    let set = response_of(&events, 77).expect("the set_value response");
    assert_eq!(set["result"]["isError"], false, "{set}");
    assert_hidden("the set_value stream", &text, &value);
    let first = events
        .iter()
        .find_map(|e| e.id.clone())
        .expect("an event id");
    let replayed = c
        .get()
        .header("last-event-id", &first)
        .send()
        .await
        .unwrap();
    let replayed = tokio::time::timeout(Duration::from_secs(10), replayed.text())
        .await
        .expect("the replay ends")
        .unwrap();
    assert!(
        response_of(&parse_sse(&replayed), 77).is_some(),
        "the replay holds the response: {replayed}"
    );
    assert_hidden("the replayed stream", &replayed, &value);

    let lines = audit_lines(&audit);
    let written = std::fs::read_to_string(&audit).unwrap();
    assert_hidden("the audit trail", &written, &value);
    assert_eq!(lines.len(), 2, "{written}");
    for line in &lines {
        assert_eq!(line["outcome"], "ok", "{line}");
        assert_eq!(
            line["redacted"]["secret"], "DEPLOY_PW",
            "the name is recorded: {line}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_field_is_refused_unless_the_policy_allows_it_and_then_masked() {
    let (dir, value) = file_store();
    let refusing = TestServer::with_config(config(&format!(
        "{}[policy]\nsecrets = [\"DEPLOY_PW\"]\n",
        store_section(&dir)
    )))
    .await;
    let mut c = session(&refusing).await;
    // Without a target the focused element receives the keys: focus the plain field first.
    let focused = c
        .call("focus", json!({"app": "Form", "target": NAME}))
        .await;
    assert_eq!(focused["isError"], false, "{focused}");
    for (tool, args) in [
        ("type_text", json!({"app": "Form", "secret": "DEPLOY_PW"})),
        (
            "set_value",
            json!({"app": "Form", "target": NAME, "secret": "DEPLOY_PW"}),
        ),
    ] {
        let refused = c.call(tool, args).await;
        assert_eq!(refused["isError"], true, "{tool}: {refused}");
        let text = text_of(&refused);
        assert!(
            text.contains("not a secure text field")
                && text.contains("policy.secrets_into_plain_fields = true"),
            "{tool}: {text}"
        );
    }
    assert_eq!(
        app_value(&refusing, "Form", "name"),
        Some(AxValue::Text(String::new())),
        "nothing was typed"
    );

    let allowing = TestServer::with_config(config(&format!(
        "{}[policy]\nsecrets = [\"DEPLOY_PW\"]\nsecrets_into_plain_fields = true\n",
        store_section(&dir)
    )))
    .await;
    let mut c = tasking(&allowing).await;
    let set = c
        .call(
            "set_value",
            json!({"app": "Form", "target": NAME, "secret": "DEPLOY_PW"}),
        )
        .await;
    assert_eq!(set["isError"], false, "{set}");
    assert_eq!(
        app_value(&allowing, "Form", "name"),
        Some(AxValue::Text(value.clone()))
    );
    let shown = set.to_string();
    assert_hidden("the set_value result", &shown, &value);
    assert!(
        shown.contains("•••"),
        "the value read back is masked: {shown}"
    );
    // Later reads of the session mask it too, a task's result included.
    let tree = c.call("get_tree", json!({"app": "Form"})).await;
    assert_hidden("a later get_tree", &tree.to_string(), &value);
    let created = c
        .request(
            "tools/call",
            json!({"name": "get_tree", "arguments": {"app": "Form"}, "task": {"ttl": 60000}}),
        )
        .await;
    let id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    let result = task_result(&mut c, &id).await;
    assert!(result.to_string().contains("•••"), "the task ran: {result}");
    assert_hidden("the task result", &result.to_string(), &value);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_outside_the_callers_policy_unknown_names_and_readable_files_are_refused() {
    let (dir, value) = file_store();
    let open = dir.path().join("OPEN_PW");
    std::fs::write(&open, &value).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (ci, other) = (tokens::generate().unwrap(), tokens::generate().unwrap());
    let scopes = [Scope::Read, Scope::Act].into_iter().collect();
    let entry =
        |name: &str, token: &str| tokens::config_entry(name, &tokens::sha256(token), &scopes);
    let ci_entry = entry("ci", &ci).replace(
        " }",
        ", secrets = [\"DEPLOY_PW\", \"OPEN_*\", \"MISSING\"] }",
    );
    let server = TestServer::with_config(config(&format!(
        "{}[auth]\ntokens = [{ci_entry}, {}]\n",
        store_section(&dir),
        entry("other", &other)
    )))
    .await;
    let mut stranger = client_with(&server, &other);
    stranger.initialize().await;
    let refused = stranger
        .call(
            "type_text",
            json!({"app": "Form", "target": PASSWORD, "secret": "DEPLOY_PW"}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    let text = text_of(&refused);
    assert!(
        text.contains("policy.secrets") && text.contains("add DEPLOY_PW"),
        "names the rule and the fix: {text}"
    );

    let mut c = client_with(&server, &ci);
    c.initialize().await;
    let cases: [(Value, &[&str]); 5] = [
        (
            json!({"app": "Form", "target": PASSWORD, "secret": "PROD_PW"}),
            &["auth.tokens[ci].secrets", "add PROD_PW"],
        ),
        (
            json!({"app": "Form", "target": PASSWORD, "secret": "MISSING"}),
            &["unknown secret MISSING", "check the name"],
        ),
        (
            json!({"app": "Form", "target": PASSWORD, "secret": "OPEN_PW"}),
            &["can be read by others", "chmod 600"],
        ),
        (
            json!({"app": "Form", "target": PASSWORD, "secret": "DEPLOY_PW", "text": "x"}),
            &["either `text` or `secret`, not both"],
        ),
        (
            json!({"app": "Form", "target": PASSWORD}),
            &["missing `text`", "`secret`"],
        ),
    ];
    for (args, expect) in cases {
        let refused = c.call("type_text", args.clone()).await;
        assert_eq!(refused["isError"], true, "{args}: {refused}");
        let text = text_of(&refused);
        for needle in expect {
            assert!(text.contains(needle), "{args}: {needle:?} in {text}");
        }
        assert_hidden("a refusal", &text, &value);
    }
    assert_eq!(
        app_value(&server, "Form", "password"),
        Some(AxValue::Text(String::new())),
        "nothing was typed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_reloads_with_the_configuration() {
    let (dir, value) = file_store();
    let server = TestServer::with_config(config("[policy]\nsecrets = [\"DEPLOY_PW\"]\n")).await;
    let mut c = session(&server).await;
    let args = json!({"app": "Form", "target": PASSWORD, "secret": "DEPLOY_PW"});
    let before = c.call("set_value", args.clone()).await;
    assert!(
        text_of(&before).contains("secrets.source"),
        "no store yet: {before}"
    );
    let next = config(&format!(
        "{}[policy]\nsecrets = [\"DEPLOY_PW\"]\n",
        store_section(&dir)
    ));
    let changed = server.state.reload(&next).expect("reloaded");
    assert!(changed.contains(&"policy"), "{changed:?}");
    let after = c.call("set_value", args).await;
    assert_eq!(after["isError"], false, "{after}");
    assert_eq!(
        app_value(&server, "Form", "password"),
        Some(AxValue::Text(value))
    );
}

/// A session whose client declared the tasks extension.
async fn tasking(server: &TestServer) -> Client {
    let mut c = server.client();
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": crate::support::PROTOCOL,
                   "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
                   "clientInfo": {"name": "secrets-test", "version": "1"}}
    });
    let resp = c.post(&body).send().await.expect("initialize");
    c.session = Some(
        resp.headers()["mcp-session-id"]
            .to_str()
            .expect("ascii")
            .to_owned(),
    );
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    c.post(&note).send().await.expect("initialized");
    c
}

/// The result of task `id` once it completed.
async fn task_result(c: &mut Client, id: &str) -> Value {
    let mut task = Value::Null;
    eventually(
        Duration::from_secs(10),
        &format!("task {id} completed"),
        async || {
            task = c.request("tasks/get", json!({"taskId": id})).await;
            task["result"]["status"] == "completed"
        },
    )
    .await;
    task["result"].clone()
}

/// A scenario step names a secret in its `args` like any argument: `axgate test` sends the
/// name, the server types the value, and neither the client's output nor its JUnit report
/// holds the value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_step_types_a_secret_by_name() {
    let (dir, value) = file_store();
    let server = TestServer::with_config(config(&format!(
        "{}[policy]\nsecrets = [\"DEPLOY_PW\"]\n",
        store_section(&dir)
    )))
    .await;
    let file = dir.path().join("login.yaml");
    std::fs::write(
        &file,
        "app: Form\ncases:\n  - name: log in\n    steps:\n      - tool: type_text\n        args:\n          \
         target: window[0]/secure_text_field[0]\n          secret: DEPLOY_PW\n",
    )
    .unwrap();
    let junit = dir.path().join("junit.xml");
    let ran = crate::cli::run(
        &[
            "test",
            "--url",
            &server.url,
            "--junit",
            junit.to_str().expect("utf-8"),
            file.to_str().expect("utf-8"),
        ],
        &[],
    )
    .await;
    ran.expect_code(0);
    assert_eq!(
        app_value(&server, "Form", "password"),
        Some(AxValue::Text(value.clone()))
    );
    assert_hidden("the client's output", &format!("{ran:?}"), &value);
    let report = std::fs::read_to_string(&junit).expect("a JUnit report");
    assert_hidden("the JUnit report", &report, &value);
}
