//! Hit testing: the app's element at a global point (`AXUIElementCopyElementAtPosition` on
//! the application element), minted as a handle. A hit in another app is no hit.

use std::time::Instant;

use crate::ax::{AxError, CallCtx, NodeId, Pid};

use super::apps;
use super::attrs;
use super::errors::to_ax_error;
use super::handles::Handles;

pub(super) fn element_at(
    handles: &Handles,
    pid: Pid,
    (x, y): (f64, f64),
    ctx: &mut CallCtx,
) -> Result<Option<NodeId>, AxError> {
    let started = Instant::now();
    if !x.is_finite() || !y.is_finite() {
        return Err(AxError::InvalidValue {
            element: "the hit-test point".to_owned(),
            reason: "coordinates must be finite numbers".to_owned(),
        });
    }
    let app = apps::app_element(pid)?;
    // The AX API takes single-precision points; screen coordinates fit easily.
    match attrs::element_at(&app, (x as f32, y as f32), ctx) {
        Ok(Some(element)) if element.pid() == Some(pid) => {
            Ok(handles.mint(pid, vec![element]).into_iter().next())
        }
        Ok(_) => Ok(None),
        Err(f) => Err(to_ax_error(f, pid, None, started)),
    }
}
