//! The actuation ladder of `click`: the rungs an element offers (semantic press, synthetic
//! pointer, select, set value), each performed on its own, and the climb. An act happens
//! once: a rung whose API reported success is not followed by another one (its effect may
//! only be late: a network call, a slow app; acting again would submit twice), unless the
//! caller asked for the fallback. A rung the API refused (no such action, nothing of the app
//! under the point) gives way to the next. With the fallback, an effect that shows up before
//! the next rung runs is attributed to the rung that caused it, and the climb stops there.

use std::future::Future;
use std::time::{Duration, Instant};

use super::act::{Reach, Watch};
use super::backend::{Gesture, Pointer, SnapshotRequest};
use super::capabilities::{Capability, lacks};
use super::connection::Resolved;
use super::diff::Change;
use super::engine::Engine;
use super::error::AxError;
use super::keys::Modifiers;
use super::model::{AppInfo, AxValue, Role};
use super::worker::CallStats;

/// Whether a rung that ran without a visible effect is followed by the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Climb {
    /// The first rung the API accepts is the act, seen or not.
    Once,
    /// Rungs that ran without a visible effect are followed by the next (the caller accepts
    /// that a late effect may make the element act twice).
    Fallback,
}

/// How a climb ended.
#[derive(Debug)]
pub struct Climbed {
    /// The rung that acted last (whose effect `changes` shows, if any); `None` when every
    /// rung was refused.
    pub rung: Option<Rung>,
    /// What changed (empty: no observable effect).
    pub changes: Vec<Change>,
    /// Each rung tried before the last and what came of it: `press (no effect)`,
    /// `pointer (unsupported)`.
    pub tried: Vec<String>,
    /// The effect showed only after the rung's wait, before the next rung ran.
    pub late: bool,
}

/// Climbs `rungs` on `element`: each is performed by `perform`, its effect awaited for up to
/// `wait` (the app's own windows, see `act`). Errors that end the act (timeouts, the app
/// exited) end the climb; other refusals give way to the next rung.
#[allow(clippy::too_many_arguments)]
pub async fn climb<P, Fut>(
    engine: &Engine,
    app: &AppInfo,
    scope: &Reach,
    stats: &CallStats,
    wait: Duration,
    rungs: &[Rung],
    mode: Climb,
    mut perform: P,
) -> Result<Climbed, AxError>
where
    P: FnMut(Rung) -> Fut,
    Fut: Future<Output = Result<(), AxError>>,
{
    let mut watch = Watch::start(engine, app, scope, stats).await?;
    let mut tried = Vec::new();
    let mut acted: Option<Rung> = None;
    for &rung in rungs {
        if let Some(previous) = acted {
            // The last look before acting again: a late effect belongs to the rung before.
            let changes = watch.changed_since(engine, app, scope, stats).await?;
            if !changes.is_empty() {
                tried.pop();
                watch.keep(engine, app, scope);
                return Ok(Climbed {
                    rung: Some(previous),
                    changes,
                    tried,
                    late: true,
                });
            }
        }
        match perform(rung).await {
            Ok(()) => {}
            // A backend that cannot act at all (a replay) refuses every rung alike, and a hover
            // or long press has the pointer rung only: say so.
            Err(e)
                if e.is_timeout()
                    || matches!(e, AxError::AppExited { .. })
                    || [Capability::Act, Capability::Hover, Capability::Press]
                        .iter()
                        .any(|cap| lacks(&e, *cap)) =>
            {
                return Err(e);
            }
            Err(e) => {
                tried.push(format!("{} ({})", rung.as_str(), e.kind()));
                continue;
            }
        }
        let acted_at = Instant::now();
        acted = Some(rung);
        let changes = watch
            .effect(engine, app, scope, stats, wait, acted_at)
            .await?;
        if !changes.is_empty() {
            watch.keep(engine, app, scope);
            return Ok(Climbed {
                rung: Some(rung),
                changes,
                tried,
                late: false,
            });
        }
        tried.push(format!("{} (no effect)", rung.as_str()));
        if mode == Climb::Once {
            break;
        }
    }
    watch.keep(engine, app, scope);
    Ok(Climbed {
        rung: acted,
        changes: Vec::new(),
        tried,
        late: false,
    })
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
    let request = SnapshotRequest::below(target, 8, 500);
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

/// Performs one rung on an element; the pointer rung makes `gesture` (a click, a long press)
/// at the element's click point with `held` down.
pub async fn perform_rung(
    engine: &Engine,
    app: &AppInfo,
    element: &Resolved,
    rung: Rung,
    gesture: Gesture,
    held: Modifiers,
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
            let act = Pointer::new(point, gesture).holding(held);
            engine
                .run(app, stats, gesture.as_str(), move |b, ctx| {
                    b.pointer(pid, &act, ctx)
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
