//! The table behind [`NodeId`]: each id stands for one AT-SPI object, named by the bus name
//! of its app and its object path. Ids are minted on first sight and stay stable while the
//! object lives; an app's entries are dropped when it exits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axgate_engine::NodeId;

/// One AT-SPI object: its app's unique bus name and its object path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ObjRef {
    pub(super) bus: Arc<str>,
    pub(super) path: Arc<str>,
}

impl ObjRef {
    pub(super) fn new(bus: &str, path: &str) -> ObjRef {
        ObjRef {
            bus: Arc::from(bus),
            path: Arc::from(path),
        }
    }
}

#[derive(Default)]
struct Inner {
    by_ref: HashMap<ObjRef, NodeId>,
    by_id: HashMap<NodeId, ObjRef>,
    next: u64,
}

/// NodeId ↔ object reference, shared by every worker thread.
#[derive(Default)]
pub(super) struct Ids {
    inner: Mutex<Inner>,
}

impl Ids {
    /// The id of an object, minted if new.
    pub(super) fn id_of(&self, obj: &ObjRef) -> NodeId {
        self.ids_of(std::slice::from_ref(obj))[0]
    }

    /// Ids of many objects under one lock.
    pub(super) fn ids_of(&self, objs: &[ObjRef]) -> Vec<NodeId> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        objs.iter()
            .map(|obj| {
                if let Some(id) = inner.by_ref.get(obj) {
                    return *id;
                }
                inner.next += 1;
                let id = NodeId(inner.next);
                inner.by_ref.insert(obj.clone(), id);
                inner.by_id.insert(id, obj.clone());
                id
            })
            .collect()
    }

    /// The object behind an id, if the id was minted here and its app still runs.
    pub(super) fn get(&self, id: NodeId) -> Option<ObjRef> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.by_id.get(&id).cloned()
    }

    /// The id of an object if it was seen before (events use this: they never mint).
    pub(super) fn known(&self, bus: &str, path: &str) -> Option<NodeId> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.by_ref.get(&ObjRef::new(bus, path)).copied()
    }

    /// Forgets every object of an app that exited.
    pub(super) fn forget_bus(&self, bus: &str) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.by_ref.retain(|obj, _| &*obj.bus != bus);
        inner.by_id.retain(|_, obj| &*obj.bus != bus);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_forgotten_per_app() {
        let ids = Ids::default();
        let a = ObjRef::new(":1.5", "/org/a11y/atspi/accessible/1");
        let b = ObjRef::new(":1.6", "/org/a11y/atspi/accessible/1");
        let ia = ids.id_of(&a);
        assert_eq!(ids.id_of(&a), ia);
        let ib = ids.id_of(&b);
        assert_ne!(ia, ib);
        assert_eq!(ids.get(ia), Some(a.clone()));
        assert_eq!(ids.known(":1.6", "/org/a11y/atspi/accessible/1"), Some(ib));
        ids.forget_bus(":1.5");
        assert_eq!(ids.get(ia), None);
        assert_eq!(ids.get(ib), Some(b));
        assert_ne!(ids.id_of(&a), ia, "a forgotten object gets a fresh id");
    }
}
