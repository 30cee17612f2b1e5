//! How AX error codes become engine errors. The codes come from `accessibility-sys`; the
//! messages name the fix. Call sites that give a code a special meaning (CannotComplete after
//! an action, an unsupported attribute on a write) handle it before falling back to this map.
// Apple's constant names (kAXError…) are matched as patterns.
#![allow(non_upper_case_globals)]

use std::time::Instant;

use accessibility_sys::{
    AXError, error_string, kAXErrorAPIDisabled, kAXErrorActionUnsupported,
    kAXErrorAttributeUnsupported, kAXErrorCannotComplete, kAXErrorIllegalArgument,
    kAXErrorInvalidUIElement, kAXErrorNoValue, kAXErrorNotImplemented,
};

use crate::ax::{AxError, NodeId, Pid};

use super::{apps, process};

/// Why an AX call did not succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AxFailure {
    /// The app answered with this error code (CannotComplete: it did not answer in time).
    Code(AXError),
    /// The call's deadline had passed before the message could be sent.
    Deadline,
}

pub(super) type AxResult<T> = Result<T, AxFailure>;

/// `Ok` for `kAXErrorSuccess`, the code otherwise.
pub(super) fn check(code: AXError) -> AxResult<()> {
    if code == accessibility_sys::kAXErrorSuccess {
        Ok(())
    } else {
        Err(AxFailure::Code(code))
    }
}

impl AxFailure {
    pub(super) fn is(self, code: AXError) -> bool {
        self == AxFailure::Code(code)
    }

    /// The app did not answer in time (or the deadline left no time to ask).
    pub(super) fn is_timeout(self) -> bool {
        matches!(self, AxFailure::Deadline) || self.is(kAXErrorCannotComplete)
    }

    /// The failure for a message: the AX error's name, or the deadline.
    pub(super) fn describe(self) -> String {
        match self {
            AxFailure::Code(code) => error_string(code).to_string(),
            AxFailure::Deadline => "the call's deadline passed".to_owned(),
        }
    }

    /// The attribute has no value or does not exist on this element.
    pub(super) fn is_absent(self) -> bool {
        self.is(kAXErrorNoValue) || self.is(kAXErrorAttributeUnsupported)
    }
}

/// Fix-it text for a missing Accessibility grant.
pub(super) fn accessibility_fix() -> String {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "the axgate binary".to_owned());
    format!(
        "Accessibility access is not granted to {exe}: enable it in System Settings > \
         Privacy & Security > Accessibility, then restart axgate"
    )
}

/// The engine error for a failed call about `node` of `pid` (`None`: the app element),
/// `started` being when the backend call began.
pub(super) fn to_ax_error(
    failure: AxFailure,
    pid: Pid,
    node: Option<NodeId>,
    started: Instant,
) -> AxError {
    let code = match failure {
        AxFailure::Deadline => kAXErrorCannotComplete,
        AxFailure::Code(code) => code,
    };
    if (code == kAXErrorCannotComplete || code == kAXErrorInvalidUIElement)
        && !process::is_running(pid)
    {
        return AxError::AppExited { pid };
    }
    match code {
        kAXErrorCannotComplete => AxError::Timeout {
            app: apps::label(pid),
            after: started.elapsed(),
        },
        kAXErrorInvalidUIElement => match node {
            Some(node) => stale(pid, node),
            None => AxError::Backend(format!(
                "{} has no accessibility tree (kAXErrorInvalidUIElement)",
                apps::label(pid)
            )),
        },
        kAXErrorAPIDisabled => AxError::Permission(accessibility_fix()),
        kAXErrorNotImplemented => AxError::Unsupported(format!(
            "{} does not implement this accessibility call",
            apps::label(pid)
        )),
        kAXErrorActionUnsupported | kAXErrorAttributeUnsupported | kAXErrorNoValue => {
            AxError::Unsupported(format!(
                "{} does not support this on the element ({})",
                apps::label(pid),
                error_string(code)
            ))
        }
        kAXErrorIllegalArgument => AxError::Backend(format!(
            "{} rejected the request as malformed (kAXErrorIllegalArgument)",
            apps::label(pid)
        )),
        other => AxError::Backend(format!(
            "{} failed the accessibility call ({})",
            apps::label(pid),
            error_string(other)
        )),
    }
}

/// The error for a handle whose element no longer exists.
pub(super) fn stale(pid: Pid, node: NodeId) -> AxError {
    AxError::Stale {
        handle: format!("node {} of pid {pid}", node.0),
        expected: "a live element".to_owned(),
        found: "nothing: the element was destroyed (its window, menu or sheet closed)".to_owned(),
    }
}
