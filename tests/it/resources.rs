//! Resources, resource subscriptions, prompts and completions over MCP HTTP against the demo
//! apps: listing and reading every resource, −32002 for apps that are not running,
//! debounced `notifications/resources/updated` delivered only to the subscribing session's
//! GET stream, prompts with their arguments, and completion of the `app` argument.

use std::time::Duration;

use crate::support::{Client, PROTOCOL, SseReader, TestServer};
use serde_json::{Value, json};

const PRESS: &str = "window[0]/check_box[0]";

async fn session(server: &TestServer) -> Client {
    let mut c = server.client();
    c.initialize().await;
    c
}

/// `resources/read`; returns the first content's text, or panics with the response.
async fn read_text(c: &mut Client, uri: &str) -> String {
    let resp = c.request("resources/read", json!({ "uri": uri })).await;
    let content = &resp["result"]["contents"][0];
    assert_eq!(content["uri"], uri, "{resp}");
    content["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{uri}: {resp}"))
        .to_owned()
}

async fn read_json(c: &mut Client, uri: &str) -> Value {
    serde_json::from_str(&read_text(c, uri).await).expect("JSON resource")
}

async fn press(c: &mut Client) {
    let args = json!({ "app": "Form", "target": PRESS, "action": "press" });
    let result = c.call("perform_action", args).await;
    assert_ne!(result["isError"], true, "{result}");
}

/// A session's GET stream, read a little at a time.
async fn open_stream(c: &Client) -> SseReader {
    let resp = c
        .http
        .get(&c.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", c.session.as_deref().expect("session"))
        .header("mcp-protocol-version", PROTOCOL)
        .send()
        .await
        .expect("GET stream");
    assert_eq!(resp.status(), 200, "GET stream opens");
    SseReader::new(resp)
}

/// How many `notifications/resources/updated` for `uri` (any URI with `None`) are in `msgs`.
fn updates(msgs: &[Value], uri: Option<&str>) -> usize {
    msgs.iter()
        .filter(|m| m["method"] == "notifications/resources/updated")
        .filter(|m| uri.is_none_or(|u| m["params"]["uri"] == u))
        .count()
}

#[tokio::test]
async fn capabilities_resources_and_templates_are_listed() {
    let server = TestServer::start().await;
    let mut c = server.client();
    let init = c.initialize().await;
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["resources"]["subscribe"], true, "{caps}");
    assert_eq!(caps["resources"]["listChanged"], false, "{caps}");
    assert!(caps["prompts"].is_object(), "{caps}");
    assert!(caps["completions"].is_object(), "{caps}");

    let list = c.request("resources/list", json!({})).await;
    let uris: Vec<&str> = list["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r["uri"].as_str().expect("uri"))
        .collect();
    for uri in [
        "axgate://apps",
        "axgate://app/Form/tree",
        "axgate://app/Form/state",
        "axgate://app/Form/events",
        "axgate://app/Editor/tree",
    ] {
        assert!(uris.contains(&uri), "{uri} in {uris:?}");
    }

    let templates = c.request("resources/templates/list", json!({})).await;
    let templates = templates["result"]["resourceTemplates"]
        .as_array()
        .expect("templates")
        .clone();
    let names: Vec<&str> = templates
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "axgate://app/{app}/tree",
            "axgate://app/{app}/state",
            "axgate://app/{app}/events"
        ]
    );
    assert_eq!(templates[0]["mimeType"], "text/plain");
    assert_eq!(templates[1]["mimeType"], "application/json");
}

#[tokio::test]
async fn every_resource_of_the_form_app_reads() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;

    let apps = read_json(&mut c, "axgate://apps").await;
    assert!(
        apps["apps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == "Form"),
        "{apps}"
    );

    let tree = read_text(&mut c, "axgate://app/Form/tree").await;
    assert!(tree.contains("[check_box] \"Subscribe\""), "{tree}");
    assert!(tree.contains("[window] \"Demo Form\""), "{tree}");

    // By bundle id and by percent-encoded name, too.
    let state = read_json(&mut c, "axgate://app/dev.axgate.demo.form/state").await;
    assert_eq!(state["app"], "Form", "{state}");
    let state = read_json(&mut c, "axgate://app/%46orm/state").await;
    assert_eq!(state["app"], "Form", "{state}");
    assert_eq!(state["windows"][0]["title"], "Demo Form", "{state}");
    assert_eq!(state["windows"][0]["path"], "window[0]", "{state}");
    assert!(state["focused"]["path"].is_string(), "{state}");
    assert!(state["frontmost"].is_boolean(), "{state}");

    press(&mut c).await;
    let events = read_json(&mut c, "axgate://app/Form/events").await;
    let list = events["events"].as_array().expect("events");
    let hit = list
        .iter()
        .find(|e| e["path"] == PRESS)
        .unwrap_or_else(|| panic!("an event on {PRESS}: {events}"));
    assert!(hit["kind"].is_string(), "{hit}");
    let at = hit["at"].as_str().unwrap();
    assert!(at.ends_with('Z') && at.contains('T'), "RFC 3339: {at}");
}

#[tokio::test]
async fn unknown_apps_and_uris_are_resource_not_found() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    for (method, uri) in [
        ("resources/read", "axgate://app/NoSuchApp/tree"),
        ("resources/read", "axgate://app/Form/nothing"),
        ("resources/subscribe", "axgate://app/NoSuchApp/state"),
    ] {
        let resp = c.request(method, json!({ "uri": uri })).await;
        assert_eq!(resp["error"]["code"], -32002, "{method} {uri}: {resp}");
    }
    let resp = c
        .request(
            "resources/read",
            json!({"uri": "axgate://app/NoSuchApp/state"}),
        )
        .await;
    let message = resp["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Form") && message.contains("Editor"),
        "the running apps are listed: {message}"
    );
}

#[tokio::test]
async fn subscribers_alone_get_one_debounced_update_until_they_unsubscribe() {
    let server = TestServer::start().await;
    let mut a = session(&server).await;
    let mut b = session(&server).await;
    let uri = "axgate://app/Form/state";
    let resp = a
        .request("resources/subscribe", json!({ "uri": uri }))
        .await;
    assert!(resp["result"].is_object(), "{resp}");
    let mut stream_a = open_stream(&a).await;
    let mut stream_b = open_stream(&b).await;
    let settle = Duration::from_millis(200);
    stream_a.read_for(settle).await;

    press(&mut b).await;
    let got = stream_a.read_for(Duration::from_millis(1500)).await;
    assert_eq!(updates(&got, Some(uri)), 1, "one update: {got:?}");

    press(&mut b).await;
    press(&mut b).await;
    let got = stream_a.read_for(Duration::from_millis(1500)).await;
    let n = updates(&got, Some(uri));
    assert!(
        (1..=2).contains(&n),
        "two quick presses, debounced: {n} in {got:?}"
    );

    let got = stream_b.read_for(settle).await;
    assert_eq!(updates(&got, None), 0, "B did not subscribe: {got:?}");

    let resp = a
        .request("resources/unsubscribe", json!({ "uri": uri }))
        .await;
    assert!(resp["result"].is_object(), "{resp}");
    press(&mut b).await;
    let got = stream_a.read_for(Duration::from_millis(800)).await;
    assert_eq!(
        updates(&got, None),
        0,
        "no update after unsubscribe: {got:?}"
    );
}

#[tokio::test]
async fn prompts_list_and_render_with_arguments() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let list = c.request("prompts/list", json!({})).await;
    let prompts = list["result"]["prompts"]
        .as_array()
        .expect("prompts")
        .clone();
    let names: Vec<&str> = prompts
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ui-test", "navigate-to", "debug-element"]);
    for p in &prompts {
        assert_eq!(p["arguments"][0]["name"], "app", "{p}");
        assert_eq!(p["arguments"][1]["required"], true, "{p}");
    }

    let cases = [
        (
            "ui-test",
            json!({"app": "Form", "goal": "subscribing toggles the box"}),
            "wait_for",
        ),
        (
            "navigate-to",
            json!({"app": "Editor", "target": "File > Save"}),
            "select_menu",
        ),
        (
            "debug-element",
            json!({"app": "Form", "target": "e7"}),
            "get_element",
        ),
    ];
    for (name, args, tool) in cases {
        let resp = c
            .request("prompts/get", json!({ "name": name, "arguments": args }))
            .await;
        let message = &resp["result"]["messages"][0];
        assert_eq!(message["role"], "user", "{resp}");
        let text = message["content"]["text"].as_str().unwrap();
        assert!(
            text.contains(args["app"].as_str().unwrap()),
            "{name}: {text}"
        );
        assert!(text.contains(tool), "{name} mentions {tool}: {text}");
    }

    let missing = c
        .request(
            "prompts/get",
            json!({"name": "ui-test", "arguments": {"app": "Form"}}),
        )
        .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("goal")
    );
    let unknown = c.request("prompts/get", json!({"name": "deploy"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test]
async fn app_arguments_complete_to_running_app_names() {
    let server = TestServer::start().await;
    let mut c = session(&server).await;
    let refs = [
        json!({"type": "ref/prompt", "name": "ui-test"}),
        json!({"type": "ref/resource", "uri": "axgate://app/{app}/tree"}),
    ];
    for r in refs {
        let resp = c
            .request(
                "completion/complete",
                json!({"ref": r, "argument": {"name": "app", "value": "fo"}}),
            )
            .await;
        let completion = &resp["result"]["completion"];
        assert_eq!(completion["values"], json!(["Form"]), "{resp}");
        assert_eq!(completion["total"], 1, "{resp}");
        assert_eq!(completion["hasMore"], false, "{resp}");
    }
    let other = c
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "ui-test"},
                   "argument": {"name": "goal", "value": "x"}}),
        )
        .await;
    assert_eq!(
        other["result"]["completion"]["values"],
        json!([]),
        "{other}"
    );
    let unknown = c
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "nope"},
                   "argument": {"name": "app", "value": ""}}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}
