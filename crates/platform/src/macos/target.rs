//! One element about to be acted on, read once in a batch (role, label, enabled, value,
//! range) before acting, so a disabled element fails as `Disabled` rather than with an
//! `AXPress` that reports success and does nothing. Shared by actions and window operations.

use std::time::Instant;

use accessibility_sys::kAXErrorCannotComplete;
use core_foundation::base::CFType;

use axgate_engine::{AxError, CallCtx, NodeId, Pid, RawNode};

use super::attrs;
use super::element::AxElement;
use super::errors::{AxFailure, to_ax_error};
use super::handles::Handles;
use super::snapshot;
use crate::mac_logic::action_names;
use crate::mac_logic::decode;

pub(super) struct Target {
    pub(super) pid: Pid,
    pub(super) id: NodeId,
    pub(super) element: AxElement,
    pub(super) node: RawNode,
    pub(super) started: Instant,
}

impl Target {
    /// Resolves the handle and reads the element; fails when it is disabled.
    pub(super) fn read(
        handles: &Handles,
        pid: Pid,
        id: NodeId,
        ctx: &mut CallCtx,
    ) -> Result<Target, AxError> {
        let started = Instant::now();
        let element = handles.element(pid, id)?;
        let node = snapshot::read_node(&element, ctx)
            .map_err(|f| to_ax_error(f, pid, Some(id), started))?;
        if !node.states.enabled {
            return Err(AxError::Disabled {
                element: decode::describe(&node),
            });
        }
        Ok(Target {
            pid,
            id,
            element,
            node,
            started,
        })
    }

    /// The engine error for a failed call on this element.
    pub(super) fn fail(&self, failure: AxFailure) -> AxError {
        to_ax_error(failure, self.pid, Some(self.id), self.started)
    }

    /// How errors name this element.
    pub(super) fn describe(&self) -> String {
        decode::describe(&self.node)
    }

    /// The element's normalised actions (always read, whatever the snapshot policy).
    pub(super) fn actions(&self, ctx: &mut CallCtx) -> Result<Vec<String>, AxError> {
        let natives = attrs::action_names(&self.element, ctx).map_err(|f| self.fail(f))?;
        Ok(action_names::normalise_all(
            natives.iter().map(String::as_str),
        ))
    }

    /// Performs a native action. CannotComplete after an action means "delivered, not
    /// verified" (the action may have opened a modal that blocks the reply): `Ok`, and the
    /// engine verifies the effect.
    pub(super) fn perform(&self, native: &str, ctx: &mut CallCtx) -> Result<(), AxError> {
        self.perform_on(&self.element, native, ctx)
    }

    /// Performs a native action on a related element (a window's close button, …).
    pub(super) fn perform_on(
        &self,
        element: &AxElement,
        native: &str,
        ctx: &mut CallCtx,
    ) -> Result<(), AxError> {
        match attrs::perform(element, native, ctx) {
            Ok(()) => Ok(()),
            Err(f) if f.is(kAXErrorCannotComplete) => Ok(()),
            Err(f) => Err(self.fail(f)),
        }
    }

    /// Writes an attribute of the element; an attribute it lacks or will not take is
    /// `Unsupported`, naming what was attempted.
    pub(super) fn write(
        &self,
        name: &str,
        value: &CFType,
        ctx: &mut CallCtx,
    ) -> Result<(), AxError> {
        match attrs::write(&self.element, name, value, ctx) {
            Ok(()) => Ok(()),
            Err(f) if f.is_absent() || f.is(accessibility_sys::kAXErrorIllegalArgument) => Err(
                AxError::Unsupported(format!("{} does not accept a new {name}", self.describe())),
            ),
            Err(f) => Err(self.fail(f)),
        }
    }
}
