//! Backend-wide behaviour: the hung app, event delivery, screenshots, readiness and
//! simulated machine failures, unknown pids, and the Settings app's tabs.

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::*;
use crate::demo::{DemoOptions, Simulation};
use axgate_engine::{ChangeEvent, ChangeKind, Rect};

fn quick_hang() -> DemoBackend {
    DemoBackend::with_options(DemoOptions {
        hang_extra: Duration::from_millis(100),
    })
}

#[test]
fn the_hung_app_blocks_past_its_deadline_then_times_out() {
    let b = quick_hang();
    let p = pid(&b, "Hung");
    let request = SnapshotRequest {
        root: None,
        max_depth: 3,
        max_nodes: 10,
        skip_children: 0,
    };
    type Call<'a> = Box<dyn Fn(&mut CallCtx) -> Result<(), AxError> + 'a>;
    let calls: [(&str, Call); 3] = [
        ("probe", Box::new(|c| b.probe(p, c))),
        (
            "snapshot",
            Box::new(|c| b.snapshot(p, &request, c).map(|_| ())),
        ),
        (
            "click",
            Box::new(|c| b.pointer(p, &Pointer::new((1300.0, 110.0), LEFT_CLICK), c)),
        ),
    ];
    for (what, call) in calls {
        let start = Instant::now();
        let mut ctx = CallCtx::new(start + Duration::from_millis(50));
        let err = call(&mut ctx).unwrap_err();
        let took = start.elapsed();
        assert!(err.is_timeout(), "{what}: {err}");
        assert!(err.to_string().contains("Hung"), "{err}");
        assert!(
            took >= Duration::from_millis(150),
            "{what} returned after {took:?}"
        );
    }
    let start = Instant::now();
    let apps = b.list_apps(&mut ctx()).unwrap();
    assert!(start.elapsed() < Duration::from_millis(100));
    assert!(apps.iter().any(|a| a.name == "Hung"));
}

#[test]
fn a_hung_app_does_not_block_the_others() {
    let b = Arc::new(DemoBackend::with_options(DemoOptions {
        hang_extra: Duration::from_millis(600),
    }));
    let hung = {
        let b = Arc::clone(&b);
        std::thread::spawn(move || {
            let p = pid(&b, "Hung");
            b.probe(
                p,
                &mut CallCtx::new(Instant::now() + Duration::from_millis(100)),
            )
        })
    };
    std::thread::sleep(Duration::from_millis(20));
    snapshot(&b, "Form", 9, 100);
    press(&b, "Form", "subscribe").unwrap();
    assert!(
        !hung.is_finished(),
        "the Form calls waited for the hung app"
    );
    assert!(hung.join().unwrap().unwrap_err().is_timeout());
}

/// A sink that records events and reads the app back, which would deadlock if events were
/// delivered while the app's lock is held.
fn recording(b: &Arc<DemoBackend>) -> Arc<Mutex<Vec<ChangeEvent>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (log, weak): (_, Weak<DemoBackend>) = (Arc::clone(&seen), Arc::downgrade(b));
    b.set_event_sink(Arc::new(move |event| {
        if let Some(b) = weak.upgrade() {
            b.node_by_identifier("Form", "status");
        }
        log.lock().unwrap().push(event);
    }));
    seen
}

#[test]
fn events_reach_the_sink_after_the_lock_is_released() {
    let b = Arc::new(DemoBackend::new());
    let seen = recording(&b);
    let p = pid(&b, "Form");
    let expect = |kinds: &[(ChangeKind, &str)]| {
        let got: Vec<ChangeEvent> = std::mem::take(&mut *seen.lock().unwrap());
        let want: Vec<ChangeEvent> = kinds
            .iter()
            .map(|(kind, ident)| ChangeEvent {
                pid: p,
                node: Some(id(&b, "Form", ident)),
                kind: *kind,
            })
            .collect();
        assert_eq!(got, want);
    };
    press(&b, "Form", "subscribe").unwrap();
    expect(&[(ChangeKind::ValueChanged, "subscribe")]);
    press(&b, "Form", "color").unwrap();
    expect(&[
        (ChangeKind::ChildrenChanged, "color"),
        (ChangeKind::MenuOpened, "color_menu"),
    ]);
    b.focus(p, id(&b, "Form", "name"), &mut ctx()).unwrap();
    expect(&[(ChangeKind::FocusChanged, "name")]);
    press(&b, "Form", "disabled_action").unwrap_err();
    press(&b, "Form", "stubborn").unwrap();
    expect(&[]);

    let e = pid(&b, "Editor");
    press(&b, "Editor", "close").unwrap();
    let kinds: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|ev| (ev.pid, ev.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (e, ChangeKind::WindowClosed),
            (e, ChangeKind::ChildrenChanged)
        ]
    );
}

fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(png_bytes);
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn screenshots_are_pngs_of_the_window_or_region() {
    let b = DemoBackend::new();
    // (app, region, width, height)
    let cases = [
        ("Form", None, 480, 440),
        ("Editor", None, 640, 460),
        ("Huge", None, 800, 600),
        ("Settings", None, 460, 320),
        (
            "Form",
            Some(Rect {
                x: 50.0,
                y: 90.0,
                w: 200.0,
                h: 100.0,
            }),
            200,
            100,
        ),
    ];
    for (app, region, w, h) in cases {
        let shot = b.screenshot(pid(&b, app), region, &mut ctx()).unwrap();
        let (width, height, pixels) = decode(&shot.png);
        assert_eq!((width, height), (w, h), "{app}");
        assert_eq!(
            shot.scale,
            Some(1.0),
            "{app}: the demo renders one pixel per point"
        );
        assert_eq!(
            shot.frame.map(|f| (f.w, f.h)),
            Some((w.into(), h.into())),
            "{app}"
        );
        if let Some(r) = region {
            assert_eq!(shot.frame, Some(r), "{app}");
        }
        assert!(pixels.iter().any(|p| *p != 255), "{app} is blank");
        assert!(
            pixels.iter().filter(|p| **p == 255).count() > pixels.len() / 2,
            "{app}"
        );
    }
    // Only the app's own window is drawn: a region reaching beyond it gives the window's part;
    // one beside it gives the window, which the engine then refuses to cut (`engine/region`).
    let wide = Rect {
        x: 0.0,
        y: 0.0,
        w: 1920.0,
        h: 200.0,
    };
    let shot = b
        .screenshot(pid(&b, "Form"), Some(wide), &mut ctx())
        .unwrap();
    assert_eq!(
        shot.frame,
        Some(Rect {
            x: 40.0,
            y: 60.0,
            w: 480.0,
            h: 140.0
        })
    );
    let beside = Rect {
        x: 1400.0,
        y: 600.0,
        w: 10.0,
        h: 10.0,
    };
    let shot = b
        .screenshot(pid(&b, "Form"), Some(beside), &mut ctx())
        .unwrap();
    assert_eq!(shot.frame.map(|f| (f.w, f.h)), Some((480.0, 440.0)));
    press(&b, "Editor", "close").unwrap();
    let err = b
        .screenshot(pid(&b, "Editor"), None, &mut ctx())
        .unwrap_err();
    assert!(err.to_string().contains("no open window"), "{err}");
}

#[test]
fn readiness_reports_simulated_failures_with_a_fix() {
    let b = DemoBackend::new();
    let failing = |b: &DemoBackend| -> Vec<&'static str> {
        let checks = b.readiness();
        assert!(checks.iter().any(|c| c.name == "demo_backend" && c.ok));
        assert!(checks.iter().all(|c| c.ok || !c.detail.is_empty()));
        checks.iter().filter(|c| !c.ok).map(|c| c.name).collect()
    };
    assert!(failing(&b).is_empty());
    assert_eq!(b.readiness().len(), 1);

    b.simulate(Simulation::PermissionLost);
    assert_eq!(failing(&b), ["ax_trusted"]);
    let err = b.probe(pid(&b, "Form"), &mut ctx()).unwrap_err();
    assert_eq!(err.kind(), "permission", "{err}");

    b.simulate(Simulation::ScreenLocked);
    assert_eq!(failing(&b), ["screen_unlocked"]);
    let err = b.screenshot(pid(&b, "Form"), None, &mut ctx()).unwrap_err();
    assert!(err.to_string().contains("unlock"), "{err}");
    b.probe(pid(&b, "Form"), &mut ctx()).unwrap();

    b.simulate(Simulation::None);
    assert!(failing(&b).is_empty());
    b.screenshot(pid(&b, "Form"), None, &mut ctx()).unwrap();
}

#[test]
fn an_unknown_pid_lists_the_running_apps() {
    let b = DemoBackend::new();
    let err = b.probe(1, &mut ctx()).unwrap_err();
    assert_eq!(err.kind(), "app_not_found");
    assert!(err.to_string().contains("Form (pid 41001)"), "{err}");
    assert_eq!(b.name(), "demo");
}

#[test]
fn settings_tabs_swap_their_panels_and_radios_select_one() {
    let b = DemoBackend::new();
    let app = "Settings";
    let shown =
        |b: &DemoBackend, ident: &str| b.node_by_identifier(app, ident).unwrap().states.visible;
    press(&b, app, "tab_advanced").unwrap();
    assert!(!shown(&b, "general_panel") && shown(&b, "advanced_panel"));
    assert_eq!(value(&b, app, "tab_general"), Some(AxValue::Bool(false)));
    let hidden_radio = b.element_at(pid(&b, app), centre(&b, app, "theme_dark"), &mut ctx());
    assert_ne!(hidden_radio.unwrap(), Some(id(&b, app, "theme_dark")));
    press(&b, app, "tab_general").unwrap();
    press(&b, app, "theme_dark").unwrap();
    let on: Vec<_> = ["theme_light", "theme_dark", "theme_auto"]
        .iter()
        .map(|i| value(&b, app, i) == Some(AxValue::Bool(true)))
        .collect();
    assert_eq!(on, [false, true, false]);
    set(&b, app, "proxy", AxValue::Text("http://proxy:8080".into())).unwrap();
    assert_eq!(
        value(&b, app, "proxy_hint"),
        text("Proxy: http://proxy:8080")
    );
    press(&b, app, "reset").unwrap();
    assert_eq!(value(&b, app, "theme_light"), Some(AxValue::Bool(true)));
    assert_eq!(value(&b, app, "proxy_hint"), text("No proxy"));
}
