//! AT-SPI state bits (`ATSPI_STATE_*`, the 64-bit set `GetState` and `Cache.GetItems` return)
//! and how they become the engine's [`States`].

use axgate_engine::{Role, States};

/// Bit positions of the AT-SPI states this backend reads.
pub(super) mod bit {
    pub(crate) const ACTIVE: u32 = 1;
    pub(crate) const CHECKED: u32 = 4;
    pub(crate) const EDITABLE: u32 = 7;
    pub(crate) const ENABLED: u32 = 8;
    pub(crate) const EXPANDED: u32 = 10;
    pub(crate) const FOCUSABLE: u32 = 11;
    pub(crate) const FOCUSED: u32 = 12;
    pub(crate) const ICONIFIED: u32 = 15;
    pub(crate) const MULTI_LINE: u32 = 17;
    pub(crate) const PRESSED: u32 = 20;
    pub(crate) const SELECTED: u32 = 23;
    pub(crate) const SENSITIVE: u32 = 24;
    pub(crate) const SHOWING: u32 = 25;
    pub(crate) const VISIBLE: u32 = 30;
    pub(crate) const MANAGES_DESCENDANTS: u32 = 31;
    pub(crate) const READ_ONLY: u32 = 43;
}

/// Whether state `bit` is set in `bits`.
pub(super) fn has(bits: u64, bit: u32) -> bool {
    bits & (1u64 << bit) != 0
}

/// The engine's states from AT-SPI bits. `settable_value` says whether the element exposes a
/// writable value (editable text, or the Value interface on a range control).
pub(super) fn to_states(bits: u64, role: Role, settable_value: bool) -> States {
    States {
        enabled: has(bits, bit::ENABLED) || has(bits, bit::SENSITIVE),
        visible: has(bits, bit::SHOWING) && has(bits, bit::VISIBLE),
        focused: has(bits, bit::FOCUSED),
        selected: has(bits, bit::SELECTED),
        expanded: has(bits, bit::EXPANDED),
        secure: role == Role::SecureTextField,
        value_settable: settable_value && !has(bits, bit::READ_ONLY),
    }
}

/// The on/off value of a toggle-like element.
pub(super) fn toggle_value(bits: u64) -> bool {
    has(bits, bit::CHECKED) || has(bits, bit::PRESSED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(bits: &[u32]) -> u64 {
        bits.iter().fold(0, |acc, b| acc | (1u64 << b))
    }

    #[test]
    fn a_showing_enabled_focused_button() {
        let s = to_states(
            set(&[
                bit::ENABLED,
                bit::SENSITIVE,
                bit::SHOWING,
                bit::VISIBLE,
                bit::FOCUSED,
            ]),
            Role::Button,
            false,
        );
        assert!(s.enabled && s.visible && s.focused);
        assert!(!s.selected && !s.secure && !s.value_settable);
    }

    #[test]
    fn hidden_disabled_and_secure() {
        let s = to_states(set(&[bit::VISIBLE]), Role::SecureTextField, true);
        assert!(!s.enabled, "no enabled/sensitive bit");
        assert!(!s.visible, "visible but not showing");
        assert!(s.secure && s.value_settable);
        let ro = to_states(set(&[bit::ENABLED, bit::READ_ONLY]), Role::TextField, true);
        assert!(!ro.value_settable);
    }

    #[test]
    fn toggles_read_checked_or_pressed() {
        assert!(toggle_value(set(&[bit::CHECKED])));
        assert!(toggle_value(set(&[bit::PRESSED])));
        assert!(!toggle_value(set(&[bit::FOCUSED])));
        assert!(has(set(&[bit::MANAGES_DESCENDANTS]), 31));
        assert!(has(set(&[bit::READ_ONLY]), 43));
    }
}
