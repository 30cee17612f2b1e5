//! Contracts of apps, windows, screenshots and capabilities: the window is listed, focused and
//! moved; the app quits (verified exit, gone from `list_apps`) and launches again under a new
//! pid; screenshots are PNGs of the window's (and an element's) size; the backend's
//! capabilities (`/readyz`) cover every flag, and each flag it leaves off makes its tool fail
//! with the "unsupported" error naming the capability; the clipboard, where present, round-trips.

use std::io::Cursor;
use std::time::{Duration, Instant};

use axgate::ax::keys::KeyCombo;
use axgate::ax::{CallCtx, Capability};
use base64::Engine as _;
use serde_json::{Value, json};

use crate::run::{Run, Target};
use crate::support::text_of;

pub(crate) async fn windows(target: &impl Target) {
    let mut run = target.start("").await;
    let listed = run.ok("list_windows", json!({})).await;
    let windows = listed["windows"].as_array().expect("windows").clone();
    assert_eq!(windows.len(), 1, "{listed}");
    assert_eq!(windows[0]["title"], "Contract", "{listed}");
    let path = windows[0]["path"].as_str().expect("path").to_owned();
    run.ok("window_action", json!({"target": path, "action": "focus"}))
        .await;
    run.ok(
        "window_action",
        json!({"target": path, "action": "move", "x": 150, "y": 90}),
    )
    .await;
    let moved = run.ok("list_windows", json!({})).await;
    let frame = &moved["windows"][0]["frame"];
    assert_eq!(
        (frame["x"].as_f64(), frame["y"].as_f64()),
        (Some(150.0), Some(90.0)),
        "{moved}"
    );
    let front = run.ok("activate_app", json!({})).await;
    assert_eq!(front["frontmost"], true, "{front}");
}

pub(crate) async fn lifecycle(target: &impl Target) {
    let mut run = target.start("").await;
    let before = run.ok("get_tree", json!({"depth": 1})).await["pid"].clone();
    let quit = run.ok("quit_app", json!({})).await;
    assert_eq!(quit["exited"], true, "{quit}");
    assert!(!app_listed(&mut run).await, "quit: gone from list_apps");
    run.err("get_tree", json!({}), &["no running app matches"])
        .await;

    let spec = target.launch_spec();
    let launched = run
        .c
        .call("launch_app", json!({"app": spec, "timeout_ms": 20000}))
        .await;
    assert_ne!(launched["isError"], true, "{}", text_of(&launched));
    let app = &launched["structuredContent"]["app"];
    assert_eq!(app["name"], run.app.as_str(), "{launched}");
    assert_ne!(app["pid"], before, "a new process: {launched}");
    assert!(app_listed(&mut run).await, "launched: in list_apps");
    let window = run
        .ok(
            "wait_for",
            json!({"query": {"role": "window", "name": "Contract"}, "condition": "exists",
                   "timeout_ms": 10000}),
        )
        .await;
    assert_eq!(window["satisfied"], true, "{window}");
    let quit = run.ok("quit_app", json!({})).await;
    assert_eq!(quit["exited"], true, "{quit}");
}

async fn app_listed(run: &mut Run) -> bool {
    let apps = run.c.call("list_apps", json!({})).await;
    apps["structuredContent"]["apps"]
        .as_array()
        .expect("apps")
        .iter()
        .any(|a| a["name"] == run.app.as_str())
}

pub(crate) async fn screenshots(target: &impl Target) {
    let mut run = target.start("").await;
    let listed = run.ok("list_windows", json!({})).await;
    let frame = listed["windows"][0]["frame"].clone();
    let shot = run.call("screenshot", json!({})).await;
    let (w, h) = png_size(&shot);
    let scale = f64::from(w) / frame["w"].as_f64().expect("w");
    assert!(scale == 1.0 || scale == 2.0, "{w}×{h} of {frame}");
    assert_eq!(f64::from(h), frame["h"].as_f64().expect("h") * scale);

    let greet = run.handle("button", "Greet").await;
    let button = run.element(&greet).await["frame"].clone();
    let shot = run.call("screenshot", json!({"target": greet})).await;
    let (w, h) = png_size(&shot);
    assert_eq!(
        (f64::from(w), f64::from(h)),
        (
            button["w"].as_f64().expect("w") * scale,
            button["h"].as_f64().expect("h") * scale
        ),
        "{button}"
    );
}

/// The size of a screenshot result's PNG.
fn png_size(result: &Value) -> (u32, u32) {
    assert_ne!(result["isError"], true, "{}", text_of(result));
    let data = result["content"][0]["data"]
        .as_str()
        .expect("an image block");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64");
    let reader = png::Decoder::new(Cursor::new(bytes))
        .read_info()
        .expect("a PNG");
    let info = reader.info();
    (info.width, info.height)
}

pub(crate) async fn capabilities(target: &impl Target) {
    let mut run = target.start("").await;
    let (present, lacks) = run.capabilities().await;
    // What the suite skips by is what the server says.
    assert_eq!(
        present,
        target.capabilities().present(),
        "the target's account of its capabilities is the server's"
    );
    for cap in Capability::ALL {
        assert!(
            present.contains(&cap) != lacks.contains(&cap),
            "{} is either present or lacking: {present:?} {lacks:?}",
            cap.as_str()
        );
    }
    let name = run.handle("text_field", "Name").await;
    let items = run.handle("list", "Items").await;
    let greet = run.handle("button", "Greet").await;
    for cap in &lacks {
        let needle = format!("`{}` capability", cap.as_str());
        let call = |tool: &str, args: Value| (tool.to_owned(), args);
        let calls = match cap {
            Capability::Act => vec![
                call("click", json!({"target": greet})),
                call(
                    "perform_action",
                    json!({"target": greet, "action": "press"}),
                ),
                call("set_value", json!({"target": name, "value": "x"})),
                call("focus", json!({"target": name})),
            ],
            // No target: a target is focused first, which is acting (the `act` capability).
            Capability::Typing => vec![call("type_text", json!({"text": "x"}))],
            Capability::Keys => vec![call("press_key", json!({"key": "a"}))],
            Capability::Scroll => vec![call(
                "scroll",
                json!({"target": items, "direction": "down"}),
            )],
            Capability::Drag => vec![call("drag", json!({"from": name, "to": items}))],
            Capability::Hover => vec![call("click", json!({"target": greet, "count": 0}))],
            Capability::Press => vec![call("click", json!({"target": greet, "hold_ms": 600}))],
            Capability::Select => vec![call(
                "select_option",
                json!({"target": items, "option": "Beta"}),
            )],
            Capability::Windows => vec![call(
                "window_action",
                json!({"target": "window[0]", "action": "focus"}),
            )],
            Capability::Launch => vec![call("launch_app", json!({}))],
            Capability::Quit => vec![call("quit_app", json!({}))],
            Capability::Activate => vec![call("activate_app", json!({}))],
            Capability::Screenshots => vec![call("screenshot", json!({}))],
            Capability::Clipboard => {
                let read = run.c.call("read_clipboard", json!({})).await;
                assert_eq!(read["isError"], true, "{read}");
                assert!(text_of(&read).contains(&needle), "{}", text_of(&read));
                vec![]
            }
            Capability::KeyReceiver => {
                key_receiver_unsupported(&mut run, &needle).await;
                vec![]
            }
        };
        for (tool, mut args) in calls {
            if tool == "launch_app" {
                args["app"] = json!(target.launch_spec());
                let result = run.c.call(&tool, args).await;
                assert_eq!(result["isError"], true, "{result}");
                assert!(text_of(&result).contains(&needle), "{}", text_of(&result));
            } else {
                run.err(&tool, args, &[needle.as_str()]).await;
            }
        }
    }
    if present.contains(&Capability::Clipboard) {
        let text = "contract: 👍🏽 e\u{301}";
        let wrote = run.c.call("write_clipboard", json!({"text": text})).await;
        assert_ne!(wrote["isError"], true, "{}", text_of(&wrote));
        let read = run.c.call("read_clipboard", json!({})).await;
        assert_eq!(read["structuredContent"]["text"], text, "{read}");
    }
}

/// No tool asks what a key would press (the confirmation of destructive keys falls back to
/// the focused element), so the flag is checked on the backend itself where the server runs
/// in this process.
async fn key_receiver_unsupported(run: &mut Run, needle: &str) {
    let pid = run.ok("get_tree", json!({"depth": 0})).await["pid"]
        .as_u64()
        .expect("pid") as u32;
    let Some(backend) = run.direct.clone() else {
        return;
    };
    let combo = KeyCombo::parse("return", &[]).expect("a key");
    let answer = tokio::task::spawn_blocking(move || {
        let mut ctx = CallCtx::new(Instant::now() + Duration::from_secs(5));
        backend.key_receiver(pid, combo, &mut ctx)
    })
    .await
    .expect("the backend call");
    let error = answer.expect_err("key_receiver is off");
    assert!(error.to_string().contains(needle), "{error}");
}
