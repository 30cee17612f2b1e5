//! Acting, always verified. An act is bracketed by two pictures of the part of the app it
//! can affect; the engine waits for the effect (driven by the app's change events, polling
//! only as a fallback) and reports what changed. How long it waits follows the app's own
//! timing (`rhythm`): the burst of events after an act ends after a quiet the app's rhythm
//! sets, and an act without a visible effect is reported once the app has been quiet for a
//! window that grows for apps measured slow, never past the caller's bound. Events that
//! cannot be an effect (bounds changes: animations, frames moving) never reset a quiet
//! window. The actuation ladder on top of this is `ladder`.
//!
//! In a large window (from [`PARTIAL_FROM`] nodes) the pictures cover what the act can
//! change, not the whole window again: the picture before is the window's last picture
//! (`kept`) with the elements the app's events named since, and the target, re-read; the
//! picture after re-reads the elements the events after the act named (and the focus). A
//! structural change, an event naming no element or lost events take a whole picture, and so
//! does the last look before an act is reported without a visible effect.

use std::future::Future;
use std::time::{Duration, Instant};

use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::RecvError;

use super::backend::{ChangeEvent, ChangeKind, SnapshotRequest};
use super::connection::{Resolved, pick_child};
use super::diff::{Change, Picture, diff};
use super::engine::Engine;
use super::error::AxError;
use super::kept::Kept;
use super::model::{AppInfo, NodeId, Pid, RawNode};
use super::path::ElementPath;
use super::rhythm::Sample;
use super::tree;
use super::worker::CallStats;

/// Nodes a verification picture may hold per scope.
const PICTURE_BUDGET: usize = 3_000;
const PICTURE_DEPTH: u32 = 40;
/// The longest a burst of effect events may keep an act waiting once it started.
const SETTLE_MAX: Duration = Duration::from_millis(300);
/// From this many nodes in the picture before, the picture after an effect event re-reads
/// only the elements the events named (and the old focus), instead of the whole scope again,
/// and the window's picture is kept for the next act: gtk3-widget-factory's window pictures
/// 255 nodes in about 370 round trips (tens of milliseconds), one element costs a few.
/// Smaller scopes are pictured whole (cheap, and exact without events).
const PARTIAL_FROM: usize = 100;
/// How long the first look after an act waits for the app's first event: an app that
/// reacts says so within a few milliseconds, and a look without an event is a whole
/// picture of a large window.
const FIRST_LOOK: Duration = Duration::from_millis(5);
/// At most this many named elements are re-read one by one; more, and the whole scope is.
const PARTIAL_MAX: usize = 24;

/// What the effect events since the last look named.
#[derive(Default)]
struct Heard {
    nodes: Vec<NodeId>,
    /// An event that needs the whole scope pictured again: a structural change (children,
    /// windows, menus), an event naming no element, or events lost.
    whole: bool,
}

impl Heard {
    fn note(&mut self, event: Option<&ChangeEvent>) {
        let named = event.and_then(|e| match e.kind {
            ChangeKind::ValueChanged
            | ChangeKind::TitleChanged
            | ChangeKind::StateChanged
            | ChangeKind::FocusChanged => e.node,
            _ => None,
        });
        match named {
            Some(id) if self.nodes.contains(&id) => {}
            Some(id) if self.nodes.len() < PARTIAL_MAX => self.nodes.push(id),
            _ => self.whole = true,
        }
    }
}

/// The part of an app an act may affect: the app's top level (windows, menus appearing)
/// plus the subtree of the target's top-level ancestor.
#[derive(Clone, Debug)]
pub struct Reach {
    top: Option<(NodeId, ElementPath)>,
    /// The element acted on, as read just before the act: always re-read when the picture
    /// is not taken whole.
    target: Option<RawNode>,
}

impl Reach {
    /// The scope of an element: its window (or other top-level ancestor).
    pub async fn of(
        engine: &Engine,
        app: &AppInfo,
        element: &Resolved,
        stats: &CallStats,
    ) -> Result<Reach, AxError> {
        let Some(first) = element.path.steps.first() else {
            return Ok(Reach::app());
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
        Ok(Reach {
            target: top.is_some().then(|| element.node.clone()),
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
    pub fn app() -> Reach {
        Reach {
            top: None,
            target: None,
        }
    }
}

/// A bounded picture of the scope.
pub async fn picture(
    engine: &Engine,
    app: &AppInfo,
    scope: &Reach,
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

/// An act under watch: the app's events, subscribed before the first picture, and that
/// picture. Acts (one, or the rungs of a ladder) run between [`Watch::start`] and the waits;
/// [`Watch::keep`] leaves the last picture for the next act in a large window.
pub struct Watch {
    events: Receiver<ChangeEvent>,
    before: Picture,
    /// The picture before came from the window's kept picture, not a whole reading.
    from_kept: bool,
    /// The last picture taken after the act.
    last: Option<Picture>,
}

impl Watch {
    /// Subscribes to the app's events, then takes the picture before the act: the window's
    /// kept picture brought up to date when it can be, else a whole one.
    pub async fn start(
        engine: &Engine,
        app: &AppInfo,
        scope: &Reach,
        stats: &CallStats,
    ) -> Result<Watch, AxError> {
        let events = engine.subscribe();
        let (before, from_kept) = match kept_before(engine, app, scope, stats).await? {
            Some(before) => (before, true),
            None => (picture(engine, app, scope, stats).await?, false),
        };
        Ok(Watch {
            events,
            before,
            from_kept,
            last: None,
        })
    }

    /// Leaves the last picture after the act, with the events since, for the next act in
    /// the same large window.
    pub fn keep(self, engine: &Engine, app: &AppInfo, scope: &Reach) {
        let (Some((window, _)), Some(picture)) = (&scope.top, self.last) else {
            return;
        };
        if picture.len() < PARTIAL_FROM {
            return;
        }
        let kept = Kept {
            picture,
            events: self.events,
            taken: Instant::now(),
        };
        engine.kept().keep(app.pid, *window, kept);
    }

    /// Waits for the effect of an act that ran at `acted_at`: until the scope shows a change
    /// (then until the app's burst of events is over, and looks once more), or the app has
    /// sent no effect event for its unverified window (it settled and nothing visible came of
    /// the act), or `wait` has passed since the act. Returns the changes since the picture
    /// before (empty: no observable effect).
    pub async fn effect(
        &mut self,
        engine: &Engine,
        app: &AppInfo,
        scope: &Reach,
        stats: &CallStats,
        wait: Duration,
        acted_at: Instant,
    ) -> Result<Vec<Change>, AxError> {
        let pid = app.pid;
        let windows = engine.rhythms().windows(pid, wait);
        let deadline = acted_at + wait;
        let mut heard = Heard::default();
        let mut first_heard = drain(&mut self.events, pid, &mut heard).then(Instant::now);
        if first_heard.is_none()
            && next_effect_event(&mut self.events, pid, FIRST_LOOK.min(wait), &mut heard).await
        {
            first_heard = Some(Instant::now());
        }
        let mut fresh = first_heard.is_some();
        let mut last_heard = first_heard.unwrap_or(acted_at);
        let mut gap = Duration::ZERO;
        let mut delay = FIRST_LOOK;
        loop {
            // The app said it changed: let its burst end before looking, so one picture
            // shows the whole effect. Without a word from it, look (polling).
            let polled = !std::mem::take(&mut fresh);
            if !polled {
                gap = gap.max(settle(&mut self.events, pid, windows.settle, &mut heard).await);
            }
            let heard_now = std::mem::take(&mut heard);
            let Some(after) = self
                .after(engine, app, scope, stats, heard_now, polled)
                .await?
            else {
                self.last = None;
                return Ok(diff(&self.before, &Picture::default()));
            };
            let changes = diff(&self.before, &after);
            if !changes.is_empty() {
                let polled = first_heard.is_none();
                let seen = first_heard.unwrap_or_else(Instant::now);
                engine.rhythms().record(
                    pid,
                    Sample {
                        latency: seen.saturating_duration_since(acted_at),
                        gap,
                    },
                );
                if !polled {
                    self.last = Some(after);
                    return Ok(changes);
                }
                // Found by polling, without an event: the app may still be at it.
                settle(&mut self.events, pid, windows.settle, &mut heard).await;
                let heard_now = std::mem::take(&mut heard);
                let after = self
                    .after(engine, app, scope, stats, heard_now, true)
                    .await?
                    .unwrap_or_default();
                let changes = diff(&self.before, &after);
                self.last = Some(after);
                return Ok(changes);
            }
            self.last = Some(after);
            let now = Instant::now();
            let quiet = now.duration_since(last_heard);
            if now >= deadline || quiet >= windows.unverified {
                if !self.from_kept {
                    return Ok(Vec::new());
                }
                // The looks in a kept picture re-read what the events named, the target and
                // the focus; before saying "no effect" the window is looked at whole once, so
                // an effect that sent no event is still seen (and the next act is not the
                // second of a climb that missed it).
                let after = after_act(picture(engine, app, scope, stats).await)?;
                let changes = diff(&self.before, after.as_ref().unwrap_or(&Picture::default()));
                self.last = after;
                return Ok(changes);
            }
            let limit = delay.min(deadline - now).min(windows.unverified - quiet);
            if next_effect_event(&mut self.events, pid, limit, &mut heard).await {
                let now = Instant::now();
                last_heard = now;
                first_heard.get_or_insert(now);
                fresh = true;
            }
            delay = (delay * 2).min(Duration::from_millis(100));
        }
    }

    /// A picture after the act; `None` when the scope (or the app) is gone, which is then
    /// the effect. A small scope is pictured whole (cheap, and exact without events). In a
    /// large one the picture before is brought up to date with the elements `heard` named
    /// and the focus, and, when it came from the kept picture, the target (which may change
    /// without an event); events that cannot say what changed take a whole picture, and so
    /// does a change found by `polled` looking in a picture that was read whole (the change
    /// may be anywhere).
    async fn after(
        &self,
        engine: &Engine,
        app: &AppInfo,
        scope: &Reach,
        stats: &CallStats,
        heard: Heard,
        polled: bool,
    ) -> Result<Option<Picture>, AxError> {
        let partial = if self.from_kept {
            !heard.whole
        } else {
            !heard.whole && !polled && !heard.nodes.is_empty() && self.before.len() >= PARTIAL_FROM
        };
        if partial {
            let mut after = self.before.clone();
            // A focus event names the new focus only: the old one is re-read too.
            let mut ids = heard.nodes;
            let target = scope.target.as_ref().filter(|_| self.from_kept);
            for id in self
                .before
                .focused()
                .into_iter()
                .chain(target.map(|t| t.id))
            {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            if reread(engine, app, stats, &mut after, &ids).await? {
                return Ok(Some(after));
            }
        }
        after_act(picture(engine, app, scope, stats).await)
    }

    /// What changed since the picture before, looked at once, now: a late effect of an act
    /// whose wait ended without one.
    pub async fn changed_since(
        &mut self,
        engine: &Engine,
        app: &AppInfo,
        scope: &Reach,
        stats: &CallStats,
    ) -> Result<Vec<Change>, AxError> {
        let mut heard = Heard::default();
        if self.from_kept {
            drain(&mut self.events, app.pid, &mut heard);
        }
        let after = self
            .after(engine, app, scope, stats, heard, true)
            .await?
            .unwrap_or_default();
        let changes = diff(&self.before, &after);
        self.last = Some(after);
        Ok(changes)
    }
}

/// The window's kept picture brought up to date for an act: the elements the app's events
/// named since it was taken, and the target, re-read. `None` when there is none, or the
/// events cannot say what changed (structure, no element named, events lost, too many).
async fn kept_before(
    engine: &Engine,
    app: &AppInfo,
    scope: &Reach,
    stats: &CallStats,
) -> Result<Option<Picture>, AxError> {
    let (Some((window, _)), Some(target)) = (&scope.top, &scope.target) else {
        return Ok(None);
    };
    let Some(mut kept) = engine.kept().take(app.pid, *window) else {
        return Ok(None);
    };
    let mut heard = Heard::default();
    drain(&mut kept.events, app.pid, &mut heard);
    let mut picture = kept.picture;
    // The target as the act's caller just read it: the freshest state there is.
    if heard.whole || !picture.update(target.clone()) {
        return Ok(None);
    }
    // A focus event names the new focus only: the focus the picture holds is re-read too.
    let mut ids = heard.nodes;
    for id in picture.focused() {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let fresh = reread(engine, app, stats, &mut picture, &ids).await?;
    Ok(fresh.then_some(picture))
}

/// Re-reads the elements `ids` into `picture`; false when one of them is gone or not in it
/// (the picture must then be taken whole).
async fn reread(
    engine: &Engine,
    app: &AppInfo,
    stats: &CallStats,
    picture: &mut Picture,
    ids: &[NodeId],
) -> Result<bool, AxError> {
    for &id in ids {
        let request = SnapshotRequest {
            root: Some(id),
            max_depth: 0,
            max_nodes: 1,
            skip_children: 0,
        };
        match engine
            .snapshot(app, request, engine.deadline(), stats)
            .await
        {
            Ok(one) => match one.nodes.into_iter().next() {
                Some(node) if node.id == id => {
                    if !picture.update(node) {
                        return Ok(false);
                    }
                }
                _ => return Ok(false),
            },
            Err(AxError::Stale { .. } | AxError::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Runs `act`, then waits for its effect ([`Watch::effect`]). Returns the changes (empty: no
/// observable effect).
pub async fn act_and_observe<F, Fut>(
    engine: &Engine,
    app: &AppInfo,
    scope: &Reach,
    stats: &CallStats,
    wait: Duration,
    act: F,
) -> Result<Vec<Change>, AxError>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<(), AxError>>,
{
    let mut watch = Watch::start(engine, app, scope, stats).await?;
    act().await?;
    let acted_at = Instant::now();
    let changes = watch
        .effect(engine, app, scope, stats, wait, acted_at)
        .await?;
    watch.keep(engine, app, scope);
    Ok(changes)
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
pub async fn next_event(events: &mut Receiver<ChangeEvent>, pid: Pid, limit: Duration) -> bool {
    next_matching(events, pid, limit, |_| true).await.is_some()
}

/// Whether an event may be the effect of an act. Bounds changes are not: animations and
/// frames moving send them continuously, and a change of place or size an act causes shows
/// in the picture without them.
fn may_be_effect(kind: ChangeKind) -> bool {
    kind != ChangeKind::BoundsChanged
}

/// Waits for an event of `pid` that may be an act's effect, at most `limit`; notes it.
async fn next_effect_event(
    events: &mut Receiver<ChangeEvent>,
    pid: Pid,
    limit: Duration,
    heard: &mut Heard,
) -> bool {
    match next_matching(events, pid, limit, may_be_effect).await {
        Some(event) => {
            heard.note(event.as_ref());
            true
        }
        None => false,
    }
}

/// The next wanted event of `pid` within `limit`: `Some(None)` when events were lost.
async fn next_matching(
    events: &mut Receiver<ChangeEvent>,
    pid: Pid,
    limit: Duration,
    wanted: fn(ChangeKind) -> bool,
) -> Option<Option<ChangeEvent>> {
    let until = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(until, events.recv()).await {
            Ok(Ok(e)) if e.pid == pid && wanted(e.kind) => return Some(Some(e)),
            Ok(Ok(_)) => continue,
            Ok(Err(RecvError::Lagged(_))) => return Some(None),
            Ok(Err(RecvError::Closed)) | Err(_) => return None,
        }
    }
}

/// Takes every event already queued; whether one of them may be an effect of `pid`.
fn drain(events: &mut Receiver<ChangeEvent>, pid: Pid, heard: &mut Heard) -> bool {
    let mut any = false;
    loop {
        match events.try_recv() {
            Ok(e) if e.pid == pid && may_be_effect(e.kind) => {
                heard.note(Some(&e));
                any = true;
            }
            Ok(_) => {}
            Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {
                heard.note(None);
                any = true;
            }
            Err(_) => return any,
        }
    }
}

/// Waits until the app has sent no effect event for `quiet` (bounded by [`SETTLE_MAX`]).
/// Returns the longest gap between two of its events meanwhile: the app's rhythm.
async fn settle(
    events: &mut Receiver<ChangeEvent>,
    pid: Pid,
    quiet: Duration,
    heard: &mut Heard,
) -> Duration {
    let started = Instant::now();
    let until = started + SETTLE_MAX;
    let mut last = started;
    let mut gap = Duration::ZERO;
    while Instant::now() < until && next_effect_event(events, pid, quiet, heard).await {
        let now = Instant::now();
        gap = gap.max(now.duration_since(last));
        last = now;
    }
    gap
}
