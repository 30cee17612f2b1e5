//! The event sequences of synthetic pointer gestures, as plain data ([`plan`]): clicks (a
//! move, then one down/up pair per click whose click state counts up, so the app sees a double
//! or triple click rather than separate clicks), hovering (the move alone), long presses (down,
//! held, up at the same point), drags (down, interpolated drag events, up) and scroll wheel
//! deltas; the keys held through a gesture ride as flags on every one of its events. No Apple
//! types; `macos/input.rs` posts the steps.

use std::time::Duration;

use axgate_engine::AxError;
use axgate_engine::backend::{Gesture, MAX_HOLD, MouseButton, Pointer};
use axgate_engine::keys::Modifiers;

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

/// The drag events' positions from `from` to `to`, evenly spaced, ending exactly at `to`.
pub(crate) fn drag_points(from: (f64, f64), to: (f64, f64)) -> Vec<(f64, f64)> {
    (1..=DRAG_STEPS)
        .map(|i| {
            let t = f64::from(i) / f64::from(DRAG_STEPS);
            (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
        })
        .collect()
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

/// What a mouse event of a gesture is (with its button: the CoreGraphics event type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MouseKind {
    Moved,
    Down,
    Up,
    /// A move with the button down.
    Dragged,
}

/// One step of a gesture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Step {
    Mouse {
        kind: MouseKind,
        at: (f64, f64),
        button: MouseButton,
        /// The event's click-state field (0 for moves).
        click_state: i64,
    },
    /// One scroll-wheel event, in lines (CoreGraphics' signs).
    Wheel {
        vertical: i32,
        horizontal: i32,
    },
    Wait(Duration),
}

/// A gesture's events in order, and the keys whose flags every event carries.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plan {
    pub(crate) held: Modifiers,
    pub(crate) steps: Vec<Step>,
}

impl Plan {
    /// How long posting takes, waits included.
    pub(crate) fn duration(&self) -> Duration {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Wait(d) => *d,
                _ => Duration::ZERO,
            })
            .sum()
    }

    /// The points the gesture's pointer events land on, for the input guard: the first
    /// (where the pointer goes down or rests).
    pub(crate) fn start(&self) -> Option<(f64, f64)> {
        self.steps.iter().find_map(|s| match s {
            Step::Mouse { at, .. } => Some(*at),
            _ => None,
        })
    }
}

fn invalid(what: &str, reason: &str) -> AxError {
    AxError::InvalidValue {
        element: what.to_owned(),
        reason: reason.to_owned(),
    }
}

/// The events of a pointer gesture, or why it cannot be posted (a point that is not finite,
/// a scroll of less than a line, a hold longer than [`MAX_HOLD`]).
pub(crate) fn plan(act: &Pointer) -> Result<Plan, AxError> {
    let at = act.at;
    if !is_finite_point(at) {
        return Err(invalid(
            "the pointer position",
            "coordinates must be finite numbers",
        ));
    }
    let mouse = |kind, at, button, click_state| Step::Mouse {
        kind,
        at,
        button,
        click_state,
    };
    let left = MouseButton::Left;
    let mut steps = vec![mouse(MouseKind::Moved, at, left, 0), Step::Wait(SETTLE)];
    match act.gesture {
        Gesture::Click { button, count } => {
            steps[0] = mouse(MouseKind::Moved, at, button, 0);
            for step in click_steps(count) {
                let kind = match step.phase {
                    Phase::Down => MouseKind::Down,
                    Phase::Up => MouseKind::Up,
                };
                steps.push(mouse(kind, at, button, step.click_state));
                steps.push(Step::Wait(BETWEEN));
            }
        }
        Gesture::Hover => {}
        Gesture::Press { button, hold } => {
            if hold > MAX_HOLD {
                return Err(invalid(
                    "the hold",
                    &format!("a long press holds at most {} s", MAX_HOLD.as_secs()),
                ));
            }
            steps[0] = mouse(MouseKind::Moved, at, button, 0);
            steps.push(mouse(MouseKind::Down, at, button, 1));
            steps.push(Step::Wait(hold));
            steps.push(mouse(MouseKind::Up, at, button, 1));
            steps.push(Step::Wait(BETWEEN));
        }
        Gesture::Scroll { delta } => {
            let Some((vertical, horizontal)) = scroll_wheels(delta) else {
                return Err(invalid(
                    "the scroll amount",
                    "give at least one whole line as finite numbers",
                ));
            };
            steps.push(Step::Wheel {
                vertical,
                horizontal,
            });
            steps.push(Step::Wait(BETWEEN));
        }
        Gesture::Drag { to } => {
            if !is_finite_point(to) {
                return Err(invalid(
                    "the drag end",
                    "coordinates must be finite numbers",
                ));
            }
            steps.push(mouse(MouseKind::Down, at, left, 1));
            steps.push(Step::Wait(BETWEEN));
            for point in drag_points(at, to) {
                steps.push(mouse(MouseKind::Dragged, point, left, 1));
                steps.push(Step::Wait(BETWEEN));
            }
            steps.push(Step::Wait(SETTLE));
            steps.push(mouse(MouseKind::Up, to, left, 1));
        }
    }
    Ok(Plan {
        held: act.held,
        steps,
    })
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

    fn kinds(plan: &Plan) -> Vec<(MouseKind, MouseButton, i64)> {
        plan.steps
            .iter()
            .filter_map(|s| match s {
                Step::Mouse {
                    kind,
                    button,
                    click_state,
                    ..
                } => Some((*kind, *button, *click_state)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_click_is_a_move_and_its_pairs_with_the_keys_held() {
        let shift = Modifiers {
            shift: true,
            ..Modifiers::default()
        };
        let click = Gesture::Click {
            button: MouseButton::Right,
            count: 2,
        };
        let plan = plan(&Pointer::new((5.0, 6.0), click).holding(shift)).unwrap();
        assert_eq!(plan.held, shift);
        let right = MouseButton::Right;
        assert_eq!(
            kinds(&plan),
            [
                (MouseKind::Moved, right, 0),
                (MouseKind::Down, right, 1),
                (MouseKind::Up, right, 1),
                (MouseKind::Down, right, 2),
                (MouseKind::Up, right, 2),
            ]
        );
        assert_eq!(plan.duration(), SETTLE + BETWEEN * 4);
        assert_eq!(plan.start(), Some((5.0, 6.0)));
    }

    #[test]
    fn a_hover_only_moves_and_a_long_press_holds_in_place() {
        let hover = plan(&Pointer::new((1.0, 2.0), Gesture::Hover)).unwrap();
        assert_eq!(kinds(&hover), [(MouseKind::Moved, MouseButton::Left, 0)]);
        let hold = Duration::from_millis(800);
        let press = Gesture::Press {
            button: MouseButton::Left,
            hold,
        };
        let long = plan(&Pointer::new((1.0, 2.0), press)).unwrap();
        assert_eq!(
            kinds(&long)
                .into_iter()
                .map(|(k, _, _)| k)
                .collect::<Vec<_>>(),
            [MouseKind::Moved, MouseKind::Down, MouseKind::Up]
        );
        assert!(long.steps.contains(&Step::Wait(hold)));
        assert!(long.duration() >= hold);
        let too_long = Gesture::Press {
            button: MouseButton::Left,
            hold: MAX_HOLD + Duration::from_millis(1),
        };
        assert!(plan(&Pointer::new((1.0, 2.0), too_long)).is_err());
    }

    #[test]
    fn drags_and_scrolls_are_planned_and_checked() {
        let drag = plan(&Pointer::new(
            (0.0, 0.0),
            Gesture::Drag { to: (120.0, -24.0) },
        ))
        .unwrap();
        let steps = kinds(&drag);
        assert_eq!(steps.len(), 2 + DRAG_STEPS as usize + 1);
        assert_eq!(steps[1].0, MouseKind::Down);
        assert_eq!(steps.last().map(|s| s.0), Some(MouseKind::Up));
        let wheel = plan(&Pointer::new(
            (0.0, 0.0),
            Gesture::Scroll { delta: (0.0, 3.0) },
        ))
        .unwrap();
        assert!(wheel.steps.contains(&Step::Wheel {
            vertical: -3,
            horizontal: 0
        }));
        assert!(
            plan(&Pointer::new(
                (0.0, 0.0),
                Gesture::Scroll { delta: (0.0, 0.2) }
            ))
            .is_err()
        );
        assert!(plan(&Pointer::new((f64::NAN, 0.0), Gesture::Hover)).is_err());
        let far = Gesture::Drag {
            to: (f64::INFINITY, 0.0),
        };
        assert!(plan(&Pointer::new((0.0, 0.0), far)).is_err());
    }
}
