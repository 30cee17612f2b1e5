//! Masking: a secret typed into a field that is not a secure text field can be read back (the
//! field's value, a diff's `changes`, a later `get_tree`). Its value is replaced by `•••` in
//! every string of the call's result, and the session keeps the value (a small bounded set,
//! zeroed when it leaves) to mask its later results too.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use zeroize::Zeroizing;

/// What a masked value is shown as.
pub const SHOWN: &str = "•••";

/// Values a session masks at most.
pub const MAX_VALUES: usize = 16;

/// Bytes of values a session masks at most; past either bound the oldest is forgotten.
pub const MAX_BYTES: usize = 4096;

/// Shorter values are not masked in the session's later results: replacing every `pin` in a
/// tree would garble it, and a value that short is no secret worth the name.
pub const MIN_LEN: usize = 4;

/// The values one session masks in its results, oldest first.
#[derive(Default)]
pub struct Masks {
    values: Mutex<VecDeque<Zeroizing<String>>>,
    /// Values forgotten to stay within the bounds since [`Masks::take_forgotten`].
    forgotten: AtomicU64,
}

impl Masks {
    /// Keeps `value` to mask from now on; returns how many values were forgotten to make
    /// room (also counted for [`Masks::take_forgotten`]).
    pub fn add(&self, value: &str) -> usize {
        if value.len() < MIN_LEN || value.len() > MAX_BYTES {
            return 0;
        }
        let mut values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        if values.iter().any(|v| v.as_str() == value) {
            return 0;
        }
        values.push_back(Zeroizing::new(value.to_owned()));
        let mut dropped = 0;
        while values.len() > MAX_VALUES || values.iter().map(|v| v.len()).sum::<usize>() > MAX_BYTES
        {
            values.pop_front();
            dropped += 1;
        }
        self.forgotten.fetch_add(dropped as u64, Ordering::Relaxed);
        dropped
    }

    /// Values forgotten since the last call (for `axgate_secret_masks_forgotten_total`).
    pub fn take_forgotten(&self) -> u64 {
        self.forgotten.swap(0, Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.values
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// Masks every kept value in `value`.
    pub fn apply(&self, value: &mut Value) {
        let values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        // Longest first, so a value that contains another is masked whole.
        let mut kept: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
        kept.sort_by_key(|v| std::cmp::Reverse(v.len()));
        mask(value, &kept);
    }
}

/// Replaces each of `secrets` (non-empty strings) in every string of `value`.
pub fn mask(value: &mut Value, secrets: &[&str]) {
    match value {
        Value::String(s) => {
            for secret in secrets {
                if !secret.is_empty() && s.contains(secret) {
                    *s = s.replace(secret, SHOWN);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| mask(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| mask(v, secrets)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_masked_in_every_string() {
        let masks = Masks::default();
        masks.add("hunter22");
        let mut v = json!({"text": "set_value x\nvalue \"hunter22\"", "changes": [{"to": "hunter22"}], "n": 3});
        masks.apply(&mut v);
        assert_eq!(
            v,
            json!({"text": "set_value x\nvalue \"•••\"", "changes": [{"to": "•••"}], "n": 3})
        );
    }

    #[test]
    fn the_set_is_bounded_by_count_and_bytes() {
        let masks = Masks::default();
        let dropped: usize = (0..MAX_VALUES + 3)
            .map(|i| masks.add(&format!("value{i:04}")))
            .sum();
        assert_eq!(dropped, 3);
        assert_eq!(masks.take_forgotten(), 3);
        assert_eq!(masks.take_forgotten(), 0);
        let mut first = json!("value0000 value0018");
        masks.apply(&mut first);
        assert_eq!(first, json!("value0000 •••"), "the oldest was forgotten");
        assert_eq!(masks.add("abc"), 0, "too short to mask");
        let big = "x".repeat(MAX_BYTES - 10);
        assert!(masks.add(&big) > 0, "bytes bound");
        let mut v = json!(big.clone());
        masks.apply(&mut v);
        assert_eq!(v, json!(SHOWN));
    }
}
