//! How AX error codes become engine errors: the codes come from `accessibility-sys` and are
//! classified here; the rules and messages are `mac_logic::failures`. Call sites that give a code a special meaning (CannotComplete after
//! an action, an unsupported attribute on a write) handle it before falling back to this map.
// Apple's constant names (kAXError…) are matched as patterns.
#![allow(non_upper_case_globals)]

use std::time::Instant;

use accessibility_sys::{
    AXError, error_string, kAXErrorAPIDisabled, kAXErrorActionUnsupported,
    kAXErrorAttributeUnsupported, kAXErrorCannotComplete, kAXErrorIllegalArgument,
    kAXErrorInvalidUIElement, kAXErrorNoValue, kAXErrorNotImplemented,
};

use crate::mac_logic::failures::{self, Context, Failure};
use axgate_engine::{AxError, NodeId, Pid};

use super::process;

/// Why an AX call did not succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AxFailure {
    /// The app answered with this error code (CannotComplete: it did not answer in time).
    Code(AXError),
    /// The call's deadline had passed before the message could be sent.
    Deadline,
}

/// What one AX call gives: its value, or the [`AxFailure`] a caller turns into an `AxError`.
pub(super) type AxCall<T> = Result<T, AxFailure>;

/// `Ok` for `kAXErrorSuccess`, the code otherwise.
pub(super) fn check(code: AXError) -> AxCall<()> {
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

/// Fix-it text for a missing Accessibility grant of this binary.
pub(super) fn accessibility_fix() -> String {
    failures::accessibility_fix(&failures::exe_label())
}

/// The engine error for a failed call about `node` of `pid` (`None`: the app element),
/// `started` being when the backend call began.
pub(super) fn to_ax_error(
    failure: AxFailure,
    pid: Pid,
    node: Option<NodeId>,
    started: Instant,
) -> AxError {
    let context = Context {
        pid,
        app: process::label(pid),
        node,
        running: process::is_running(pid),
        elapsed: started.elapsed(),
    };
    failures::to_ax_error(classify(failure), &context)
}

/// The class of a failure, by the constants of `accessibility-sys`.
fn classify(failure: AxFailure) -> Failure {
    let code = match failure {
        AxFailure::Deadline => return Failure::NoAnswer,
        AxFailure::Code(code) => code,
    };
    match code {
        kAXErrorCannotComplete => Failure::NoAnswer,
        kAXErrorInvalidUIElement => Failure::InvalidElement,
        kAXErrorAPIDisabled => Failure::ApiDisabled,
        kAXErrorNotImplemented => Failure::NotImplemented,
        kAXErrorActionUnsupported | kAXErrorAttributeUnsupported | kAXErrorNoValue => {
            Failure::Unsupported(error_string(code).to_owned())
        }
        kAXErrorIllegalArgument => Failure::IllegalArgument,
        other => Failure::Other(error_string(other).to_owned()),
    }
}
