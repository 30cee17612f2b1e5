//! Acting over AT-SPI, measured beside the raw calls it wraps, in the same run: a verified
//! `click` (press rung, an effect every time: a check box toggles) against a bare
//! `doAction` through the backend, on the small form app and on gtk3-widget-factory; a click
//! with no visible effect (a pointer click on a label) in the factory, whose spinners animate;
//! `type_text` of 20 characters against the bare key events (and the key events until the
//! field shows them: the app's own pace). Prints p50s and the targets.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axgate::ax::backend::{Backend, CallCtx, SnapshotRequest};
use axgate::ax::{NodeId, Role};
use axgate::platform::atspi::AtspiBackend;
use serde_json::{Value, json};

use super::harness::{App, AtspiServer, handle};
use super::support::Client;

fn runs() -> usize {
    if std::env::var_os("AXGATE_BENCH_QUICK").is_some() {
        8
    } else {
        40
    }
}

fn p50(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn ctx() -> CallCtx {
    CallCtx::new(Instant::now() + Duration::from_secs(10))
}

/// The backend's node of the first shown element with this role (and title, if given).
fn node(backend: &AtspiBackend, pid: u32, role: Role, title: Option<&str>) -> NodeId {
    let request = SnapshotRequest {
        root: None,
        max_depth: 64,
        max_nodes: 20_000,
        skip_children: 0,
    };
    let snap = backend
        .snapshot(pid, &request, &mut ctx())
        .expect("snapshot");
    snap.nodes
        .iter()
        .find(|n| {
            n.role == role
                && n.states.visible
                && n.states.enabled
                && title.is_none_or(|t| n.title.as_deref() == Some(t))
        })
        .unwrap_or_else(|| panic!("no shown {role:?} {title:?}"))
        .id
}

/// Characters in a text field's value now.
fn text_chars(backend: &AtspiBackend, pid: u32, id: NodeId) -> usize {
    let request = SnapshotRequest::below(id, 0, 1);
    let snap = backend
        .snapshot(pid, &request, &mut ctx())
        .expect("read the field");
    match snap.nodes.first().and_then(|n| n.value.as_ref()) {
        Some(axgate::ax::AxValue::Text(t)) => t.chars().count(),
        _ => 0,
    }
}

/// Milliseconds of `runs()` calls of a tool, and the last result.
async fn tool_ms(c: &mut Client, tool: &str, args: Value) -> (Vec<f64>, Value) {
    let mut times = Vec::new();
    let mut last = Value::Null;
    for _ in 0..runs() {
        let started = Instant::now();
        last = c.call(tool, args.clone()).await;
        times.push(started.elapsed().as_secs_f64() * 1e3);
        assert_ne!(last["isError"], true, "{tool} {args}: {last}");
    }
    (times, last)
}

/// Runs `f` on a thread of its own: the backend blocks on its own runtime, which it may not
/// do on one of the benchmark's async threads.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().expect("raw thread"))
}

fn raw_ms(mut call: impl FnMut() + Send) -> Vec<f64> {
    off_runtime(move || raw_loop(&mut call))
}

fn raw_loop(call: &mut (impl FnMut() + Send)) -> Vec<f64> {
    (0..runs())
        .map(|_| {
            let started = Instant::now();
            call();
            // Give the app its turn, as the verified calls do between runs.
            let took = started.elapsed().as_secs_f64() * 1e3;
            std::thread::sleep(Duration::from_millis(60));
            took
        })
        .collect()
}

struct Line {
    what: &'static str,
    raw: f64,
    ours: f64,
    trips: u64,
    verified: bool,
    target: String,
    met: bool,
}

fn print(lines: &[Line]) {
    println!(
        "\nAT-SPI acts, p50 of {} (raw: the backend call alone, same run)",
        runs()
    );
    for l in lines {
        println!(
            "{:<44} raw {:>7.2} ms | axgate {:>7.1} ms ({} round trips, verified: {}) | target {}: {}",
            l.what,
            l.raw,
            l.ours,
            l.trips,
            l.verified,
            l.target,
            if l.met { "met" } else { "MISSED" }
        );
    }
}

pub(super) async fn measure(server: &AtspiServer) {
    let backend = Arc::new(off_runtime(|| AtspiBackend::new().expect("AT-SPI backend")));
    let mut lines = Vec::new();
    let mut c = server.session().await;

    // The small app: 26 nodes.
    let form = App::start("form.py", &[], "axgate-form");
    let check = handle(&mut c, "axgate-form", "check_box", "Subscribe").await;
    let (ours, last) = tool_ms(
        &mut c,
        "click",
        json!({"app": "axgate-form", "target": check}),
    )
    .await;
    let id = off_runtime(|| node(&backend, form.pid, Role::CheckBox, Some("Subscribe")));
    let raw = raw_ms(|| {
        backend
            .perform_action(form.pid, id, "press", &mut ctx())
            .expect("doAction")
    });
    let out = &last["structuredContent"];
    let ours = p50(ours);
    lines.push(Line {
        what: "verified click, small app (form.py)",
        raw: p50(raw),
        ours,
        trips: out["round_trips"].as_u64().unwrap_or(0),
        verified: out["verified"] == true,
        target: "p50 <= 30 ms".into(),
        met: ours <= 30.0,
    });

    // type_text of 20 characters into the form's Name entry.
    let entry = handle(&mut c, "axgate-form", "text_field", "Name").await;
    let text = "abcdefghijklmnopqrst";
    let (ours, last) = tool_ms(
        &mut c,
        "type_text",
        json!({"app": "axgate-form", "target": entry, "text": text}),
    )
    .await;
    let raw = p50(raw_ms(|| {
        backend
            .type_text(form.pid, text, &mut ctx())
            .expect("key events")
    }));
    // The app's own pace: the key events until the field holds all of them (what a verified
    // act cannot be faster than; it also pictures before and after).
    let field = off_runtime(|| node(&backend, form.pid, Role::TextField, None));
    let shown = p50(raw_ms(|| {
        let chars = || text_chars(&backend, form.pid, field);
        let had = chars();
        backend
            .type_text(form.pid, text, &mut ctx())
            .expect("key events");
        let until = Instant::now() + Duration::from_secs(2);
        while chars() < had + text.len() && Instant::now() < until {
            std::thread::sleep(Duration::from_micros(500));
        }
    }));
    let out = &last["structuredContent"];
    let ours = p50(ours);
    println!(
        "type_text, 20 characters (form.py): key events until the field shows them {shown:.2} ms (the app's pace, same run)"
    );
    lines.push(Line {
        what: "type_text, 20 characters (form.py)",
        raw,
        ours,
        trips: out["round_trips"].as_u64().unwrap_or(0),
        verified: out["verified"] == true,
        target: "<= 2x raw".into(),
        met: ours <= 2.0 * raw,
    });
    drop(form);

    // The factory: about 1,000 nodes, spinners animating.
    let factory = App::program("gtk3-widget-factory", "gtk3-widget-factory");
    std::thread::sleep(Duration::from_millis(500));
    let name = "gtk3-widget-factory";
    let found = c
        .call(
            "find",
            json!({"app": name, "role": "check_box", "max_results": 50}),
        )
        .await;
    let mut first = Value::Null;
    for m in found["structuredContent"]["matches"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        if m["title"].as_str().is_none_or(str::is_empty) {
            continue;
        }
        // The first one that takes a click (some are disabled).
        let tried = c
            .call("click", json!({"app": name, "target": m["handle"]}))
            .await;
        if tried["isError"] != true {
            first = m;
            break;
        }
    }
    assert!(
        first.is_object(),
        "no clickable check box in the factory: {found}"
    );
    let title = first["title"].as_str().unwrap_or_default().to_owned();
    let (ours, last) = tool_ms(
        &mut c,
        "click",
        json!({"app": name, "target": first["handle"]}),
    )
    .await;
    let id = off_runtime(|| node(&backend, factory.pid, Role::CheckBox, Some(&title)));
    let raw = raw_ms(|| {
        backend
            .perform_action(factory.pid, id, "press", &mut ctx())
            .expect("doAction")
    });
    let out = &last["structuredContent"];
    let ours = p50(ours);
    lines.push(Line {
        what: "verified click, gtk3-widget-factory",
        raw: p50(raw),
        ours,
        trips: out["round_trips"].as_u64().unwrap_or(0),
        verified: out["verified"] == true,
        target: "p50 <= 60 ms".into(),
        met: ours <= 60.0,
    });

    // A click without a visible effect: the pointer on a label, spinners animating.
    let label = c
        .call(
            "find",
            json!({"app": name, "role": "static_text", "max_results": 50}),
        )
        .await;
    let label = label["structuredContent"]["matches"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["frame"].is_object()))
        .cloned()
        .unwrap_or_else(|| panic!("no label in the factory: {label}"));
    let (ours, last) = tool_ms(
        &mut c,
        "click",
        json!({"app": name, "target": label["handle"]}),
    )
    .await;
    let out = &last["structuredContent"];
    let ours = p50(ours);
    lines.push(Line {
        what: "no-effect click (pointer rung), factory",
        raw: f64::NAN,
        ours,
        trips: out["round_trips"].as_u64().unwrap_or(0),
        verified: out["verified"] == true,
        target: "p50 <= 450 ms".into(),
        met: ours <= 450.0,
    });
    drop(factory);
    // Its runtime may not be dropped on an async thread either.
    off_runtime(move || drop(backend));
    print(&lines);
}
