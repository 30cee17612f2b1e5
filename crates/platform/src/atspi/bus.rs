//! Finding and connecting to the accessibility bus, without side effects: the session bus
//! is asked whether `org.a11y.Bus` has an owner (`NameHasOwner`) before anything calls
//! `GetAddress`, because asking for the address first auto-starts a second bus launcher.
//! Also the readiness checks and the cheap probe `--backend auto` uses.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use atspi::zbus::{self, Connection};

use axgate_engine::{AxError, CheckClass, ReadinessCheck};

use super::runtime::Rt;

const A11Y_BUS_NAME: &str = "org.a11y.Bus";
const REGISTRY_NAME: &str = "org.a11y.atspi.Registry";

/// The accessibility bus connection, opened on first use and kept.
#[derive(Default)]
pub(super) struct Bus {
    conn: Mutex<Option<Connection>>,
}

impl Bus {
    /// The connection, opening it if needed (bounded by `deadline`).
    pub(super) fn get(&self, rt: &Rt, deadline: Instant) -> Result<Connection, AxError> {
        if let Some(conn) = self.cached() {
            return Ok(conn);
        }
        let conn = rt.block("the accessibility bus", deadline, async {
            connect().await.map_err(AxError::Backend)
        })?;
        *self.conn.lock().unwrap_or_else(PoisonError::into_inner) = Some(conn.clone());
        Ok(conn)
    }

    /// The connection from async code (the event task); opens it if needed.
    pub(super) async fn get_async(&self) -> Result<Connection, String> {
        if let Some(conn) = self.cached() {
            return Ok(conn);
        }
        let conn = connect().await?;
        let mut slot = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(slot.get_or_insert(conn).clone())
    }

    pub(super) fn cached(&self) -> Option<Connection> {
        self.conn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Whether a name has an owner on a bus.
async fn has_owner(conn: &Connection, name: &str) -> Result<bool, zbus::Error> {
    let reply = conn
        .call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus"),
            "NameHasOwner",
            &(name,),
        )
        .await?;
    reply.body().deserialize::<bool>()
}

async fn session() -> Result<Connection, String> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return Err(
            "no session bus: DBUS_SESSION_BUS_ADDRESS is not set. Run axgate inside \
                    the desktop session (or under tests/desktop/session.sh)"
                .to_owned(),
        );
    }
    Connection::session()
        .await
        .map_err(|e| format!("cannot connect to the session bus: {e}"))
}

/// The accessibility bus address: `AT_SPI_BUS_ADDRESS`, else asked of `org.a11y.Bus` once
/// it is known to have an owner.
async fn address() -> Result<String, String> {
    if let Ok(addr) = std::env::var("AT_SPI_BUS_ADDRESS")
        && !addr.is_empty()
    {
        return Ok(addr);
    }
    let session = session().await?;
    let owned = has_owner(&session, A11Y_BUS_NAME)
        .await
        .map_err(|e| format!("the session bus did not answer NameHasOwner: {e}"))?;
    if !owned {
        return Err(
            "the accessibility bus is not running: org.a11y.Bus has no owner on the \
                    session bus. Start /usr/libexec/at-spi-bus-launcher (a desktop session \
                    does), or run under tests/desktop/session.sh"
                .to_owned(),
        );
    }
    let reply = session
        .call_method(
            Some(A11Y_BUS_NAME),
            "/org/a11y/bus",
            Some(A11Y_BUS_NAME),
            "GetAddress",
            &(),
        )
        .await
        .map_err(|e| format!("org.a11y.Bus did not give its address: {e}"))?;
    reply
        .body()
        .deserialize::<String>()
        .map_err(|e| format!("org.a11y.Bus gave a bad address: {e}"))
}

/// Opens a connection to the accessibility bus and registers the events the engine wants
/// with the registry: apps emit only events someone registered for, and GTK builds its
/// `Cache` (which `GetItems` reads) only once an event listener exists.
async fn connect() -> Result<Connection, String> {
    let addr = address().await?;
    let conn = zbus::connection::Builder::address(addr.as_str())
        .map_err(|e| format!("bad accessibility bus address {addr:?}: {e}"))?
        .build()
        .await
        .map_err(|e| format!("cannot connect to the accessibility bus at {addr}: {e}"))?;
    for event in super::filter::REGISTRY_EVENTS {
        let _ = conn
            .call_method(
                Some(REGISTRY_NAME),
                "/org/a11y/atspi/registry",
                Some(REGISTRY_NAME),
                "RegisterEvent",
                &(*event,),
            )
            .await;
    }
    Ok(conn)
}

/// The readiness checks: the accessibility bus, the registry daemon, the X display.
pub(super) fn readiness(rt: &Rt, bus: &Bus) -> Vec<ReadinessCheck> {
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut checks = Vec::new();
    let conn = bus.get(rt, deadline);
    checks.push(ReadinessCheck {
        name: "atspi_bus",
        class: CheckClass::Gate,
        ok: conn.is_ok(),
        detail: conn
            .as_ref()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
    });
    let registry = match &conn {
        Ok(conn) => rt
            .block("the accessibility bus", deadline, async {
                has_owner(conn, REGISTRY_NAME)
                    .await
                    .map_err(|e| AxError::Backend(e.to_string()))
            })
            .map_err(|e| format!("cannot ask the accessibility bus about the registry: {e}"))
            .and_then(|owned| {
                owned.then_some(()).ok_or_else(|| {
                    "the AT-SPI registry (at-spi2-registryd) is not running on the \
                     accessibility bus; start /usr/libexec/at-spi2-registryd"
                        .to_owned()
                })
            }),
        Err(_) => Err("no accessibility bus, so no registry".to_owned()),
    };
    checks.push(ReadinessCheck {
        name: "atspi_registry",
        class: CheckClass::Gate,
        ok: registry.is_ok(),
        detail: registry.err().unwrap_or_default(),
    });
    let display = super::screenshot::check_display();
    checks.push(ReadinessCheck {
        name: "x11_display",
        class: CheckClass::Gate,
        ok: display.is_ok(),
        detail: display.err().unwrap_or_default(),
    });
    checks
}

/// Whether an accessibility bus is reachable: `AT_SPI_BUS_ADDRESS` is set, or
/// `org.a11y.Bus` has an owner on the session bus. Never calls `GetAddress`. Runs on its own
/// thread and runtime, so it is safe from async code; gives up after `limit`.
pub(crate) fn a11y_bus_present(limit: Duration) -> bool {
    if std::env::var("AT_SPI_BUS_ADDRESS").is_ok_and(|a| !a.is_empty()) {
        return true;
    }
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return false;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("axgate-atspi-probe".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                let _ = tx.send(false);
                return;
            };
            let found = rt.block_on(async {
                let probe = async {
                    let session = session().await.ok()?;
                    has_owner(&session, A11Y_BUS_NAME).await.ok()
                };
                tokio::time::timeout(limit, probe).await.ok().flatten()
            });
            let _ = tx.send(found == Some(true));
        });
    spawned.is_ok() && rx.recv_timeout(limit + Duration::from_millis(500)) == Ok(true)
}
