//! Did typed text land, while another process held Secure Input? With Secure Input on, macOS
//! may deliver synthetic keys only to the process that turned it on. It is common and often
//! stale (loginwindow keeps it after an unlock; a password manager in the background), so it
//! never blocks typing: the adapter types, reads the focused element's value before and
//! after, and this file decides whether to report `secure_input_held_by`. Typed text is
//! never part of a message. Plain Rust, no Apple types.

use super::input_guard::AppRef;

/// The verdict after typing: `Err` (the message, naming the holder) when the text did not
/// land while `holder` held Secure Input. Without a holder other than the target, or when
/// the value cannot tell (it cannot be read; only line breaks and tabs were typed, which
/// act rather than insert), typing is taken as done.
pub(crate) fn after_typing(
    typed: &str,
    before: Option<&str>,
    after: Option<&str>,
    holder: Option<&AppRef>,
    target: &AppRef,
) -> Result<(), String> {
    let Some(holder) = holder.filter(|h| h.pid != target.pid) else {
        return Ok(());
    };
    if !inserts_text(typed) {
        return Ok(());
    }
    let Some(after) = after else {
        return Ok(());
    };
    // Any change counts: a secure field reads back masked, a field may reformat what it got.
    if before != Some(after) {
        return Ok(());
    }
    Err(not_landed(&holder.label, &target.label))
}

/// Whether typing `typed` inserts characters (rather than only pressing Return or Tab).
fn inserts_text(typed: &str) -> bool {
    typed.chars().any(|c| !matches!(c, '\n' | '\r' | '\t'))
}

/// The message when typed text did not land; the field name is what callers look for.
pub(crate) fn not_landed(holder: &str, target: &str) -> String {
    format!(
        "the typed text did not land in {target}: secure_input_held_by: {holder}. While that \
         process holds Secure Input, macOS delivers typed keys only to it. Close its password \
         field or its secure keyboard entry (Terminal > Secure Keyboard Entry) and retry, or \
         set the value semantically (set_value) instead"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axgate_engine::Pid;

    fn app(pid: Pid, name: &str) -> AppRef {
        AppRef {
            pid,
            label: format!("{name} (pid {pid})"),
        }
    }

    #[test]
    fn text_that_did_not_land_names_the_secure_input_holder() {
        let notes = app(42, "Notes");
        let keeper = app(412, "1Password");
        let err =
            after_typing("hello", Some("draft"), Some("draft"), Some(&keeper), &notes).unwrap_err();
        assert!(
            err.contains("secure_input_held_by: 1Password (pid 412)"),
            "{err}"
        );
        assert!(err.contains("did not land in Notes (pid 42)"), "{err}");
        assert!(!err.contains("hello"), "typed text is never in a message");
        // An empty field that stayed empty.
        assert!(after_typing("x", Some(""), Some(""), Some(&keeper), &notes).is_err());
        assert!(after_typing("x", None, Some(""), Some(&keeper), &notes).is_ok());
    }

    #[test]
    fn text_that_landed_goes_ahead_whoever_holds_secure_input() {
        // Regression: any other process holding Secure Input (often stale: loginwindow after
        // an unlock) refused all typing before a key was posted.
        let notes = app(42, "Notes");
        let login = app(160, "loginwindow");
        assert_eq!(
            after_typing("hi", Some(""), Some("hi"), Some(&login), &notes),
            Ok(())
        );
        // A secure field reads back masked: a change is enough.
        assert_eq!(
            after_typing("pw", Some("••"), Some("••••"), Some(&login), &notes),
            Ok(())
        );
    }

    #[test]
    fn nothing_is_reported_when_the_value_cannot_tell() {
        let notes = app(42, "Notes");
        let keeper = app(412, "1Password");
        // No holder, or the target itself holds it (its own password field).
        assert_eq!(after_typing("a", Some(""), Some(""), None, &notes), Ok(()));
        assert_eq!(
            after_typing("a", Some(""), Some(""), Some(&notes), &notes),
            Ok(())
        );
        // Unreadable value; only Return and Tab typed.
        assert_eq!(
            after_typing("a", Some(""), None, Some(&keeper), &notes),
            Ok(())
        );
        assert_eq!(
            after_typing("\n\t", Some("x"), Some("x"), Some(&keeper), &notes),
            Ok(())
        );
    }
}
