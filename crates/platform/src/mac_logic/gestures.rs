//! The event sequences of synthetic pointer gestures, as plain data: clicks (a move, then one
//! down/up pair per click whose click state counts up, so the app sees a double or triple
//! click rather than separate clicks), drags (down, interpolated drag events, up) and scroll
//! wheel deltas. No Apple types; `input.rs` posts the events.

use std::time::Duration;

/// More clicks than this are not a gesture any app distinguishes.
pub(crate) const MAX_CLICKS: u32 = 3;

/// Pause after a move, so the app has seen the pointer arrive before the button goes down.
pub(crate) const SETTLE: Duration = Duration::from_millis(15);

/// Pause between the events of a gesture; far below any double-click interval.
pub(crate) const BETWEEN: Duration = Duration::from_millis(10);

/// Drag events between the press and the release.
pub(crate) const DRAG_STEPS: u32 = 12;

/// The largest scroll, in lines per axis, one call may post.
pub(crate) const MAX_SCROLL_LINES: f64 = 10_000.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Down,
    Up,
}

/// One button event of a click sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClickStep {
    pub(crate) phase: Phase,
    /// The value of the event's click-state field.
    pub(crate) click_state: i64,
}

/// The button events for `count` clicks (clamped to 1..=[`MAX_CLICKS`]).
pub(crate) fn click_steps(count: u32) -> Vec<ClickStep> {
    (1..=i64::from(count.clamp(1, MAX_CLICKS)))
        .flat_map(|n| {
            [Phase::Down, Phase::Up].map(|phase| ClickStep {
                phase,
                click_state: n,
            })
        })
        .collect()
}

/// How long `count` clicks take to post, pauses included.
pub(crate) fn click_duration(count: u32) -> Duration {
    SETTLE + BETWEEN * click_steps(count).len() as u32
}

/// The drag events' positions from `from` to `to`, evenly spaced, ending exactly at `to`.
pub(crate) fn drag_points(from: (f64, f64), to: (f64, f64)) -> Vec<(f64, f64)> {
    (1..=DRAG_STEPS)
        .map(|i| {
            let t = f64::from(i) / f64::from(DRAG_STEPS);
            (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
        })
        .collect()
}

/// How long a drag takes to post, pauses included.
pub(crate) fn drag_duration() -> Duration {
    SETTLE * 2 + BETWEEN * (DRAG_STEPS + 2)
}

/// Wheel deltas `(vertical, horizontal)` in lines for a scroll of `(dx, dy)` lines, where
/// positive `dy` scrolls down and positive `dx` right. CoreGraphics wheels count the other
/// way (positive moves content towards the top/left), hence the sign flip. `None` for
/// non-finite or zero deltas.
pub(crate) fn scroll_wheels((dx, dy): (f64, f64)) -> Option<(i32, i32)> {
    if !dx.is_finite() || !dy.is_finite() {
        return None;
    }
    // Float-to-int casts saturate; the clamp keeps the value well inside i32 anyway.
    let lines = |d: f64| (-d).round().clamp(-MAX_SCROLL_LINES, MAX_SCROLL_LINES) as i32;
    let wheels = (lines(dy), lines(dx));
    (wheels != (0, 0)).then_some(wheels)
}

/// Whether both coordinates of a point are finite.
pub(crate) fn is_finite_point((x, y): (f64, f64)) -> bool {
    x.is_finite() && y.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(count: u32) -> Vec<(Phase, i64)> {
        click_steps(count)
            .into_iter()
            .map(|s| (s.phase, s.click_state))
            .collect()
    }

    #[test]
    fn single_click_is_one_pair() {
        assert_eq!(states(1), [(Phase::Down, 1), (Phase::Up, 1)]);
    }

    #[test]
    fn double_click_counts_up() {
        assert_eq!(
            states(2),
            [
                (Phase::Down, 1),
                (Phase::Up, 1),
                (Phase::Down, 2),
                (Phase::Up, 2)
            ]
        );
    }

    #[test]
    fn click_counts_are_clamped() {
        assert_eq!(states(0), states(1));
        assert_eq!(click_steps(10).len(), 6);
        assert_eq!(click_duration(1), SETTLE + BETWEEN * 2);
    }

    #[test]
    fn drags_end_at_the_target() {
        let points = drag_points((0.0, 0.0), (120.0, -24.0));
        assert_eq!(points.len(), DRAG_STEPS as usize);
        assert_eq!(points[0], (10.0, -2.0));
        assert_eq!(points.last(), Some(&(120.0, -24.0)));
    }

    #[test]
    fn scrolling_down_is_a_negative_wheel() {
        assert_eq!(scroll_wheels((0.0, 3.0)), Some((-3, 0)));
        assert_eq!(scroll_wheels((-2.4, 0.0)), Some((0, 2)));
        assert_eq!(scroll_wheels((0.0, 0.2)), None);
        assert_eq!(scroll_wheels((f64::NAN, 1.0)), None);
        assert_eq!(scroll_wheels((0.0, 1e12)), Some((-10_000, 0)));
    }

    #[test]
    fn finite_points() {
        assert!(is_finite_point((1.0, -5.0)));
        assert!(!is_finite_point((f64::INFINITY, 0.0)));
    }
}
