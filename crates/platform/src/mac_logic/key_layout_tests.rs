//! Key combos and typed characters on six keyboard layouts written as data: what each of the
//! thirty letter keys types unshifted and with Command held, in QWERTY key order (US,
//! French AZERTY, Russian, Greek, Hebrew, Dvorak and Dvorak – QWERTY ⌘). Shift gives the
//! upper case of the base character.

use axgate_engine::keys::{KeyCombo, Modifiers};

use super::{KeyLayout, Level, combo_key, text_key};
use crate::mac_logic::keystrokes::{Stroke, combo_stroke};

/// The thirty keys in QWERTY order (`kVK_ANSI_Q` … `kVK_ANSI_Slash`).
const KEYS: [u16; 30] = [
    0x0C, 0x0D, 0x0E, 0x0F, 0x11, 0x10, 0x20, 0x22, 0x1F, 0x23, // q w e r t y u i o p
    0x00, 0x01, 0x02, 0x03, 0x05, 0x04, 0x26, 0x28, 0x25, 0x29, // a s d f g h j k l ;
    0x06, 0x07, 0x08, 0x09, 0x0B, 0x2D, 0x2E, 0x2B, 0x2F, 0x2C, // z x c v b n m , . /
];

const QWERTY: &str = "qwertyuiopasdfghjkl;zxcvbnm,./";

/// A layout: what each key types unshifted, and with Command held.
struct Recorded {
    base: &'static str,
    command: &'static str,
}

/// A layout whose Command level is itself.
const fn own(base: &'static str) -> Recorded {
    Recorded {
        base,
        command: base,
    }
}

/// A layout with QWERTY Latin letters on the Command level.
const fn qwerty_command(base: &'static str) -> Recorded {
    Recorded {
        base,
        command: QWERTY,
    }
}

const US: Recorded = own(QWERTY);
/// French AZERTY: its Command level is AZERTY too (cmd+a is the key under A there).
const AZERTY: Recorded = own("azertyuiopqsdfghjklmwxcvbn,;:!");
/// Russian: Cyrillic letters, QWERTY Latin letters on the Command level.
const RUSSIAN: Recorded = qwerty_command("йцукенгшщзфывапролджячсмитьбю.");
/// Greek: no Latin Command level; shortcuts fall back to the ASCII-capable layout.
const GREEK: Recorded = own(";ςερτυθιοπασδφγηξκλ΄ζχψωβνμ,./");
/// Hebrew: Hebrew letters, QWERTY on the Command level.
const HEBREW: Recorded = qwerty_command("/'קראטוןםפשדגכעיחלךףזסבהנמצתץ.");
const DVORAK_KEYS: &str = "',.pyfgcrlaoeuidhtns;qjkxbmwvz";
const DVORAK: Recorded = own(DVORAK_KEYS);
/// "Dvorak – QWERTY ⌘": types Dvorak, shortcuts where QWERTY has them.
const DVORAK_QWERTY_CMD: Recorded = qwerty_command(DVORAK_KEYS);

fn layout(recorded: &Recorded) -> KeyLayout {
    let base: Vec<char> = recorded.base.chars().collect();
    let command: Vec<char> = recorded.command.chars().collect();
    assert_eq!((base.len(), command.len()), (30, 30));
    KeyLayout::from_keys(|code, level| {
        let i = KEYS.iter().position(|k| *k == code)?;
        let c = match level {
            Level::Base => base[i],
            Level::Command => command[i],
            Level::Shift => {
                let upper: Vec<char> = base[i].to_uppercase().collect();
                match upper[..] {
                    [u] if u != base[i] => u,
                    _ => return None,
                }
            }
            Level::Option | Level::ShiftOption => return None,
        };
        Some(c.to_string())
    })
}

fn cmd() -> Modifiers {
    Modifiers {
        cmd: true,
        ..Modifiers::default()
    }
}

/// The key code `combo` presses on `recorded`, the US layout being the ASCII-capable one.
fn pressed(recorded: &Recorded, combo: &str) -> Result<(u16, Modifiers), String> {
    let combo = KeyCombo::parse(combo, &[]).unwrap();
    match combo_stroke(&combo, &layout(recorded), &layout(&US))? {
        Stroke::Code { code, modifiers } => Ok((code, modifiers)),
        Stroke::Text(_) => Err("typed as text".to_owned()),
    }
}

const C: u16 = 0x08;
const V: u16 = 0x09;
const Z: u16 = 0x06;

#[test]
fn cmd_c_on_russian_is_the_key_of_c_by_the_command_level() {
    // Regression: on a non-Latin layout there was no Command level and no ASCII fallback,
    // so cmd+c was refused.
    assert_eq!(pressed(&RUSSIAN, "cmd+c"), Ok((C, cmd())));
    assert_eq!(pressed(&RUSSIAN, "cmd+v"), Ok((V, cmd())));
    // Found on the Command level itself, without the fallback layout.
    let russian = layout(&RUSSIAN);
    assert_eq!(
        combo_key('c', cmd(), &russian, &russian),
        Some((C, Modifiers::default()))
    );
}

#[test]
fn cmd_c_on_greek_falls_back_to_the_ascii_capable_layout() {
    let greek = layout(&GREEK);
    assert_eq!(
        combo_key('c', cmd(), &greek, &greek),
        None,
        "Greek alone has no c"
    );
    assert_eq!(pressed(&GREEK, "cmd+c"), Ok((C, cmd())));
    assert_eq!(pressed(&GREEK, "cmd+z"), Ok((Z, cmd())));
    let ctrl = Modifiers {
        ctrl: true,
        ..Modifiers::default()
    };
    assert_eq!(pressed(&GREEK, "ctrl+c"), Ok((C, ctrl)));
    // A Greek letter is on the Greek layout itself.
    assert_eq!(pressed(&GREEK, "cmd+ψ"), Ok((C, cmd())));
}

#[test]
fn hebrew_shortcuts_use_the_command_level() {
    assert_eq!(pressed(&HEBREW, "cmd+v"), Ok((V, cmd())));
    let shift = Modifiers {
        shift: true,
        ..cmd()
    };
    assert_eq!(pressed(&HEBREW, "cmd+shift+z"), Ok((Z, shift)));
    assert_eq!(pressed(&HEBREW, "cmd+Z"), Ok((Z, shift)));
}

#[test]
fn azerty_cmd_a_is_the_key_under_a_on_azerty() {
    assert_eq!(pressed(&AZERTY, "cmd+a"), Ok((0x0C, cmd())));
    assert_eq!(pressed(&AZERTY, "cmd+z"), Ok((0x0D, cmd())));
    assert_eq!(pressed(&AZERTY, "cmd+q"), Ok((0x00, cmd())));
    assert_eq!(pressed(&AZERTY, "cmd+m"), Ok((0x29, cmd())));
}

#[test]
fn dvorak_follows_its_command_level() {
    // Plain Dvorak: cmd+c is where Dvorak types c (the key QWERTY calls I).
    assert_eq!(pressed(&DVORAK, "cmd+c"), Ok((0x22, cmd())));
    // Dvorak – QWERTY ⌘: shortcuts where QWERTY has them, typing where Dvorak does.
    assert_eq!(pressed(&DVORAK_QWERTY_CMD, "cmd+c"), Ok((C, cmd())));
    assert_eq!(
        pressed(&DVORAK_QWERTY_CMD, "c"),
        Ok((0x22, Modifiers::default()))
    );
}

#[test]
fn us_combos_are_unchanged() {
    assert_eq!(pressed(&US, "cmd+c"), Ok((C, cmd())));
    let shift = Modifiers {
        shift: true,
        ..cmd()
    };
    // (Shifted punctuation such as cmd+? is pinned on the full ANSI table in `keystrokes`.)
    assert_eq!(pressed(&US, "cmd+S"), Ok((0x01, shift)));
}

#[test]
fn a_combo_no_layout_has_is_refused_and_a_plain_character_is_typed() {
    let err = pressed(&RUSSIAN, "cmd+é").unwrap_err();
    assert!(err.contains("nor on its ASCII-capable layout"), "{err}");
    // A plain character off the layout goes as Unicode text.
    assert_eq!(pressed(&RUSSIAN, "é"), Err("typed as text".to_owned()));
    // Plain letters are typed on the current layout, never the fallback.
    assert_eq!(pressed(&RUSSIAN, "c"), Err("typed as text".to_owned()));
    assert_eq!(pressed(&RUSSIAN, "с"), Ok((C, Modifiers::default())));
}

#[test]
fn typed_characters_carry_their_layout_key_when_it_needs_no_option() {
    let units = |s: &str| s.encode_utf16().collect::<Vec<_>>();
    let russian = layout(&RUSSIAN);
    assert_eq!(
        text_key(&units("с"), &russian),
        Some((C, Modifiers::default()))
    );
    let shift = Modifiers {
        shift: true,
        ..Modifiers::default()
    };
    assert_eq!(text_key(&units("С"), &russian), Some((C, shift)));
    // Off the layout, or more than one character: Unicode text alone.
    assert_eq!(text_key(&units("c"), &russian), None);
    assert_eq!(text_key(&units("ab"), &layout(&US)), None);
    assert_eq!(text_key(&units("\u{1F600}"), &layout(&US)), None);
    // A character that needs Option goes as text (Option would trigger menus in some apps).
    let with_option = KeyLayout::from_keys(|code, level| match (code, level) {
        (0x25, Level::Option) => Some("@".into()),
        _ => None,
    });
    assert_eq!(text_key(&units("@"), &with_option), None);
}
