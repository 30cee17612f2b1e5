//! How `set_value` writes a value on macOS, decided from the element's role and current
//! value: toggles are pressed (there is no toggle attribute), numbers are clamped to the
//! element's range, everything else is written to `AXValue`. And what a write that timed
//! out means, judged from a read-back: the app may have applied it and only answered late.
//! Plain Rust, no Apple types.

use axgate_engine::{AxValue, Role};

use super::roles;

/// What `set_value` does to the element.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum WritePlan {
    /// The element already holds the value.
    Nothing,
    /// Press the toggle once.
    Press,
    /// Write this value to `AXValue`.
    Attribute(AxValue),
}

/// The plan for writing `wanted`, or why the value cannot be written (for `InvalidValue`).
pub(crate) fn plan(
    role: Role,
    current: Option<&AxValue>,
    wanted: &AxValue,
    min: Option<f64>,
    max: Option<f64>,
) -> Result<WritePlan, String> {
    if roles::is_toggle(role) {
        let on = match wanted {
            AxValue::Bool(b) => *b,
            AxValue::Number(n) if *n == 0.0 || *n == 1.0 => *n == 1.0,
            _ => return Err("expected true or false".to_owned()),
        };
        return match current {
            Some(AxValue::Bool(now)) if *now == on => Ok(WritePlan::Nothing),
            Some(AxValue::Bool(true)) if role != Role::CheckBox => Err(
                "a selected radio button or tab cannot be turned off; select another one instead"
                    .to_owned(),
            ),
            _ => Ok(WritePlan::Press),
        };
    }
    match wanted {
        AxValue::Number(n) if !n.is_finite() => Err("expected a finite number".to_owned()),
        AxValue::Number(n) => Ok(WritePlan::Attribute(AxValue::Number(clamp(*n, min, max)))),
        other => Ok(WritePlan::Attribute(other.clone())),
    }
}

/// Clamps `value` into `[min, max]`, ignoring a bound that is absent or inverted.
pub(crate) fn clamp(value: f64, min: Option<f64>, max: Option<f64>) -> f64 {
    match (min, max) {
        (Some(lo), Some(hi)) if lo > hi => value,
        _ => {
            let value = min.map_or(value, |lo| value.max(lo));
            max.map_or(value, |hi| value.min(hi))
        }
    }
}

/// What a write that timed out turned out to be, after reading the value back.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TimedOutWrite {
    /// The value reads back as written: the app applied it and answered late.
    Landed,
    /// Not confirmed; the text says what was read back (never a secure field's value).
    Unverified(String),
}

/// Judges a timed-out write of `written` from the value read back afterwards (`None`: the
/// read-back failed or found no value). `secure` keeps both values out of the message.
pub(crate) fn judge_timed_out_write(
    written: &AxValue,
    read_back: Option<&AxValue>,
    secure: bool,
) -> TimedOutWrite {
    if read_back.is_some_and(|now| same_value(now, written)) {
        return TimedOutWrite::Landed;
    }
    let found = match read_back {
        None => "the value could not be read back".to_owned(),
        Some(_) if secure => "a secure field's value cannot be compared".to_owned(),
        Some(now) => format!("it reads {now:?}, not {written:?}"),
    };
    TimedOutWrite::Unverified(format!(
        "the write timed out and is unverified: {found}. The app may still apply it; check the \
         element before writing again"
    ))
}

/// Value equality as apps report it back: numbers within a relative 1e-9 (a float written
/// may read back with rounding), booleans also as 0/1.
fn same_value(a: &AxValue, b: &AxValue) -> bool {
    let number = |v: &AxValue| match v {
        AxValue::Number(n) => Some(*n),
        AxValue::Bool(b) => Some(f64::from(u8::from(*b))),
        AxValue::Text(_) => None,
    };
    match (a, b) {
        (AxValue::Text(x), AxValue::Text(y)) => x == y,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(role: Role, current: Option<AxValue>, wanted: AxValue, expect: Result<WritePlan, ()>) {
        let got = plan(role, current.as_ref(), &wanted, Some(0.0), Some(10.0)).map_err(|_| ());
        assert_eq!(got, expect, "{role} {current:?} <- {wanted:?}");
    }

    #[test]
    fn check_boxes_are_pressed_only_when_they_differ() {
        check(
            Role::CheckBox,
            Some(AxValue::Bool(false)),
            AxValue::Bool(true),
            Ok(WritePlan::Press),
        );
        check(
            Role::CheckBox,
            Some(AxValue::Bool(true)),
            AxValue::Bool(false),
            Ok(WritePlan::Press),
        );
        check(
            Role::CheckBox,
            Some(AxValue::Bool(true)),
            AxValue::Bool(true),
            Ok(WritePlan::Nothing),
        );
        check(
            Role::CheckBox,
            Some(AxValue::Number(2.0)),
            AxValue::Bool(true),
            Ok(WritePlan::Press),
        );
        check(
            Role::CheckBox,
            None,
            AxValue::Number(1.0),
            Ok(WritePlan::Press),
        );
        check(Role::CheckBox, None, AxValue::Text("yes".into()), Err(()));
    }

    #[test]
    fn radio_buttons_cannot_be_turned_off() {
        check(
            Role::RadioButton,
            Some(AxValue::Bool(true)),
            AxValue::Bool(false),
            Err(()),
        );
        check(
            Role::Tab,
            Some(AxValue::Bool(false)),
            AxValue::Bool(true),
            Ok(WritePlan::Press),
        );
    }

    #[test]
    fn numbers_are_clamped() {
        check(
            Role::Slider,
            None,
            AxValue::Number(42.0),
            Ok(WritePlan::Attribute(AxValue::Number(10.0))),
        );
        check(
            Role::Slider,
            None,
            AxValue::Number(-1.0),
            Ok(WritePlan::Attribute(AxValue::Number(0.0))),
        );
        check(Role::Slider, None, AxValue::Number(f64::NAN), Err(()));
    }

    #[test]
    fn text_is_written_as_is() {
        check(
            Role::TextField,
            Some(AxValue::Text("old".into())),
            AxValue::Text("new".into()),
            Ok(WritePlan::Attribute(AxValue::Text("new".into()))),
        );
    }

    #[test]
    fn clamp_ignores_missing_or_inverted_bounds() {
        assert_eq!(clamp(5.0, None, None), 5.0);
        assert_eq!(clamp(5.0, Some(6.0), None), 6.0);
        assert_eq!(clamp(5.0, None, Some(4.0)), 4.0);
        assert_eq!(clamp(5.0, Some(9.0), Some(1.0)), 5.0);
    }

    #[test]
    fn a_timed_out_write_that_reads_back_landed() {
        let written = AxValue::Number(0.3);
        assert_eq!(
            judge_timed_out_write(&written, Some(&AxValue::Number(0.1 + 0.2)), false),
            TimedOutWrite::Landed
        );
        assert_eq!(
            judge_timed_out_write(&AxValue::Bool(true), Some(&AxValue::Number(1.0)), false),
            TimedOutWrite::Landed
        );
        let text = AxValue::Text("hello".into());
        assert_eq!(
            judge_timed_out_write(&text, Some(&text), true),
            TimedOutWrite::Landed
        );
    }

    #[test]
    fn a_timed_out_write_that_reads_back_otherwise_is_unverified() {
        let written = AxValue::Text("new".into());
        let TimedOutWrite::Unverified(text) =
            judge_timed_out_write(&written, Some(&AxValue::Text("old".into())), false)
        else {
            panic!("landed")
        };
        assert!(
            text.contains("timed out") && text.contains("\"old\""),
            "{text}"
        );
        let TimedOutWrite::Unverified(text) = judge_timed_out_write(&written, None, false) else {
            panic!("landed")
        };
        assert!(text.contains("could not be read back"), "{text}");
    }

    #[test]
    fn secure_values_stay_out_of_an_unverified_write() {
        let written = AxValue::Text("hunter2".into());
        let TimedOutWrite::Unverified(text) =
            judge_timed_out_write(&written, Some(&AxValue::Text("hunter".into())), true)
        else {
            panic!("landed")
        };
        assert!(!text.contains("hunter"), "{text}");
    }
}
