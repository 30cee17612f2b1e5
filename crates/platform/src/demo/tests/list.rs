//! Scrolling (the List app's 200 rows), `select` on rows, tabs, radios and menu items, and
//! dragging sliders and scroll bars.

use super::*;
use axgate_engine::ChangeKind;

const APP: &str = "List";

/// The rows that report themselves visible, as numbers.
fn visible_rows(b: &DemoBackend) -> Vec<usize> {
    snapshot(b, APP, 9, 10_000)
        .nodes
        .iter()
        .filter(|n| n.role == axgate_engine::Role::ListItem && n.states.visible)
        .map(|n| n.title.as_deref().unwrap()[4..].parse().unwrap())
        .collect()
}

fn bar(b: &DemoBackend) -> f64 {
    match value(b, APP, "rows_scroll_bar") {
        Some(AxValue::Number(n)) => n,
        other => panic!("{other:?}"),
    }
}

fn scroll(b: &DemoBackend, point: (f64, f64), dy: f64) {
    let delta = (0.0, dy);
    gesture(
        b,
        APP,
        point,
        Modifiers::default(),
        Gesture::Scroll { delta },
    )
    .unwrap();
}

fn top(b: &DemoBackend, identifier: &str) -> f64 {
    b.node_by_identifier(APP, identifier)
        .unwrap()
        .frame
        .unwrap()
        .y
}

#[test]
fn ten_rows_show_at_first() {
    let b = DemoBackend::new();
    assert_eq!(visible_rows(&b), (1..=10).collect::<Vec<_>>());
    assert_eq!(bar(&b), 0.0);
    assert_eq!(value(&b, APP, "selection"), text("Selected: none"));
}

#[test]
fn scrolling_moves_rows_and_the_bar() {
    let b = DemoBackend::new();
    let seen = record(&b);
    let area = centre(&b, APP, "rows_scroll");
    let viewport_top = top(&b, "rows_scroll");
    // (lines, first visible row, bar)
    let steps = [
        (3.0, 4, 72.0 / 4560.0),
        (-1.0, 3, 48.0 / 4560.0),
        (1000.0, 191, 1.0),
        (-2.0, 189, 4512.0 / 4560.0),
        (-1000.0, 1, 0.0),
    ];
    for (lines, first, position) in steps {
        scroll(&b, area, lines);
        let rows = visible_rows(&b);
        assert_eq!(rows, (first..first + 10).collect::<Vec<_>>(), "{lines}");
        assert_eq!(top(&b, &format!("row_{first}")), viewport_top, "{lines}");
        assert!((bar(&b) - position).abs() < 1e-9, "{lines}: {}", bar(&b));
    }
    let kinds: Vec<_> = seen.lock().unwrap().iter().map(|e| e.kind).collect();
    assert_eq!(
        &kinds[..3],
        [
            ChangeKind::BoundsChanged,
            ChangeKind::ChildrenChanged,
            ChangeKind::ValueChanged
        ]
    );
    // A scrolled row is hit where it now is.
    scroll(&b, area, 5.0);
    let hit = b
        .element_at(pid(&b, APP), area, &mut ctx())
        .unwrap()
        .unwrap();
    let row = b.node_by_identifier(APP, "row_11").unwrap();
    assert!(hit == row.id || b.node_by_identifier(APP, "row_11_text").unwrap().id == hit);
}

#[test]
fn scrolling_outside_a_scroll_area_does_nothing() {
    let b = DemoBackend::new();
    scroll(&b, centre(&b, APP, "selection"), 5.0);
    scroll(&b, (0.0, 0.0), 5.0);
    assert_eq!(visible_rows(&b)[0], 1);
    let delta = (f64::NAN, 1.0);
    let none = Modifiers::default();
    let err = gesture(&b, APP, (0.0, 0.0), none, Gesture::Scroll { delta }).unwrap_err();
    assert_eq!(err.kind(), "invalid_value");
}

#[test]
fn the_scroll_bar_can_be_set_and_dragged() {
    let b = DemoBackend::new();
    set(&b, APP, "rows_scroll_bar", AxValue::Number(0.5)).unwrap();
    assert_eq!(visible_rows(&b)[0], 96);
    let bar_frame = b
        .node_by_identifier(APP, "rows_scroll_bar")
        .unwrap()
        .frame
        .unwrap();
    let from = bar_frame.center();
    let to = (from.0, bar_frame.y + bar_frame.h);
    gesture(&b, APP, from, Modifiers::default(), Gesture::Drag { to }).unwrap();
    assert_eq!(bar(&b), 1.0);
    assert_eq!(visible_rows(&b), (191..=200).collect::<Vec<_>>());
}

#[test]
fn selecting_a_row_selects_only_it_and_shows_it() {
    let b = DemoBackend::new();
    let p = pid(&b, APP);
    for n in [150, 2, 199] {
        let row = format!("row_{n}");
        b.select(p, id(&b, APP, &row), &mut ctx()).unwrap();
        assert_eq!(
            value(&b, APP, "selection"),
            text(&format!("Selected: Row {n}"))
        );
        assert!(flag(&b, APP, &row, |s| s.selected && s.visible), "{row}");
        let selected = snapshot(&b, APP, 9, 10_000)
            .nodes
            .iter()
            .filter(|n| n.states.selected)
            .count();
        assert_eq!(selected, 1);
    }
    // A click selects too.
    scroll(&b, centre(&b, APP, "rows_scroll"), -1000.0);
    b.pointer(
        p,
        &Pointer::new(centre(&b, APP, "row_3"), LEFT_CLICK),
        &mut ctx(),
    )
    .unwrap();
    assert_eq!(value(&b, APP, "selection"), text("Selected: Row 3"));
}

#[test]
fn select_picks_tabs_radios_and_menu_items() {
    let b = DemoBackend::new();
    let sel = |app: &str, ident: &str| b.select(pid(&b, app), id(&b, app, ident), &mut ctx());
    sel("Settings", "tab_advanced").unwrap();
    assert!(flag(&b, "Settings", "tab_advanced", |s| s.selected));
    assert!(flag(&b, "Settings", "advanced_panel", |s| s.visible));
    assert!(!flag(&b, "Settings", "general_panel", |s| s.visible));
    sel("Settings", "theme_auto").unwrap();
    let on: Vec<_> = ["theme_light", "theme_dark", "theme_auto"]
        .iter()
        .map(|i| value(&b, "Settings", i) == Some(AxValue::Bool(true)))
        .collect();
    assert_eq!(on, [false, false, true]);

    press(&b, "Form", "color").unwrap();
    sel("Form", "color_green").unwrap();
    assert_eq!(value(&b, "Form", "color"), text("Green"));
    assert!(b.node_by_identifier("Form", "color_menu").is_none());

    sel("Editor", "file").unwrap();
    assert!(flag(&b, "Editor", "file_menu", |s| s.visible));
    sel("Editor", "save").unwrap();
    assert!(!flag(&b, "Editor", "file_menu", |s| s.visible));
    let windows = b.list_windows(pid(&b, "Editor"), &mut ctx()).unwrap();
    assert_eq!(windows[0].title.as_deref(), Some("Saved"));

    let err = sel("Form", "submit").unwrap_err();
    assert_eq!(err.kind(), "unsupported", "{err}");
    let err = sel("Form", "disabled_action").unwrap_err();
    assert_eq!(err.kind(), "disabled", "{err}");
}

#[test]
fn dragging_the_volume_thumb_sets_it_proportionally() {
    let b = DemoBackend::new();
    let drag = |b: &DemoBackend, from, to| {
        gesture(b, "Form", from, Modifiers::default(), Gesture::Drag { to }).unwrap();
    };
    let track = b
        .node_by_identifier("Form", "volume")
        .unwrap()
        .frame
        .unwrap();
    let y = track.y + track.h / 2.0;
    let thumb = |b: &DemoBackend| match value(b, "Form", "volume") {
        Some(AxValue::Number(v)) => (track.x + v / 100.0 * track.w).min(track.x + track.w - 1.0),
        other => panic!("{other:?}"),
    };
    // (target x as a fraction of the track, volume afterwards)
    let steps = [(0.75, 75.0), (1.4, 100.0), (-0.2, 0.0), (0.1, 10.0)];
    for (at, expected) in steps {
        let from = (thumb(&b), y);
        drag(&b, from, (track.x + at * track.w, y));
        let got = value(&b, "Form", "volume");
        assert_eq!(got, Some(AxValue::Number(expected)), "{at}");
    }
    // A drag that starts on nothing draggable changes nothing.
    drag(&b, (5.0, 5.0), (track.x, y));
    drag(&b, centre(&b, "Form", "submit"), (track.x, y));
    assert_eq!(value(&b, "Form", "volume"), Some(AxValue::Number(10.0)));
    assert_eq!(value(&b, "Form", "status"), text("Ready"));
}
