//! A retained `AXUIElementRef` that may cross threads, compared and hashed with
//! `CFEqual`/`CFHash` (every fetch returns a new object, so pointers never identify an
//! element). AX objects stay inside the backend: the engine only ever sees `NodeId`s.
#![allow(unsafe_code)]

use std::fmt;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use accessibility_sys::{
    AXUIElementCreateApplication, AXUIElementCreateSystemWide, AXUIElementGetPid,
    AXUIElementGetTypeID, AXUIElementRef, AXUIElementSetMessagingTimeout, kAXErrorSuccess, pid_t,
};
use core_foundation::base::{
    CFEqual, CFGetTypeID, CFHash, CFRelease, CFRetain, CFType, CFTypeRef, TCFType,
};

use axgate_engine::Pid;

/// One reference (+1 retained) to an accessibility element of some app.
pub(super) struct AxElement(AXUIElementRef);

// SAFETY: an AXUIElementRef is an immutable CF object (a pid and an element token); CF
// retain/release are thread-safe and the AX API may be called from any thread (the design
// notes cite Hammerspoon #1529/#1687). The wrapper never hands out interior mutability.
unsafe impl Send for AxElement {}
// SAFETY: as above; shared references only call thread-safe CF and AX functions.
unsafe impl Sync for AxElement {}

impl AxElement {
    /// Takes ownership of a reference returned under the Create/Copy rule (+1).
    ///
    /// # Safety
    /// `raw` is null or an `AXUIElementRef` the caller owns one reference to.
    pub(super) unsafe fn from_create(raw: AXUIElementRef) -> Option<AxElement> {
        (!raw.is_null()).then_some(AxElement(raw))
    }

    /// Retains a reference obtained under the Get rule (+0), e.g. an item of a CF array.
    ///
    /// # Safety
    /// `raw` is null or a valid CF object; it is checked to be an `AXUIElement`.
    pub(super) unsafe fn from_get(raw: CFTypeRef) -> Option<AxElement> {
        if raw.is_null() {
            return None;
        }
        // SAFETY: `raw` is a valid CF object (caller contract); type ids have no preconditions.
        let is_element = unsafe { CFGetTypeID(raw) == AXUIElementGetTypeID() };
        if !is_element {
            return None;
        }
        // SAFETY: a valid CF object; the retain is balanced by Drop.
        unsafe { CFRetain(raw) };
        Some(AxElement(raw as AXUIElementRef))
    }

    /// The application element of a process. Creating it sends nothing to the app.
    pub(super) fn application(pid: Pid) -> Option<AxElement> {
        let pid = pid_t::try_from(pid).ok()?;
        // SAFETY: no preconditions; returns a +1 reference (Create rule) or null.
        unsafe { AxElement::from_create(AXUIElementCreateApplication(pid)) }
    }

    /// The system-wide element, whose messaging timeout is the process-wide default.
    pub(super) fn system_wide() -> Option<AxElement> {
        // SAFETY: no preconditions; returns a +1 reference (Create rule) or null.
        unsafe { AxElement::from_create(AXUIElementCreateSystemWide()) }
    }

    pub(super) fn as_ptr(&self) -> AXUIElementRef {
        self.0
    }

    pub(super) fn as_type_ref(&self) -> CFTypeRef {
        self.0 as CFTypeRef
    }

    /// A new reference to the element as a plain CF object (for CF arrays).
    pub(super) fn to_cf_type(&self) -> CFType {
        // SAFETY: a valid CF object; wrapping under the Get rule retains it.
        unsafe { CFType::wrap_under_get_rule(self.as_type_ref()) }
    }

    /// The pid of the app the element belongs to (read locally, no message to the app).
    pub(super) fn pid(&self) -> Option<Pid> {
        let mut pid: pid_t = 0;
        // SAFETY: `self.0` is a valid element and `pid` a valid out pointer.
        let code = unsafe { AXUIElementGetPid(self.0, &mut pid) };
        (code == kAXErrorSuccess)
            .then(|| Pid::try_from(pid).ok())
            .flatten()
    }

    /// Sets the messaging timeout of this reference only (on the system-wide element: the
    /// process default). Local; sends nothing to the app.
    pub(super) fn set_timeout(&self, timeout: Duration) {
        // SAFETY: `self.0` is a valid element; any positive timeout is accepted.
        unsafe { AXUIElementSetMessagingTimeout(self.0, timeout.as_secs_f32().max(0.001)) };
    }
}

impl Clone for AxElement {
    fn clone(&self) -> Self {
        // SAFETY: `self.0` is a valid CF object; the new reference is released by Drop.
        unsafe { CFRetain(self.as_type_ref()) };
        AxElement(self.0)
    }
}

impl Drop for AxElement {
    fn drop(&mut self) {
        // SAFETY: balances the reference this wrapper owns.
        unsafe { CFRelease(self.as_type_ref()) };
    }
}

impl PartialEq for AxElement {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: both are valid CF objects; CFEqual compares AX elements by pid and token
        // without messaging the app.
        unsafe { CFEqual(self.as_type_ref(), other.as_type_ref()) != 0 }
    }
}

impl Eq for AxElement {}

impl Hash for AxElement {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // SAFETY: a valid CF object; CFHash is consistent with CFEqual.
        let hash = unsafe { CFHash(self.as_type_ref()) };
        hash.hash(state);
    }
}

impl fmt::Debug for AxElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AxElement")
            .field("pid", &self.pid())
            .finish()
    }
}
