//! The Linux AT-SPI backend against real GTK3 apps, through axgate's MCP interface. These
//! tests need the headless desktop of `tests/desktop/session.sh` and fail (never skip)
//! without it:
//!
//! ```text
//! tests/desktop/session.sh -- cargo test --release --test atspi
//! ```
//!
//! Effects are checked from the apps' side too: each test app prints every change it sees
//! (`tests/desktop/apps/`). Tests take turns on the desktop (input is global). A real
//! WebDriver client (Selenium) drives a GTK app in `desktop/webdriver.rs`.
#![cfg(target_os = "linux")]

#[path = "desktop/harness.rs"]
mod harness;
mod support;
#[path = "desktop/webdriver.rs"]
mod webdriver;

use std::time::{Duration, Instant};

use harness::{
    App, AtspiServer, DESKTOP, Gtk, decode_png, handle, ok, pyatspi_walk, require_desktop,
};
use serde_json::json;
use support::text_of;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tree_of_gtk3_widget_factory_matches_pyatspi() {
    let factory = || App::program("gtk3-widget-factory", "gtk3-widget-factory");
    let mut g = Gtk::open("", factory).await;
    let args = json!({"depth": 64, "max_nodes": 20000, "nodes": true});
    let ours = g.ok("get_tree", args).await;
    let reference = pyatspi_walk("gtk3-widget-factory");
    let walked = harness::assert_same_tree(&ours, &reference);
    let trips = ours["round_trips"].as_u64().unwrap() as f64 / walked as f64;
    eprintln!("widget-factory: {walked} nodes, {trips:.2} round trips per node");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_actions_values_typing_keys_and_waits_reach_the_app() {
    let mut g = Gtk::open("", || App::start("form.py", &[], "axgate-form")).await;
    let greet = g.handle("button", "Greet").await;
    let clicked = g.ok("click", json!({"target": greet})).await;
    assert_eq!(clicked["verified"], true, "{clicked}");
    g.app.expect("clicked=Greet");

    let field = g.handle("text_field", "Name").await;
    for (role, title, value, logged) in [
        ("text_field", "Name", json!("Ada"), "name=Ada"),
        ("slider", "Volume", json!(42), "volume=42"),
        ("spin_button", "Count", json!(7), "count=7"),
        ("check_box", "Subscribe", json!(true), "subscribe=True"),
    ] {
        let target = g.handle(role, title).await;
        g.ok("set_value", json!({"target": target, "value": value}))
            .await;
        g.app.expect(logged);
    }

    g.ok("type_text", json!({"target": field, "text": " Lovelace"}))
        .await;
    g.app.expect("name=Ada Lovelace");
    g.ok("press_key", json!({"key": "backspace"})).await;
    g.app.expect("name=Ada Lovelac");
    g.ok("press_key", json!({"key": "ctrl+a"})).await;
    g.ok("press_key", json!({"key": "backspace"})).await;
    g.app.expect("name=");

    g.ok("set_value", json!({"target": field, "value": "Grace"}))
        .await;
    g.ok(
        "perform_action",
        json!({"target": greet, "action": "press"}),
    )
    .await;
    let query = json!({"role": "static_text", "title": "Hello, Grace"});
    let waited = g
        .ok(
            "wait_for",
            json!({"query": query, "condition": "exists", "timeout_ms": 5000}),
        )
        .await;
    assert_eq!(waited["satisfied"], true, "{waited}");
    g.app.expect("status=Hello, Grace");
}

/// Text in scripts the US keyboard map lacks (Greek, Cyrillic, Hebrew, CJK, an emoji with its
/// skin-tone modifier): every character takes a spare keycode before the text is typed, so
/// none is typed as another; a second text reuses the spares and adds new ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_off_the_keyboard_map_arrives_whole() {
    let mut g = Gtk::open("", || App::start("form.py", &[], "axgate-form")).await;
    let field = g.handle("text_field", "Name").await;
    let first = "Ελληνικά кириллица עברית 日本語 👍🏽";
    g.ok("type_text", json!({"target": field, "text": first}))
        .await;
    g.app.expect(&format!("name={first}"));
    let second = " Ωμέγα щука 東京";
    g.ok("type_text", json!({"text": second})).await;
    g.app.expect(&format!("name={first}{second}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn menus_and_window_operations_work() {
    let mut g = Gtk::open("", || App::start("editor.py", &[], "axgate-editor")).await;
    let menus =
        g.c.call("list_menus", json!({"app": "axgate-editor"}))
            .await;
    assert!(
        text_of(&menus).contains("Edit > Insert Greeting"),
        "{}",
        text_of(&menus)
    );
    g.ok("select_menu", json!({"menu": "Edit > Insert Greeting"}))
        .await;
    g.app.expect("menu=Edit>Insert Greeting");
    g.app.expect("text=Hello from the menu");
    g.ok("select_menu", json!({"menu": "File > Save"})).await;
    g.app.expect("menu=File>Save");

    let window = "window[0]";
    g.ok(
        "window_action",
        json!({"target": window, "action": "move", "x": 120, "y": 60}),
    )
    .await;
    let windows = g.ok("list_windows", json!({})).await;
    let frame = &windows["windows"][0]["frame"];
    assert_eq!(
        (frame["x"].as_f64(), frame["y"].as_f64()),
        (Some(120.0), Some(60.0)),
        "{windows}"
    );
    g.ok(
        "window_action",
        json!({"target": window, "action": "focus"}),
    )
    .await;
    // The editor quits when its window closes, so verifying the act may find the app gone.
    let close = json!({"app": "axgate-editor", "target": window, "action": "close"});
    let closed = g.c.call("window_action", close).await;
    assert!(
        closed["isError"] != true || text_of(&closed).contains("exited"),
        "{}",
        text_of(&closed)
    );
    g.app.expect("close-requested");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_click_ladder_climbs_to_the_pointer_when_the_action_does_nothing_and_fallback_is_asked()
{
    let mut g = Gtk::open("", || App::start("pointer.py", &[], "axgate-pointer")).await;
    // Another app's window on top: the click must raise the target's window first.
    let _cover = App::start("slow.py", &[], "axgate-slow");
    let target = g.handle("button", "Stubborn").await;
    let clicked = g
        .ok("click", json!({"target": target, "fallback": true}))
        .await;
    assert_eq!(clicked["verified"], true, "{clicked}");
    assert_eq!(clicked["rung"], "pointer", "{clicked}");
    g.app.expect("clicked-signal-ignored");
    g.app.expect("pointer-click=1");
}

/// Keys held on a pointer click, a hover and a long press reach a GTK app as a user's would:
/// Shift extends a multiple-selection list's selection and Control toggles a row (the keys
/// pressed around the click, released after), a hover enters a button, a held press is
/// released late.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_keys_hover_and_long_press_reach_a_gtk_app() {
    require_desktop();
    let _turn = DESKTOP.lock().await;
    let app = App::start("pointer.py", &[], "axgate-pointer");
    let server = AtspiServer::start("").await;
    let mut c = server.session().await;
    let mut rows = Vec::new();
    for label in ["One", "Two", "Three"] {
        rows.push(handle(&mut c, "axgate-pointer", "static_text", label).await);
    }
    let click = |row: usize, keys: &[&str]| json!({"app": "axgate-pointer", "target": rows[row], "modifiers": keys});
    ok(&mut c, "click", click(0, &[])).await;
    app.expect("rows=One");
    let extended = ok(&mut c, "click", click(2, &["shift"])).await;
    assert_eq!(extended["rung"], "pointer", "{extended}");
    app.expect("rows=One,Two,Three");
    ok(&mut c, "click", click(1, &["ctrl"])).await;
    app.expect("rows=One,Three");
    // The keys were let go: a plain click selects one row again.
    ok(&mut c, "click", click(1, &[])).await;
    app.expect("rows=Two");
    let hover = handle(&mut c, "axgate-pointer", "button", "Hover").await;
    ok(
        &mut c,
        "click",
        json!({"app": "axgate-pointer", "target": hover, "count": 0}),
    )
    .await;
    app.expect("hovered");
    let hold = handle(&mut c, "axgate-pointer", "button", "Hold").await;
    ok(
        &mut c,
        "click",
        json!({"app": "axgate-pointer", "target": hold, "hold_ms": 800}),
    )
    .await;
    let line = app.wait_line(|l| l.starts_with("long-press="), Duration::from_secs(5));
    let held: u64 = line
        .and_then(|l| l["long-press=".len()..].parse().ok())
        .unwrap_or_else(|| panic!("no long press; the app's log: {:?}", app.lines()));
    assert!((700..3000).contains(&held), "held {held} ms");
}

/// A Submit whose effect comes 800 ms after the click (after the act's wait): the accepted
/// press is the act; no pointer click follows, so the app counts one submission.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_whose_effect_comes_late_is_actuated_exactly_once() {
    let mut g = Gtk::open("", || App::start("late.py", &[], "axgate-late")).await;
    let submit = g.handle("button", "Submit").await;
    let clicked = g.ok("click", json!({"target": submit})).await;
    assert_eq!(clicked["rung"], "press", "{clicked}");
    let app = &g.app;
    app.expect("submitted=1");
    // Long enough for a second actuation's late effect to land too: the wait is the test.
    std::thread::sleep(Duration::from_millis(1500));
    let clicks = app
        .lines()
        .iter()
        .filter(|l| *l == "submit-clicked")
        .count();
    assert_eq!(clicks, 1, "actuated once: {:?}", app.lines());
    assert!(
        !app.lines().iter().any(|l| l == "submitted=2"),
        "{:?}",
        app.lines()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_delivers_an_update_when_the_app_changes_by_itself() {
    let mut g = Gtk::open("", || App::start("slow.py", &[], "axgate-slow")).await;
    let c = &mut g.c;
    let uri = "axgate://app/axgate-slow/state";
    let resp = c.request("resources/subscribe", json!({"uri": uri})).await;
    assert!(resp["result"].is_object(), "{resp}");
    let mut stream = c
        .http
        .get(&c.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", c.session.clone().unwrap())
        .header("mcp-protocol-version", support::PROTOCOL)
        .send()
        .await
        .expect("GET stream");
    tokio::time::sleep(Duration::from_millis(300)).await;
    g.app.send("label changed by the app");
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut body = String::new();
    while !body.contains("notifications/resources/updated") {
        match tokio::time::timeout_at(until, stream.chunk()).await {
            Ok(Ok(Some(chunk))) => body.push_str(&String::from_utf8_lossy(&chunk)),
            _ => panic!("no update within 10 s; stream so far: {body}"),
        }
    }
    assert!(body.contains(uri), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_app_times_out_while_another_session_keeps_working() {
    require_desktop();
    let _turn = DESKTOP.lock().await;
    let mut slow = App::start("slow.py", &[], "axgate-slow");
    let _form = App::start("form.py", &[], "axgate-form");
    let server = AtspiServer::start("[backend]\ncall_timeout_ms = 1500\n").await;
    let mut a = server.session().await;
    let mut b = server.session().await;
    ok(&mut a, "get_tree", json!({"app": "axgate-slow"})).await;
    slow.send("freeze 6");
    slow.wait_line(|l| l == "freeze-start", Duration::from_secs(5))
        .expect("frozen");
    let frozen = async {
        let started = Instant::now();
        let r = a.call("get_tree", json!({"app": "axgate-slow"})).await;
        (r, started.elapsed())
    };
    let other = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let started = Instant::now();
        let r = b.call("get_tree", json!({"app": "axgate-form"})).await;
        (r, started.elapsed())
    };
    let ((r_slow, t_slow), (r_form, t_form)) = tokio::join!(frozen, other);
    assert_eq!(r_slow["isError"], true, "{r_slow}");
    assert!(
        text_of(&r_slow).contains("did not answer"),
        "{}",
        text_of(&r_slow)
    );
    assert!(
        t_slow < Duration::from_secs(4),
        "the timeout came at the deadline: {t_slow:?}"
    );
    assert_ne!(r_form["isError"], true, "{}", text_of(&r_form));
    assert!(
        t_form < Duration::from_millis(1500),
        "the other app answered promptly: {t_form:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_are_pngs_of_the_window_and_regions_are_cut_from_it() {
    let mut g = Gtk::open("", || App::start("form.py", &[], "axgate-form")).await;
    let c = &mut g.c;
    let shot = c.call("screenshot", json!({"app": "axgate-form"})).await;
    assert_ne!(shot["isError"], true, "{}", text_of(&shot));
    let windows = ok(c, "list_windows", json!({"app": "axgate-form"})).await;
    let frame = &windows["windows"][0]["frame"];
    let (w, h, colours) = decode_png(&shot);
    assert_eq!(
        (f64::from(w), f64::from(h)),
        (frame["w"].as_f64().unwrap(), frame["h"].as_f64().unwrap())
    );
    assert!(colours > 3, "the window is not blank ({colours} colours)");
    let screen = c
        .call(
            "screenshot",
            json!({"app": "axgate-form", "region": [0, 0, 1280, 1024]}),
        )
        .await;
    // A region is cut from the app's own window (issue 33, finding 6): the whole display as
    // a region is the window, never the screen with other windows on it.
    let (rw, rh, colours) = decode_png(&screen);
    assert_eq!((rw, rh), (w, h), "the window's size, not the display's");
    assert!(colours > 3, "the window is not blank ({colours} colours)");
    let (x, y) = (frame["x"].as_f64().unwrap(), frame["y"].as_f64().unwrap());
    let corner = c
        .call(
            "screenshot",
            json!({"app": "axgate-form", "region": [x - 50.0, y - 50.0, 100, 100]}),
        )
        .await;
    assert_eq!(
        decode_png(&corner).0,
        50,
        "the window's part of the region only"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apps_launch_and_quit_and_list_rows_select() {
    require_desktop();
    let _turn = DESKTOP.lock().await;
    // Quitting is the app's Quit command, destructive by the default words: this session is
    // an unattended one, allowed by configuration.
    let server = AtspiServer::start("[policy]\nunconfirmed = \"allow\"\n").await;
    let mut c = server.session().await;
    let script = harness::repo().join("tests/desktop/apps/rows.py");
    let spec = format!("/usr/bin/python3 {} 20", script.display());
    let launched = ok(&mut c, "launch_app", json!({"app": spec})).await;
    assert_eq!(launched["app"]["name"], "axgate-rows", "{launched}");
    assert!(launched["windows"].as_u64().unwrap() >= 1, "{launched}");
    let list = handle(&mut c, "axgate-rows", "list", "Items").await;
    let chosen = ok(
        &mut c,
        "select_option",
        json!({"app": "axgate-rows", "target": list, "option": 3}),
    )
    .await;
    assert_eq!(chosen["verified"], true, "{chosen}");
    let quit = ok(&mut c, "quit_app", json!({"app": "axgate-rows"})).await;
    assert_eq!(quit["exited"], true, "{quit}");
}

/// `launch_app`'s arguments and environment reach the spawned GTK app: rows.py takes its row
/// count from its arguments and its name on the bus from `TEST_APP_NAME`. A variable that
/// loads code is refused before anything runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launch_passes_arguments_and_environment_to_the_app() {
    require_desktop();
    let _turn = DESKTOP.lock().await;
    let server = AtspiServer::start("[policy]\nunconfirmed = \"allow\"\n").await;
    let mut c = server.session().await;
    let script = harness::repo().join("tests/desktop/apps/rows.py");
    let spec = format!("/usr/bin/python3 {}", script.display());
    let refused = c
        .call(
            "launch_app",
            json!({"app": spec, "environment": {"GTK_MODULES": "/tmp/x.so"}}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text_of(&refused).contains("GTK_MODULES"), "{refused}");
    let args = json!({"app": spec, "arguments": ["3"],
        "environment": {"TEST_APP_NAME": "axgate-launched"}});
    let launched = ok(&mut c, "launch_app", args).await;
    assert_eq!(launched["app"]["name"], "axgate-launched", "{launched}");
    handle(&mut c, "axgate-launched", "static_text", "3 rows").await;
    let args = json!({"app": "axgate-launched", "force": true});
    let quit = ok(&mut c, "quit_app", args).await;
    assert_eq!(quit["exited"], true, "{quit}");
}

#[test]
fn backend_auto_picks_atspi_inside_the_desktop_and_demo_outside() {
    require_desktop();
    let run = |strip_bus: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_axgate"));
        // Cargo passes build-time AXGATE_* variables on; axgate reads them as configuration.
        for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("AXGATE_")) {
            cmd.env_remove(key);
        }
        cmd.args(["check", "--backend", "auto"]);
        if strip_bus {
            cmd.env_remove("DBUS_SESSION_BUS_ADDRESS")
                .env_remove("AT_SPI_BUS_ADDRESS");
        }
        let out = cmd.output().expect("run axgate check");
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let inside = run(false);
    assert!(inside.contains("backend: atspi"), "{inside}");
    assert!(
        inside.contains("ok    atspi_bus") && inside.contains("ok    atspi_registry"),
        "{inside}"
    );
    assert!(inside.contains("\nready"), "{inside}");
    assert!(
        inside.contains("\nlacks: key_receiver, clipboard\n"),
        "{inside}"
    );
    assert!(
        inside.contains("(backend.kind = auto found the AT-SPI accessibility bus)"),
        "{inside}"
    );
    let outside = run(true);
    assert!(outside.contains("backend: demo"), "{outside}");
    // Falling back to the demo apps is said, with why and how to make it an error.
    assert!(
        outside.contains("backend.kind = auto found no AT-SPI accessibility bus"),
        "{outside}"
    );
    assert!(
        outside.contains("WARN") && outside.contains("no desktop backend"),
        "{outside}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_of_a_list_box_that_manages_its_descendants_are_read_too() {
    let config = "[backend]\ncall_timeout_ms = 60000\n";
    let mut g = Gtk::open(config, || App::start("rows.py", &["400"], "axgate-listbox")).await;
    let args = json!({"depth": 64, "max_nodes": 20000, "nodes": true});
    let ours = g.ok("get_tree", args).await;
    let walked = harness::assert_same_tree(&ours, &pyatspi_walk("axgate-listbox"));
    assert!(walked > 2_000, "{walked} nodes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controls_are_named_by_their_labels_and_descriptions() {
    let mut g = Gtk::open("", || App::start("labels.py", &[], "axgate-labels")).await;

    // The Email entry is named by the label whose mnemonic widget it is, the Phone entry by
    // an explicit labelled-by relation, the icon button by its description: found by `find`,
    // acted on through the handle, addressed by a path.
    let email = g.handle("text_field", "Email").await;
    g.ok(
        "set_value",
        json!({"target": email, "value": "ada@example.org"}),
    )
    .await;
    g.app.expect("email=ada@example.org");
    let phone = g.handle("text_field", "Phone").await;
    g.ok("set_value", json!({"target": phone, "value": "555"}))
        .await;
    g.app.expect("phone=555");
    let search = g.handle("button", "Search").await;
    g.ok("click", json!({"target": search})).await;
    g.app.expect("clicked=Search");

    let element = g.ok("get_element", json!({"target": phone})).await;
    let phone_node = &element["element"];
    assert_eq!(phone_node["name"], "Phone", "{element}");
    assert!(
        phone_node.get("title").is_none(),
        "the entry has no name of its own: {element}"
    );
    let element = g.ok("get_element", json!({"target": search})).await;
    assert_eq!(element["element"]["name"], "Search", "{element}");
    assert_eq!(element["element"]["description"], "Search", "{element}");

    // The relation is read only for unnamed controls: reading the Phone entry costs the
    // relation and its label's name (one call each) more than reading the Name entry, which
    // has a name of its own.
    let named = g.handle("text_field", "Name").await;
    let trips = |tree: &serde_json::Value| tree["round_trips"].as_u64().unwrap();
    let mut costs = Vec::new();
    for target in [&named, &phone] {
        let tree = g.ok("get_tree", json!({"root": target, "depth": 0})).await;
        costs.push(trips(&tree));
    }
    eprintln!(
        "round trips: named entry {}, labelled entry {}",
        costs[0], costs[1]
    );
    assert_eq!(costs[1], costs[0] + 2, "{costs:?}");
}
