//! Unit tests of the demo backend, one file per concern, sharing the helpers below.

mod apps;
mod editor;
mod form;
mod keys;
mod launch;
mod list;
mod machine;
mod pointer;
mod textedit;
mod typing;
mod windows;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axgate_engine::backend::{Gesture, MouseButton, Pointer};
use axgate_engine::keys::{KeyCombo, Modifiers};
use axgate_engine::{
    AxError, AxValue, Backend, CallCtx, ChangeEvent, NodeId, Snapshot, SnapshotRequest,
};

use super::DemoBackend;

fn ctx() -> CallCtx {
    CallCtx::new(Instant::now() + Duration::from_secs(10))
}

fn pid(b: &DemoBackend, app: &str) -> u32 {
    b.pid_of(app).unwrap_or_else(|| panic!("no demo app {app}"))
}

/// The live id of the element with this identifier.
fn id(b: &DemoBackend, app: &str, identifier: &str) -> NodeId {
    b.node_by_identifier(app, identifier)
        .unwrap_or_else(|| panic!("{app} has no element {identifier:?}"))
        .id
}

fn value(b: &DemoBackend, app: &str, identifier: &str) -> Option<AxValue> {
    b.node_by_identifier(app, identifier)?.value
}

fn text(s: &str) -> Option<AxValue> {
    Some(AxValue::Text(s.to_owned()))
}

fn press(b: &DemoBackend, app: &str, identifier: &str) -> Result<(), AxError> {
    act(b, app, identifier, "press")
}

/// The titles of the app's windows, in the backend's order.
fn titles(b: &DemoBackend, app: &str) -> Vec<String> {
    b.list_windows(pid(b, app), &mut ctx())
        .unwrap()
        .into_iter()
        .map(|w| w.title.unwrap_or_default())
        .collect()
}

/// Presses the elements of `steps` in turn, checking after each that `read` gives its text.
fn press_in_turn(
    b: &DemoBackend,
    app: &str,
    steps: &[(&str, &str)],
    read: impl Fn(&DemoBackend) -> Option<AxValue>,
) {
    for (identifier, expected) in steps {
        press(b, app, identifier).unwrap();
        assert_eq!(read(b), text(expected), "after {identifier}");
    }
}

fn act(b: &DemoBackend, app: &str, identifier: &str, action: &str) -> Result<(), AxError> {
    b.perform_action(pid(b, app), id(b, app, identifier), action, &mut ctx())
}

fn set(b: &DemoBackend, app: &str, identifier: &str, v: AxValue) -> Result<(), AxError> {
    b.set_value(pid(b, app), id(b, app, identifier), &v, &mut ctx())
}

/// A single left click.
const LEFT_CLICK: Gesture = Gesture::Click {
    button: MouseButton::Left,
    count: 1,
};

/// Makes a pointer gesture at `at` in `app` with `held` down.
fn gesture(
    b: &DemoBackend,
    app: &str,
    at: (f64, f64),
    held: Modifiers,
    gesture: Gesture,
) -> Result<(), AxError> {
    b.pointer(
        pid(b, app),
        &Pointer::new(at, gesture).holding(held),
        &mut ctx(),
    )
}

fn centre(b: &DemoBackend, app: &str, identifier: &str) -> (f64, f64) {
    b.node_by_identifier(app, identifier)
        .and_then(|n| n.frame)
        .unwrap_or_else(|| panic!("{identifier:?} has no frame"))
        .center()
}

fn snapshot(b: &DemoBackend, app: &str, max_depth: u32, max_nodes: usize) -> Snapshot {
    let request = SnapshotRequest {
        root: None,
        max_depth,
        max_nodes,
        skip_children: 0,
    };
    b.snapshot(pid(b, app), &request, &mut ctx())
        .expect("snapshot")
}

/// Presses a combo such as `cmd+a` or `backspace` in an app.
fn key(b: &DemoBackend, app: &str, combo: &str) {
    let combo = KeyCombo::parse(combo, &[]).unwrap_or_else(|e| panic!("{e}"));
    b.press_key(pid(b, app), combo, &mut ctx())
        .unwrap_or_else(|e| panic!("{combo}: {e}"));
}

fn type_text(b: &DemoBackend, app: &str, text: &str) -> Result<(), AxError> {
    b.type_text(pid(b, app), text, &mut ctx())
}

fn focus(b: &DemoBackend, app: &str, identifier: &str) {
    b.focus(pid(b, app), id(b, app, identifier), &mut ctx())
        .expect("focus");
}

fn flag(
    b: &DemoBackend,
    app: &str,
    identifier: &str,
    f: fn(&axgate_engine::States) -> bool,
) -> bool {
    f(&b.node_by_identifier(app, identifier)
        .unwrap_or_else(|| panic!("{app} has no element {identifier:?}"))
        .states)
}

/// A sink that records every event the backend delivers.
fn record(b: &DemoBackend) -> Arc<Mutex<Vec<ChangeEvent>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    b.set_event_sink(Arc::new(move |event| log.lock().unwrap().push(event)));
    seen
}
