//! Zoom (maximize) and full screen of a macOS window, decided without Apple types: which of
//! the window's controls the adapter uses — the zoom button's `AXPress`, a write of the
//! window's `AXFullScreen` attribute, the full-screen button's `AXPress` — from what the
//! window offers, and when the change has landed (the adapter re-reads until then: full
//! screen animates for most of a second).
//!
//! Zoom toggles as the green button does: pressed on a zoomed window it gives the window its
//! own size back. Full screen is a state: asked again it changes nothing, and `Restore`
//! leaves it.

use axgate_engine::Rect;

/// What the caller wants of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    Maximize,
    FullScreen,
    LeaveFullScreen,
}

/// What the window offers, as the adapter read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Offers {
    /// `AXFullScreen`; `None` when the window has no such attribute.
    pub(crate) full_screen: Option<bool>,
    /// Whether `AXFullScreen` takes a write.
    pub(crate) full_screen_settable: bool,
    /// Whether the window has an `AXZoomButton`.
    pub(crate) zoom_button: bool,
    /// Whether the window has an `AXFullScreenButton`.
    pub(crate) full_screen_button: bool,
}

/// The one thing the adapter does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The window already is as wanted.
    Nothing,
    /// `AXPress` on the element the window's attribute of this name holds.
    Press(&'static str),
    /// Writes this boolean attribute of the window.
    Write(&'static str, bool),
}

/// The step for `wanted`, or why the window cannot do it (the adapter prefixes the window).
pub(crate) fn plan(wanted: Wanted, offers: Offers) -> Result<Step, String> {
    let in_full_screen = offers.full_screen == Some(true);
    let toggle_full_screen = |on: bool| {
        if offers.full_screen.is_some() && offers.full_screen_settable {
            Ok(Step::Write("AXFullScreen", on))
        } else if offers.full_screen_button {
            Ok(Step::Press("AXFullScreenButton"))
        } else {
            Err(
                "has no full-screen button (a panel or a window of fixed size); move and resize \
                 it instead"
                    .to_owned(),
            )
        }
    };
    match wanted {
        Wanted::Maximize if in_full_screen => Err("is in full screen, where it cannot be \
                                                    zoomed; restore it (window_action restore) first"
            .to_owned()),
        Wanted::Maximize if offers.zoom_button => Ok(Step::Press("AXZoomButton")),
        Wanted::Maximize => Err("has no zoom button (a panel or a window of fixed size); \
                                 resize it instead"
            .to_owned()),
        Wanted::FullScreen if in_full_screen => Ok(Step::Nothing),
        Wanted::FullScreen => toggle_full_screen(true),
        Wanted::LeaveFullScreen if !in_full_screen => Ok(Step::Nothing),
        Wanted::LeaveFullScreen => toggle_full_screen(false),
    }
}

/// Whether the step has landed, from the window read before and now: a zoom changes the
/// frame; full screen shows in `AXFullScreen` (or, on a window without it, in the frame).
pub(crate) fn landed(
    wanted: Wanted,
    before: Option<Rect>,
    now: Option<Rect>,
    full_screen_now: Option<bool>,
) -> bool {
    match (wanted, full_screen_now) {
        (Wanted::FullScreen, Some(on)) => on,
        (Wanted::LeaveFullScreen, Some(on)) => !on,
        _ => now.is_some() && before != now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCUMENT: Offers = Offers {
        full_screen: Some(false),
        full_screen_settable: true,
        zoom_button: true,
        full_screen_button: true,
    };

    #[test]
    fn a_document_window_zooms_by_its_button_and_enters_full_screen_by_its_attribute() {
        assert_eq!(
            plan(Wanted::Maximize, DOCUMENT),
            Ok(Step::Press("AXZoomButton"))
        );
        assert_eq!(
            plan(Wanted::FullScreen, DOCUMENT),
            Ok(Step::Write("AXFullScreen", true))
        );
        assert_eq!(plan(Wanted::LeaveFullScreen, DOCUMENT), Ok(Step::Nothing));
    }

    #[test]
    fn in_full_screen_a_second_call_changes_nothing_and_zoom_is_refused() {
        let full = Offers {
            full_screen: Some(true),
            ..DOCUMENT
        };
        assert_eq!(plan(Wanted::FullScreen, full), Ok(Step::Nothing));
        assert_eq!(
            plan(Wanted::LeaveFullScreen, full),
            Ok(Step::Write("AXFullScreen", false))
        );
        assert!(
            plan(Wanted::Maximize, full)
                .unwrap_err()
                .contains("restore")
        );
    }

    #[test]
    fn without_a_settable_attribute_the_full_screen_button_is_pressed() {
        let read_only = Offers {
            full_screen_settable: false,
            ..DOCUMENT
        };
        assert_eq!(
            plan(Wanted::FullScreen, read_only),
            Ok(Step::Press("AXFullScreenButton"))
        );
        let no_attribute = Offers {
            full_screen: None,
            ..DOCUMENT
        };
        assert_eq!(
            plan(Wanted::FullScreen, no_attribute),
            Ok(Step::Press("AXFullScreenButton"))
        );
    }

    #[test]
    fn a_panel_without_buttons_is_refused_with_what_to_do_instead() {
        let panel = Offers::default();
        assert!(
            plan(Wanted::Maximize, panel)
                .unwrap_err()
                .contains("resize")
        );
        assert!(
            plan(Wanted::FullScreen, panel)
                .unwrap_err()
                .contains("resize")
        );
        // Not in full screen: leaving it needs nothing, whatever the window offers.
        assert_eq!(plan(Wanted::LeaveFullScreen, panel), Ok(Step::Nothing));
    }

    #[test]
    fn landing_is_read_from_the_attribute_else_the_frame() {
        let small = Some(Rect {
            x: 10.0,
            y: 40.0,
            w: 400.0,
            h: 300.0,
        });
        let big = Some(Rect {
            x: 0.0,
            y: 25.0,
            w: 1440.0,
            h: 875.0,
        });
        assert!(landed(Wanted::Maximize, small, big, Some(false)));
        assert!(!landed(Wanted::Maximize, small, small, Some(false)));
        assert!(!landed(Wanted::Maximize, small, None, None));
        assert!(landed(Wanted::FullScreen, small, small, Some(true)));
        assert!(!landed(Wanted::FullScreen, small, big, Some(false)));
        assert!(landed(Wanted::FullScreen, small, big, None));
        assert!(landed(Wanted::LeaveFullScreen, big, small, Some(false)));
        assert!(!landed(Wanted::LeaveFullScreen, big, big, Some(true)));
    }
}
