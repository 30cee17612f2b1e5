//! A real WebDriver client on the AT-SPI backend: Selenium's Python bindings
//! (`tests/clients/webdriver/atspi_check.py`, from the venv `scripts/test-env` builds) drive
//! the GTK3 form (`tests/desktop/apps/form.py`) as a Mac2 suite drives a Mac app: a session
//! attached by the app's name, a find by class name typed into, a find by xpath clicked, the
//! effect read back by a predicate, with a generated bearer token. Checked from the app's
//! own change log too.

use std::collections::BTreeSet;
use std::process::Command;

use axgate::http::auth::{Scope, tokens};
use serde_json::Value;

use super::harness::{App, AtspiServer, DESKTOP, repo, require_desktop};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selenium_finds_by_class_name_and_xpath_and_clicks_a_gtk_button() {
    require_desktop();
    let python = repo().join("target/test-env/venv-wd/bin/python");
    assert!(
        python.exists(),
        "the WebDriver clients' venv is missing ({}): run scripts/test-env first",
        python.display()
    );
    let _turn = DESKTOP.lock().await;
    let app = App::start("form.py", &[], "axgate-form");
    let token = tokens::generate().expect("OS random numbers");
    let scopes: BTreeSet<Scope> = [Scope::Read, Scope::Act].into();
    let entry = tokens::config_entry("selenium", &tokens::sha256(&token), &scopes);
    let server = AtspiServer::start(&format!("[auth]\ntokens = [{entry}]\n")).await;
    let base = server.url.trim_end_matches("/mcp").to_owned();
    let script = repo().join("tests/clients/webdriver/atspi_check.py");
    let output = tokio::task::spawn_blocking(move || {
        let mut command = Command::new(python);
        // axgate refuses unknown AXGATE_* variables; nothing of the test's may leak in.
        for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("AXGATE_")) {
            command.env_remove(key);
        }
        command
            .arg(script)
            .arg(base)
            .env("WD_TOKEN", token)
            .output()
            .expect("python runs")
    })
    .await
    .expect("the client ran");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = format!(
        "{stdout}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{report}");
    let steps: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let greet = steps
        .iter()
        .find(|s| s["step"] == "greet")
        .unwrap_or_else(|| panic!("a greet step\n{report}"));
    assert_eq!(greet["typed"], "Ada", "{report}");
    assert_eq!(greet["button"], "XCUIElementTypeButton", "{report}");
    assert_eq!(greet["status"], "Hello, Ada", "{report}");
    assert_eq!(
        greet["source_root"], "XCUIElementTypeApplication",
        "{report}"
    );
    assert_eq!(
        steps.last().map(|s| s["step"].clone()),
        Some("pass".into()),
        "{report}"
    );
    app.expect("name=Ada");
    app.expect("clicked=Greet");
}
