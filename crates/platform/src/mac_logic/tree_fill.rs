//! Waiting for a Chromium or Electron app's tree to fill. Such apps expose an empty tree
//! until `AXManualAccessibility` (or, for Chrome, `AXEnhancedUserInterface`) is set on the
//! app element, and then build it asynchronously: the first snapshot after the switch would
//! see an empty window and report nothing to act on. The adapter measures the front window
//! (its children and grandchildren) at the pauses of [`POLLS`]; this file decides when the
//! tree counts as filled — non-empty and the same size twice in a row — or when to give up
//! (a page that is really empty). Plain Rust, no Apple types.

use std::time::Duration;

/// Pauses before each measurement: the first at once, 1.5 s in all.
pub(crate) const POLLS: &[Duration] = &[
    Duration::ZERO,
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(150),
    Duration::from_millis(250),
    Duration::from_millis(400),
    Duration::from_millis(550),
];

/// At most this many of the window's children are looked into per measurement.
pub(crate) const CHILDREN_LOOKED_INTO: usize = 16;

/// An empty Chromium window still holds a few structural elements (its web area group,
/// the toolbar of a browser): a filled tree has more than this many.
pub(crate) const EMPTY_AT_MOST: usize = 2;

/// What to do after the measurements so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Measure again after this pause.
    Wait(Duration),
    /// The tree has filled (or has no window to fill): go on.
    Filled,
    /// It stayed empty or kept changing for every poll; go on with what is there.
    GaveUp,
}

/// Decides from the window's sizes measured so far (`None`: the app has no window yet).
pub(crate) fn next(sizes: &[Option<usize>]) -> Next {
    if let [.., Some(before), Some(last)] = sizes
        && *last > EMPTY_AT_MOST
        && last == before
    {
        return Next::Filled;
    }
    match POLLS.get(sizes.len()) {
        Some(pause) => Next::Wait(*pause),
        None => Next::GaveUp,
    }
}

/// Whether the app gets `AXEnhancedUserInterface` too: Chrome fills its tree only with it,
/// but the attribute also turns on VoiceOver-style behaviour (window animations and
/// positioning change), so it is opt-in per bundle id (`backend.enhanced_ui_apps`).
pub(crate) fn wants_enhanced_ui(bundle_id: Option<&str>, opted_in: &[String]) -> bool {
    bundle_id.is_some_and(|id| opted_in.iter().any(|o| o.eq_ignore_ascii_case(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays measurements until the decision is final; returns it and the time waited.
    fn replay(sizes: &[Option<usize>]) -> (Next, Duration, usize) {
        let mut seen = Vec::new();
        let mut waited = Duration::ZERO;
        for size in sizes {
            match next(&seen) {
                Next::Wait(pause) => waited += pause,
                done => return (done, waited, seen.len()),
            }
            seen.push(*size);
        }
        (next(&seen), waited, seen.len())
    }

    #[test]
    fn a_tree_that_fills_is_done_once_its_size_holds() {
        let (verdict, waited, measured) =
            replay(&[Some(1), Some(1), Some(14), Some(40), Some(40), Some(41)]);
        assert_eq!(verdict, Next::Filled);
        assert_eq!(measured, 5);
        assert_eq!(waited, Duration::from_millis(550));
    }

    #[test]
    fn an_app_that_is_already_filled_costs_two_measurements() {
        let (verdict, waited, measured) = replay(&[Some(30), Some(30)]);
        assert_eq!((verdict, measured), (Next::Filled, 2));
        assert_eq!(waited, Duration::from_millis(50));
    }

    #[test]
    fn an_empty_or_windowless_app_gives_up_within_the_budget() {
        let empty = vec![Some(1); 20];
        let (verdict, waited, measured) = replay(&empty);
        assert_eq!((verdict, measured), (Next::GaveUp, POLLS.len()));
        assert_eq!(waited, POLLS.iter().sum());
        assert!(waited <= Duration::from_millis(1500));
        let (verdict, _, _) = replay(&[None; 20]);
        assert_eq!(verdict, Next::GaveUp);
    }

    #[test]
    fn a_tree_that_keeps_growing_is_not_taken_for_filled() {
        let growing: Vec<_> = (3..30).map(Some).collect();
        assert_eq!(replay(&growing).0, Next::GaveUp);
    }

    #[test]
    fn enhanced_ui_is_only_for_opted_in_bundles() {
        let opted = vec!["com.google.Chrome".to_owned()];
        assert!(wants_enhanced_ui(Some("com.google.chrome"), &opted));
        assert!(!wants_enhanced_ui(
            Some("com.tinyspeck.slackmacgap"),
            &opted
        ));
        assert!(!wants_enhanced_ui(None, &opted));
        assert!(!wants_enhanced_ui(Some("com.google.Chrome"), &[]));
    }
}
