//! Keys as X11 sees them: characters and named keys → keysyms, modifiers → modifier keysyms
//! (`cmd` is Control on Linux, where shortcuts use Ctrl), and finding the keycode of a keysym
//! in the server's keyboard mapping. Plain logic; `input.rs` posts the events.

use axgate_engine::keys::{Key, KeyCombo, NamedKey, x11_keysym};

pub(super) const SHIFT_L: u32 = 0xffe1;
pub(super) const CONTROL_L: u32 = 0xffe3;
pub(super) const ALT_L: u32 = 0xffe9;

/// The keysym that types a character: Latin-1 maps to itself, control characters to their
/// keys, everything else to the Unicode keysym range.
pub(super) fn char_keysym(c: char) -> u32 {
    match c {
        '\n' | '\r' => x11_keysym(NamedKey::Return),
        '\t' => x11_keysym(NamedKey::Tab),
        '\u{8}' => x11_keysym(NamedKey::Backspace),
        '\u{1b}' => x11_keysym(NamedKey::Escape),
        ' '..='~' | '\u{a0}'..='\u{ff}' => c as u32,
        other => 0x0100_0000 + other as u32,
    }
}

/// The modifier keysyms to hold and the key's keysym, for a combo.
pub(super) fn combo_keysyms(combo: &KeyCombo) -> (Vec<u32>, u32) {
    let m = combo.modifiers;
    let mut mods = Vec::new();
    if m.cmd || m.ctrl {
        mods.push(CONTROL_L);
    }
    if m.opt {
        mods.push(ALT_L);
    }
    if m.shift {
        mods.push(SHIFT_L);
    }
    let key = match combo.key {
        Key::Named(k) => x11_keysym(k),
        Key::Char(c) if !mods.is_empty() => char_keysym(c.to_ascii_lowercase()),
        Key::Char(c) => char_keysym(c),
    };
    (mods, key)
}

/// The keycode whose first (plain) or second (shifted) column holds `keysym`, from a
/// `GetKeyboardMapping` reply; the flag says shift is needed.
pub(super) fn find_keycode(
    min_keycode: u8,
    per: u8,
    syms: &[u32],
    keysym: u32,
) -> Option<(u8, bool)> {
    let per = usize::from(per.max(1));
    for column in 0..2.min(per) {
        for (row, chunk) in syms.chunks(per).enumerate() {
            if chunk.get(column) == Some(&keysym) {
                let code = usize::from(min_keycode) + row;
                return u8::try_from(code).ok().map(|c| (c, column == 1));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_to_keysyms() {
        assert_eq!(char_keysym('a'), 0x61);
        assert_eq!(char_keysym('A'), 0x41);
        assert_eq!(char_keysym('é'), 0xe9);
        assert_eq!(char_keysym('€'), 0x0100_20ac);
        assert_eq!(char_keysym('\n'), 0xff0d);
    }

    #[test]
    fn combos_hold_control_for_cmd() {
        let combo = KeyCombo::parse("cmd+shift+S", &[]).unwrap();
        assert_eq!(combo_keysyms(&combo), (vec![CONTROL_L, SHIFT_L], 0x73));
        let plain = KeyCombo::parse("Return", &[]).unwrap();
        assert_eq!(combo_keysyms(&plain), (vec![], 0xff0d));
        let alt = KeyCombo::parse("opt+f4", &[]).unwrap();
        assert_eq!(combo_keysyms(&alt), (vec![ALT_L], 0xffc1));
    }

    #[test]
    fn keycodes_from_a_mapping() {
        // keycodes 8, 9, 10 with two columns each.
        let syms = [0x61, 0x41, 0x62, 0x42, 0xff0d, 0];
        assert_eq!(find_keycode(8, 2, &syms, 0x62), Some((9, false)));
        assert_eq!(find_keycode(8, 2, &syms, 0x41), Some((8, true)));
        assert_eq!(find_keycode(8, 2, &syms, 0xff0d), Some((10, false)));
        assert_eq!(find_keycode(8, 2, &syms, 0x7a), None);
    }
}
