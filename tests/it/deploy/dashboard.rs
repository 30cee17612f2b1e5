//! The Grafana dashboard.

use super::*;

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
