//! Acting, always verified. An act is bracketed by two pictures of the part of the app it
//! can affect; the engine waits for the effect (driven by the app's change events, polling
//! only as a fallback) up to a deadline instead of sleeping, and reports what changed.
//! `click` with the `auto` strategy climbs the actuation ladder — semantic press, synthetic
//! pointer, select, set value — until an effect is observed, and reports the rung.

use std::future::Future;
use std::time::{Duration, Instant};

use tokio::sync::broadcast::error::RecvError;

use super::backend::{ChangeEvent, Click, MouseButton, SnapshotRequest};
use super::connection::{Resolved, pick_child};
use super::diff::{Change, Picture, diff};
use super::engine::Engine;
use super::error::AxError;
use super::model::{AppInfo, AxValue, NodeId, Pid, Role};
use super::path::ElementPath;
use super::tree;
use super::worker::CallStats;

/// Nodes a verification picture may hold per scope.
const PICTURE_BUDGET: usize = 3_000;
const PICTURE_DEPTH: u32 = 40;
/// How long effects get to settle once the first one is seen.
const SETTLE_QUIET: Duration = Duration::from_millis(30);
const SETTLE_MAX: Duration = Duration::from_millis(300);
/// How long an app that shows no effect must also stay quiet (no change events) before an act
/// is reported unverified ahead of its deadline. An effect that is invisible to the picture
/// (typing into a secure field) still sends events while the app works; once they stop, the
/// app has settled and waiting longer would show nothing new.
const UNVERIFIED_QUIET: Duration = Duration::from_millis(400);

/// The part of an app an act may affect: the app's top level (windows, menus appearing)
/// plus the subtree of the target's top-level ancestor.
#[derive(Clone, Debug)]
pub struct Scope {
    top: Option<(NodeId, ElementPath)>,
}

impl Scope {
    /// The scope of an element: its window (or other top-level ancestor).
    pub async fn of(
        engine: &Engine,
        app: &AppInfo,
        element: &Resolved,
        stats: &CallStats,
    ) -> Result<Scope, AxError> {
        let Some(first) = element.path.steps.first() else {
            return Ok(Scope { top: None });
        };
        let request = SnapshotRequest {
            root: None,
            max_depth: 1,
            max_nodes: 10_000,
            skip_children: 0,
        };
        let snapshot = engine
            .snapshot(app, request, engine.deadline(), stats)
            .await?;
        let children = snapshot.nodes.iter().filter(|n| n.parent == Some(0));
        let top = pick_child(children, first);
        Ok(Scope {
            top: top.map(|n| {
                (
                    n.id,
                    ElementPath {
                        steps: vec![first.clone()],
                    },
                )
            }),
        })
    }

    /// The whole app, bounded.
    pub fn app() -> Scope {
        Scope { top: None }
    }
}

/// A bounded picture of the scope.
pub async fn picture(
    engine: &Engine,
    app: &AppInfo,
    scope: &Scope,
    stats: &CallStats,
) -> Result<Picture, AxError> {
    let deadline = engine.deadline();
    let whole = scope.top.is_none();
    let request = SnapshotRequest {
        root: None,
        max_depth: if whole { PICTURE_DEPTH } else { 1 },
        max_nodes: PICTURE_BUDGET,
        skip_children: 0,
    };
    let snapshot = engine.snapshot(app, request, deadline, stats).await?;
    let mut nodes = tree::index(snapshot, &ElementPath::default());
    if let Some((id, path)) = &scope.top {
        let request = SnapshotRequest {
            root: Some(*id),
            max_depth: PICTURE_DEPTH,
            max_nodes: PICTURE_BUDGET,
            skip_children: 0,
        };
        match engine.snapshot(app, request, deadline, stats).await {
            Ok(sub) => {
                let sub = tree::index(sub, path);
                nodes.retain(|n| n.node.id != *id);
                nodes.extend(sub);
            }
            // The window went away: that is itself the effect, seen at the top level.
            Err(AxError::Stale { .. } | AxError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Picture::new(&nodes))
}

/// Runs `act`, then waits until the scope shows an effect, or the app has sent no change event
/// for [`UNVERIFIED_QUIET`] (it has settled, and nothing visible came of the act), or `wait`
/// passes. Returns the changes (empty: no observable effect).
pub async fn act_and_observe<F, Fut>(
    engine: &Engine,
    app: &AppInfo,
    scope: &Scope,
    stats: &CallStats,
    wait: Duration,
    act: F,
) -> Result<Vec<Change>, AxError>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<(), AxError>>,
{
    let mut events = engine.subscribe();
    let before = picture(engine, app, scope, stats).await?;
    act().await?;
    let deadline = Instant::now() + wait;
    let mut last_heard = Instant::now();
    let mut delay = Duration::from_millis(5);
    loop {
        let after = match after_act(picture(engine, app, scope, stats).await)? {
            Some(after) => after,
            None => return Ok(diff(&before, &Picture::default())),
        };
        let changes = diff(&before, &after);
        if !changes.is_empty() {
            settle(&mut events, app.pid).await;
            let after = after_act(picture(engine, app, scope, stats).await)?.unwrap_or_default();
            return Ok(diff(&before, &after));
        }
        let now = Instant::now();
        if now >= deadline || now.duration_since(last_heard) >= UNVERIFIED_QUIET {
            return Ok(Vec::new());
        }
        let quiet_left = UNVERIFIED_QUIET.saturating_sub(now.duration_since(last_heard));
        if next_event(
            &mut events,
            app.pid,
            delay.min(deadline - now).min(quiet_left),
        )
        .await
        {
            last_heard = Instant::now();
        }
        delay = (delay * 2).min(Duration::from_millis(100));
    }
}

/// A picture taken after the act ran. The act already happened, so an app that exited or a
/// scope that vanished is its effect (everything was removed), not a failure to report.
fn after_act(picture: Result<Picture, AxError>) -> Result<Option<Picture>, AxError> {
    match picture {
        Ok(p) => Ok(Some(p)),
        Err(AxError::AppExited { .. } | AxError::AppNotFound { .. } | AxError::Stale { .. }) => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Waits for a change event of `pid`, at most `limit`. Returns whether one came.
pub async fn next_event(
    events: &mut tokio::sync::broadcast::Receiver<ChangeEvent>,
    pid: Pid,
    limit: Duration,
) -> bool {
    let until = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(until, events.recv()).await {
            Ok(Ok(e)) if e.pid == pid => return true,
            Ok(Ok(_)) => continue,
            Ok(Err(RecvError::Lagged(_))) => return true,
            Ok(Err(RecvError::Closed)) | Err(_) => return false,
        }
    }
}

/// Waits until the app has been quiet for a moment (bounded).
async fn settle(events: &mut tokio::sync::broadcast::Receiver<ChangeEvent>, pid: Pid) {
    let until = Instant::now() + SETTLE_MAX;
    while Instant::now() < until && next_event(events, pid, SETTLE_QUIET).await {}
}

/// One rung of the actuation ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rung {
    Press,
    Pointer,
    Select,
    SetValue,
}

impl Rung {
    pub fn as_str(self) -> &'static str {
        match self {
            Rung::Press => "press",
            Rung::Pointer => "pointer",
            Rung::Select => "select",
            Rung::SetValue => "set_value",
        }
    }
}

/// The rungs `auto` tries for an element, in order.
pub fn ladder(element: &Resolved) -> Vec<Rung> {
    let n = &element.node;
    let mut rungs = Vec::new();
    if n.actions.iter().any(|a| a == "press") {
        rungs.push(Rung::Press);
    }
    if n.frame.is_some() && n.states.visible {
        rungs.push(Rung::Pointer);
    }
    if matches!(
        n.role,
        Role::ListItem | Role::Row | Role::Cell | Role::Tab | Role::RadioButton | Role::MenuItem
    ) {
        rungs.push(Rung::Select);
    }
    if n.role == Role::CheckBox && n.states.value_settable {
        rungs.push(Rung::SetValue);
    }
    rungs
}

/// Checks that a pointer click at `point` lands on the element (or inside it), not on
/// something painted over it or on what shows where a hidden element would be.
async fn ensure_on_top(
    engine: &Engine,
    app: &AppInfo,
    element: &Resolved,
    point: (f64, f64),
    stats: &CallStats,
) -> Result<(), AxError> {
    let pid = app.pid;
    let target = element.node.id;
    let hit = engine
        .run(app, stats, "element_at", move |b, ctx| {
            b.element_at(pid, point, ctx)
        })
        .await?;
    let Some(hit) = hit else {
        return Err(AxError::Unsupported(
            "nothing of the app is at the element's click point (another app's window may cover it, or it is off screen)".into(),
        ));
    };
    if hit == target {
        return Ok(());
    }
    let request = SnapshotRequest {
        root: Some(target),
        max_depth: 8,
        max_nodes: 500,
        skip_children: 0,
    };
    let inside = engine
        .snapshot(app, request, engine.deadline(), stats)
        .await?;
    if inside.nodes.iter().any(|n| n.id == hit) {
        Ok(())
    } else {
        Err(AxError::Unsupported(
            "another element is at the element's click point (hidden, covered or scrolled away); a pointer click would hit that one".into(),
        ))
    }
}

/// Performs one rung on an element.
pub async fn perform_rung(
    engine: &Engine,
    app: &AppInfo,
    element: &Resolved,
    rung: Rung,
    button: MouseButton,
    count: u32,
    stats: &CallStats,
) -> Result<(), AxError> {
    let pid = app.pid;
    let node = element.node.id;
    match rung {
        Rung::Press => engine.perform_action(app, node, "press", stats).await,
        Rung::Pointer => {
            let point = element
                .node
                .click_point()
                .ok_or_else(|| AxError::Unsupported("the element has no frame to click".into()))?;
            ensure_on_top(engine, app, element, point, stats).await?;
            let _input = engine.input_lock().await;
            engine
                .run(app, stats, "click_at", move |b, ctx| {
                    b.click_at(
                        pid,
                        Click {
                            point,
                            button,
                            count,
                        },
                        ctx,
                    )
                })
                .await
        }
        Rung::Select => {
            engine
                .run(app, stats, "select", move |b, ctx| b.select(pid, node, ctx))
                .await
        }
        Rung::SetValue => {
            let next = match element.node.value {
                Some(AxValue::Bool(v)) => AxValue::Bool(!v),
                Some(AxValue::Number(v)) => AxValue::Bool(v == 0.0),
                _ => AxValue::Bool(true),
            };
            engine
                .run(app, stats, "set_value", move |b, ctx| {
                    b.set_value(pid, node, &next, ctx)
                })
                .await
        }
    }
}
