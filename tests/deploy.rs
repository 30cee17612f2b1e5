//! The deployment kit in `deploy/` and its runbook `docs/OPERATIONS.md`: promtool accepts the
//! Prometheus configuration and rules and passes their unit tests, the LaunchAgent plist has
//! the keys launchd needs, the install script's dry run shows the launchctl steps, the Grafana
//! dashboard queries only metrics axgate exports, and every alert has a unit test and a
//! runbook section.
//!
//! promtool comes from Debian's `prometheus` package; these tests fail (never skip) without it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

/// Every metric axgate exports (docs/OPERATIONS.md, "Metrics reference").
const METRICS: &[&str] = &[
    "axgate_http_requests_total",
    "axgate_http_request_duration_seconds",
    "axgate_mcp_requests_total",
    "axgate_tool_calls_total",
    "axgate_tool_call_duration_seconds",
    "axgate_backend_call_duration_seconds",
    "axgate_backend_round_trips",
    "axgate_nodes_walked_total",
    "axgate_worker_queue_depth",
    "axgate_worker_queue_wait_seconds",
    "axgate_sessions_active",
    "axgate_sse_streams_open",
    "axgate_events_replayed_total",
    "axgate_session_evictions_total",
    "axgate_auth_failures_total",
    "axgate_rate_limited_total",
    "axgate_audit_write_duration_seconds",
    "axgate_audit_failures_total",
    "axgate_readiness",
    "axgate_build_info",
];

/// The histograms among them, which also export `_bucket`, `_sum` and `_count` series.
const HISTOGRAMS: &[&str] = &[
    "axgate_http_request_duration_seconds",
    "axgate_tool_call_duration_seconds",
    "axgate_backend_call_duration_seconds",
    "axgate_backend_round_trips",
    "axgate_worker_queue_wait_seconds",
    "axgate_audit_write_duration_seconds",
];

const LABEL: &str = "dev.axgate.agent";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------
// promtool

/// Runs promtool with `args` from the repository root; fails the test if promtool is
/// missing or reports a problem.
fn promtool(args: &[&str], dir: &Path) -> String {
    let output = Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run promtool ({e}): install Debian's prometheus package \
                 (apt-get install prometheus)"
            )
        });
    let text = combined(&output);
    assert!(
        output.status.success(),
        "promtool {} failed ({}):\n{text}",
        args.join(" "),
        output.status
    );
    text
}

fn combined(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const TOKEN_FILE: &str = "/etc/prometheus/axgate-scrape.token";

#[test]
fn promtool_accepts_the_scrape_config() {
    promtool(
        &[
            "check",
            "config",
            "--syntax-only",
            "deploy/prometheus/prometheus.yml",
        ],
        root(),
    );

    // The full check also reads the token file, the rules and the target files. Stage the
    // kit as it is installed, with the token file in a temporary folder.
    let config = read("deploy/prometheus/prometheus.yml");
    assert!(
        config.contains(TOKEN_FILE),
        "the scrape job reads its bearer token from {TOKEN_FILE}"
    );
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("axgate-scrape.token");
    std::fs::write(&token, "scrape-token\n").unwrap();
    std::fs::write(
        dir.path().join("prometheus.yml"),
        config.replace(TOKEN_FILE, &token.display().to_string()),
    )
    .unwrap();
    std::fs::copy(
        root().join("deploy/prometheus/axgate.rules.yml"),
        dir.path().join("axgate.rules.yml"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("targets")).unwrap();
    for entry in std::fs::read_dir(root().join("deploy/prometheus/targets")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            dir.path().join("targets").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    let out = promtool(&["check", "config", "prometheus.yml"], dir.path());
    assert!(out.contains("SUCCESS"), "{out}");
    assert!(
        out.contains("7 rules found"),
        "the rules were checked too:\n{out}"
    );
}

#[test]
fn promtool_accepts_the_alert_rules() {
    let out = promtool(
        &["check", "rules", "deploy/prometheus/axgate.rules.yml"],
        root(),
    );
    assert!(out.contains("SUCCESS"), "{out}");
}

#[test]
fn promtool_unit_tests_of_the_alert_rules_pass() {
    let out = promtool(
        &["test", "rules", "deploy/prometheus/axgate.rules.test.yml"],
        root(),
    );
    assert!(out.contains("SUCCESS"), "{out}");
}

#[test]
fn example_targets_list_two_macs_on_the_axgate_port() {
    let groups: serde_json::Value =
        serde_json::from_str(&read("deploy/prometheus/targets/example.json")).unwrap();
    let targets: Vec<&str> = groups
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["targets"].as_array().unwrap())
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(targets.len(), 2, "{targets:?}");
    assert!(targets.iter().all(|t| t.ends_with(":8741")), "{targets:?}");
}

// ---------------------------------------------------------------------------------------
// Alert rules, their tests and the runbook

/// One alerting rule as written in axgate.rules.yml.
struct Rule {
    name: String,
    text: String,
}

/// The rules, one block of lines per `- alert:` entry.
fn rules() -> Vec<Rule> {
    let text = read("deploy/prometheus/axgate.rules.yml");
    let mut rules: Vec<Rule> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.trim().strip_prefix("- alert:") {
            rules.push(Rule {
                name: name.trim().to_owned(),
                text: String::new(),
            });
        } else if let Some(rule) = rules.last_mut() {
            rule.text.push_str(line);
            rule.text.push('\n');
        }
    }
    rules
}

#[derive(Default)]
struct Cases {
    firing: usize,
    silent: usize,
}

/// For each alert name in axgate.rules.test.yml: how many cases expect it to fire and how
/// many expect no alert (`exp_alerts: []`).
fn test_cases() -> BTreeMap<String, Cases> {
    let text = read("deploy/prometheus/axgate.rules.test.yml");
    assert!(
        text.lines().any(|l| l.trim() == "- axgate.rules.yml"),
        "the tests load axgate.rules.yml"
    );
    let mut cases: BTreeMap<String, Cases> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("- alertname:") {
            current = Some(name.trim().to_owned());
            cases.entry(name.trim().to_owned()).or_default();
        } else if line.starts_with("- interval:") || line.starts_with("input_series:") {
            current = None;
        } else if let Some(name) = &current {
            let case = cases.get_mut(name).unwrap();
            if line == "exp_alerts: []" {
                case.silent += 1;
            } else if line.starts_with("- exp_labels:") {
                case.firing += 1;
            }
        }
    }
    cases
}

#[test]
fn the_rules_are_the_expected_alerts() {
    let names: Vec<String> = rules().into_iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        [
            "AxgateDown",
            "AxgateNotReady",
            "AxgateAccessibilityPermissionLost",
            "AxgateHighToolErrorRate",
            "AxgateSlowToolCalls",
            "AxgateWorkerQueueSaturated",
            "AxgateAuditWriteFailures",
        ]
    );
}

#[test]
fn every_alert_has_for_severity_and_annotations() {
    for rule in rules() {
        for key in [
            "expr:",
            "for:",
            "severity:",
            "summary:",
            "description:",
            "runbook:",
        ] {
            assert!(
                rule.text.lines().any(|l| l.trim().starts_with(key)),
                "{} has no `{key}`",
                rule.name
            );
        }
        let severity = rule
            .text
            .lines()
            .find_map(|l| l.trim().strip_prefix("severity:"))
            .unwrap()
            .trim();
        assert!(
            ["critical", "warning"].contains(&severity),
            "{}: severity {severity}",
            rule.name
        );
    }
}

#[test]
fn every_alert_is_tested_firing_and_silent() {
    let cases = test_cases();
    for rule in rules() {
        let case = cases
            .get(&rule.name)
            .unwrap_or_else(|| panic!("{} has no test in axgate.rules.test.yml", rule.name));
        assert!(case.firing > 0, "no test shows {} firing", rule.name);
        assert!(
            case.silent > 0,
            "no test shows {} silent (exp_alerts: [])",
            rule.name
        );
    }
    let names: BTreeSet<String> = rules().into_iter().map(|r| r.name).collect();
    for tested in cases.keys() {
        assert!(
            names.contains(tested),
            "the tests name an unknown alert {tested}"
        );
    }
}

#[test]
fn every_alert_links_to_its_runbook_section() {
    let anchors = anchors(&read("docs/OPERATIONS.md"));
    for rule in rules() {
        let link = rule
            .text
            .lines()
            .find_map(|l| l.trim().strip_prefix("runbook:"))
            .unwrap()
            .trim()
            .trim_matches('"');
        let anchor = link.strip_prefix("docs/OPERATIONS.md#").unwrap_or_else(|| {
            panic!("{}: runbook {link} is not in docs/OPERATIONS.md", rule.name)
        });
        assert!(
            anchors.contains(anchor),
            "{}: docs/OPERATIONS.md has no section #{anchor}",
            rule.name
        );
        assert_eq!(
            anchor,
            rule.name.to_lowercase(),
            "the section is named after the alert"
        );
    }
}

#[test]
fn the_rules_use_only_known_metrics() {
    let text = read("deploy/prometheus/axgate.rules.yml");
    assert_known_metrics("axgate.rules.yml", &text);
}

// ---------------------------------------------------------------------------------------
// The runbook

/// The anchors GitHub gives the headings of a Markdown text (outside code fences).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

#[test]
fn runbook_links_within_the_page_resolve() {
    let text = read("docs/OPERATIONS.md");
    let anchors = anchors(&text);
    let mut rest = text.as_str();
    let mut count = 0;
    while let Some(i) = rest.find("](#") {
        rest = &rest[i + 3..];
        let end = rest.find(')').unwrap();
        let anchor = &rest[..end];
        assert!(
            anchors.contains(anchor),
            "link to a missing section #{anchor}"
        );
        count += 1;
    }
    assert!(count > 10, "the runbook links its sections");
}

#[test]
fn runbook_covers_the_rack_checklist_and_names_only_known_metrics() {
    let text = read("docs/OPERATIONS.md");
    for needle in [
        "pmset -a displaysleep 0 sleep 0 disksleep 0",
        "FileVault",
        "Automatically log in as",
        "dummy plug",
        "Setup Assistant",
        "com.apple.TCC.configuration-profile-policy",
        "TCC.db",
        "rcodesign",
        "launchctl bootstrap gui/",
        "/readyz",
        "axgate check",
        "deploy/grafana/axgate-fleet.json",
    ] {
        assert!(text.contains(needle), "docs/OPERATIONS.md lacks {needle:?}");
    }
    for check in [
        "ax_trusted",
        "gui_session",
        "screen_unlocked",
        "screen_recording",
    ] {
        assert!(
            text.contains(&format!("`{check}`")),
            "readiness check {check} is not explained"
        );
    }
    for metric in METRICS {
        assert!(
            text.contains(&format!("`{metric}`")),
            "{metric} is not in the metrics reference"
        );
    }
    assert_known_metrics("docs/OPERATIONS.md", &text);
}

// ---------------------------------------------------------------------------------------
// Metric names

/// Every `axgate_…` identifier in `text`.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(i) = text[from..].find("axgate_").map(|i| i + from) {
        let mut end = i;
        while end < bytes.len() && ident(bytes[end]) {
            end += 1;
        }
        if i == 0 || !ident(bytes[i - 1]) {
            out.insert(text[i..end].to_owned());
        }
        from = end;
    }
    out
}

fn is_known_metric(name: &str) -> bool {
    METRICS.contains(&name)
        || ["_bucket", "_sum", "_count"].iter().any(|suffix| {
            name.strip_suffix(suffix)
                .is_some_and(|base| HISTOGRAMS.contains(&base))
        })
}

fn assert_known_metrics(what: &str, text: &str) {
    let unknown: Vec<String> = metric_names(text)
        .into_iter()
        .filter(|m| !is_known_metric(m))
        .collect();
    assert!(
        unknown.is_empty(),
        "{what} names unknown metrics {unknown:?}"
    );
}

#[test]
fn metric_name_scanner_finds_whole_identifiers() {
    let names =
        metric_names(r#"sum(rate(axgate_tool_calls_total{x="1"}[5m])) / AXGATE_LOG my_axgate_x"#);
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["axgate_tool_calls_total"]
    );
    assert!(is_known_metric("axgate_tool_call_duration_seconds_bucket"));
    assert!(!is_known_metric("axgate_tool_calls_total_bucket"));
    assert!(!is_known_metric("axgate_tool_calls"));
}

// ---------------------------------------------------------------------------------------
// Grafana

fn dashboard() -> serde_json::Value {
    serde_json::from_str(&read("deploy/grafana/axgate-fleet.json"))
        .expect("the dashboard is valid JSON")
}

/// Every string under a key named `key`, anywhere in `value`.
fn strings_under(value: &serde_json::Value, key: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                match v {
                    serde_json::Value::String(s) if k == key => out.push(s.clone()),
                    _ => strings_under(v, key, out),
                }
            }
        }
        serde_json::Value::Array(items) => {
            for v in items {
                strings_under(v, key, out);
            }
        }
        _ => {}
    }
}

#[test]
fn dashboard_queries_only_known_metrics() {
    let dashboard = dashboard();
    let mut exprs = Vec::new();
    strings_under(&dashboard, "expr", &mut exprs);
    assert!(
        exprs.len() >= 12,
        "the dashboard has its panels: {exprs:#?}"
    );
    for expr in &exprs {
        let names = metric_names(expr);
        assert!(!names.is_empty(), "{expr} queries no axgate metric");
        assert_known_metrics(&format!("the dashboard query {expr}"), expr);
        assert!(
            expr.contains(r#"instance=~"$instance""#),
            "{expr} ignores the instance variable"
        );
    }
    let queried: BTreeSet<String> = exprs.iter().flat_map(|e| metric_names(e)).collect();
    for needed in [
        "axgate_readiness",
        "axgate_tool_calls_total",
        "axgate_tool_call_duration_seconds_bucket",
        "axgate_backend_call_duration_seconds_bucket",
        "axgate_worker_queue_depth",
        "axgate_sessions_active",
        "axgate_sse_streams_open",
        "axgate_auth_failures_total",
        "axgate_rate_limited_total",
        "axgate_audit_failures_total",
        "axgate_build_info",
    ] {
        assert!(queried.contains(needed), "no panel shows {needed}");
    }
}

#[test]
fn dashboard_has_datasource_and_instance_variables() {
    let dashboard = dashboard();
    let schema = dashboard["schemaVersion"].as_u64().unwrap();
    assert!(schema >= 36, "schemaVersion {schema}");
    assert_eq!(dashboard["uid"], "axgate-fleet");
    let vars = dashboard["templating"]["list"].as_array().unwrap();
    let var = |name: &str| {
        vars.iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no ${name} variable"))
    };
    let datasource = var("datasource");
    assert_eq!(datasource["type"], "datasource");
    assert_eq!(datasource["query"], "prometheus");
    let instance = var("instance");
    assert_eq!(instance["type"], "query");
    assert_eq!(
        instance["definition"],
        "label_values(axgate_build_info, instance)"
    );

    // Every query goes to the chosen data source.
    let mut uids = Vec::new();
    strings_under(&dashboard["panels"], "uid", &mut uids);
    assert!(!uids.is_empty());
    assert!(
        uids.iter().all(|u| u == "${datasource}"),
        "panels bypass $datasource: {uids:?}"
    );
    // Panel ids are unique, or Grafana mixes panels up.
    let ids: Vec<u64> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_u64().unwrap())
        .collect();
    assert_eq!(
        ids.len(),
        ids.iter().collect::<BTreeSet<_>>().len(),
        "duplicate panel ids"
    );
}

// ---------------------------------------------------------------------------------------
// launchd

/// The entries of a plist `<dict>` element: each `<key>` with the element after it.
fn dict_entries<'a, 'input>(
    dict: roxmltree::Node<'a, 'input>,
) -> BTreeMap<String, roxmltree::Node<'a, 'input>> {
    assert!(
        dict.has_tag_name("dict"),
        "not a dict: {:?}",
        dict.tag_name()
    );
    let children: Vec<_> = dict.children().filter(|n| n.is_element()).collect();
    assert!(children.len() % 2 == 0, "a dict of key/value pairs");
    children
        .chunks(2)
        .map(|pair| {
            assert!(pair[0].has_tag_name("key"), "key first");
            (pair[0].text().unwrap_or("").to_owned(), pair[1])
        })
        .collect()
}

fn string_of(node: roxmltree::Node<'_, '_>) -> String {
    assert!(
        node.has_tag_name("string"),
        "not a string: {:?}",
        node.tag_name()
    );
    node.text().unwrap_or("").to_owned()
}

#[test]
fn launch_agent_plist_has_the_keys_launchd_needs() {
    let text = read("deploy/launchd/dev.axgate.agent.plist");
    assert!(
        text.contains(r#"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN""#),
        "the plist DOCTYPE"
    );
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, options)
        .expect("the plist is well-formed XML");
    let plist = doc.root_element();
    assert!(plist.has_tag_name("plist"));
    assert_eq!(plist.attribute("version"), Some("1.0"));
    let top = plist.children().find(|n| n.is_element()).unwrap();
    let keys = dict_entries(top);
    let get = |key: &str| {
        *keys
            .get(key)
            .unwrap_or_else(|| panic!("the plist has no {key}"))
    };

    assert_eq!(string_of(get("Label")), LABEL);

    let args: Vec<String> = get("ProgramArguments")
        .children()
        .filter(|n| n.is_element())
        .map(string_of)
        .collect();
    assert!(args[0].ends_with("/axgate"), "{args:?}");
    assert!(
        args[0].starts_with('/'),
        "launchd needs an absolute path: {args:?}"
    );
    assert!(args.iter().any(|a| a == "serve"), "{args:?}");
    let config = args.iter().position(|a| a == "--config").expect("--config");
    assert_eq!(args[config + 1], "/usr/local/etc/axgate/axgate.toml");

    assert!(get("RunAtLoad").has_tag_name("true"));
    let keep_alive = get("KeepAlive");
    assert!(
        keep_alive.has_tag_name("true") || keep_alive.has_tag_name("dict"),
        "KeepAlive restarts axgate"
    );
    assert_eq!(string_of(get("LimitLoadToSessionType")), "Aqua");
    assert_eq!(string_of(get("ProcessType")), "Interactive");
    assert!(get("ThrottleInterval").has_tag_name("integer"));

    for key in ["StandardOutPath", "StandardErrorPath"] {
        let path = string_of(get(key));
        assert!(
            path.starts_with('/') && !path.contains('~') && !path.contains('$'),
            "launchd expands nothing in {key}: {path}"
        );
    }

    // Every environment variable is a config key: axgate refuses unknown AXGATE_ names.
    let known = config_env_names();
    for (name, value) in dict_entries(get("EnvironmentVariables")) {
        assert!(known.contains(&name), "{name} is not a config key");
        string_of(value);
    }
}

/// `AXGATE_<SECTION>_<KEY>` of every key in config/axgate.example.toml.
fn config_env_names() -> BTreeSet<String> {
    let example: toml::Table = read("config/axgate.example.toml").parse().unwrap();
    let mut out = BTreeSet::new();
    for (section, keys) in &example {
        for key in keys.as_table().unwrap().keys() {
            out.insert(format!("AXGATE_{section}_{key}").to_uppercase());
        }
    }
    assert!(out.contains("AXGATE_LOG_FORMAT"));
    out
}

fn install_script(args: &[&str]) -> Output {
    Command::new("bash")
        .arg(root().join("deploy/launchd/install.sh"))
        .args(args)
        .output()
        .expect("bash runs")
}

#[test]
fn install_script_dry_run_shows_the_launchctl_steps() {
    let output = install_script(&[
        "--dry-run",
        "--user",
        "ci",
        "--binary",
        "/tmp/x",
        "--config",
        "/tmp/y",
    ]);
    let text = combined(&output);
    assert!(output.status.success(), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let plist = format!("/Library/LaunchAgents/{LABEL}.plist");
    let find = |what: &str| {
        lines
            .iter()
            .position(|l| l.contains(what))
            .unwrap_or_else(|| panic!("the dry run does not show {what:?}:\n{stdout}"))
    };

    let bootstrap = find("launchctl bootstrap");
    let line = lines[bootstrap];
    assert!(
        line.contains("gui/"),
        "bootstrap into the GUI domain: {line}"
    );
    assert!(
        line.ends_with(&plist),
        "bootstrap loads the installed plist: {line}"
    );
    assert!(line.contains("/ci/"), "the plist of user ci: {line}");

    let bootout = find("launchctl bootout");
    assert!(
        lines[bootout].contains(&format!("/{LABEL}")),
        "{}",
        lines[bootout]
    );
    let kickstart = find("launchctl kickstart -k");
    assert!(lines[kickstart].contains("gui/"), "{}", lines[kickstart]);
    assert!(bootout < bootstrap && bootstrap < kickstart, "{stdout}");

    let binary = find("/usr/local/bin/axgate");
    assert!(
        lines[binary].contains("/tmp/x"),
        "installs the given binary: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("/tmp/y") && l.contains("/usr/local/etc/axgate/")),
        "installs the given config: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(&plist) && !l.contains("launchctl")),
        "copies the plist into LaunchAgents: {stdout}"
    );
    assert!(
        stdout.contains("curl http://127.0.0.1:8741/readyz"),
        "{stdout}"
    );
    assert!(stdout.contains("Accessibility"), "{stdout}");
}

#[test]
fn install_script_has_help_and_refuses_unknown_options() {
    let help = install_script(&["--help"]);
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for option in ["--user", "--binary", "--config", "--dry-run"] {
        assert!(text.contains(option), "--help lacks {option}:\n{text}");
    }
    let bad = install_script(&["--dry-run", "--user", "ci", "--frobnicate"]);
    assert!(!bad.status.success());
    assert!(combined(&bad).contains("--frobnicate"));
}

#[test]
fn install_script_is_strict_bash() {
    let text = read("deploy/launchd/install.sh");
    assert!(text.starts_with("#!/usr/bin/env bash\n"));
    assert!(text.contains("set -euo pipefail"));
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(root().join("deploy/launchd/install.sh"))
        .output()
        .unwrap();
    assert!(syntax.status.success(), "{}", combined(&syntax));
}
