//! `resources/subscribe` and `resources/unsubscribe` for one session, and the session's
//! pump: one task that listens to the engine's change events, maps each event to the
//! session's subscribed URIs, debounces per URI, and sends `notifications/resources/updated`
//! through that session's own peer — never to another session. A sessionless
//! `subscriptions/listen` (2026-07-28) uses the same registry and pump, with the listen
//! request's own stream as the [`Notifier`].
//!
//! An app URI is bound to the app's pid when subscribed (an app relaunched under a new pid
//! needs a new subscription); `axgate://apps` changes when an app exits or a pid never seen
//! before reports an event. A lagging receiver means events were lost: every subscribed URI
//! is then treated as changed. The pump is started by the first subscription and stopped
//! when the session's state is dropped (a `DropGuard` on its cancellation token).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, SubscriptionSink};
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::uri::{ResourceUri, app_error};
use axgate_engine::{CallStats, ChangeEvent, ChangeKind, Engine, Pid};

/// How notifications are coalesced: one is sent once a URI has been quiet for `quiet`, or
/// `max_delay` after its first unsent change, whichever comes first.
#[derive(Clone, Copy, Debug)]
pub struct Debounce {
    pub quiet: Duration,
    pub max_delay: Duration,
}

impl Default for Debounce {
    fn default() -> Self {
        Debounce {
            quiet: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        }
    }
}

/// What a subscribed URI watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Watched {
    Apps,
    App(Pid),
}

/// The subscribed URIs, shared between the session and its pump.
#[derive(Default)]
struct Registry {
    uris: HashMap<String, Watched>,
    /// Pids known to be running, for `axgate://apps`: seeded when it is subscribed.
    known: HashSet<Pid>,
}

impl Registry {
    /// The subscribed URIs an event may have changed.
    fn affected(&mut self, event: &ChangeEvent) -> Vec<String> {
        let apps_changed = if event.kind == ChangeKind::AppExited {
            self.known.remove(&event.pid);
            true
        } else {
            self.known.insert(event.pid)
        };
        self.uris
            .iter()
            .filter(|(_, scope)| match scope {
                Watched::Apps => apps_changed,
                Watched::App(pid) => *pid == event.pid,
            })
            .map(|(uri, _)| uri.clone())
            .collect()
    }
}

/// Where notifications of changed URIs go.
#[derive(Clone)]
pub enum Notifier {
    /// `resources/subscribe` (2025-11-25): the session's peer, onto its GET stream.
    Peer(Peer<RoleServer>),
    /// `subscriptions/listen` (2026-07-28): the listen request's own stream; the sink adds
    /// the subscription id and keeps to the acknowledged filter.
    Listen(SubscriptionSink),
}

impl Notifier {
    /// Sends `notifications/resources/updated` for `uri`; false once the receiver is gone.
    async fn updated(&self, uri: String) -> bool {
        match self {
            Notifier::Peer(peer) => peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await
                .is_ok(),
            Notifier::Listen(sink) => sink.notify_resource_updated(uri).await.is_ok(),
        }
    }
}

/// One session's subscriptions. Dropping it stops the pump.
#[derive(Default)]
pub struct Subscriptions {
    registry: Arc<Mutex<Registry>>,
    pump: Mutex<Option<DropGuard>>,
}

impl Subscriptions {
    /// Subscribes this session to `uri`; notifications go to `notifier`.
    pub async fn subscribe(
        &self,
        engine: &Engine,
        uri: &str,
        notifier: Notifier,
    ) -> Result<(), McpError> {
        let stats = CallStats::default();
        let scope = match ResourceUri::parse(uri)? {
            ResourceUri::Apps => {
                let apps = engine
                    .list_apps(&stats)
                    .await
                    .map_err(|e| app_error(uri, e))?;
                lock(&self.registry).known = apps.iter().map(|a| a.pid).collect();
                Watched::Apps
            }
            ResourceUri::SessionAudit => {
                return Err(McpError::invalid_params(
                    format!("{uri} is read, not subscribed: read it again when you need it"),
                    None,
                ));
            }
            ResourceUri::App { app, .. } => {
                let app = engine
                    .resolve_app(&app, &stats)
                    .await
                    .map_err(|e| app_error(uri, e))?;
                Watched::App(app.pid)
            }
        };
        lock(&self.registry).uris.insert(uri.to_owned(), scope);
        self.start_pump(engine, notifier, Debounce::default());
        Ok(())
    }

    /// Ends the subscription to `uri`; unsubscribing what is not subscribed is not an error.
    pub fn unsubscribe(&self, uri: &str) {
        lock(&self.registry).uris.remove(uri);
    }

    fn start_pump(&self, engine: &Engine, notifier: Notifier, debounce: Debounce) {
        let mut pump = lock(&self.pump);
        if pump.is_some() {
            return;
        }
        let token = CancellationToken::new();
        let notify = move |uri: String| {
            let notifier = notifier.clone();
            async move { notifier.updated(uri).await }
        };
        tokio::spawn(run_pump(
            engine.subscribe(),
            self.registry.clone(),
            token.clone(),
            debounce,
            notify,
        ));
        *pump = Some(token.drop_guard());
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A URI with changes not yet notified.
#[derive(Clone, Copy)]
struct Pending {
    first: Instant,
    last: Instant,
}

impl Pending {
    fn due(&self, debounce: Debounce) -> Instant {
        (self.last + debounce.quiet).min(self.first + debounce.max_delay)
    }
}

/// The pump: runs until `token` is cancelled, the engine's channel closes, or `notify`
/// reports that the session's peer is gone. Holds no reference to the session itself.
async fn run_pump<N, F>(
    mut events: broadcast::Receiver<ChangeEvent>,
    registry: Arc<Mutex<Registry>>,
    token: CancellationToken,
    debounce: Debounce,
    mut notify: N,
) where
    N: FnMut(String) -> F,
    F: Future<Output = bool>,
{
    let mut pending: HashMap<String, Pending> = HashMap::new();
    loop {
        let next = pending.values().map(|p| p.due(debounce)).min();
        let changed: Vec<String> = tokio::select! {
            () = token.cancelled() => return,
            received = events.recv() => match received {
                Ok(event) => lock(&registry).affected(&event),
                // Events were lost: anything subscribed may have changed.
                Err(RecvError::Lagged(_)) => lock(&registry).uris.keys().cloned().collect(),
                Err(RecvError::Closed) => return,
            },
            () = sleep_until(next), if next.is_some() => {
                let now = Instant::now();
                let due: Vec<String> = pending
                    .iter()
                    .filter(|(_, p)| p.due(debounce) <= now)
                    .map(|(uri, _)| uri.clone())
                    .collect();
                for uri in due {
                    pending.remove(&uri);
                    // Unsubscribed meanwhile: stay silent.
                    let subscribed = lock(&registry).uris.contains_key(&uri);
                    if subscribed && !notify(uri).await {
                        return;
                    }
                }
                Vec::new()
            }
        };
        let now = Instant::now();
        for uri in changed {
            pending
                .entry(uri)
                .and_modify(|p| p.last = now)
                .or_insert(Pending {
                    first: now,
                    last: now,
                });
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axgate_engine::NodeId;
    use tokio::sync::mpsc;

    fn event(pid: Pid, kind: ChangeKind) -> ChangeEvent {
        ChangeEvent {
            pid,
            node: Some(NodeId(1)),
            kind,
        }
    }

    struct Rig {
        events: broadcast::Sender<ChangeEvent>,
        registry: Arc<Mutex<Registry>>,
        sent: mpsc::UnboundedReceiver<String>,
        token: CancellationToken,
        task: tokio::task::JoinHandle<()>,
    }

    fn rig(capacity: usize, uris: &[(&str, Watched)], known: &[Pid]) -> Rig {
        let (events, rx) = broadcast::channel(capacity);
        let registry = Arc::new(Mutex::new(Registry {
            uris: uris.iter().map(|(u, s)| ((*u).to_owned(), *s)).collect(),
            known: known.iter().copied().collect(),
        }));
        let (tx, sent) = mpsc::unbounded_channel();
        let token = CancellationToken::new();
        let debounce = Debounce {
            quiet: Duration::from_millis(50),
            max_delay: Duration::from_millis(500),
        };
        let notify = move |uri: String| {
            let ok = tx.send(uri).is_ok();
            async move { ok }
        };
        let task = tokio::spawn(run_pump(
            rx,
            registry.clone(),
            token.clone(),
            debounce,
            notify,
        ));
        Rig {
            events,
            registry,
            sent,
            token,
            task,
        }
    }

    async fn drain(rig: &mut Rig, wait: Duration) -> Vec<String> {
        tokio::time::sleep(wait).await;
        let mut out = Vec::new();
        while let Ok(uri) = rig.sent.try_recv() {
            out.push(uri);
        }
        out.sort();
        out
    }

    #[tokio::test]
    async fn a_burst_of_events_is_one_notification_for_that_app_only() {
        let mut rig = rig(
            64,
            &[("a", Watched::App(1)), ("b", Watched::App(2))],
            &[1, 2],
        );
        for _ in 0..10 {
            rig.events.send(event(1, ChangeKind::ValueChanged)).unwrap();
        }
        assert_eq!(drain(&mut rig, Duration::from_millis(300)).await, ["a"]);
        assert_eq!(
            drain(&mut rig, Duration::from_millis(150)).await,
            Vec::<String>::new()
        );
    }

    #[tokio::test]
    async fn apps_change_on_exit_and_on_new_pids_and_lag_marks_everything() {
        let uris = [("apps", Watched::Apps), ("a", Watched::App(1))];
        let mut rig = rig(4, &uris, &[1]);
        rig.events.send(event(1, ChangeKind::FocusChanged)).unwrap();
        assert_eq!(drain(&mut rig, Duration::from_millis(200)).await, ["a"]);
        rig.events
            .send(event(7, ChangeKind::WindowCreated))
            .unwrap();
        assert_eq!(drain(&mut rig, Duration::from_millis(200)).await, ["apps"]);
        rig.events.send(event(1, ChangeKind::AppExited)).unwrap();
        assert_eq!(
            drain(&mut rig, Duration::from_millis(200)).await,
            ["a", "apps"]
        );
        rig.registry.lock().unwrap().known.insert(1);
        for _ in 0..20 {
            rig.events.send(event(9, ChangeKind::ValueChanged)).unwrap();
        }
        assert_eq!(
            drain(&mut rig, Duration::from_millis(200)).await,
            ["a", "apps"]
        );
    }

    #[tokio::test]
    async fn unsubscribed_uris_stay_silent_and_cancelling_ends_the_pump() {
        let mut rig = rig(64, &[("a", Watched::App(1))], &[1]);
        rig.events.send(event(1, ChangeKind::ValueChanged)).unwrap();
        rig.registry.lock().unwrap().uris.remove("a");
        assert_eq!(
            drain(&mut rig, Duration::from_millis(200)).await,
            Vec::<String>::new()
        );
        rig.token.cancel();
        tokio::time::timeout(Duration::from_secs(2), rig.task)
            .await
            .expect("the pump ends when cancelled")
            .unwrap();
    }

    #[test]
    fn dropping_the_subscriptions_cancels_the_pump() {
        let token = CancellationToken::new();
        let subs = Subscriptions::default();
        *subs.pump.lock().unwrap() = Some(token.clone().drop_guard());
        drop(subs);
        assert!(token.is_cancelled());
    }
}
