//! How a failed AX call becomes an engine error: the rules and the messages, each naming
//! the fix or the next step. The macOS adapter classifies the raw error code (with the
//! constants of `accessibility-sys`, never hand-written numbers) into a [`Failure`] and
//! supplies the app's label and whether the process still runs; everything else is here.

use std::time::Duration;

use axgate_engine::{AxError, NodeId, Pid};

/// A failed AX call, by class. Names are the AX error's own (`kAXError…`) for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// `kAXErrorCannotComplete`, or the call's deadline passed before it was sent: the app
    /// did not answer in time (hung, busy, still launching, or a modal it opened).
    NoAnswer,
    /// `kAXErrorInvalidUIElement`: the element (or the app's tree) is gone.
    InvalidElement,
    /// `kAXErrorAPIDisabled`: no Accessibility grant.
    ApiDisabled,
    /// `kAXErrorNotImplemented`.
    NotImplemented,
    /// Action or attribute unsupported, or no value.
    Unsupported(String),
    /// `kAXErrorIllegalArgument`.
    IllegalArgument,
    /// Anything else, by name.
    Other(String),
}

/// What the adapter knows about the call that failed.
#[derive(Clone, Debug)]
pub(crate) struct Context {
    pub(crate) pid: Pid,
    /// `Name (pid N)`.
    pub(crate) app: String,
    /// The element the call was about; `None` for the application element.
    pub(crate) node: Option<NodeId>,
    /// Whether the process still exists.
    pub(crate) running: bool,
    /// How long the backend call had run.
    pub(crate) elapsed: Duration,
}

/// The engine error for a failure.
pub(crate) fn to_ax_error(failure: Failure, cx: &Context) -> AxError {
    let vanished = matches!(failure, Failure::NoAnswer | Failure::InvalidElement);
    if vanished && !cx.running {
        return AxError::AppExited { pid: cx.pid };
    }
    let app = &cx.app;
    match failure {
        Failure::NoAnswer => AxError::Timeout {
            app: app.clone(),
            after: cx.elapsed,
        },
        Failure::InvalidElement => match cx.node {
            Some(node) => stale(cx.pid, node),
            None => AxError::Backend(format!(
                "{app} has no accessibility tree (kAXErrorInvalidUIElement)"
            )),
        },
        Failure::ApiDisabled => AxError::Permission(accessibility_fix(&exe_label())),
        Failure::NotImplemented => {
            AxError::Unsupported(format!("{app} does not implement this accessibility call"))
        }
        Failure::Unsupported(name) => AxError::Unsupported(format!(
            "{app} does not support this on the element ({name})"
        )),
        Failure::IllegalArgument => AxError::Backend(format!(
            "{app} rejected the request as malformed (kAXErrorIllegalArgument)"
        )),
        Failure::Other(name) => {
            AxError::Backend(format!("{app} failed the accessibility call ({name})"))
        }
    }
}

/// The error for a handle whose element no longer exists.
pub(crate) fn stale(pid: Pid, node: NodeId) -> AxError {
    AxError::Stale {
        handle: format!("node {} of pid {pid}", node.0),
        expected: "a live element".to_owned(),
        found: "nothing: the element was destroyed (its window, menu or sheet closed)".to_owned(),
    }
}

/// The running binary's path, as grants name it.
pub(crate) fn exe_label() -> String {
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "the axgate binary".to_owned())
}

/// Fix-it text for a missing Accessibility grant of the binary at `exe`.
pub(crate) fn accessibility_fix(exe: &str) -> String {
    format!(
        "Accessibility access is not granted to {exe}: enable it in System Settings > \
         Privacy & Security > Accessibility, then restart axgate"
    )
}

/// Fix-it text for a missing Screen Recording grant of the binary at `exe`.
pub(crate) fn screen_recording_fix(exe: &str) -> String {
    format!(
        "Screen Recording is not granted to {exe}: enable it in System Settings > Privacy & \
         Security > Screen & System Audio Recording (Screen Recording before macOS 15), then \
         restart axgate"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx(node: Option<NodeId>, running: bool) -> Context {
        Context {
            pid: 42,
            app: "Notes (pid 42)".to_owned(),
            node,
            running,
            elapsed: Duration::from_millis(300),
        }
    }

    #[test]
    fn no_answer_is_a_timeout_unless_the_app_is_gone() {
        let err = to_ax_error(Failure::NoAnswer, &cx(None, true));
        assert_eq!(
            err,
            AxError::Timeout {
                app: "Notes (pid 42)".into(),
                after: Duration::from_millis(300)
            }
        );
        assert!(err.is_timeout());
        assert_eq!(
            to_ax_error(Failure::NoAnswer, &cx(None, false)),
            AxError::AppExited { pid: 42 }
        );
    }

    #[test]
    fn an_invalid_element_is_stale_or_a_missing_tree() {
        let err = to_ax_error(Failure::InvalidElement, &cx(Some(NodeId(7)), true));
        assert_eq!(err.kind(), "stale");
        assert!(err.to_string().contains("node 7 of pid 42"), "{err}");
        let err = to_ax_error(Failure::InvalidElement, &cx(None, true));
        assert!(
            err.to_string().contains("has no accessibility tree"),
            "{err}"
        );
        assert_eq!(
            to_ax_error(Failure::InvalidElement, &cx(Some(NodeId(7)), false)),
            AxError::AppExited { pid: 42 }
        );
    }

    #[test]
    fn other_failures_name_the_app_and_the_error() {
        let unsupported = Failure::Unsupported("kAXErrorAttributeUnsupported".into());
        let err = to_ax_error(unsupported, &cx(None, false));
        assert_eq!(
            err.kind(),
            "unsupported",
            "a dead app only matters for no-answer"
        );
        assert!(err.to_string().contains("Notes (pid 42)"), "{err}");
        assert!(
            err.to_string().contains("kAXErrorAttributeUnsupported"),
            "{err}"
        );
        let err = to_ax_error(Failure::Other("kAXErrorFailure".into()), &cx(None, true));
        assert_eq!(err.kind(), "backend");
        assert_eq!(
            to_ax_error(Failure::ApiDisabled, &cx(None, true)).kind(),
            "permission"
        );
        assert_eq!(
            to_ax_error(Failure::IllegalArgument, &cx(None, true)).kind(),
            "backend"
        );
    }

    #[test]
    fn fixes_name_the_binary_and_the_setting() {
        let fix = accessibility_fix("/usr/local/bin/axgate");
        assert!(fix.contains("/usr/local/bin/axgate"), "{fix}");
        assert!(fix.contains("Privacy & Security > Accessibility"), "{fix}");
        assert!(screen_recording_fix("x").contains("Screen Recording"));
    }
}
