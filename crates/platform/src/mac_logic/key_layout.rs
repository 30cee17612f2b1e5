//! The keyboard layout behind key combos, and the key events a combo is pressed with. macOS
//! matches a shortcut such as `cmd+z` by the character its key types on the layout the user
//! has selected, so a combo's character must be pressed on the key that types it there: on
//! a French AZERTY layout `z` is the key that ANSI calls W. The macOS adapter fills a
//! [`KeyLayout`] by asking `UCKeyTranslate` what every virtual key types at each modifier
//! level, the Command level included; [`KeyLayout::ansi`] is the fallback when the layout
//! cannot be read.
//!
//! A combo's letter is looked up as AppKit matches key equivalents ([`combo_key`]): on the
//! Command-key level of the current layout (Russian, Hebrew and "Dvorak – QWERTY ⌘" type
//! Latin letters there), then its typing levels, then the ASCII-capable layout (the one
//! macOS falls back to for shortcuts when the current layout has no Latin letters, as Greek).
//! Typed text carries its characters as Unicode (`CGEventKeyboardSetUnicodeString`) and, for
//! a character the layout types without Option ([`text_key`]), that key's code.
//!
//! A combo is pressed as a real user presses it: each modifier key goes down (a
//! flags-changed event carrying the flags held so far), then the key goes down and up, then
//! the modifiers come up in reverse order. Apps that watch modifier events (and macOS's own
//! shortcut handling) see a consistent sequence. Plain Rust, no Apple types.

use std::collections::HashMap;

use axgate_engine::keys::Modifiers;

/// The modifier keys a character may need on a layout, as `UCKeyTranslate` is asked for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Level {
    Base,
    Shift,
    Option,
    ShiftOption,
    /// With Command held: what AppKit matches key equivalents against.
    Command,
}

impl Level {
    /// Every typing level, in the order a character's key is preferred (fewest modifiers
    /// first). The Command level is asked apart: it types nothing, it names shortcuts.
    pub(crate) const ALL: [Level; 4] =
        [Level::Base, Level::Shift, Level::Option, Level::ShiftOption];

    /// The Carbon modifier state of `UCKeyTranslate` (`(modifiers >> 8) & 0xFF`): shift is
    /// bit 1 (`shiftKey` 0x0200), option bit 3 (`optionKey` 0x0800), command bit 0
    /// (`cmdKey` 0x0100).
    pub(crate) fn carbon_state(self) -> u32 {
        match self {
            Level::Command => 0x01,
            Level::Base => 0,
            Level::Shift => 0x02,
            Level::Option => 0x08,
            Level::ShiftOption => 0x0A,
        }
    }

    fn adds(self) -> Modifiers {
        Modifiers {
            shift: matches!(self, Level::Shift | Level::ShiftOption),
            opt: matches!(self, Level::Option | Level::ShiftOption),
            // The Command level adds nothing: a combo holds Command anyway.
            ..Modifiers::default()
        }
    }
}

/// Virtual key codes of the keypad (`kVK_ANSI_Keypad*`): they type digits and operators too,
/// but a shortcut means the main keys, so the keypad only counts for characters no main key
/// types.
const KEYPAD: std::ops::RangeInclusive<u16> = 0x41..=0x5C;

/// Virtual key codes asked about: every key of a Mac keyboard.
pub(crate) const CODES: std::ops::Range<u16> = 0..128;

/// Which key types each character, on one keyboard layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyLayout {
    keys: HashMap<char, (u16, Level)>,
    /// What each main key types with Command held, by character (the lowest code wins).
    command: HashMap<char, u16>,
}

impl KeyLayout {
    /// Builds a layout from what each key types: `typed(code, level)` is the text that key
    /// code types at that level (`UCKeyTranslate` on macOS, dead keys reported as their
    /// character), or `None`. A character typed by several keys gets the one with the fewest
    /// modifiers, a main key before a keypad key, then the lowest code.
    pub(crate) fn from_keys(mut typed: impl FnMut(u16, Level) -> Option<String>) -> KeyLayout {
        let mut keys = HashMap::new();
        let mut command = HashMap::new();
        for code in CODES.filter(|code| !KEYPAD.contains(code)) {
            if let Some(c) = typed(code, Level::Command).and_then(|t| single(&t)) {
                command.entry(c).or_insert(code);
            }
        }
        let mains = CODES.filter(|code| !KEYPAD.contains(code));
        let pads = CODES.filter(|code| KEYPAD.contains(code));
        for code in mains.chain(pads) {
            for level in Level::ALL {
                let Some(c) = typed(code, level).and_then(|t| single(&t)) else {
                    continue;
                };
                keys.entry(c)
                    .and_modify(|known: &mut (u16, Level)| {
                        if rank(level, code) < rank(known.1, known.0) {
                            *known = (code, level);
                        }
                    })
                    .or_insert((code, level));
            }
        }
        KeyLayout { keys, command }
    }

    /// The US (ANSI) layout, for when the current layout cannot be read (a non-Unicode
    /// layout, no GUI session).
    pub(crate) fn ansi() -> KeyLayout {
        KeyLayout::from_keys(|code, level| {
            let (base, _) = ANSI.iter().find(|(_, c)| *c == code)?;
            let c = match level {
                Level::Base | Level::Command => *base,
                Level::Shift => shifted(*base)?,
                Level::Option | Level::ShiftOption => return None,
            };
            Some(c.to_string())
        })
    }

    /// The key that types `c` and the modifiers it needs, or `None` off the layout.
    pub(crate) fn key(&self, c: char) -> Option<(u16, Modifiers)> {
        self.keys.get(&c).map(|&(code, level)| (code, level.adds()))
    }

    /// The key that types `c` with Command held; an upper-case letter is its lower-case
    /// key with shift added (`cmd+S` is Command-Shift on the key of `s`).
    fn command_key(&self, c: char) -> Option<(u16, Modifiers)> {
        if let Some(&code) = self.command.get(&c) {
            return Some((code, Modifiers::default()));
        }
        let lower = single(&c.to_lowercase().collect::<String>()).filter(|l| *l != c)?;
        let &code = self.command.get(&lower)?;
        let shift = Modifiers {
            shift: true,
            ..Modifiers::default()
        };
        Some((code, shift))
    }
}

/// The one non-control character of `text`, if it is exactly one.
fn single(text: &str) -> Option<char> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() => Some(c),
        _ => None,
    }
}

/// The key a combo presses for its character `c` with `modifiers` held, and the modifiers
/// that key adds, as AppKit resolves key equivalents: with Command held, the Command level
/// of the current layout first; then the current layout's typing levels; then, for any
/// combo with Command, Control or Option, the ASCII-capable layout (its Command level, then
/// its typing levels). `None` when no layout has the character.
pub(crate) fn combo_key(
    c: char,
    modifiers: Modifiers,
    current: &KeyLayout,
    ascii: &KeyLayout,
) -> Option<(u16, Modifiers)> {
    let shortcut = modifiers.cmd || modifiers.ctrl || modifiers.opt;
    let on_command = |layout: &KeyLayout| {
        if modifiers.cmd {
            layout.command_key(c)
        } else {
            None
        }
    };
    on_command(current)
        .or_else(|| current.key(c))
        .or_else(|| shortcut.then(|| on_command(ascii)).flatten())
        .or_else(|| shortcut.then(|| ascii.key(c)).flatten())
}

/// The key to stamp on a typed character's event besides its Unicode text: the key that
/// types it on the layout without Option (apps that read key codes see the right key), or
/// `None` (the text alone, on key code 0, carries it).
pub(crate) fn text_key(units: &[u16], layout: &KeyLayout) -> Option<(u16, Modifiers)> {
    let text = String::from_utf16(units).ok()?;
    let c = single(&text)?;
    let (code, adds) = layout.key(c)?;
    (!adds.opt).then_some((code, adds))
}

/// Orders candidate keys for one character: fewer modifiers first, then main keys before
/// the keypad, then lower codes.
fn rank(level: Level, code: u16) -> (usize, bool, u16) {
    let modifiers = Level::ALL.iter().position(|l| *l == level).unwrap_or(4);
    (modifiers, KEYPAD.contains(&code), code)
}

/// ANSI virtual key codes (`kVK_ANSI_*`, `kVK_Space`) and what they type unshifted.
const ANSI: &[(char, u16)] = &[
    ('a', 0x00),
    ('s', 0x01),
    ('d', 0x02),
    ('f', 0x03),
    ('h', 0x04),
    ('g', 0x05),
    ('z', 0x06),
    ('x', 0x07),
    ('c', 0x08),
    ('v', 0x09),
    ('b', 0x0B),
    ('q', 0x0C),
    ('w', 0x0D),
    ('e', 0x0E),
    ('r', 0x0F),
    ('y', 0x10),
    ('t', 0x11),
    ('1', 0x12),
    ('2', 0x13),
    ('3', 0x14),
    ('4', 0x15),
    ('6', 0x16),
    ('5', 0x17),
    ('=', 0x18),
    ('9', 0x19),
    ('7', 0x1A),
    ('-', 0x1B),
    ('8', 0x1C),
    ('0', 0x1D),
    (']', 0x1E),
    ('o', 0x1F),
    ('u', 0x20),
    ('[', 0x21),
    ('i', 0x22),
    ('p', 0x23),
    ('l', 0x25),
    ('j', 0x26),
    ('\'', 0x27),
    ('k', 0x28),
    (';', 0x29),
    ('\\', 0x2A),
    (',', 0x2B),
    ('/', 0x2C),
    ('n', 0x2D),
    ('m', 0x2E),
    ('.', 0x2F),
    (' ', 0x31),
    ('`', 0x32),
];

/// What an ANSI key types with shift.
fn shifted(base: char) -> Option<char> {
    if base.is_ascii_lowercase() {
        return Some(base.to_ascii_uppercase());
    }
    const PAIRS: &str = "1!2@3#4$5%6^7&8*9(0)-_=+[{]}\\|;:'\",<.>/?`~  ";
    let chars: Vec<char> = PAIRS.chars().collect();
    chars
        .chunks(2)
        .find(|pair| pair[0] == base)
        .map(|pair| pair[1])
}

/// Where a modifier's flag lives in [`Modifiers`].
type ModifierFlag = fn(&mut Modifiers) -> &mut bool;

/// Virtual key codes of the modifier keys (`kVK_Command`, `kVK_Shift`, `kVK_Option`,
/// `kVK_Control`), in the order they go down.
const MODIFIER_KEYS: [(u16, ModifierFlag); 4] = [
    (0x3B, |m| &mut m.ctrl),
    (0x3A, |m| &mut m.opt),
    (0x38, |m| &mut m.shift),
    (0x37, |m| &mut m.cmd),
];

/// One keyboard event of a combo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyEvent {
    pub(crate) code: u16,
    pub(crate) down: bool,
    /// A modifier key's own event (posted as flags-changed), not the combo's key.
    pub(crate) modifier: bool,
    /// The modifier flags held once this event has happened.
    pub(crate) flags: Modifiers,
}

/// The events that press `code` with `modifiers`: modifier downs, the key down and up, the
/// modifier ups in reverse.
pub(crate) fn combo_events(code: u16, modifiers: Modifiers) -> Vec<KeyEvent> {
    let held: Vec<_> = MODIFIER_KEYS
        .iter()
        .filter(|(_, flag)| *flag(&mut modifiers.clone()))
        .collect();
    let mut events = Vec::with_capacity(held.len() * 2 + 2);
    let mut flags = Modifiers::default();
    for (key, flag) in &held {
        *flag(&mut flags) = true;
        events.push(KeyEvent {
            code: *key,
            down: true,
            modifier: true,
            flags,
        });
    }
    for down in [true, false] {
        events.push(KeyEvent {
            code,
            down,
            modifier: false,
            flags,
        });
    }
    for (key, flag) in held.iter().rev() {
        *flag(&mut flags) = false;
        events.push(KeyEvent {
            code: *key,
            down: false,
            modifier: true,
            flags,
        });
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A French AZERTY layout's letters and digits row, as `UCKeyTranslate` reports them:
    /// A and Q, Z and W swap, M sits where ANSI has `;`, the digits need shift.
    fn azerty(code: u16, level: Level) -> Option<String> {
        let base = match code {
            0x00 => 'q',
            0x0C => 'a',
            0x06 => 'w',
            0x0D => 'z',
            0x29 => 'm',
            0x2E => ',',
            0x12 => '&',
            0x13 => 'é',
            0x01 => 's',
            0x25 => 'l',
            0x59 => '7',
            _ => return None,
        };
        let c = match level {
            Level::Base => base,
            Level::Shift if base.is_ascii_lowercase() => base.to_ascii_uppercase(),
            Level::Shift => match base {
                '&' => '1',
                'é' => '2',
                ',' => '?',
                _ => return None,
            },
            Level::Option if base == 'l' => '@',
            _ => return None,
        };
        Some(c.to_string())
    }

    fn only(modifier: fn(&mut Modifiers) -> &mut bool) -> Modifiers {
        let mut m = Modifiers::default();
        *modifier(&mut m) = true;
        m
    }

    #[test]
    fn a_combo_presses_the_key_that_types_its_character_on_the_current_layout() {
        let layout = KeyLayout::from_keys(azerty);
        // cmd+z (undo) on AZERTY is the key ANSI calls W.
        assert_eq!(layout.key('z'), Some((0x0D, Modifiers::default())));
        assert_eq!(layout.key('a'), Some((0x0C, Modifiers::default())));
        assert_eq!(layout.key('m'), Some((0x29, Modifiers::default())));
        assert_eq!(layout.key('Q'), Some((0x00, only(|m| &mut m.shift))));
        // Digits need shift on AZERTY; 7 is only on the keypad here, which then counts.
        assert_eq!(layout.key('1'), Some((0x12, only(|m| &mut m.shift))));
        assert_eq!(layout.key('7'), Some((0x59, Modifiers::default())));
        assert_eq!(layout.key('@'), Some((0x25, only(|m| &mut m.opt))));
        assert_eq!(layout.key('é'), Some((0x13, Modifiers::default())));
        assert_eq!(layout.key('ß'), None);
    }

    #[test]
    fn the_key_with_fewest_modifiers_and_a_main_key_before_the_keypad_wins() {
        let layout = KeyLayout::from_keys(|code, level| match (code, level) {
            (0x59, Level::Base) => Some("7".into()),
            (0x1A, Level::Shift) => Some("7".into()),
            (0x1A, Level::Base) => Some("è".into()),
            (0x10, Level::Option) => Some("7".into()),
            (0x20, Level::Base) => Some("\u{1b}".into()),
            (0x21, Level::Base) => Some("ab".into()),
            _ => None,
        });
        assert_eq!(layout.key('7'), Some((0x59, Modifiers::default())));
        assert_eq!(layout.key('è'), Some((0x1A, Modifiers::default())));
        assert_eq!(
            layout.keys.len(),
            2,
            "control characters and multi-character output skipped"
        );
    }

    #[test]
    fn the_ansi_fallback_types_ascii_with_shift_where_a_us_keyboard_needs_it() {
        let ansi = KeyLayout::ansi();
        assert_eq!(ansi.key('s'), Some((0x01, Modifiers::default())));
        assert_eq!(ansi.key('S'), Some((0x01, only(|m| &mut m.shift))));
        assert_eq!(ansi.key('?'), Some((0x2C, only(|m| &mut m.shift))));
        assert_eq!(ansi.key(' '), Some((0x31, Modifiers::default())));
        assert_eq!(ansi.key('é'), None);
        // Every printable ASCII character has a key.
        for c in (0x20u8..0x7F).map(char::from) {
            assert!(ansi.key(c).is_some(), "{c:?}");
        }
        // Distinct keys per unshifted character.
        let mut codes: Vec<_> = ANSI.iter().map(|(_, code)| code).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), ANSI.len());
    }

    #[test]
    fn a_combo_holds_its_modifiers_around_the_key_and_releases_them_in_reverse() {
        let modifiers = Modifiers {
            cmd: true,
            shift: true,
            ..Modifiers::default()
        };
        let events = combo_events(0x01, modifiers);
        let seen: Vec<_> = events
            .iter()
            .map(|e| (e.code, e.down, e.modifier, e.flags.shift, e.flags.cmd))
            .collect();
        assert_eq!(
            seen,
            [
                (0x38, true, true, true, false),
                (0x37, true, true, true, true),
                (0x01, true, false, true, true),
                (0x01, false, false, true, true),
                (0x37, false, true, true, false),
                (0x38, false, true, false, false),
            ]
        );
        let plain = combo_events(0x24, Modifiers::default());
        assert_eq!(plain.len(), 2);
        assert!(plain.iter().all(|e| !e.modifier && e.flags.is_empty()));
    }

    #[test]
    fn carbon_modifier_states_match_uckeytranslate() {
        let states: Vec<_> = Level::ALL.iter().map(|l| l.carbon_state()).collect();
        assert_eq!(
            states,
            [0, 0x0200 >> 8, 0x0800 >> 8, (0x0200 | 0x0800) >> 8]
        );
        assert_eq!(Level::Command.carbon_state(), 0x0100 >> 8);
    }
}

#[cfg(test)]
#[path = "key_layout_tests.rs"]
mod layout_tests;
