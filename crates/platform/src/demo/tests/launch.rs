//! `launch_app`, `quit_app`, `activate_app` and the shared clipboard.

use std::thread::sleep;

use super::*;
use crate::demo::FIRST_LAUNCHED_PID;
use axgate_engine::{AppInfo, ChangeKind, LaunchRequest};

const DELAY: Duration = Duration::from_millis(200);

fn backend() -> DemoBackend {
    DemoBackend::new().with_launch_delay(DELAY)
}

fn launch(b: &DemoBackend, spec: &str) -> Result<AppInfo, AxError> {
    b.launch_app(&LaunchRequest::app(spec), &mut ctx())
}

fn running(b: &DemoBackend) -> Vec<String> {
    b.list_apps(&mut ctx())
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect()
}

fn frontmost(b: &DemoBackend) -> Vec<String> {
    b.list_apps(&mut ctx())
        .unwrap()
        .into_iter()
        .filter(|a| a.frontmost)
        .map(|a| a.name)
        .collect()
}

#[test]
fn notes_launches_with_a_new_pid_and_its_window_appears_after_a_moment() {
    let b = backend();
    let seen = record(&b);
    assert!(!running(&b).contains(&"Notes".to_owned()));
    let before = crate::demo::process::now_secs();
    let notes = launch(&b, "Notes").unwrap();
    assert_eq!(notes.pid, FIRST_LAUNCHED_PID);
    assert_eq!(notes.bundle_id.as_deref(), Some("dev.axgate.demo.notes"));
    assert!(notes.frontmost && notes.started_at >= before);
    assert_eq!(frontmost(&b), ["Notes"]);

    let early = snapshot(&b, "Notes", 9, 100);
    assert_eq!(early.nodes.len(), 1);
    assert_eq!(early.nodes[0].child_count, 0);
    assert!(b.list_windows(notes.pid, &mut ctx()).unwrap().is_empty());

    sleep(DELAY + Duration::from_millis(50));
    let windows = b.list_windows(notes.pid, &mut ctx()).unwrap();
    assert_eq!(windows.len(), 1);
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|e| e.kind == ChangeKind::WindowCreated)
    );
    // Ready to type into at once.
    type_text(&b, "Notes", "hello").unwrap();
    assert_eq!(value(&b, "Notes", "note"), text("hello"));
}

#[test]
fn launching_a_running_app_returns_it() {
    let b = backend();
    let first = launch(&b, "notes").unwrap();
    for spec in [
        "dev.axgate.demo.notes",
        "/Applications/Notes.app",
        "Notes.app/",
        "NOTES",
    ] {
        assert_eq!(launch(&b, spec).unwrap().pid, first.pid, "{spec}");
    }
    let form = launch(&b, "Form").unwrap();
    assert_eq!(form.pid, 41001);
    assert_eq!(frontmost(&b), ["Form"]);
    assert_eq!(running(&b).len(), 7);
}

#[test]
fn a_launch_with_arguments_and_environment_shows_them_and_a_running_app_refuses_them() {
    let b = DemoBackend::new().with_launch_delay(Duration::ZERO);
    let request = LaunchRequest {
        spec: "Notes".into(),
        arguments: vec!["-a".into(), "two words".into()],
        environment: vec![("GREETING".into(), "hi".into())],
    };
    let notes = b.launch_app(&request, &mut ctx()).unwrap();
    let root = snapshot(&b, "Notes", 0, 1).nodes.remove(0);
    assert_eq!(root.value, text("-a two words GREETING=hi"));
    assert_eq!(notes.pid, FIRST_LAUNCHED_PID);
    // Running now: the extras would not reach it, so the launch is refused, not activated.
    let err = b.launch_app(&request, &mut ctx()).unwrap_err();
    assert_eq!(err.kind(), "unsupported");
    assert!(err.to_string().contains("quit it first"), "{err}");
    // Without extras a running app is activated as before; an app launched plainly shows
    // nothing.
    assert_eq!(launch(&b, "Notes").unwrap().pid, notes.pid);
    launch(&b, "Form").unwrap();
    assert_eq!(snapshot(&b, "Form", 0, 1).nodes[0].value, None);
}

#[test]
fn an_unknown_app_is_not_launchable_and_names_no_other_app() {
    // The catalog is not listed: it would name apps the policy denies.
    let b = backend();
    for spec in ["Photoshop", "/Applications/Nope.app", "Notes.txt"] {
        let err = launch(&b, spec).unwrap_err();
        assert_eq!(err.kind(), "app_not_found", "{err}");
        assert!(!err.to_string().contains("dev.axgate"), "{err}");
        assert!(
            axgate_engine::Backend::resolve_launch(&b, &LaunchRequest::app(spec), &mut ctx())
                .is_err(),
            "{spec}"
        );
    }
    let notes = axgate_engine::Backend::resolve_launch(
        &b,
        &LaunchRequest::app("/Applications/Notes.app"),
        &mut ctx(),
    )
    .unwrap();
    assert_eq!(notes.name, "Notes");
    assert_eq!(notes.bundle_id.as_deref(), Some("dev.axgate.demo.notes"));
    assert_eq!(b.launchable().len(), 11);
}

#[test]
fn quit_removes_the_app_and_a_relaunch_gets_a_new_pid() {
    let b = DemoBackend::new().with_launch_delay(Duration::ZERO);
    let seen = record(&b);
    let notes = launch(&b, "Notes").unwrap();
    assert_eq!(b.list_windows(notes.pid, &mut ctx()).unwrap().len(), 1);
    let created = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.kind == ChangeKind::WindowCreated)
        .count();
    assert_eq!(created, 1);
    b.quit_app(notes.pid, false, &mut ctx()).unwrap();
    assert!(!running(&b).contains(&"Notes".to_owned()));
    let exited: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.kind == ChangeKind::AppExited)
        .map(|e| e.pid)
        .collect();
    assert_eq!(exited, [notes.pid]);
    let err = b.probe(notes.pid, &mut ctx()).unwrap_err();
    assert_eq!(err.kind(), "app_exited", "{err}");
    let again = launch(&b, "Notes").unwrap();
    assert_eq!(again.pid, notes.pid + 1);

    // Built-in apps quit and come back the same way, with fresh state.
    focus(&b, "Form", "name");
    type_text(&b, "Form", "Ada").unwrap();
    b.quit_app(41001, false, &mut ctx()).unwrap();
    assert_eq!(b.pid_of("Form"), None);
    let form = launch(&b, "/Applications/Form.app").unwrap();
    assert_eq!(form.pid, notes.pid + 2);
    assert_eq!(value(&b, "Form", "name"), text(""));
    assert_ne!(b.list_apps(&mut ctx()).unwrap()[0].name, "Form");
}

#[test]
fn an_editor_with_unsaved_changes_refuses_to_quit_unless_forced() {
    let b = DemoBackend::new();
    let editor = pid(&b, "Editor");
    focus(&b, "Editor", "document");
    type_text(&b, "Editor", "draft").unwrap();
    b.quit_app(editor, false, &mut ctx()).unwrap();
    assert_eq!(b.pid_of("Editor"), Some(editor));
    assert!(b.node_by_identifier("Editor", "save_changes").is_some());
    // Cancel keeps it running; asking again shows the dialog again.
    press(&b, "Editor", "save_changes_cancel").unwrap();
    b.quit_app(editor, false, &mut ctx()).unwrap();
    assert_eq!(b.pid_of("Editor"), Some(editor));
    b.quit_app(editor, true, &mut ctx()).unwrap();
    assert_eq!(b.pid_of("Editor"), None);
}

#[test]
fn dont_save_in_the_quit_dialog_lets_the_app_exit() {
    let b = DemoBackend::new();
    let seen = record(&b);
    let editor = pid(&b, "Editor");
    focus(&b, "Editor", "document");
    type_text(&b, "Editor", "draft").unwrap();
    b.quit_app(editor, false, &mut ctx()).unwrap();
    press(&b, "Editor", "dont_save").unwrap();
    assert_eq!(b.pid_of("Editor"), None);
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!((last.pid, last.kind), (editor, ChangeKind::AppExited));
}

#[test]
fn a_hung_app_ignores_quit_but_not_force() {
    let b = DemoBackend::new();
    let hung = pid(&b, "Hung");
    b.quit_app(hung, false, &mut ctx()).unwrap();
    assert_eq!(b.pid_of("Hung"), Some(hung));
    b.quit_app(hung, true, &mut ctx()).unwrap();
    assert_eq!(b.pid_of("Hung"), None);
}

#[test]
fn activate_makes_exactly_one_app_frontmost() {
    let b = DemoBackend::new();
    for app in ["Settings", "List", "Form"] {
        b.activate_app(pid(&b, app), &mut ctx()).unwrap();
        assert_eq!(frontmost(&b), [app]);
    }
    let err = b.activate_app(1, &mut ctx()).unwrap_err();
    assert_eq!(err.kind(), "app_not_found");
    // Quitting the frontmost app hands the front to another.
    b.quit_app(pid(&b, "Form"), true, &mut ctx()).unwrap();
    assert_eq!(frontmost(&b).len(), 1);
}

#[test]
fn the_clipboard_is_shared_by_every_app() {
    let b = DemoBackend::new();
    let mut c = ctx();
    assert_eq!(b.read_clipboard(&mut c).unwrap(), "");
    b.write_clipboard("über 🚀", &mut c).unwrap();
    assert_eq!(b.read_clipboard(&mut c).unwrap(), "über 🚀");
    press(&b, "Editor", "paste").unwrap();
    assert_eq!(value(&b, "Editor", "document"), text("über 🚀"));
    set(
        &b,
        "Editor",
        "document",
        AxValue::Text("from editor".into()),
    )
    .unwrap();
    press(&b, "Editor", "copy").unwrap();
    focus(&b, "Form", "name");
    key(&b, "Form", "cmd+v");
    assert_eq!(value(&b, "Form", "name"), text("from editor"));
    assert_eq!(b.read_clipboard(&mut c).unwrap(), "from editor");
}
