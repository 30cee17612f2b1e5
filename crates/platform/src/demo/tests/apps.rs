//! Loading the built-in apps, their data, and bounded snapshots.

use std::time::Instant;

use super::*;
use crate::demo::spec::{self, ChildSpec, Effect, NodeSpec};
use crate::demo::tree::AppTree;
use axgate_engine::{Role, SnapshotRequest};

#[test]
fn every_app_loads_with_its_pid_name_and_bundle_id() {
    let b = DemoBackend::new();
    let apps = b.list_apps(&mut ctx()).unwrap();
    let got: Vec<(u32, &str, Option<&str>)> = apps
        .iter()
        .map(|a| (a.pid, a.name.as_str(), a.bundle_id.as_deref()))
        .collect();
    let expected = [
        (41001, "Form", "dev.axgate.demo.form"),
        (41002, "Editor", "dev.axgate.demo.editor"),
        (41003, "Huge", "dev.axgate.demo.huge"),
        (41004, "Hung", "dev.axgate.demo.hung"),
        (41005, "Settings", "dev.axgate.demo.settings"),
        (41006, "List", "dev.axgate.demo.list"),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(p, n, id)| (*p, *n, Some(*id)))
        .collect();
    assert_eq!(got, expected);
    for (_, name, _) in &got {
        assert!(b.node_count(name).unwrap() > 2, "{name} has no window");
    }
    assert!(apps.iter().all(|a| a.started_at > 1_600_000_000));
    assert_eq!(apps.iter().filter(|a| a.frontmost).count(), 1);
}

#[test]
fn huge_has_at_least_20000_nodes() {
    let b = DemoBackend::new();
    let count = b.node_count("Huge").unwrap();
    assert!(count >= 20_000, "{count}");
    let snap = snapshot(&b, "Huge", u32::MAX, usize::MAX);
    assert_eq!(snap.nodes.len(), count);
    assert!(!snap.truncated);
}

#[test]
fn snapshots_honour_depth_and_node_budget() {
    let b = DemoBackend::new();
    // (app, max_depth, max_nodes, nodes, truncated)
    let cases = [
        ("Form", 0, 100, 1, false),
        ("Form", 1, 100, 2, false),
        ("Form", 2, 100, 13, false),
        ("Form", 9, 5, 5, true),
        ("Editor", 1, 100, 3, false),
        ("Huge", 2, 100, 3, false),
        ("Huge", 4, 50, 50, true),
        ("Huge", 3, 1000, 203, false),
        ("Form", 3, 0, 0, true),
    ];
    for (app, depth, budget, len, truncated) in cases {
        let snap = snapshot(&b, app, depth, budget);
        let what = format!("{app} depth {depth} budget {budget}");
        assert_eq!(snap.nodes.len(), len, "{what}");
        assert_eq!(snap.truncated, truncated, "{what}");
    }
}

#[test]
fn snapshots_are_preorder_with_parent_indices_and_child_counts() {
    let b = DemoBackend::new();
    let mut ctx = ctx();
    let request = SnapshotRequest {
        root: None,
        max_depth: 10,
        max_nodes: 1000,
        skip_children: 0,
    };
    let snap = b.snapshot(pid(&b, "Form"), &request, &mut ctx).unwrap();
    assert_eq!(ctx.round_trips(), snap.nodes.len() as u64);
    let root = &snap.nodes[0];
    assert_eq!(
        (root.role, root.title.as_deref()),
        (Role::Application, Some("Form"))
    );
    assert_eq!(root.parent, None);
    for (i, node) in snap.nodes.iter().enumerate().skip(1) {
        let parent = node.parent.expect("non-root nodes have a parent");
        assert!(parent < i, "parent after child at {i}");
        let children = snap
            .nodes
            .iter()
            .filter(|n| n.parent == Some(parent))
            .count();
        assert_eq!(snap.nodes[parent].child_count, children);
    }
    let password = snap
        .nodes
        .iter()
        .find(|n| n.role == Role::SecureTextField)
        .unwrap();
    assert!(password.states.secure);
    assert_eq!(password.native_role, "AXTextField");
    assert_eq!(password.subrole.as_deref(), Some("AXSecureTextField"));
}

#[test]
fn a_snapshot_from_a_node_starts_there_and_a_dead_node_is_stale() {
    let b = DemoBackend::new();
    let window = id(&b, "Form", "form_window");
    let request = SnapshotRequest {
        root: Some(window),
        max_depth: 0,
        max_nodes: 10,
        skip_children: 0,
    };
    let snap = b.snapshot(pid(&b, "Form"), &request, &mut ctx()).unwrap();
    assert_eq!(snap.nodes.len(), 1);
    assert_eq!(snap.nodes[0].id, window);
    assert_eq!(snap.nodes[0].child_count, 11);

    let dead = SnapshotRequest {
        root: Some(NodeId(7)),
        ..request
    };
    let err = b.snapshot(pid(&b, "Form"), &dead, &mut ctx()).unwrap_err();
    assert_eq!(err.kind(), "stale", "{err}");
}

#[test]
fn a_snapshot_past_its_deadline_stops_truncated() {
    let b = DemoBackend::new();
    let request = SnapshotRequest {
        root: None,
        max_depth: u32::MAX,
        max_nodes: usize::MAX,
        skip_children: 0,
    };
    let mut late = CallCtx::new(Instant::now());
    let snap = b.snapshot(pid(&b, "Huge"), &request, &mut late).unwrap();
    assert!(snap.truncated);
    assert!(snap.nodes.is_empty());
}

#[test]
fn ids_are_never_reused_after_removal() {
    let b = DemoBackend::new();
    press(&b, "Form", "color").unwrap();
    let first = id(&b, "Form", "color_green");
    press(&b, "Form", "color_green").unwrap();
    press(&b, "Form", "color").unwrap();
    let second = id(&b, "Form", "color_green");
    assert_ne!(first, second);
    let err = b
        .perform_action(pid(&b, "Form"), first, "press", &mut ctx())
        .unwrap_err();
    assert_eq!(err.kind(), "stale", "{err}");
    assert_ne!(id(&b, "Form", "name"), id(&b, "Editor", "document"));
}

/// Every effect's named target exists in the app or in one of its templates.
#[test]
fn every_effect_target_exists() {
    for (file, text) in spec::BUILT_IN.iter().chain(spec::LAUNCHABLE) {
        let app = spec::parse_app(file, text).unwrap();
        let mut tree = AppTree::build(&app, 1, 1, Default::default(), true).unwrap();
        let root = tree.root();
        for name in app.templates.keys() {
            tree.instantiate_template(name, root).unwrap();
        }
        let known = |ident: &str| ident == "self" || tree.find_identifier(ident).is_some();
        let mut effects = Vec::new();
        collect_effects(&app.children, &mut effects);
        for template in app.templates.values() {
            collect_node_effects(template, &mut effects);
        }
        for effect in effects {
            for target in targets(&effect) {
                assert!(known(target), "{file}: {effect:?} names {target:?}");
            }
            if let Effect::Open { template, .. }
            | Effect::OpenMenu {
                template: Some(template),
                ..
            } = &effect
            {
                assert!(app.templates.contains_key(template), "{file}: {effect:?}");
            }
        }
    }
}

fn collect_effects(children: &[ChildSpec], out: &mut Vec<Effect>) {
    for child in children {
        match child {
            ChildSpec::Node(node) => collect_node_effects(node, out),
            ChildSpec::Repeat { repeat } => collect_effects(&repeat.nodes, out),
            ChildSpec::Template { .. } => {}
        }
    }
}

fn collect_node_effects(node: &NodeSpec, out: &mut Vec<Effect>) {
    out.extend(node.on.values().flatten().cloned());
    collect_effects(&node.children, out);
}

fn targets(effect: &Effect) -> Vec<&str> {
    effect.named().into_iter().collect()
}

#[test]
fn bad_app_data_is_reported_with_its_location() {
    let cases = [
        (
            r#"{"name": "X", "bundle_id": "x", "children": [{"role": "buton"}]}"#,
            "buton",
        ),
        (
            r#"{"name": "X", "bundle_id": "x", "children": [{"role": "button", "on": {"press": []}}]}"#,
            "neither an action",
        ),
    ];
    for (text, expected) in cases {
        let err = spec::parse_app("bad.json", text)
            .and_then(|app| AppTree::build(&app, 1, 1, Default::default(), true).map(|_| ()))
            .unwrap_err();
        assert!(err.contains(expected), "{err}");
    }
    let err = spec::parse_app("bad.json", r#"{"name": "X"}"#).unwrap_err();
    assert!(
        err.contains("bad.json") && err.contains("bundle_id"),
        "{err}"
    );
}
