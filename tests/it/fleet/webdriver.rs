//! WebDriver sessions through the fleet's HAProxy (`deploy/haproxy/haproxy.cfg`, checked with
//! `haproxy -c` first): two members (`axgate serve`, demo backend, auth on) and a third that
//! is down. A new session (`POST /session`) goes to a healthy member; the stick table learns
//! its id from the answer's `X-Axgate-WebDriver-Session` header, and every command carrying the
//! id in its path, `/session/{id}/…` or `/wd/hub/session/{id}/…`, reaches the member that made
//! the session: each member's own `/metrics` counts exactly its session's commands.

use serde_json::{Value, json};

use super::Tokens;
use super::haproxy::{
    HAPROXY, Mac, free_port, haproxy_sees, require, sample, shipped_haproxy, start_mac,
};

const FIND_OK: &str =
    "axgate_webdriver_commands_total{command=\"POST /session/{id}/element\",outcome=\"ok\"}";

/// One WebDriver request through HAProxy: status, the member that answered (HAProxy's
/// `X-Axgate-Mac`), the new-session header and the body.
async fn send(
    http: &reqwest::Client,
    url: String,
    method: reqwest::Method,
    body: Option<Value>,
) -> (u16, String, Option<String>, Value) {
    let mut request = http.request(method, url);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("HAProxy answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let mac = header("x-axgate-mac").unwrap_or_default();
    let issued = header("x-axgate-webdriver-session");
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, mac, issued, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn haproxy_routes_each_webdriver_session_to_the_mac_that_made_it() {
    require(HAPROXY, "haproxy");
    let tokens = Tokens::new();
    let dir = tempfile::tempdir().unwrap();
    let config = tokens.config_file(dir.path(), "[fleet]\nagent_listen = \"127.0.0.1:0\"\n");
    let macs: Vec<Mac> = ["mac1", "mac2"]
        .into_iter()
        .map(|n| start_mac(n, &config))
        .collect();
    // The third Mac of the shipped configuration is down: nothing listens there.
    let (dead, dead_agent) = (free_port(), free_port());
    let mut members: Vec<(String, u16)> = macs
        .iter()
        .map(|m| (m.addr.to_string(), m.agent.port()))
        .collect();
    members.push((format!("127.0.0.1:{dead}"), dead_agent));
    let (haproxy, front, stats) = shipped_haproxy(dir.path(), &members);
    let want = [("mac1", "UP"), ("mac2", "UP"), ("mac3", "DOWN")];
    haproxy_sees(&stats, &want, &haproxy).await;

    let http = reqwest::Client::builder()
        .default_headers(
            [(
                reqwest::header::AUTHORIZATION,
                format!("Bearer {}", tokens.ci).parse().unwrap(),
            )]
            .into_iter()
            .collect(),
        )
        .build()
        .unwrap();
    let base = format!("http://{front}");
    // New sessions until one lives on each member (leastconn takes turns among idle ones).
    let mut sessions: Vec<(String, String)> = Vec::new();
    for _ in 0..6 {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "platformName": "mac", "appium:automationName": "Mac2", "appium:bundleId": "Form"}}});
        let (status, mac, issued, body) = send(
            &http,
            format!("{base}/session"),
            reqwest::Method::POST,
            Some(caps),
        )
        .await;
        assert_eq!(status, 200, "{body}\nHAProxy log:\n{}", haproxy.output());
        let id = body["value"]["sessionId"].as_str().unwrap().to_owned();
        assert_eq!(issued.as_deref(), Some(id.as_str()), "the header names it");
        assert!(
            mac == "mac1" || mac == "mac2",
            "made on a live member: {mac}"
        );
        if sessions.iter().all(|(m, _)| *m != mac) {
            sessions.push((mac, id));
        }
        if sessions.len() == 2 {
            break;
        }
    }
    assert_eq!(sessions.len(), 2, "a session on each member");

    // Each session's finds, interleaved, by both base paths: each reaches its own member.
    let rounds = 10;
    for round in 0..rounds {
        for (mac, id) in &sessions {
            let path = if round % 2 == 0 { "" } else { "/wd/hub" };
            let (status, answered, _, body) = send(
                &http,
                format!("{base}{path}/session/{id}/element"),
                reqwest::Method::POST,
                Some(json!({"using": "accessibility id", "value": "submit"})),
            )
            .await;
            assert_eq!(
                (status, answered.as_str()),
                (200, mac.as_str()),
                "{body}\nHAProxy log:\n{}",
                haproxy.output()
            );
        }
    }
    for mac in &macs {
        let finds = sample(mac, &tokens.admin, FIND_OK).await;
        assert_eq!(finds, f64::from(rounds), "{} counted its own", mac.name);
    }
    // Ending a session reaches its member too; after that the id is unknown there.
    for (mac, id) in &sessions {
        let url = format!("{base}/session/{id}");
        let (status, answered, _, _) =
            send(&http, url.clone(), reqwest::Method::DELETE, None).await;
        assert_eq!((status, answered.as_str()), (200, mac.as_str()));
        let (status, answered, _, body) = send(&http, url, reqwest::Method::GET, None).await;
        assert_eq!((status, answered.as_str()), (404, mac.as_str()));
        assert_eq!(body["value"]["error"], "invalid session id", "{body}");
    }
    drop(haproxy);
}
