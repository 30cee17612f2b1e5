//! Waiting for a Chromium or Electron app's tree to fill. Such apps expose an empty tree
//! until `AXManualAccessibility` (or, for Chrome, `AXEnhancedUserInterface`) is set on the
//! app element, and then build it asynchronously: the first snapshot after the switch would
//! see an empty window and report nothing to act on.
//!
//! What fills is the web content, so that is what is measured: the front window's
//! `AXWebArea` (found by a bounded search that does not look into window buttons, toolbars
//! or menus), its `AXLoaded` where the app reports it, and the size of its subtree (its
//! children and grandchildren, a few children looked into). The window's own children do
//! not count: its close, minimise and zoom buttons are there from the start, and counting
//! them declared an empty tree filled at the second poll. The tree counts as filled once the
//! web area says it is loaded, or once its subtree is non-empty and the same size twice in
//! a row; the wait gives up after [`POLLS`] (a window without web content, a page that is
//! really empty). The measure runs over an [`AxSource`], so it is tested on any host.

use std::time::Duration;

use axgate_engine::CallCtx;

use super::decode::{AttrValue, NODE_ATTRS};
use super::walk::AxSource;

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

/// At most this many of the web area's children are looked into per measurement.
pub(crate) const CHILDREN_LOOKED_INTO: usize = 16;

/// At most this many elements are read looking for the web area.
pub(crate) const SEARCH_BUDGET: usize = 96;

/// Native roles the search for the web area does not look into: window buttons, toolbars,
/// menus and controls hold no web content.
const NOT_SEARCHED: &[&str] = &[
    "AXButton",
    "AXToolbar",
    "AXMenuBar",
    "AXMenu",
    "AXTextField",
    "AXPopUpButton",
    "AXCheckBox",
    "AXRadioButton",
    "AXImage",
    "AXStaticText",
    "AXTabGroup",
];

/// One measurement of the web content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fill {
    /// The web area's `AXLoaded`, when the app reports it.
    pub(crate) loaded: Option<bool>,
    /// Its children and grandchildren (a few children looked into).
    pub(crate) size: usize,
}

/// What to do after the measurements so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Measure again after this pause.
    Wait(Duration),
    /// The tree has filled: go on.
    Filled,
    /// It stayed empty or kept changing for every poll; go on with what is there.
    GaveUp,
}

/// Decides from the measurements so far (`None`: no window, or no web area in it yet).
pub(crate) fn next(fills: &[Option<Fill>]) -> Next {
    match fills {
        [.., Some(last)] if last.loaded == Some(true) => return Next::Filled,
        [.., Some(before), Some(last)]
            if last.loaded.is_none() && last.size > 0 && last.size == before.size =>
        {
            return Next::Filled;
        }
        _ => {}
    }
    match POLLS.get(fills.len()) {
        Some(pause) => Next::Wait(*pause),
        None => Next::GaveUp,
    }
}

/// The web area under `window`: a breadth-first search of at most [`SEARCH_BUDGET`] reads.
pub(crate) fn find_web_area<S: AxSource>(
    source: &S,
    window: &S::Element,
    ctx: &mut CallCtx,
) -> Option<S::Element> {
    let mut queue = std::collections::VecDeque::from([window.clone()]);
    let mut reads = 0;
    while let Some(element) = queue.pop_front() {
        if reads >= SEARCH_BUDGET {
            return None;
        }
        reads += 1;
        let Ok(read) = source.read(&element, ctx) else {
            continue;
        };
        let role = NODE_ATTRS
            .iter()
            .position(|n| *n == "AXRole")
            .and_then(|i| read.values.get(i));
        match role {
            Some(AttrValue::Text(r)) if r == "AXWebArea" => return Some(element),
            Some(AttrValue::Text(r)) if NOT_SEARCHED.contains(&r.as_str()) => {}
            _ => queue.extend(read.children),
        }
    }
    None
}

/// Measures the web content of `web_area`; `None` when it cannot be read.
pub(crate) fn measure<S: AxSource>(
    source: &S,
    web_area: &S::Element,
    ctx: &mut CallCtx,
) -> Option<Fill> {
    let loaded = match source
        .read_attrs(web_area, &["AXLoaded"], ctx)
        .ok()?
        .first()
    {
        Some(AttrValue::Bool(b)) => Some(*b),
        Some(AttrValue::Number(n)) => Some(*n != 0.0),
        _ => None,
    };
    let children = source.read(web_area, ctx).ok()?.children;
    let grandchildren: usize = children
        .iter()
        .take(CHILDREN_LOOKED_INTO)
        .map(|child| source.count_children(child, ctx).unwrap_or(0))
        .sum();
    Some(Fill {
        loaded,
        size: children.len() + grandchildren,
    })
}

/// Whether the app gets `AXEnhancedUserInterface` too: Chrome fills its tree only with it,
/// but the attribute also turns on VoiceOver-style behaviour (window animations and
/// positioning change), so it is opt-in per bundle id (`backend.enhanced_ui_apps`).
pub(crate) fn wants_enhanced_ui(bundle_id: Option<&str>, opted_in: &[String]) -> bool {
    bundle_id.is_some_and(|id| opted_in.iter().any(|o| o.eq_ignore_ascii_case(id)))
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::mac_logic::chromium_expectations;
    use crate::mac_logic::fake_ax::FakeAx;

    fn grown(size: usize) -> Option<Fill> {
        Some(Fill { loaded: None, size })
    }

    /// Replays measurements until the decision is final; returns it and the time waited.
    fn replay(fills: &[Option<Fill>]) -> (Next, Duration, usize) {
        let mut seen = Vec::new();
        let mut waited = Duration::ZERO;
        for fill in fills {
            match next(&seen) {
                Next::Wait(pause) => waited += pause,
                done => return (done, waited, seen.len()),
            }
            seen.push(*fill);
        }
        (next(&seen), waited, seen.len())
    }

    fn ctx() -> CallCtx {
        CallCtx::new(Instant::now() + Duration::from_secs(60))
    }

    const WINDOW: u32 = 1;
    const WEB_AREA: u32 = 10;

    /// A Chromium window before its web content arrived: close, minimise and zoom buttons,
    /// a toolbar with a few controls, and an empty web area inside a scroll area.
    fn empty_window() -> FakeAx {
        let mut s = FakeAx::default();
        s.add(WINDOW, "AXWindow", &[2, 3, 4, 5, 6]);
        s.add(2, "AXButton", &[]);
        s.add(3, "AXButton", &[]);
        s.add(4, "AXButton", &[]);
        s.add(5, "AXToolbar", &[20, 21, 22]);
        for b in [20, 21, 22] {
            s.add(b, "AXButton", &[]);
        }
        s.add(6, "AXGroup", &[7]);
        s.add(7, "AXScrollArea", &[WEB_AREA]);
        s.add(WEB_AREA, "AXWebArea", &[]);
        s
    }

    /// Measures a window the way the adapter does: find its web area, measure that.
    fn measure_window(s: &FakeAx, ctx: &mut CallCtx) -> Option<Fill> {
        let web_area = find_web_area(s, &WINDOW, ctx)?;
        measure(s, &web_area, ctx)
    }

    #[test]
    fn window_buttons_do_not_fill_the_tree() {
        let mut s = empty_window();
        let mut fills = Vec::new();
        // The old measure (the window's children and grandchildren) saw 5 + 4 from the
        // start, the same twice: "filled" at the second poll. The web area is empty.
        for _ in 0..3 {
            assert!(matches!(next(&fills), Next::Wait(_)));
            fills.push(measure_window(&s, &mut ctx()));
        }
        assert_eq!(
            fills[0],
            Some(Fill {
                loaded: None,
                size: 0
            })
        );
        assert!(matches!(next(&fills), Next::Wait(_)), "still empty: wait");
        // The page arrives.
        chromium_expectations::attach(&mut s, WEB_AREA, "html/input-text-expected-mac.txt");
        fills.push(measure_window(&s, &mut ctx()));
        assert!(matches!(next(&fills), Next::Wait(_)), "once is not stable");
        fills.push(measure_window(&s, &mut ctx()));
        assert_eq!(next(&fills), Next::Filled);
        assert_eq!(
            fills[4],
            Some(Fill {
                loaded: None,
                size: 2
            })
        );
    }

    #[test]
    fn a_loaded_web_area_is_filled_at_once_and_an_unloaded_one_is_not() {
        let mut s = empty_window();
        s.set(WEB_AREA, "AXLoaded", AttrValue::Bool(false));
        chromium_expectations::attach(&mut s, WEB_AREA, "html/input-checkbox-expected-mac.txt");
        let fills = vec![
            measure_window(&s, &mut ctx()),
            measure_window(&s, &mut ctx()),
        ];
        assert_eq!(fills[1].map(|f| f.size), Some(6));
        assert!(
            matches!(next(&fills), Next::Wait(_)),
            "AXLoaded says not yet"
        );
        s.set(WEB_AREA, "AXLoaded", AttrValue::Bool(true));
        assert_eq!(next(&[measure_window(&s, &mut ctx())]), Next::Filled);
    }

    #[test]
    fn every_recorded_chromium_page_fills_once_attached_and_not_before() {
        let sections = chromium_expectations::tree_sections();
        assert!(sections.len() >= 10, "{} sections", sections.len());
        for name in sections {
            let mut s = empty_window();
            let before = [
                measure_window(&s, &mut ctx()),
                measure_window(&s, &mut ctx()),
            ];
            assert!(matches!(next(&before), Next::Wait(_)), "{name}: empty");
            chromium_expectations::attach(&mut s, WEB_AREA, &name);
            let mut fills = before.to_vec();
            let verdict = loop {
                match next(&fills) {
                    Next::Wait(_) => fills.push(measure_window(&s, &mut ctx())),
                    done => break done,
                }
            };
            assert_eq!(verdict, Next::Filled, "{name}");
            assert_eq!(
                fills.len(),
                4,
                "{name}: filled at the second look at the page"
            );
        }
    }

    #[test]
    fn a_window_without_web_content_gives_up_within_the_budget() {
        let mut s = FakeAx::default();
        s.add(WINDOW, "AXWindow", &[2, 3, 4]);
        for b in [2, 3, 4] {
            s.add(b, "AXButton", &[]);
        }
        assert_eq!(measure_window(&s, &mut ctx()), None);
        let (verdict, waited, measured) = replay(&[None; 20]);
        assert_eq!((verdict, measured), (Next::GaveUp, POLLS.len()));
        assert_eq!(waited, POLLS.iter().sum());
        assert!(waited <= Duration::from_millis(1500));
    }

    #[test]
    fn the_search_does_not_look_into_window_controls() {
        let s = empty_window();
        let mut ctx = ctx();
        assert_eq!(find_web_area(&s, &WINDOW, &mut ctx), Some(WEB_AREA));
        // The window, its 5 children and the scroll area; never the toolbar's buttons.
        assert!(ctx.round_trips() <= 8, "{}", ctx.round_trips());
    }

    #[test]
    fn a_page_that_keeps_growing_is_not_taken_for_filled() {
        let growing: Vec<_> = (3..30).map(grown).collect();
        assert_eq!(replay(&growing).0, Next::GaveUp);
        let (verdict, _, measured) = replay(&[grown(0), grown(0), grown(14), grown(14)]);
        assert_eq!((verdict, measured), (Next::Filled, 4));
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
