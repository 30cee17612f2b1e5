//! Value coercion for writes: a given value is converted to the element's own type (from its
//! current value, or its role when it has none) and clamped to its min/max, and a read-back
//! is compared with what was written.

use super::model::{AxValue, RawNode, Role};

/// The type a write must have for this element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Bool,
    Number,
}

pub fn kind_of(node: &RawNode) -> Kind {
    match (&node.value, node.role) {
        (Some(AxValue::Bool(_)), _) => Kind::Bool,
        (Some(AxValue::Number(_)), _) => Kind::Number,
        (Some(AxValue::Text(_)), _) => Kind::Text,
        (None, Role::CheckBox | Role::RadioButton) => Kind::Bool,
        (None, Role::Slider | Role::SpinButton | Role::ProgressIndicator) => Kind::Number,
        (None, _) => Kind::Text,
    }
}

/// Converts `given` to the element's type, clamping numbers; `Err` says why not.
pub fn coerce(node: &RawNode, given: AxValue) -> Result<AxValue, String> {
    match (kind_of(node), given) {
        (Kind::Text, AxValue::Text(s)) => Ok(AxValue::Text(s)),
        (Kind::Text, AxValue::Number(n)) => Ok(AxValue::Text(format_number(n))),
        (Kind::Text, AxValue::Bool(b)) => Ok(AxValue::Text(b.to_string())),
        (Kind::Bool, AxValue::Bool(b)) => Ok(AxValue::Bool(b)),
        (Kind::Bool, AxValue::Text(s)) => match s.trim().to_lowercase().as_str() {
            "true" | "1" | "yes" | "on" | "checked" => Ok(AxValue::Bool(true)),
            "false" | "0" | "no" | "off" | "unchecked" => Ok(AxValue::Bool(false)),
            _ => Err(format!("{s:?} is not a boolean; use true or false")),
        },
        (Kind::Bool, AxValue::Number(n)) if n == 0.0 || n == 1.0 => Ok(AxValue::Bool(n == 1.0)),
        (Kind::Bool, AxValue::Number(n)) => Err(format!("{n} is not a boolean; use true or false")),
        (Kind::Number, AxValue::Number(n)) => clamp(node, n),
        (Kind::Number, AxValue::Text(s)) => match s.trim().parse::<f64>() {
            Ok(n) => clamp(node, n),
            Err(_) => Err(format!("{s:?} is not a number")),
        },
        (Kind::Number, AxValue::Bool(_)) => Err("a boolean is not a number".into()),
    }
}

fn clamp(node: &RawNode, n: f64) -> Result<AxValue, String> {
    if !n.is_finite() {
        return Err(format!("{n} is not a finite number"));
    }
    let lo = node.min_value.unwrap_or(f64::NEG_INFINITY);
    let hi = node.max_value.unwrap_or(f64::INFINITY);
    Ok(AxValue::Number(n.clamp(lo.min(hi), hi.max(lo))))
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// Whether a value read back matches what was written (numbers within a small tolerance).
pub fn matches(written: &AxValue, read: Option<&AxValue>) -> bool {
    match (written, read) {
        (AxValue::Number(a), Some(AxValue::Number(b))) => (a - b).abs() <= 1e-6 * a.abs().max(1.0),
        (a, Some(b)) => a == b,
        (AxValue::Text(s), None) => s.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeId;

    fn node(role: Role, value: Option<AxValue>, range: Option<(f64, f64)>) -> RawNode {
        let mut n = RawNode::new(NodeId(1), role, "x");
        n.value = value;
        if let Some((lo, hi)) = range {
            n.min_value = Some(lo);
            n.max_value = Some(hi);
        }
        n
    }

    #[test]
    fn coercion_table() {
        let slider = node(
            Role::Slider,
            Some(AxValue::Number(50.0)),
            Some((0.0, 100.0)),
        );
        let check = node(Role::CheckBox, None, None);
        let field = node(Role::TextField, Some(AxValue::Text("a".into())), None);
        let cases: Vec<(&RawNode, AxValue, Result<AxValue, ()>)> = vec![
            (&slider, AxValue::Number(150.0), Ok(AxValue::Number(100.0))),
            (
                &slider,
                AxValue::Text(" -5 ".into()),
                Ok(AxValue::Number(0.0)),
            ),
            (&slider, AxValue::Text("loud".into()), Err(())),
            (&slider, AxValue::Bool(true), Err(())),
            (&check, AxValue::Text("On".into()), Ok(AxValue::Bool(true))),
            (&check, AxValue::Number(0.0), Ok(AxValue::Bool(false))),
            (&check, AxValue::Number(2.0), Err(())),
            (
                &field,
                AxValue::Number(42.0),
                Ok(AxValue::Text("42".into())),
            ),
            (
                &field,
                AxValue::Number(2.5),
                Ok(AxValue::Text("2.5".into())),
            ),
            (
                &field,
                AxValue::Bool(false),
                Ok(AxValue::Text("false".into())),
            ),
        ];
        for (n, given, want) in cases {
            let got = coerce(n, given.clone()).map_err(|_| ());
            assert_eq!(got, want, "{:?} ← {given:?}", n.role);
        }
    }

    #[test]
    fn read_back_comparison() {
        assert!(matches(
            &AxValue::Number(0.1 + 0.2),
            Some(&AxValue::Number(0.3))
        ));
        assert!(!matches(
            &AxValue::Text("a".into()),
            Some(&AxValue::Text("b".into()))
        ));
        assert!(matches(&AxValue::Text(String::new()), None));
    }
}
