//! Hit testing: the element at a global point, asked of the system-wide element
//! (`AXUIElementCopyElementAtPosition`), so what is found is what is really on top there. A
//! hit in another app (a window of it covering the point) is no hit for this app; the input
//! guard then names that app before any pointer event is posted.

use std::time::Instant;

use axgate_engine::{AxError, CallCtx, NodeId, Pid};

use super::apps;
use super::attrs;
use super::element::AxElement;
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
    apps::app_element(pid)?;
    let system = AxElement::system_wide()
        .ok_or_else(|| AxError::Backend("cannot create the system-wide element".to_owned()))?;
    // The AX API takes single-precision points; screen coordinates fit easily.
    match attrs::system_element_at(&system, (x as f32, y as f32), ctx) {
        Ok(Some(element)) if element.pid() == Some(pid) => {
            Ok(handles.mint(pid, vec![element]).into_iter().next())
        }
        Ok(_) => Ok(None),
        Err(f) => Err(to_ax_error(f, pid, None, started)),
    }
}
