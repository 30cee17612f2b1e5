//! Tests of the input guard over window lists written as data, in the shapes the window
//! server reports (`CGWindowListCopyWindowInfo`, front to back, off-screen windows last
//! with `kCGWindowIsOnscreen` false): a sheet, a panel drawn by another pid, a full-screen
//! app, another Space, a menu open, a notification banner over the target, and the system
//! layers (menu bar, status items, the Dock, the screen saver, the cursor).

use super::*;

const NOTES: Pid = 420;
const MAIL: Pid = 77;

fn app(pid: Pid, name: &str) -> AppRef {
    AppRef {
        pid,
        label: format!("{name} (pid {pid})"),
    }
}

fn notes() -> AppRef {
    app(NOTES, "Notes")
}

/// One window row: owner pid and name, layer, bounds; on screen, opaque, no bundle.
fn win(pid: Pid, owner: &str, layer: i32, bounds: (f64, f64, f64, f64)) -> WindowInfo {
    WindowInfo {
        pid,
        owner: owner.to_owned(),
        bundle: None,
        responsible: None,
        title: None,
        layer,
        bounds,
        alpha: 1.0,
        on_screen: true,
    }
}

fn titled(mut w: WindowInfo, title: &str) -> WindowInfo {
    w.title = Some(title.to_owned());
    w
}

fn off(mut w: WindowInfo) -> WindowInfo {
    w.on_screen = false;
    w
}

/// What every desktop has: the menu bar, a status item, the Dock, the desktop picture.
fn desktop() -> Vec<WindowInfo> {
    vec![
        titled(
            win(
                150,
                "Window Server",
                level::MAIN_MENU,
                (0.0, 0.0, 1512.0, 33.0),
            ),
            "Menubar",
        ),
        win(
            380,
            "Control Center",
            level::STATUS,
            (1400.0, 0.0, 40.0, 33.0),
        ),
        titled(
            win(560, "Dock", level::DOCK, (300.0, 900.0, 900.0, 82.0)),
            "Dock",
        ),
        win(560, "Dock", i32::MIN + 20, (0.0, 0.0, 1512.0, 982.0)),
    ]
}

/// `front` windows over the desktop, ordered as the window server lists them: by layer,
/// highest first, and front to back within a layer (a stable sort keeps the given order).
fn list(front: Vec<WindowInfo>) -> Vec<WindowInfo> {
    let mut all = front;
    all.extend(desktop());
    all.sort_by_key(|w| std::cmp::Reverse(w.layer));
    all
}

fn seen(frontmost: Option<AppRef>, windows: Vec<WindowInfo>) -> Observed {
    Observed {
        frontmost,
        windows,
        tried: Vec::new(),
    }
}

fn click(x: f64, y: f64) -> Event {
    Event::Pointer { at: (x, y) }
}

fn notes_window() -> WindowInfo {
    titled(
        win(NOTES, "Notes", 0, (100.0, 100.0, 800.0, 600.0)),
        "Notes",
    )
}

fn mail_window() -> WindowInfo {
    titled(win(MAIL, "Mail", 0, (50.0, 50.0, 1000.0, 700.0)), "Inbox")
}

#[test]
fn frontmost_with_its_window_on_top_is_neither_activated_nor_refused() {
    let o = seen(Some(notes()), list(vec![notes_window(), mail_window()]));
    assert!(in_front(NOTES, &o), "no activation: it would close menus");
    assert_eq!(
        may_post(&notes(), click(200.0, 200.0), &o),
        Ok(Some(Allowed::Own))
    );
    assert_eq!(may_post(&notes(), Event::Keys, &o), Ok(None));
}

#[test]
fn frontmost_but_another_apps_window_on_top_needs_activation() {
    // Mail's floating window is in front of Notes' although Notes is frontmost (a window of
    // a non-activating app ordered front).
    let o = seen(Some(notes()), list(vec![mail_window(), notes_window()]));
    assert!(!in_front(NOTES, &o));
    let err = may_post(&notes(), click(200.0, 200.0), &o).unwrap_err();
    assert!(
        err.contains("refused: the point (200, 200) is covered by 'Mail' (pid 77, window 'Inbox')"),
        "{err}"
    );
}

#[test]
fn a_sheet_of_the_target_is_its_own() {
    let sheet = titled(win(NOTES, "Notes", 0, (250.0, 128.0, 500.0, 300.0)), "");
    let o = seen(
        Some(notes()),
        list(vec![sheet, notes_window(), mail_window()]),
    );
    assert!(in_front(NOTES, &o));
    assert_eq!(
        may_post(&notes(), click(300.0, 200.0), &o),
        Ok(Some(Allowed::Own))
    );
}

#[test]
fn an_open_panel_drawn_by_the_xpc_service_for_a_sandboxed_app_is_allowed() {
    // Regression: the first guard asked the target's own hit test, and an Open panel of a
    // sandboxed app (drawn by another pid) was refused.
    let mut panel = titled(
        win(
            9001,
            "Open and Save Panel Service (Notes)",
            0,
            (200.0, 150.0, 700.0, 450.0),
        ),
        "Open",
    );
    panel.bundle = Some("com.apple.appkit.xpc.openAndSavePanelService".to_owned());
    let windows = list(vec![panel.clone(), notes_window()]);
    let o = seen(Some(notes()), windows.clone());
    assert!(in_front(NOTES, &o), "the panel on top is the target's");
    let served = Ok(Some(Allowed::Served(
        "com.apple.appkit.xpc.openAndSavePanelService",
    )));
    assert_eq!(may_post(&notes(), click(300.0, 300.0), &o), served);
    // The system says whom it serves: that decides, frontmost or not.
    panel.responsible = Some(NOTES);
    let o = seen(Some(notes()), list(vec![panel.clone(), notes_window()]));
    assert_eq!(may_post(&notes(), click(300.0, 300.0), &o), served);
    panel.responsible = Some(MAIL);
    let o = seen(Some(notes()), list(vec![panel, notes_window()]));
    let err = may_post(&notes(), click(300.0, 300.0), &o).unwrap_err();
    assert!(
        err.contains("'Open and Save Panel Service (Notes)' (pid 9001"),
        "{err}"
    );
}

#[test]
fn web_content_counts_only_for_the_app_hosting_it() {
    let mut video = win(9100, "Safari Web Content", 0, (0.0, 0.0, 1512.0, 982.0));
    video.bundle = Some("com.apple.WebKit.WebContent".to_owned());
    let safari = app(600, "Safari");
    video.responsible = Some(600);
    let o = seen(Some(safari.clone()), list(vec![video.clone()]));
    assert_eq!(
        may_post(&safari, click(500.0, 500.0), &o),
        Ok(Some(Allowed::Served("com.apple.WebKit.WebContent")))
    );
    // Unknown responsibility: web content is not the front app's just for being in front.
    video.responsible = None;
    let o = seen(Some(safari.clone()), list(vec![video]));
    assert!(may_post(&safari, click(500.0, 500.0), &o).is_err());
}

#[test]
fn a_system_dialog_counts_only_when_the_caller_targets_it() {
    let dialog = titled(
        win(333, "CoreServicesUIAgent", 8, (500.0, 300.0, 420.0, 200.0)),
        "",
    );
    let windows = list(vec![dialog, notes_window()]);
    let o = seen(Some(notes()), windows.clone());
    let err = may_post(&notes(), click(600.0, 350.0), &o).unwrap_err();
    assert!(
        err.contains("covered by 'CoreServicesUIAgent' (pid 333)"),
        "{err}"
    );
    let agent = app(333, "CoreServicesUIAgent");
    let o = seen(Some(agent.clone()), windows);
    assert_eq!(
        may_post(&agent, click(600.0, 350.0), &o),
        Ok(Some(Allowed::Own))
    );
}

#[test]
fn a_full_screen_app_owns_the_whole_display() {
    // On a full-screen Space the app's window covers the display; the menu bar is hidden
    // (off screen) and other apps' windows are on other Spaces.
    let full = titled(win(NOTES, "Notes", 0, (0.0, 0.0, 1512.0, 982.0)), "Notes");
    let mut windows = list(vec![full, off(mail_window())]);
    for w in &mut windows {
        if w.layer == level::MAIN_MENU {
            w.on_screen = false;
        }
        // The Dock stays on screen but hidden by the full-screen app: in this shape it is
        // fully transparent.
        if w.owner == "Dock" {
            w.alpha = 0.0;
        }
    }
    let o = seen(Some(notes()), windows);
    assert!(in_front(NOTES, &o));
    assert_eq!(
        may_post(&notes(), click(10.0, 10.0), &o),
        Ok(Some(Allowed::Own))
    );
    assert_eq!(
        may_post(&notes(), click(700.0, 950.0), &o),
        Ok(Some(Allowed::Own))
    );
}

#[test]
fn windows_on_another_space_are_off_screen() {
    // Notes' window is on another Space: not on screen, so not in front even though Notes
    // is frontmost; the ladder runs (activation switches Spaces).
    let o = seen(
        Some(notes()),
        list(vec![mail_window(), off(notes_window())]),
    );
    assert!(!in_front(NOTES, &o));
    let err = may_post(&notes(), Event::Keys, &o).unwrap_err();
    assert!(err.contains("none of its windows is on screen"), "{err}");
    // A click where its window would be lands on Mail: refused by name.
    let err = may_post(&notes(), click(200.0, 200.0), &o).unwrap_err();
    assert!(
        err.contains("covered by 'Mail' (pid 77, window 'Inbox')"),
        "{err}"
    );
    // Where nothing is, the message says the windows are elsewhere.
    let err = may_post(&notes(), click(1300.0, 850.0), &o).unwrap_err();
    assert!(err.contains("another Space"), "{err}");
}

#[test]
fn a_menu_open_in_the_target_is_its_own_and_another_apps_menu_is_refused() {
    let menu = win(
        NOTES,
        "Notes",
        level::POP_UP_MENU,
        (120.0, 33.0, 220.0, 300.0),
    );
    let o = seen(Some(notes()), list(vec![menu, notes_window()]));
    assert!(
        in_front(NOTES, &o),
        "an open menu keeps the app in front: no activation"
    );
    assert_eq!(
        may_post(&notes(), click(150.0, 100.0), &o),
        Ok(Some(Allowed::Own))
    );
    // The menu bar shows the front app's menus: a click on it is the target's.
    assert_eq!(
        may_post(&notes(), click(60.0, 10.0), &o),
        Ok(Some(Allowed::MenuBar))
    );
    let status_menu = win(
        380,
        "Control Center",
        level::POP_UP_MENU,
        (1200.0, 33.0, 300.0, 400.0),
    );
    let o = seen(Some(notes()), list(vec![status_menu, notes_window()]));
    let err = may_post(&notes(), click(1250.0, 200.0), &o).unwrap_err();
    assert!(
        err.contains("covered by 'Control Center' (pid 380)"),
        "{err}"
    );
    assert!(
        err.contains("A menu or pop-up of that app is open"),
        "{err}"
    );
    // A status item belongs to the app that owns it.
    let err = may_post(&notes(), click(1410.0, 10.0), &o).unwrap_err();
    assert!(err.contains("status item"), "{err}");
}

#[test]
fn a_notification_banner_over_the_target_is_refused_by_name() {
    let banner = titled(
        win(512, "Notification Center", 23, (1150.0, 40.0, 350.0, 90.0)),
        "Notification",
    );
    let full_notes = win(NOTES, "Notes", 0, (0.0, 33.0, 1512.0, 949.0));
    let o = seen(Some(notes()), list(vec![banner, full_notes]));
    assert!(
        in_front(NOTES, &o),
        "the banner floats; Notes is still the top window"
    );
    let err = may_post(&notes(), click(1200.0, 60.0), &o).unwrap_err();
    assert!(
        err.starts_with(
            "refused: the point (1200, 60) is covered by 'Notification Center' (pid 512, \
             window 'Notification')"
        ),
        "{err}"
    );
    assert!(err.contains("dismiss it"), "{err}");
    // Beside the banner the click is Notes'; keys go to Notes regardless.
    assert_eq!(
        may_post(&notes(), click(600.0, 500.0), &o),
        Ok(Some(Allowed::Own))
    );
    assert_eq!(may_post(&notes(), Event::Keys, &o), Ok(None));
}

#[test]
fn the_dock_the_screen_saver_and_the_cursor() {
    let full_notes = win(NOTES, "Notes", 0, (0.0, 33.0, 1512.0, 949.0));
    let o = seen(Some(notes()), list(vec![full_notes.clone()]));
    let err = may_post(&notes(), click(500.0, 950.0), &o).unwrap_err();
    assert!(
        err.contains("covered by 'Dock' (pid 560, window 'Dock')"),
        "{err}"
    );
    assert!(err.contains("hide the Dock"), "{err}");
    let saver = win(
        90,
        "ScreenSaverEngine",
        level::SCREEN_SAVER,
        (0.0, 0.0, 1512.0, 982.0),
    );
    let o = seen(Some(notes()), list(vec![saver, full_notes.clone()]));
    let err = may_post(&notes(), click(500.0, 500.0), &o).unwrap_err();
    assert!(err.contains("screen saver"), "{err}");
    // The cursor and a drag image sit at the pointer and never take the click; neither do
    // the desktop picture below layer 0 or an invisible overlay.
    let cursor = win(
        150,
        "Window Server",
        level::CURSOR,
        (495.0, 495.0, 32.0, 32.0),
    );
    let drag = win(MAIL, "Mail", level::DRAGGING, (480.0, 480.0, 64.0, 64.0));
    let mut overlay = win(700, "Rectangle", 3, (0.0, 0.0, 1512.0, 982.0));
    overlay.alpha = 0.0;
    let o = seen(Some(notes()), list(vec![cursor, drag, overlay, full_notes]));
    assert_eq!(
        may_post(&notes(), click(500.0, 500.0), &o),
        Ok(Some(Allowed::Own))
    );
}

#[test]
fn another_app_in_front_is_named_with_what_was_tried() {
    let mut o = seen(
        Some(app(MAIL, "Mail")),
        list(vec![mail_window(), notes_window()]),
    );
    o.tried = vec![
        (Step::Frontmost, Err("kAXErrorCannotComplete".to_owned())),
        (Step::ActivateWithOptions, Ok(())),
        (Step::RaiseWindow, Ok(())),
    ];
    for event in [click(200.0, 200.0), Event::Keys] {
        let err = may_post(&notes(), event, &o).unwrap_err();
        assert!(err.contains("Notes (pid 420) is not frontmost"), "{err}");
        assert!(err.contains("Mail (pid 77) is in front"), "{err}");
        assert!(
            err.contains(
                "tried AXFrontmost (failed: kAXErrorCannotComplete), activateWithOptions, \
                 AXRaise within 1.5 s"
            ),
            "{err}"
        );
    }
    let nobody = seen(None, Vec::new());
    let err = may_post(&notes(), Event::Keys, &nobody).unwrap_err();
    assert!(err.contains("no app is in front"), "{err}");
}

#[test]
fn a_menu_bar_app_without_windows_is_in_front_when_frontmost() {
    let bar_app = app(808, "Stats");
    let o = seen(Some(bar_app.clone()), list(vec![mail_window()]));
    assert!(in_front(808, &o));
    assert_eq!(may_post(&bar_app, Event::Keys, &o), Ok(None));
}

#[test]
fn the_ladder_gives_activation_up_to_one_and_a_half_seconds_in_order() {
    let steps: Vec<_> = LADDER.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        steps,
        [
            Step::Frontmost,
            Step::ActivateWithOptions,
            Step::RaiseWindow
        ]
    );
    assert!(LADDER.windows(2).all(|w| w[0].1 < w[1].1), "deadlines grow");
    assert_eq!(LADDER[2].1, Duration::from_millis(1500));
    // Regression: the first guard gave activation 300 ms, too short for a Space switch.
    assert!(LADDER[0].1 >= Duration::from_millis(500));
    assert!(POLL < Duration::from_millis(50));
}

#[test]
fn every_serving_rule_says_why_and_names_one_bundle() {
    for rule in SERVING {
        assert!(rule.bundle.starts_with("com.apple."), "{}", rule.bundle);
        assert!(rule.why.len() > 40, "{}", rule.bundle);
    }
    let mut bundles: Vec<_> = SERVING.iter().map(|r| r.bundle).collect();
    bundles.sort_unstable();
    bundles.dedup();
    assert_eq!(bundles.len(), SERVING.len());
}
