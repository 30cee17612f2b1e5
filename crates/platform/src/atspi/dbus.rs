//! Raw D-Bus calls to AT-SPI objects, each counted as one round trip, and the mapping of
//! D-Bus failures onto engine errors. Method calls go straight through the connection
//! (no proxy objects), so many can be in flight at once on one connection.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use atspi::zbus::zvariant::{DynamicType, OwnedValue, Type};
use atspi::zbus::{self, Connection};
use serde::Serialize;
use serde::de::DeserializeOwned;

use axgate_engine::{AxError, Pid};

use super::ids::ObjRef;

pub(super) const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
pub(super) const ACTION: &str = "org.a11y.atspi.Action";
pub(super) const COMPONENT: &str = "org.a11y.atspi.Component";
pub(super) const TEXT: &str = "org.a11y.atspi.Text";
pub(super) const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
pub(super) const VALUE: &str = "org.a11y.atspi.Value";
pub(super) const SELECTION: &str = "org.a11y.atspi.Selection";
pub(super) const CACHE: &str = "org.a11y.atspi.Cache";
pub(super) const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
pub(super) const REGISTRY: &str = "org.a11y.atspi.Registry";
pub(super) const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
pub(super) const CACHE_PATH: &str = "/org/a11y/atspi/cache";
/// `ATSPI_COORD_TYPE_SCREEN`.
pub(super) const SCREEN: u32 = 0;

/// A failed call, before it is given an element to blame.
#[derive(Debug)]
pub(super) struct Fail(pub(super) zbus::Error);

impl Fail {
    fn error_name(&self) -> Option<&str> {
        match &self.0 {
            zbus::Error::MethodError(name, _, _) => Some(name.as_str()),
            _ => None,
        }
    }

    /// The engine error for this failure on `what` (an element description) of app `pid`.
    pub(super) fn into_ax(self, pid: Pid, what: &str) -> AxError {
        match self.error_name() {
            Some(n) if n.ends_with(".ServiceUnknown") || n.ends_with(".NameHasNoOwner") => {
                AxError::AppExited { pid }
            }
            // The app left the bus while the call was pending.
            Some(n) if n.ends_with(".NoReply") && self.0.to_string().contains("disconnected") => {
                AxError::AppExited { pid }
            }
            Some(n) if n.ends_with(".UnknownObject") => AxError::Stale {
                handle: what.to_owned(),
                expected: "a live element".to_owned(),
                found: "nothing: the element is gone (its window or menu closed)".to_owned(),
            },
            Some(n)
                if n.ends_with(".UnknownMethod")
                    || n.ends_with(".UnknownInterface")
                    || n.ends_with(".UnknownProperty") =>
            {
                AxError::Unsupported(format!("{what} does not support this operation"))
            }
            _ => AxError::Backend(format!("{what}: {}", self.0)),
        }
    }
}

/// Calls made for one backend operation; counts round trips.
pub(super) struct Calls<'c> {
    conn: &'c Connection,
    trips: AtomicU64,
}

impl<'c> Calls<'c> {
    pub(super) fn new(conn: &'c Connection) -> Calls<'c> {
        Calls {
            conn,
            trips: AtomicU64::new(0),
        }
    }

    pub(super) fn trips(&self) -> u64 {
        self.trips.load(Ordering::Relaxed)
    }

    /// One method call on an object: an [`ObjRef`], or a `(destination, path)` pair.
    pub(super) async fn call<B, R>(
        &self,
        at: &impl Address,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, Fail>
    where
        B: Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        self.trips.fetch_add(1, Ordering::Relaxed);
        let (dest, path) = at.address();
        let reply = self
            .conn
            .call_method(Some(dest), path, Some(iface), method, body)
            .await
            .map_err(Fail)?;
        reply.body().deserialize::<R>().map_err(Fail)
    }

    /// One property of an interface.
    pub(super) async fn prop<R>(&self, obj: &ObjRef, iface: &str, name: &str) -> Result<R, Fail>
    where
        R: TryFrom<OwnedValue>,
        R::Error: std::fmt::Display,
    {
        let value: OwnedValue = self.call(obj, PROPERTIES, "Get", &(iface, name)).await?;
        R::try_from(value).map_err(|e| Fail(zbus::Error::Failure(format!("property {name}: {e}"))))
    }

    /// Writes one property.
    pub(super) async fn set_prop<V>(
        &self,
        obj: &ObjRef,
        iface: &str,
        name: &str,
        value: V,
    ) -> Result<(), Fail>
    where
        V: Into<zbus::zvariant::Value<'static>>,
    {
        let value: zbus::zvariant::Value<'static> = value.into();
        self.call::<_, ()>(obj, PROPERTIES, "Set", &(iface, name, value))
            .await
    }

    /// Every property of an interface.
    pub(super) async fn all_props(
        &self,
        obj: &ObjRef,
        iface: &str,
    ) -> Result<HashMap<String, OwnedValue>, Fail> {
        self.call(obj, PROPERTIES, "GetAll", &(iface,)).await
    }
}

/// A property out of a `GetAll` map.
pub(super) fn take<R>(props: &HashMap<String, OwnedValue>, name: &str) -> Option<R>
where
    R: TryFrom<OwnedValue>,
{
    props
        .get(name)
        .and_then(|v| v.try_clone().ok())
        .and_then(|v| R::try_from(v).ok())
}

/// Where a method call goes: a bus name (destination) and an object path.
pub(super) trait Address {
    fn address(&self) -> (&str, &str);
}

impl Address for ObjRef {
    fn address(&self) -> (&str, &str) {
        (&self.bus, &self.path)
    }
}

impl Address for (&str, &str) {
    fn address(&self) -> (&str, &str) {
        (self.0, self.1)
    }
}
