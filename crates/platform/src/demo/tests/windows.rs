//! `window_action`: focus, minimize and restore, close (with Editor's unsaved-changes
//! dialog), move and resize, zoom and full screen.

use super::*;
use crate::demo::windows::{MIN_SIZE, SCREEN, VISIBLE_SCREEN};
use axgate_engine::backend::{WindowAction, WindowRequest};
use axgate_engine::{ChangeKind, Rect, WindowInfo};

fn windows(b: &DemoBackend, app: &str) -> Vec<WindowInfo> {
    b.list_windows(pid(b, app), &mut ctx()).unwrap()
}

fn act_on(b: &DemoBackend, app: &str, window: &str, action: WindowAction) -> Result<(), AxError> {
    let window = id(b, app, window);
    b.window_action(pid(b, app), WindowRequest { window, action }, &mut ctx())
}

fn frame(b: &DemoBackend, app: &str, identifier: &str) -> Rect {
    b.node_by_identifier(app, identifier)
        .unwrap()
        .frame
        .unwrap()
}

#[test]
fn minimize_hides_the_window_and_restore_brings_it_back() {
    let b = DemoBackend::new();
    let seen = record(&b);
    act_on(&b, "Form", "form_window", WindowAction::Minimize).unwrap();
    let w = &windows(&b, "Form")[0];
    assert!(w.minimized && !w.focused);
    let snap = snapshot(&b, "Form", 9, 100);
    assert_eq!(snap.nodes.len(), 13, "a minimized window stays in the tree");
    assert!(snap.nodes[1..].iter().all(|n| !n.states.visible));
    let name = b.element_at(pid(&b, "Form"), centre(&b, "Form", "name"), &mut ctx());
    assert_eq!(name.unwrap(), None);
    // Minimizing twice changes nothing; moving a minimized window is refused.
    act_on(&b, "Form", "form_window", WindowAction::Minimize).unwrap();
    let err = act_on(
        &b,
        "Form",
        "form_window",
        WindowAction::Move { x: 1.0, y: 1.0 },
    );
    assert_eq!(err.unwrap_err().kind(), "unsupported");

    act_on(&b, "Form", "form_window", WindowAction::Restore).unwrap();
    let w = &windows(&b, "Form")[0];
    assert!(!w.minimized && w.focused);
    assert!(
        snapshot(&b, "Form", 9, 100)
            .nodes
            .iter()
            .all(|n| n.states.visible)
    );
    let kinds: Vec<_> = seen.lock().unwrap().iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::StateChanged,
            ChangeKind::StateChanged,
            ChangeKind::FocusChanged
        ]
    );
}

#[test]
fn move_shifts_the_window_and_its_contents() {
    let b = DemoBackend::new();
    let (window, name) = (frame(&b, "Form", "form_window"), frame(&b, "Form", "name"));
    act_on(
        &b,
        "Form",
        "form_window",
        WindowAction::Move { x: 100.0, y: 200.0 },
    )
    .unwrap();
    let (dx, dy) = (100.0 - window.x, 200.0 - window.y);
    let moved = frame(&b, "Form", "form_window");
    assert_eq!(
        (moved.x, moved.y, moved.w, moved.h),
        (100.0, 200.0, window.w, window.h)
    );
    let name_now = frame(&b, "Form", "name");
    assert_eq!((name_now.x, name_now.y), (name.x + dx, name.y + dy));
    let hit = b.element_at(pid(&b, "Form"), name_now.center(), &mut ctx());
    assert_eq!(hit.unwrap(), Some(id(&b, "Form", "name")));
    assert_eq!(windows(&b, "Form")[0].frame, Some(moved));
}

#[test]
fn resize_changes_only_the_window_size_within_limits() {
    let b = DemoBackend::new();
    let name = frame(&b, "Form", "name");
    let window = frame(&b, "Form", "form_window");
    // (requested, resulting size)
    let steps = [((600.0, 500.0), (600.0, 500.0)), ((10.0, 10.0), MIN_SIZE)];
    for ((w, h), (rw, rh)) in steps {
        act_on(&b, "Form", "form_window", WindowAction::Resize { w, h }).unwrap();
        let f = frame(&b, "Form", "form_window");
        assert_eq!((f.x, f.y, f.w, f.h), (window.x, window.y, rw, rh));
    }
    assert_eq!(frame(&b, "Form", "name"), name);
    let err = act_on(
        &b,
        "Form",
        "form_window",
        WindowAction::Resize {
            w: f64::INFINITY,
            h: 1.0,
        },
    );
    assert_eq!(err.unwrap_err().kind(), "invalid_value");
}

#[test]
fn maximize_zooms_to_the_visible_screen_and_a_second_zoom_gives_the_frame_back() {
    let b = DemoBackend::new();
    let (window, name) = (frame(&b, "Form", "form_window"), frame(&b, "Form", "name"));
    let seen = record(&b);
    act_on(&b, "Form", "form_window", WindowAction::Maximize).unwrap();
    assert_eq!(windows(&b, "Form")[0].frame, Some(VISIBLE_SCREEN));
    // The content moves with the window.
    let moved = frame(&b, "Form", "name");
    assert_eq!(
        (moved.x, moved.y),
        (name.x - window.x, name.y - window.y + 25.0)
    );
    assert_eq!(seen.lock().unwrap()[0].kind, ChangeKind::BoundsChanged);
    // macOS's zoom toggles: the second gives the window its own frame back.
    act_on(&b, "Form", "form_window", WindowAction::Maximize).unwrap();
    assert_eq!(frame(&b, "Form", "form_window"), window);
    assert_eq!(frame(&b, "Form", "name"), name);
    // A frame set by hand is the window's own again: the next zoom zooms.
    act_on(&b, "Form", "form_window", WindowAction::Maximize).unwrap();
    act_on(
        &b,
        "Form",
        "form_window",
        WindowAction::Resize { w: 300.0, h: 200.0 },
    )
    .unwrap();
    act_on(&b, "Form", "form_window", WindowAction::Maximize).unwrap();
    assert_eq!(frame(&b, "Form", "form_window"), VISIBLE_SCREEN);
}

#[test]
fn full_screen_covers_the_screen_once_and_restore_leaves_it() {
    let b = DemoBackend::new();
    let window = frame(&b, "Form", "form_window");
    act_on(&b, "Form", "form_window", WindowAction::FullScreen).unwrap();
    assert_eq!(frame(&b, "Form", "form_window"), SCREEN);
    // A second call changes nothing (no toggle); moving or zooming it is refused.
    let seen = record(&b);
    act_on(&b, "Form", "form_window", WindowAction::FullScreen).unwrap();
    assert!(seen.lock().unwrap().is_empty());
    assert_eq!(frame(&b, "Form", "form_window"), SCREEN);
    for action in [
        WindowAction::Maximize,
        WindowAction::Move { x: 1.0, y: 1.0 },
    ] {
        let err = act_on(&b, "Form", "form_window", action).unwrap_err();
        assert!(err.to_string().contains("restore"), "{err}");
    }
    act_on(&b, "Form", "form_window", WindowAction::Restore).unwrap();
    assert_eq!(frame(&b, "Form", "form_window"), window);
    // A minimized window is neither zoomed nor put in full screen.
    act_on(&b, "Form", "form_window", WindowAction::Minimize).unwrap();
    for action in [WindowAction::Maximize, WindowAction::FullScreen] {
        let err = act_on(&b, "Form", "form_window", action).unwrap_err();
        assert_eq!(err.kind(), "unsupported", "{err}");
    }
}

#[test]
fn close_removes_the_window() {
    let b = DemoBackend::new();
    let seen = record(&b);
    let window = id(&b, "Form", "form_window");
    act_on(&b, "Form", "form_window", WindowAction::Close).unwrap();
    assert!(windows(&b, "Form").is_empty());
    let first = seen.lock().unwrap()[0].clone();
    assert_eq!(
        (first.kind, first.node),
        (ChangeKind::WindowClosed, Some(window))
    );
    let focus = WindowRequest {
        window,
        action: WindowAction::Focus,
    };
    let err = b
        .window_action(pid(&b, "Form"), focus, &mut ctx())
        .unwrap_err();
    assert_eq!(err.kind(), "stale");
}

#[test]
fn only_windows_take_window_actions() {
    let b = DemoBackend::new();
    let err = act_on(&b, "Form", "name", WindowAction::Close).unwrap_err();
    assert_eq!(err.kind(), "unsupported", "{err}");
    assert!(err.to_string().contains("not a window"), "{err}");
}

#[test]
fn focus_makes_the_window_key_and_the_app_frontmost() {
    let b = DemoBackend::new();
    let app = "Editor";
    press(&b, app, "save_as").unwrap();
    let focused =
        |b: &DemoBackend| -> Vec<bool> { windows(b, app).iter().map(|w| w.focused).collect() };
    assert_eq!(focused(&b), [false, true]);
    act_on(&b, app, "document_window", WindowAction::Focus).unwrap();
    assert_eq!(focused(&b), [true, false]);
    assert!(!flag(&b, app, "file_name", |s| s.focused));
    act(&b, app, "save_dialog", "raise").unwrap_err();
    act_on(&b, app, "save_dialog", WindowAction::Focus).unwrap();
    assert_eq!(focused(&b), [false, true]);
    b.perform_action(
        pid(&b, app),
        id(&b, app, "document_window"),
        "raise",
        &mut ctx(),
    )
    .unwrap();
    assert_eq!(focused(&b), [true, false]);
    let front: Vec<_> = b
        .list_apps(&mut ctx())
        .unwrap()
        .into_iter()
        .filter(|a| a.frontmost)
        .map(|a| a.name)
        .collect();
    assert_eq!(front, [app]);
}

#[test]
fn closing_an_edited_document_asks_first() {
    let b = DemoBackend::new();
    let app = "Editor";
    let close = |b: &DemoBackend| act_on(b, app, "document_window", WindowAction::Close).unwrap();
    // A clean document closes at once; an edited one shows the save dialog instead.
    focus(&b, app, "document");
    type_text(&b, app, "draft").unwrap();
    close(&b);
    assert_eq!(titles(&b, app), ["Untitled", "Save Changes"]);
    close(&b);
    assert_eq!(titles(&b, app), ["Untitled", "Save Changes"], "asked once");
    // Escape cancels: the document stays, edited, and gets focus back.
    key(&b, app, "escape");
    assert_eq!(titles(&b, app), ["Untitled"]);
    assert!(flag(&b, app, "document", |s| s.focused));
    // Return saves and closes.
    close(&b);
    key(&b, app, "return");
    assert!(titles(&b, app).is_empty());

    press(&b, app, "new").unwrap();
    type_text(&b, app, "more").unwrap();
    close(&b);
    press(&b, app, "dont_save").unwrap();
    assert!(titles(&b, app).is_empty());

    // Saving clears the mark: the window then closes without asking.
    press(&b, app, "new").unwrap();
    type_text(&b, app, "kept").unwrap();
    key(&b, app, "cmd+s");
    close(&b);
    assert!(titles(&b, app).is_empty());
}
