//! Keys as X11 sees them: characters and named keys → keysyms, modifiers → modifier keysyms
//! (`cmd` is Control on Linux, where shortcuts use Ctrl), finding the keycode of a keysym in
//! the server's keyboard mapping, and planning which spare keycodes take the keysyms the
//! mapping lacks. Plain logic; `input.rs` changes the mapping and posts the events.

use axgate_engine::keys::{Key, KeyCombo, Modifiers, NamedKey, x11_keysym};

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

/// The modifier keysyms to hold for `m`, in the order they are pressed.
pub(super) fn modifier_keysyms(m: Modifiers) -> Vec<u32> {
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
    mods
}

/// The modifier keysyms to hold and the key's keysym, for a combo.
pub(super) fn combo_keysyms(combo: &KeyCombo) -> (Vec<u32>, u32) {
    let mods = modifier_keysyms(combo.modifiers);
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

/// How a run of keysyms is typed: each from a keycode, after the spare keycodes in `assign`
/// are given the keysyms the mapping lacks (in both plain and shifted columns, so no shift).
#[derive(Debug, PartialEq)]
pub(super) struct KeyPlan {
    /// `(keycode, shift)` for the first `keys.len()` keysyms asked for.
    pub(super) keys: Vec<(u8, bool)>,
    /// `(keycode, keysym)` to write into the mapping before typing.
    pub(super) assign: Vec<(u8, u32)>,
}

/// Plans the longest prefix of `wanted` that the mapping can type without changing a keycode
/// twice: keysyms on the map use their keycode; the others take keycodes with no keysym at
/// all, then keycodes from `reusable` (spares given earlier, oldest first) that this prefix
/// does not use. The mapping stays the same while the prefix is typed, so an app that reads
/// the mapping late still translates every press right. The caller types what is left after
/// the app has handled this prefix.
pub(super) fn plan_keys(
    min_keycode: u8,
    per: u8,
    syms: &[u32],
    wanted: &[u32],
    reusable: &[u8],
) -> KeyPlan {
    let width = usize::from(per.max(1));
    let code_of = |row: usize| u8::try_from(usize::from(min_keycode) + row).ok();
    let empty = syms
        .chunks(width)
        .enumerate()
        .filter(|(_, chunk)| chunk.iter().all(|s| *s == 0))
        .filter_map(|(row, _)| code_of(row));
    // Spares holding a keysym this text needs stay as they are.
    let kept = |code: &u8| {
        let row = usize::from(*code).wrapping_sub(usize::from(min_keycode));
        syms.chunks(width)
            .nth(row)
            .is_none_or(|chunk| !wanted.contains(&chunk[0]))
    };
    // Rows some earlier typing gave one character (this process's, oldest first, then any
    // other process's, such as an earlier server on the same display).
    let given = syms
        .chunks(width)
        .enumerate()
        .filter(|(_, chunk)| looks_given(chunk))
        .filter_map(|(row, _)| code_of(row))
        .filter(|code| !reusable.contains(code));
    let mut spares = empty.chain(reusable.iter().copied().chain(given).filter(kept));
    let mut plan = KeyPlan {
        keys: Vec::with_capacity(wanted.len()),
        assign: Vec::new(),
    };
    for &sym in wanted {
        if let Some(found) = find_keycode(min_keycode, per, syms, sym) {
            plan.keys.push(found);
        } else if let Some(&(code, _)) = plan.assign.iter().find(|(_, s)| *s == sym) {
            plan.keys.push((code, false));
        } else if let Some(code) = spares.find(|c| plan.assign.iter().all(|(a, _)| a != c)) {
            plan.assign.push((code, sym));
            plan.keys.push((code, false));
        } else {
            break;
        }
    }
    plan
}

/// Whether a mapping row is one that [`plan_keys`] gave a character: one non-ASCII character
/// keysym (Latin-1 from U+00A0, or Unicode), in however many columns the server shows it
/// (XKB reports a one-level key as `S, NoSymbol, S`), and no other keysym. Keyboard layouts
/// do not make such rows: a letter key has two cases, the space bar is ASCII, other keys have
/// keysyms outside those ranges.
fn looks_given(chunk: &[u32]) -> bool {
    let mut held = chunk.iter().copied().filter(|s| *s != 0);
    let Some(first) = held.next() else {
        return false;
    };
    let character = (0xa0..=0xff).contains(&first) || first >= 0x0100_0000;
    character && held.all(|s| s == first)
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

    #[test]
    fn missing_keysyms_take_spare_keycodes_once_each() {
        // 8: a/A, 9: empty, 10: Return, 11: empty, 12: empty.
        let syms = [0x61, 0x41, 0, 0, 0xff0d, 0, 0, 0, 0, 0];
        let (e, j) = (0x0100_00eb, 0x0100_65e5);
        let plan = plan_keys(8, 2, &syms, &[0x61, e, j, e, 0x41], &[]);
        assert_eq!(plan.assign, vec![(9, e), (11, j)]);
        assert_eq!(
            plan.keys,
            vec![(8, false), (9, false), (11, false), (9, false), (8, true)]
        );
    }

    #[test]
    fn a_text_with_more_missing_keysyms_than_spares_is_typed_in_parts() {
        let syms = [0x61, 0x41, 0, 0];
        let wanted = [0x0100_0001, 0x0100_0002, 0x61];
        let first = plan_keys(8, 2, &syms, &wanted, &[]);
        assert_eq!(first.assign, vec![(9, 0x0100_0001)]);
        assert_eq!(
            first.keys.len(),
            1,
            "the prefix stops where no spare is left"
        );
        // Once 9 holds the first keysym, it is reused for the next part.
        let after = [0x61, 0x41, 0x0100_0001, 0x0100_0001];
        let second = plan_keys(8, 2, &after, &wanted[1..], &[9]);
        assert_eq!(second.assign, vec![(9, 0x0100_0002)]);
        assert_eq!(second.keys, vec![(9, false), (8, false)]);
    }

    #[test]
    fn a_spare_holding_a_wanted_keysym_is_not_reused_for_another() {
        let syms = [0x0100_0001, 0x0100_0001, 0x0100_0002, 0x0100_0002];
        let plan = plan_keys(8, 2, &syms, &[0x0100_0001, 0x0100_0003], &[8, 9]);
        assert_eq!(plan.assign, vec![(9, 0x0100_0003)]);
        assert_eq!(plan.keys, vec![(8, false), (9, false)]);
    }

    #[test]
    fn spares_another_process_gave_are_reused_when_none_is_empty() {
        // 8: a/A, 9 and 10: given earlier by another process (nothing remembers them here),
        // 11: F1 (a key of the layout, not a spare).
        let syms = [
            0x61,
            0x41,
            0x0100_0001,
            0x0100_0001,
            0xeb,
            0xeb,
            0xffbe,
            0xffbe,
        ];
        let plan = plan_keys(8, 2, &syms, &[0x0100_0001, 0x0100_0003], &[]);
        assert_eq!(plan.assign, vec![(10, 0x0100_0003)]);
        assert_eq!(plan.keys, vec![(9, false), (10, false)]);
        assert!(!looks_given(&[0x61, 0x41]) && !looks_given(&[0xffbe, 0xffbe]));
        // As XKB shows a one-level key; the space bar is never taken.
        assert!(looks_given(&[0x0100_65e5, 0, 0x0100_65e5, 0]));
        assert!(!looks_given(&[0x20, 0, 0x20, 0]) && !looks_given(&[0, 0, 0, 0]));
    }
}
