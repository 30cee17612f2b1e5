//! Real WebDriver clients, each from its own registry and pinned, run a Mac2-style suite
//! against the demo TextEdit (scripts in `tests/clients/webdriver/`, installed by
//! `scripts/test-env`): WebdriverIO's standalone `remote()` in full (`suite.mjs`), the Appium
//! Python client with `Mac2Options` and Selenium's plain `webdriver.Remote` in a smaller set
//! (`wdcheck.py`). Each connects as an existing Mac2 suite would, given only axgate's base URL
//! (a port-0 server) and a generated bearer token sent as a header. Every step is asserted
//! here from the script's JSON lines. When a client is missing these tests fail, never skip.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::clients::run::{Run, repo, require, run_script};
use crate::support::{TestServer, config};
use axgate::http::auth::{Scope, tokens};

/// A server with one generated token (read and act) and that token.
async fn server() -> (TestServer, String) {
    let token = tokens::generate().expect("OS random numbers");
    let scopes: BTreeSet<Scope> = [Scope::Read, Scope::Act].into();
    let entry = tokens::config_entry("suite", &tokens::sha256(&token), &scopes);
    let server = TestServer::with_config(config(&format!("[auth]\ntokens = [{entry}]\n"))).await;
    (server, token)
}

/// Runs one client script against a fresh server; the run, asserted to have passed.
async fn run(name: &str, program: &Path, script: &str) -> Run {
    let script = repo().join("tests/clients/webdriver").join(script);
    let (server, token) = server().await;
    let base = PathBuf::from(format!("http://{}", server.addr));
    let run = run_script(name, program, &[script, base], &[("WD_TOKEN", &token)]).await;
    let report = run.report();
    assert!(run.status.success(), "{report}");
    let names: Vec<Value> = run.steps().iter().map(|s| s["step"].clone()).collect();
    assert_eq!(
        names.last(),
        Some(&json!("pass")),
        "the last step is the verdict\n{report}"
    );
    assert!(
        names.contains(&json!("ended")),
        "the session was deleted\n{report}"
    );
    run
}

fn python() -> PathBuf {
    let python = repo().join("target/test-env/venv-wd/bin/python");
    require(
        &python,
        "the WebDriver clients' venv target/test-env/venv-wd",
    );
    python
}

/// What every client's suite starts with: a Mac2 session (no browser), and the text view
/// found by each of the five locator strategies; the `find` step, for the client's own checks.
fn check_session_and_locators(run: &Run) -> Value {
    let report = run.report();
    let session = run.step("session");
    assert_eq!(
        (
            &session["platformName"],
            &session["automationName"],
            &session["browserName"]
        ),
        (&json!("mac"), &json!("Mac2"), &Value::Null),
        "{report}"
    );
    let find = run.step("find");
    for strategy in [
        "accessibility id",
        "class name",
        "predicate string",
        "class chain",
        "xpath",
    ] {
        assert_eq!(
            find["found"][strategy], "First Text View",
            "{strategy}\n{report}"
        );
    }
    find
}

/// The steps both Python clients take (`wdcheck.py`'s suite).
fn check_python_suite(run: &Run) {
    let report = run.report();
    let find = check_session_and_locators(run);
    assert_eq!(
        (&find["tab_stops"], &find["radios"]),
        (&json!(12), &json!(4)),
        "{report}"
    );
    let interact = run.step("interact");
    assert_eq!(interact["typed"], "Hello axgate", "{report}");
    assert_eq!(interact["cleared"], "", "{report}");
    assert_eq!(
        (&interact["typeface"], &interact["bold_value"]),
        (&json!("Bold"), &json!("1")),
        "the bold check box sets the typeface popup\n{report}"
    );
    let read = run.step("read");
    assert_eq!(read["label"], "type face", "{report}");
    assert_eq!(read["element_type"], "14", "{report}");
    assert_eq!(read["name"], "XCUIElementTypePopUpButton", "{report}");
    assert_eq!(
        read["rect"],
        json!({"x": 300.0, "y": 92.0, "width": 100.0, "height": 22.0}),
        "{report}"
    );
    assert_eq!(
        (&read["enabled"], &read["left_selected"]),
        (&json!(true), &json!(true)),
        "{report}"
    );
    let source = run.step("source");
    assert_eq!(source["xml"], true, "{report}");
    assert_eq!(source["root"], "XCUIElementTypeApplication", "{report}");
    assert_eq!(
        source["screen"],
        json!({"png": true, "width": 800, "height": 600}),
        "the window's screenshot decodes\n{report}"
    );
    assert_eq!(
        source["element"],
        json!({"png": true, "width": 100, "height": 22}),
        "the popup's screenshot decodes\n{report}"
    );
    let errors = run.step("errors");
    assert_eq!(errors["value"], "Light", "{report}");
    assert_eq!(
        errors["stale"], "StaleElementReferenceException",
        "{report}"
    );
    assert_eq!(errors["stale_is_client_class"], true, "{report}");
    assert_eq!(errors["missing"], "NoSuchElementException", "{report}");
    assert_eq!(errors["bad"], "InvalidSelectorException", "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webdriverio_runs_the_mac2_style_suite() {
    require(
        &repo().join("tests/clients/webdriver/node_modules/webdriverio/package.json"),
        "WebdriverIO (tests/clients/webdriver/node_modules)",
    );
    let run = run("webdriverio", Path::new("node"), "suite.mjs").await;
    let report = run.report();
    let find = check_session_and_locators(&run);
    assert_eq!(find["tab_stops"], 12, "{report}");
    assert_eq!(find["check_boxes"], "bold,italic,underline", "{report}");
    assert_eq!(find["predicate"], "typeface", "IN, CONTAINS[c]\n{report}");
    assert_eq!(find["radios"], 4, "found from an element\n{report}");
    let interact = run.step("interact");
    assert_eq!(
        (&interact["typed"], &interact["added"], &interact["cleared"]),
        (
            &json!("Hello axgate"),
            &json!("Hello axgate, again"),
            &json!("")
        ),
        "setValue clears, addValue appends, clearValue empties\n{report}"
    );
    assert_eq!(
        (
            &interact["before"],
            &interact["after"],
            &interact["bold_value"]
        ),
        (&json!("Regular"), &json!("Bold Oblique"), &json!("1")),
        "{report}"
    );
    let read = run.step("read");
    assert_eq!(read["label"], "type face", "{report}");
    assert_eq!(read["element_type"], "14", "{report}");
    assert_eq!(read["frame"], "{{300, 92}, {100, 22}}", "{report}");
    assert_eq!(read["name"], "XCUIElementTypePopUpButton", "{report}");
    assert_eq!(read["location"], json!({"x": 300, "y": 92}), "{report}");
    assert_eq!(
        read["size"],
        json!({"width": 100, "height": 22}),
        "{report}"
    );
    assert_eq!(
        (
            &read["enabled"],
            &read["displayed"],
            &read["left_selected"],
            &read["center_selected"]
        ),
        (&json!(true), &json!(true), &json!(true), &json!(false)),
        "{report}"
    );
    let source = run.step("source");
    assert_eq!(
        (&source["xml"], &source["root"], &source["has_duplicate"]),
        (
            &json!(true),
            &json!("XCUIElementTypeApplication"),
            &json!(true)
        ),
        "{report}"
    );
    assert_eq!(
        source["screen"],
        json!({"png": true, "width": 800, "height": 600}),
        "{report}"
    );
    assert_eq!(
        source["element"],
        json!({"png": true, "width": 100, "height": 22}),
        "{report}"
    );
    let errors = run.step("errors");
    assert_eq!(
        errors,
        json!({
            "step": "errors",
            "value": "Light",
            "stale": "stale element reference",
            "missing": "no such element",
            "bad": "invalid selector",
            "exists": false,
        }),
        "{report}"
    );
    let modifiers = run.step("modifiers");
    assert_eq!(
        modifiers,
        json!({
            "step": "modifiers",
            "by_right_click": true,
            "closed": true,
            "by_ctrl_click": true,
            "after_cut": "",
            "clipboard": "Hello keys",
            "after_paste": "Hello keys",
        }),
        "the context menu by macos: rightClick and by a Control-held W3C click; Command-A, \
         Command-X by macos: keys, Command-V by W3C key actions\n{report}"
    );
    let parallel = run.step("parallel");
    assert_eq!(
        parallel,
        json!({
            "step": "parallel",
            "sessions": 2,
            "form": "Ada",
            "textedit": "parallel",
            "crossed": false,
        }),
        "two sessions on two apps at once, each seeing its own\n{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_appium_python_client_runs_the_smaller_suite() {
    let run = run("appium python", &python(), "appium_suite.py").await;
    check_python_suite(&run);
    assert_eq!(run.step("read")["displayed"], true, "{}", run.report());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selenium_runs_the_smaller_suite() {
    let run = run("selenium python", &python(), "selenium_suite.py").await;
    check_python_suite(&run);
    // Selenium's is_displayed runs a JavaScript atom, which no Mac2 server runs: it raises.
    let displayed = &run.step("read")["displayed"];
    assert!(
        displayed.as_str().is_some_and(|e| e.ends_with("Exception")),
        "{}",
        run.report()
    );
}
