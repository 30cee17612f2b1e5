//! The destructive-act confirmation of sessionless requests through MRTR input-required
//! results (SEP-2322): a press that needs confirmation, from a client that declared form
//! elicitation in the request's `_meta`, is answered with a form elicitation and a sealed
//! `requestState`; the retry with the user's answer acts (accept) or refuses (decline, or
//! `confirm: false`). A state that was altered, issued for other arguments or another
//! principal, or already used is refused with the fix, and nothing is pressed. The Form app's
//! "Subscribe" check box (a toggle: a second press would show) is made destructive by
//! `policy.confirm_words`; `policy.unconfirmed` is "ask" (the caller's own answer counts as
//! a person's). With the default "refuse" the sessionless caller is never asked: it cannot
//! confirm its own act (issue 33, finding 13).

use super::*;
use axgate::ax::AxValue;

/// The press that needs confirmation, with `target` naming the check box.
fn press(target: &str) -> Value {
    json!({"name": "perform_action",
           "arguments": {"app": "Form", "target": target, "action": "press"}})
}

/// A server whose audit trail is `audit`, where a press on "Subscribe" is destructive and
/// the sessionless caller's answer counts (`unconfirmed = "ask"`).
async fn confirming(callers: &Callers, audit: &std::path::Path) -> TestServer {
    confirming_with(callers, audit, "ask").await
}

async fn confirming_with(
    callers: &Callers,
    audit: &std::path::Path,
    unconfirmed: &str,
) -> TestServer {
    TestServer::with_config(config(&format!(
        "{}[policy]\nconfirm_words = [\"subscribe\"]\nunconfirmed = {unconfirmed:?}\n\
         [audit]\npath = {:?}\n",
        callers.section(),
        audit.display().to_string()
    )))
    .await
}

/// Issue 33, finding 13: with the default `unconfirmed = "refuse"`, a client that declares
/// form elicitation is not asked on the sessionless path (it would answer its own
/// question): the act is refused unasked, nothing pressed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_ask_a_sessionless_caller_cannot_confirm_its_own_act() {
    let callers = Callers::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl");
    let server = confirming_with(&callers, &audit, "refuse").await;
    let refused = call(&server, &callers.actor, 1, press(CHECK_BOX)).await;
    assert_ne!(refused["resultType"], "input_required", "{refused}");
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text_of(&refused).contains("unconfirmed"), "{refused}");
    assert!(!subscribed(&server), "nothing is pressed");
}

/// The result of a sessionless `tools/call` as `token`.
async fn call(server: &TestServer, token: &str, id: u64, params: Value) -> Value {
    let (status, _, events) = exchange(modern(server, Some(token), id, "tools/call", params)).await;
    assert_eq!(status, 200, "{events:?}");
    answer(&events, id)["result"].clone()
}

/// `params` again, with the state of `asked` and `response` as the answer to its question.
fn retry(params: &Value, asked: &Value, response: Value) -> Value {
    let mut params = params.clone();
    params["requestState"] = asked["requestState"].clone();
    params["inputResponses"] = json!({ "confirm": response });
    params
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

fn subscribed(server: &TestServer) -> bool {
    crate::support::app_value(server, "Form", "subscribe") == Some(AxValue::Bool(true))
}

/// Asks the first time: the input-required result, nothing pressed.
async fn ask(server: &TestServer, token: &str, id: u64, params: &Value) -> Value {
    let asked = call(server, token, id, params.clone()).await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    assert!(asked["requestState"].is_string(), "{asked}");
    assert!(!subscribed(server), "nothing is pressed before the answer");
    asked
}

/// The refusal of a state that cannot confirm the call: the fix named, nothing pressed.
fn assert_stale(server: &TestServer, result: &Value) {
    assert_eq!(result["isError"], true, "{result}");
    let text = text_of(result);
    assert!(
        text.contains("call the tool again without requestState")
            || text.contains("Call the tool again without requestState"),
        "{text}"
    );
    assert!(!subscribed(server), "nothing is pressed on a stale state");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_press_asks_through_an_input_required_result_and_acts_on_accept() {
    let callers = Callers::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl");
    let server = confirming(&callers, &audit).await;
    let params = press(CHECK_BOX);

    // A client that declared no elicitation is refused as before (policy.unconfirmed).
    let mut bare = params.clone();
    bare["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities": {}});
    let refused = call(&server, &callers.actor, 1, bare).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text_of(&refused).contains("policy.unconfirmed"),
        "{refused}"
    );
    assert!(!subscribed(&server));

    let asked = ask(&server, &callers.actor, 2, &params).await;
    let question = &asked["inputRequests"]["confirm"];
    assert_eq!(question["method"], "elicitation/create", "{asked}");
    let form = &question["params"];
    assert_eq!(form["mode"], "form", "{asked}");
    assert_eq!(
        form["requestedSchema"]["properties"]["confirm"]["type"], "boolean",
        "{asked}"
    );
    let message = form["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Subscribe") && message.contains("Form"),
        "the message names the element and the app: {message}"
    );
    let state = asked["requestState"].as_str().unwrap_or_default();
    assert!(
        !state.contains("Subscribe") && !state.contains("actor"),
        "the state carries digests only"
    );

    let done = call(&server, &callers.actor, 3, retry(&params, &asked, yes())).await;
    assert_eq!(done["isError"], false, "{done}");
    assert!(subscribed(&server), "the accepted press happened");

    let lines = audit_lines(&audit);
    let settled: Vec<(&str, &str)> = lines
        .iter()
        .filter(|l| l["tool"] == "perform_action")
        .map(|l| {
            let field = |k: &str| l[k].as_str().unwrap_or_default();
            (field("outcome"), field("confirmation"))
        })
        .collect();
    assert_eq!(
        settled,
        [
            ("denied", "refused_without_elicitation"),
            ("input_required", "input_required"),
            ("ok", "accepted_by_user"),
        ],
        "{lines:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_input_required_confirmation_refuses() {
    let callers = Callers::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl");
    let server = confirming(&callers, &audit).await;
    let params = press(CHECK_BOX);
    let answers = [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ];
    for (i, answer) in answers.into_iter().enumerate() {
        let id = 10 + 2 * i as u64;
        let asked = ask(&server, &callers.actor, id, &params).await;
        let result = call(
            &server,
            &callers.actor,
            id + 1,
            retry(&params, &asked, answer),
        )
        .await;
        assert_eq!(result["isError"], true, "{result}");
        assert!(
            text_of(&result).contains("the user did not confirm"),
            "refused as a declined elicitation: {result}"
        );
        assert!(!subscribed(&server));
    }
    let declined = audit_lines(&audit)
        .into_iter()
        .filter(|l| l["confirmation"] == "declined_by_user" && l["outcome"] == "denied")
        .count();
    assert_eq!(declined, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_input_required_state_is_refused() {
    let callers = Callers::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let server = confirming(&callers, &dir.path().join("audit.jsonl")).await;
    let params = press(CHECK_BOX);
    let asked = ask(&server, &callers.actor, 1, &params).await;
    let state = asked["requestState"].as_str().expect("a state").to_owned();
    // One character of the sealed body changed, and a state made up whole.
    let mut parts: Vec<String> = state.split('.').map(str::to_owned).collect();
    let body = parts.len() - 2;
    let flipped = if parts[body].starts_with('A') {
        "B"
    } else {
        "A"
    };
    parts[body].replace_range(0..1, flipped);
    for (id, forged) in [(2, parts.join(".")), (3, "rs1.e30.AAAA".to_owned())] {
        let mut tampered = asked.clone();
        tampered["requestState"] = json!(forged);
        let result = call(
            &server,
            &callers.actor,
            id,
            retry(&params, &tampered, yes()),
        )
        .await;
        assert_stale(&server, &result);
    }
    // A retry without its answer is refused too.
    let mut unanswered = params.clone();
    unanswered["requestState"] = json!(state);
    let result = call(&server, &callers.actor, 4, unanswered).await;
    assert_stale(&server, &result);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_required_state_for_other_arguments_or_another_principal_is_refused() {
    let callers = Callers::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let server = confirming(&callers, &dir.path().join("audit.jsonl")).await;
    let params = press(CHECK_BOX);
    let asked = ask(&server, &callers.actor, 1, &params).await;
    // The same check box by another path: other arguments, so not this confirmation.
    let other_args = retry(&press("window[0]/check_box[0]"), &asked, yes());
    let result = call(&server, &callers.actor, 2, other_args).await;
    assert_stale(&server, &result);
    // The same call from another token with the act scope.
    let result = call(&server, &callers.other, 3, retry(&params, &asked, yes())).await;
    assert_stale(&server, &result);
    // The state still confirms the call it was issued for, by its caller.
    let result = call(&server, &callers.actor, 4, retry(&params, &asked, yes())).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(subscribed(&server));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_input_required_state_confirms_one_act() {
    let callers = Callers::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let server = confirming(&callers, &dir.path().join("audit.jsonl")).await;
    let params = press(CHECK_BOX);
    let asked = ask(&server, &callers.actor, 1, &params).await;
    let accepted = retry(&params, &asked, yes());
    let result = call(&server, &callers.actor, 2, accepted.clone()).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(subscribed(&server));
    // Used again: refused, and the check box (a toggle) was not pressed a second time.
    let again = call(&server, &callers.actor, 3, accepted).await;
    assert_eq!(again["isError"], true, "{again}");
    assert!(text_of(&again).contains("without requestState"), "{again}");
    assert!(subscribed(&server), "one confirmation, one press");
}
