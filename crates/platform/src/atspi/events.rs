//! The event stream: registers the events the engine wants with the registry (apps only emit
//! events someone registered for), listens for them and for apps leaving the bus, and turns
//! them into [`ChangeEvent`]s (`filter.rs` decides which, and thins bounds floods). It also
//! keeps the frontmost app (the last one whose window activated).

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use atspi::zbus::{self, Connection, MessageStream};
use futures::StreamExt;

use axgate_engine::{ChangeEvent, ChangeKind, EventSink, Pid};

use super::Core;
use super::dbus::Calls;
use super::filter::{self, Debounce};

const EVENT_PREFIX: &str = "org.a11y.atspi.Event.";

/// Starts the event task on the backend's runtime (once per sink).
pub(super) fn start(core: &Arc<Core>, sink: EventSink) {
    let weak = Arc::downgrade(core);
    core.rt.handle().spawn(run(weak, sink));
}

async fn run(core: Weak<Core>, sink: EventSink) {
    loop {
        let conn = {
            let Some(core) = core.upgrade() else { return };
            core.bus.get_async().await
        };
        match conn {
            Ok(conn) => {
                if let Err(e) = listen(&core, &conn, &sink).await {
                    tracing::warn!(error = %e, "AT-SPI event stream ended; reconnecting");
                }
            }
            Err(e) => tracing::debug!(error = %e, "no accessibility bus yet for events"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        if core.strong_count() == 0 {
            return;
        }
    }
}

async fn listen(core: &Weak<Core>, conn: &Connection, sink: &EventSink) -> Result<(), zbus::Error> {
    let mut streams = Vec::new();
    for iface in ["Object", "Window", "Focus"] {
        let rule = format!("type='signal',interface='{EVENT_PREFIX}{iface}'");
        streams.push(MessageStream::for_match_rule(rule.as_str(), conn, Some(4096)).await?);
    }
    let owners = "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'";
    streams.push(MessageStream::for_match_rule(owners, conn, Some(1024)).await?);
    let calls = Calls::new(conn);
    let mut merged = futures::stream::select_all(streams);
    let mut state = State::default();
    while let Some(msg) = merged.next().await {
        let Ok(msg) = msg else { continue };
        let Some(core) = core.upgrade() else {
            return Ok(());
        };
        for event in state.handle(&core, &calls, &msg).await {
            sink(event);
        }
    }
    Ok(())
}

/// What the event task remembers between messages.
#[derive(Default)]
struct State {
    pids: HashMap<String, Pid>,
    debounce: Debounce,
}

impl State {
    async fn pid_of(&mut self, core: &Core, calls: &Calls<'_>, bus: &str) -> Option<Pid> {
        if let Some(pid) = core
            .apps
            .pid_of_bus(bus)
            .or_else(|| self.pids.get(bus).copied())
        {
            return Some(pid);
        }
        let pid: u32 = calls
            .call(
                &("org.freedesktop.DBus", "/org/freedesktop/DBus"),
                "org.freedesktop.DBus",
                "GetConnectionUnixProcessID",
                &(bus,),
            )
            .await
            .ok()?;
        self.pids.insert(bus.to_owned(), pid);
        Some(pid)
    }

    async fn handle(
        &mut self,
        core: &Core,
        calls: &Calls<'_>,
        msg: &zbus::Message,
    ) -> Vec<ChangeEvent> {
        let header = msg.header();
        let member = header.member().map(|m| m.as_str()).unwrap_or_default();
        if member == "NameOwnerChanged" {
            return self.owner_changed(core, msg);
        }
        let Some(iface) = header
            .interface()
            .and_then(|i| i.as_str().strip_prefix(EVENT_PREFIX))
        else {
            return Vec::new();
        };
        let (Some(sender), Some(path)) = (header.sender(), header.path()) else {
            return Vec::new();
        };
        let (sender, path) = (sender.as_str().to_owned(), path.as_str().to_owned());
        let (kind, detail1) = event_args(msg);
        let Some(change) = filter::classify(iface, member, &kind, detail1) else {
            return Vec::new();
        };
        let Some(pid) = self.pid_of(core, calls, &sender).await else {
            return Vec::new();
        };
        if iface == "Window" && member == "Activate" {
            core.apps.set_frontmost(pid);
        }
        if !self.debounce.admit(pid, change, Instant::now()) {
            return Vec::new();
        }
        vec![ChangeEvent {
            pid,
            node: core.ids.known(&sender, &path),
            kind: change,
        }]
    }

    /// An app's connection left the bus: it exited.
    fn owner_changed(&mut self, core: &Core, msg: &zbus::Message) -> Vec<ChangeEvent> {
        let Ok((name, _old, new)) = msg.body().deserialize::<(String, String, String)>() else {
            return Vec::new();
        };
        if !new.is_empty() || !name.starts_with(':') {
            return Vec::new();
        }
        let pid = core
            .apps
            .pid_of_bus(&name)
            .or_else(|| self.pids.remove(&name));
        core.apps.forget_bus(&name);
        core.ids.forget_bus(&name);
        let Some(pid) = pid else {
            return Vec::new();
        };
        self.debounce.forget(pid);
        vec![ChangeEvent {
            pid,
            node: None,
            kind: ChangeKind::AppExited,
        }]
    }
}

/// The first two arguments of an AT-SPI event signal (`siiv…`): kind and detail1.
fn event_args(msg: &zbus::Message) -> (String, i32) {
    let body = msg.body();
    let Ok(fields) = body.deserialize::<zbus::zvariant::Structure<'_>>() else {
        return (String::new(), 0);
    };
    let fields = fields.fields();
    let kind = match fields.first() {
        Some(zbus::zvariant::Value::Str(s)) => s.as_str().to_owned(),
        _ => String::new(),
    };
    let detail1 = match fields.get(1) {
        Some(zbus::zvariant::Value::I32(n)) => *n,
        _ => 0,
    };
    (kind, detail1)
}
