//! Several trusted issuers and claim rules (`[[auth.issuers]]`): a local GitHub-shaped issuer
//! — an ES256 key generated per test, its JWK set and the runner's ID-token endpoint served on
//! a port-0 loopback listener — signs tokens with GitHub Actions' claims (`repository`,
//! `repository_owner`, `ref`, `event_name`, `job_workflow_ref`, `runner_environment`, typ
//! `JWT`, no `scope`), and the rules alone decide their scopes: an allowed repository on main
//! acts, an owner-only match reads, a refused repository gets 403, a glob matches; a token
//! naming one issuer but signed with another's key of the same `kid` is refused; the legacy
//! `auth.issuer` works beside; a reload applies changed rules; and `axgate call
//! --github-oidc` and `axgate test --github-oidc` (the example Form scenario: passes for an
//! allowed job, stops before it starts for a read-only one whose token lists no acting tool,
//! refused for another owner) run end
//! to end.

use super::github::{GitHub, REQUEST_TOKEN, borrowed, job, oidc_argv};
use super::issuer::LocalIssuer;
use super::*;
use crate::support::{audit_lines, config};

/// The issuers the protected-resource metadata names.
async fn authorization_servers(server: &TestServer) -> Value {
    let doc: Value = reqwest::get(format!("http://{}{}", server.addr, metadata::MCP_PATH))
        .await
        .expect("metadata")
        .json()
        .await
        .expect("json");
    doc["authorization_servers"].clone()
}

/// The example's rules: acme/app on main acts; acme/tools-* on push or dispatch acts (glob);
/// anything else of acme reads.
const RULES: &str = r#"
[[auth.issuers.rules]]
claims = { repository = "acme/app", ref = "refs/heads/main" }
scopes = ["axgate:read", "axgate:act"]

[[auth.issuers.rules]]
claims = { repository = "acme/tools-*", event_name = "{push,workflow_dispatch}" }
scopes = ["axgate:act"]

[[auth.issuers.rules]]
claims = { repository_owner = "acme" }
scopes = ["axgate:read"]
"#;

fn admin_entry(token: &str) -> String {
    format!(
        "tokens = [{{ name = \"ops\", sha256 = \"{}\", scopes = [\"axgate:admin\"] }}]\n",
        tokens::hex(&tokens::sha256(token))
    )
}

const SUBMIT: &str = r#"window[0]/button["Submit"]"#;

/// A tools/call of `click` on the Form's Submit button, as a raw response.
async fn click(client: &crate::support::Client) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": "click", "arguments": {"app": "Form", "target": SUBMIT}}});
    client.post(&body).send().await.expect("send")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_tokens_get_the_scopes_of_the_first_rule_their_claims_match() {
    let gh = GitHub::start("gh").await;
    let admin = tokens::generate().expect("token");
    let dir = tempfile::tempdir().expect("dir");
    let audit = dir.path().join("audit.jsonl");
    let server = TestServer::with_config(config(&format!(
        "[auth]\naudience = \"{AUD}\"\n{}{}\n[audit]\npath = {audit:?}\n",
        admin_entry(&admin),
        gh.entry(RULES)
    )))
    .await;

    // acme/app on main: read and act; the audit line names the workflow's principal.
    let main = job("acme/app", "refs/heads/main", "push");
    let mut actor = client_with(&server, &gh.token(main.clone()));
    actor.initialize().await;
    let clicked = actor
        .call("click", json!({"app": "Form", "target": SUBMIT}))
        .await;
    assert_eq!(clicked["isError"], false, "{clicked}");
    let lines = audit_lines(&audit);
    let last = lines.last().expect("an audit line");
    assert_eq!(last["tool"], "click", "{last}");
    assert_eq!(last["principal"], gh.principal(&main), "{last}");
    assert_eq!(
        gh.principal(&main),
        format!("jwt:{}#repo:acme/app:ref:refs/heads/main", gh.issuer)
    );

    // Another repository of acme: the owner rule, read only; a write is 403 for act.
    let mut reader = client_with(
        &server,
        &gh.token(job("acme/other", "refs/heads/main", "push")),
    );
    reader.initialize().await;
    assert_eq!(reader.call("list_apps", json!({})).await["isError"], false);
    let refused = click(&reader).await;
    assert_eq!(refused.status(), 403);
    let c = challenge(&refused);
    assert!(c.contains("error=\"insufficient_scope\""), "{c}");
    assert!(c.contains("scope=\"axgate:act\""), "{c}");

    // A glob: acme/tools-* pushed acts; the same repository from a pull request only reads.
    let mut tools = client_with(
        &server,
        &gh.token(job("acme/tools-cli", "refs/heads/dev", "push")),
    );
    tools.initialize().await;
    let clicked = tools
        .call(
            "click",
            json!({"app": "Form", "target": "window[0]/check_box[0]"}),
        )
        .await;
    assert_eq!(clicked["isError"], false, "{clicked}");
    let mut fork = client_with(
        &server,
        &gh.token(job("acme/tools-cli", "refs/pull/7/merge", "pull_request")),
    );
    fork.initialize().await;
    let refused = click(&fork).await;
    assert_eq!(refused.status(), 403);
    // The advice names the claim rule that decided, not the authorization server, which
    // could issue any scope and still not change what the rule grants (issue 32, item 4).
    let body: Value = refused.json().await.expect("json body");
    let how = body["error"]["data"]["how_to_get_it"]
        .as_str()
        .unwrap_or("");
    assert!(
        how.contains("claim rule auth.issuers[0].rules[")
            && how.contains("pull request")
            && !how.contains("from the authorization server"),
        "{body}"
    );

    // Another owner: no rule admits it, 403 naming the claims the rules check (no token).
    let before = failures(&server, "no_rule");
    let evil = gh.token(job("evil/app", "refs/heads/main", "push"));
    let response = post_initialize(&server, Some(&format!("Bearer {evil}"))).await;
    assert_eq!(response.status(), 403);
    let c = challenge(&response);
    assert!(c.contains("error=\"insufficient_scope\""), "{c}");
    assert!(
        c.contains("no claim rule of auth.issuers[0]")
            && c.contains("the claims ref, repository, event_name, repository_owner"),
        "{c}"
    );
    let body: Value = response.json().await.expect("json body");
    assert_eq!(body["error"], "insufficient_scope", "{body}");
    assert!(!body.to_string().contains(&evil) && !c.contains(&evil));
    assert_eq!(failures(&server, "no_rule"), before + 1);

    // list_sessions names the workflows.
    let mut ops = client_with(&server, &admin);
    ops.initialize().await;
    let text = crate::support::text_of(&ops.call("list_sessions", json!({})).await);
    assert!(
        text.contains(&format!("principal={}", gh.principal(&main))),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_signed_with_another_issuers_key_of_the_same_kid_is_refused() {
    let gh = GitHub::start("shared").await;
    let other = GitHub::start("shared").await;
    let server = TestServer::with_config(config(&format!(
        "[auth]\naudience = \"{AUD}\"\n{}\n{}",
        gh.entry(RULES),
        other.entry("")
    )))
    .await;
    // Each issuer's own tokens: gh's by its rules, other's (no rules) by its scope claim.
    works(
        &server,
        &gh.token(job("acme/app", "refs/heads/main", "push")),
    )
    .await;
    let mut scoped = job("someone/else", "refs/heads/main", "push");
    scoped["scope"] = json!("axgate:read");
    works(&server, &other.token(scoped.clone())).await;
    // gh's iss, other's key under the same kid: the lookup is gh's keys only.
    let forged = gh.token_signed_by(&other, job("acme/app", "refs/heads/main", "push"));
    refused(&server, &forged, "bad_signature").await;
    let forged = other.token_signed_by(&gh, scoped);
    refused(&server, &forged, "bad_signature").await;
    // An iss that no entry trusts.
    let stranger = GitHub::start("shared").await;
    let foreign = stranger.token(job("acme/app", "refs/heads/main", "push"));
    refused(&server, &foreign, "wrong_issuer").await;
    // The metadata names every issuer.
    assert_eq!(
        authorization_servers(&server).await,
        json!([gh.issuer, other.issuer])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_legacy_issuer_keeps_working_beside_github() {
    let legacy = LocalIssuer::start().await;
    let gh = GitHub::start("local").await;
    let server = TestServer::with_config(config(&legacy.section(&gh.entry(RULES)))).await;
    let scoped = legacy.token("alice", "axgate:act", Some("at+jwt"), None);
    let mut alice = client_with(&server, &scoped);
    alice.initialize().await;
    let clicked = alice
        .call("click", json!({"app": "Form", "target": SUBMIT}))
        .await;
    assert_eq!(clicked["isError"], false, "{clicked}");
    works(
        &server,
        &gh.token(job("acme/app", "refs/heads/main", "push")),
    )
    .await;
    // The legacy issuer still wants at+jwt; GitHub's entry accepts its JWT.
    let id_token = legacy.token("alice", "axgate:act", Some("JWT"), None);
    refused(&server, &id_token, "malformed").await;
    assert_eq!(
        authorization_servers(&server).await,
        json!([legacy.issuer, gh.issuer])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_ends_the_sessions_of_workflows_the_new_rules_no_longer_admit() {
    let gh = GitHub::start("gh").await;
    let section = |rules: &str| format!("[auth]\naudience = \"{AUD}\"\n{}", gh.entry(rules));
    let server = TestServer::with_config(config(&section(RULES))).await;
    let main = gh.token(job("acme/app", "refs/heads/main", "push"));
    let mut dropped = client_with(&server, &main);
    dropped.initialize().await;
    let mut kept = client_with(
        &server,
        &gh.token(job("acme/other", "refs/heads/main", "push")),
    );
    kept.initialize().await;

    // The new rules admit acme/other only.
    let only_other = "[[auth.issuers.rules]]\nclaims = { repository = \"acme/other\" }\n\
                      scopes = [\"axgate:read\"]\n";
    let changed = server
        .state
        .reload(&config(&section(only_other)))
        .expect("reload");
    assert!(changed.contains(&"auth"), "{changed:?}");
    let id = dropped.session.clone().expect("a session");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while server.state.sessions.registry().contains(&id) {
        assert!(std::time::Instant::now() < deadline, "the session ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let response = post_initialize(&server, Some(&format!("Bearer {main}"))).await;
    assert_eq!(response.status(), 403, "no rule admits acme/app now");
    let listed = kept.request("tools/list", json!({})).await;
    assert!(
        listed.get("result").is_some(),
        "acme/other keeps its session: {listed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn axgate_call_with_github_oidc_is_admitted_by_the_claim_rules() {
    let gh = GitHub::start("gh").await;
    let server = TestServer::with_config(config(&format!(
        "[auth]\naudience = \"{AUD}\"\n{}",
        gh.entry(RULES)
    )))
    .await;
    let runner = gh.env();
    let env = borrowed(&runner);
    let click = ["click", "app=Form", "target=window[0]/button[0]"];
    let argv = oidc_argv("call", &server.url, AUD, &click);
    let ran = crate::cli::run(&argv, &env).await;
    ran.expect_code(0);
    assert_eq!(ran.json()["element"]["title"], "Submit", "{ran:?}");
    assert!(!ran.stdout.contains(REQUEST_TOKEN) && !ran.stderr.contains(REQUEST_TOKEN));

    // A job of another owner: refused by the rules, exit 4 with the server's reason.
    *gh.job.lock().expect("job") = job("evil/app", "refs/heads/main", "push");
    let ran = crate::cli::run(&argv, &env).await;
    ran.expect_code(4);
    assert!(ran.stderr.contains("no claim rule"), "{ran:?}");
    assert!(!ran.stdout.contains(REQUEST_TOKEN) && !ran.stderr.contains(REQUEST_TOKEN));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn axgate_test_with_github_oidc_passes_stops_on_scope_or_is_refused_by_the_rules() {
    let gh = GitHub::start("gh").await;
    let server = TestServer::with_config(config(&format!(
        "[auth]\naudience = \"{AUD}\"\n{}",
        gh.entry(RULES)
    )))
    .await;
    let dir = tempfile::tempdir().expect("dir");
    let junit = dir.path().join("junit.xml");
    let junit_arg = junit.display().to_string();
    let form = crate::spawned::repo().join("examples/scenarios/form.yaml");
    let form = form.display().to_string();
    let secret = "pw-gh-Zr8!staple-0937";
    let runner = gh.env();
    let mut env = borrowed(&runner);
    env.push(("LOGIN_PASSWORD", secret));
    let argv = oidc_argv("test", &server.url, AUD, &["--junit", &junit_arg, &form]);
    let clean = |ran: &crate::cli::Ran| {
        for text in [&ran.stdout, &ran.stderr] {
            assert!(
                !text.contains(REQUEST_TOKEN) && !text.contains(secret),
                "{ran:?}"
            );
        }
    };

    // acme/app on main: read and act, so the Form scenario passes and the report says so.
    let ran = crate::cli::run(&argv, &env).await;
    ran.expect_code(0);
    clean(&ran);
    let report = std::fs::read_to_string(&junit).expect("junit written");
    let doc = roxmltree::Document::parse(&report).expect("junit is XML");
    let cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert!(cases >= 1, "{report}");
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("failure"))
            .count(),
        0,
        "{report}"
    );
    assert!(!report.contains(secret));

    // Another repository of acme: the owner rule grants read only, so the acting tools are
    // not listed for this token and the run stops before it starts (exit 2), naming them.
    *gh.job.lock().expect("job") = job("acme/docs", "refs/heads/main", "push");
    let ran = crate::cli::run(&argv, &env).await;
    ran.expect_code(2);
    assert!(
        ran.stderr.contains("unknown tool 'set_value'")
            && ran.stderr.contains("no such tool for this token"),
        "{ran:?}"
    );
    clean(&ran);

    // Another owner: no rule admits the job.
    *gh.job.lock().expect("job") = job("evil/app", "refs/heads/main", "push");
    let ran = crate::cli::run(&argv, &env).await;
    ran.expect_code(4);
    assert!(ran.stderr.contains("no claim rule"), "{ran:?}");
    clean(&ran);
}
