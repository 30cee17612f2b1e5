//! The Prometheus side: scrape config, alert rules and their unit tests, the runbook.

use super::*;

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
        out.contains("9 rules found"),
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
            "AxgateBusyTooLong",
            "AxgateDrainingTooLong",
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

/// The shipped relabelling, run by a real Prometheus over file_sd targets: `instance` keeps
/// the port and `mac` comes from the targets file, else the whole address. Before, `mac` was
/// the first DNS label and `instance` dropped the port: three axgate on one host became one
/// series, and a rack addressed by IP got `mac="127"` for every Mac.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relabelling_keeps_macs_on_one_host_and_ip_racks_apart() {
    let binary = "/usr/bin/prometheus";
    assert!(
        Path::new(binary).exists(),
        "prometheus is missing: install Debian's prometheus package (apt-get install prometheus)"
    );
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("axgate-scrape.token");
    std::fs::write(&token, "scrape-token\n").unwrap();
    let config = read("deploy/prometheus/prometheus.yml")
        .replace(TOKEN_FILE, &token.display().to_string())
        .replace("rule_files:\n  - axgate.rules.yml\n", "");
    std::fs::write(dir.path().join("prometheus.yml"), config).unwrap();
    std::fs::create_dir(dir.path().join("targets")).unwrap();
    // Nothing listens there: Prometheus shows the relabelled labels of targets that are down.
    let targets = serde_json::json!([
        {"targets": ["127.0.0.1:18741", "127.0.0.1:18742", "127.0.0.1:18743"]},
        {"targets": ["127.0.0.2:8741"], "labels": {"mac": "mac-17", "pool": "ui"}},
    ]);
    std::fs::write(dir.path().join("targets/test.json"), targets.to_string()).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut prometheus = crate::support::prometheus_command(binary, dir.path(), port)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("prometheus starts");
    let url = format!("http://127.0.0.1:{port}/api/v1/targets");
    let http = reqwest::Client::new();
    let mut labels: Vec<serde_json::Value> = Vec::new();
    for _ in 0..240 {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        let Ok(response) = http.get(&url).send().await else {
            continue;
        };
        let body: serde_json::Value = response.json().await.unwrap_or_default();
        labels = body["data"]["activeTargets"]
            .as_array()
            .map(|t| t.iter().map(|t| t["labels"].clone()).collect())
            .unwrap_or_default();
        if labels.len() == 4 {
            break;
        }
    }
    let _ = prometheus.kill();
    let _ = prometheus.wait();
    assert_eq!(
        labels.len(),
        4,
        "Prometheus never listed the targets: {labels:?}"
    );
    let of = |instance: &str| {
        labels
            .iter()
            .find(|l| l["instance"] == instance)
            .unwrap_or_else(|| panic!("no instance {instance} (the port is kept): {labels:?}"))
            .clone()
    };
    for port in ["18741", "18742", "18743"] {
        let address = format!("127.0.0.1:{port}");
        let l = of(&address);
        assert_eq!(l["mac"], address.as_str(), "{l}");
        assert_eq!(l["pool"], "default", "{l}");
    }
    let named = of("127.0.0.2:8741");
    assert_eq!(named["mac"], "mac-17", "{named}");
    assert_eq!(named["pool"], "ui", "{named}");
}
