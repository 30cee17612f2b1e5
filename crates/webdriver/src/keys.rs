//! Keys as WebDriver clients name them, in the names axgate's `press_key` takes: Mac2's
//! `keyModifierFlags` bits (XCTest's `XCUIKeyModifierFlags`), XCTest's `XCUIKeyboardKey`
//! constants (by name, as Mac2 suites write them, or by their raw characters), and the W3C
//! key codepoints of Perform Actions (WebDriver §17.4.2, U+E000–U+E05D).

use crate::error::{ErrorCode, WdError};

/// A key, as `press_key` will send it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A modifier: `shift`, `ctrl`, `opt` or `cmd`.
    Modifier(&'static str),
    /// A named key `press_key` knows (`return`, `tab`, `left`, `f5`…).
    Named(&'static str),
    /// A character, typed as itself.
    Char(char),
}

/// Mac2's modifier bits (XCUIKeyModifierFlags), each with the `press_key` modifier it is.
pub const MODIFIER_FLAGS: [(u64, &str, &str); 6] = [
    (1 << 0, "Caps Lock", ""),
    (1 << 1, "Shift", "shift"),
    (1 << 2, "Control", "ctrl"),
    (1 << 3, "Option", "opt"),
    (1 << 4, "Command", "cmd"),
    (1 << 5, "Function", ""),
];

/// The `press_key` modifiers of Mac2's `keyModifierFlags`, in the order of the bits. Caps
/// Lock and Function have no synthetic equivalent in axgate's key primitive: refused.
pub fn modifiers(flags: u64) -> Result<Vec<&'static str>, WdError> {
    let known: u64 = MODIFIER_FLAGS.iter().map(|(bit, _, _)| bit).sum();
    if flags & !known != 0 {
        return Err(WdError::invalid_argument(format!(
            "keyModifierFlags {flags} has bits Mac2 does not define; use Shift 2, Control 4, \
             Option 8, Command 16, combined with |"
        )));
    }
    let mut out = Vec::new();
    for (bit, name, modifier) in MODIFIER_FLAGS {
        if flags & bit == 0 {
            continue;
        }
        if modifier.is_empty() {
            return Err(WdError::new(
                ErrorCode::UnsupportedOperation,
                format!(
                    "the {name} modifier is not sent by axgate (its key primitive holds Shift, \
                     Control, Option and Command); leave that bit out"
                ),
            ));
        }
        out.push(modifier);
    }
    Ok(out)
}

/// XCTest's `XCUIKeyboardKey` constants: each by its name and its raw string.
const XCUI_KEYS: [(&str, &str, Key); 22] = [
    ("Delete", "\u{7f}", Key::Named("backspace")),
    ("Return", "\r", Key::Named("return")),
    ("Enter", "\u{3}", Key::Named("enter")),
    ("Tab", "\t", Key::Named("tab")),
    ("Space", " ", Key::Named("space")),
    ("Escape", "\u{1b}", Key::Named("escape")),
    ("UpArrow", "\u{F700}", Key::Named("up")),
    ("DownArrow", "\u{F701}", Key::Named("down")),
    ("LeftArrow", "\u{F702}", Key::Named("left")),
    ("RightArrow", "\u{F703}", Key::Named("right")),
    ("ForwardDelete", "\u{F728}", Key::Named("delete")),
    ("Home", "\u{F729}", Key::Named("home")),
    ("End", "\u{F72B}", Key::Named("end")),
    ("PageUp", "\u{F72C}", Key::Named("page_up")),
    ("PageDown", "\u{F72D}", Key::Named("page_down")),
    ("Shift", "", Key::Modifier("shift")),
    ("RightShift", "", Key::Modifier("shift")),
    ("Control", "", Key::Modifier("ctrl")),
    ("RightControl", "", Key::Modifier("ctrl")),
    ("Option", "", Key::Modifier("opt")),
    ("RightOption", "", Key::Modifier("opt")),
    ("Command", "", Key::Modifier("cmd")),
];

/// `f1`–`f19` by XCTest's names (`XCUIKeyboardKeyF5`) or raw characters (U+F704…).
const F_NAMES: [&str; 19] = [
    "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15",
    "f16", "f17", "f18", "f19",
];

/// The key an `XCUIKeyboardKey` constant names (`XCUIKeyboardKeyEscape`, or its raw string
/// `"\u{1b}"`); `None` when `text` is not one (it is then text to type).
pub fn xcui_key(text: &str) -> Option<Key> {
    if let Some(name) = text.strip_prefix("XCUIKeyboardKey") {
        if let Some((_, _, key)) = XCUI_KEYS.iter().find(|(n, _, _)| *n == name) {
            return Some(*key);
        }
        let n: usize = name.strip_prefix('F')?.parse().ok()?;
        return F_NAMES.get(n.checked_sub(1)?).map(|f| Key::Named(f));
    }
    if let Some((_, _, key)) = XCUI_KEYS
        .iter()
        .find(|(_, raw, _)| !raw.is_empty() && *raw == text)
    {
        return Some(*key);
    }
    let mut chars = text.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let n = (c as u32).checked_sub(0xF704)? as usize;
    F_NAMES.get(n).map(|f| Key::Named(f))
}

/// The key of a W3C key action's `value` (one character, or a codepoint of the U+E000
/// table). A codepoint axgate cannot press (Help, Pause, Insert…) is `unsupported operation`.
pub fn w3c_key(c: char) -> Result<Key, WdError> {
    let named = |n| Ok(Key::Named(n));
    match c as u32 {
        0xE003 => named("backspace"),
        0xE004 => named("tab"),
        0xE006 => named("return"),
        0xE007 => named("enter"),
        0xE008 | 0xE050 => Ok(Key::Modifier("shift")),
        0xE009 | 0xE051 => Ok(Key::Modifier("ctrl")),
        0xE00A | 0xE052 => Ok(Key::Modifier("opt")),
        0xE03D | 0xE053 => Ok(Key::Modifier("cmd")),
        0xE00C => named("escape"),
        0xE00D => named("space"),
        0xE00E | 0xE054 => named("page_up"),
        0xE00F | 0xE055 => named("page_down"),
        0xE010 | 0xE056 => named("end"),
        0xE011 | 0xE057 => named("home"),
        0xE012 | 0xE058 => named("left"),
        0xE013 | 0xE059 => named("up"),
        0xE014 | 0xE05A => named("right"),
        0xE015 | 0xE05B => named("down"),
        0xE017 | 0xE05D => named("delete"),
        0xE018 => Ok(Key::Char(';')),
        0xE019 => Ok(Key::Char('=')),
        n @ 0xE01A..=0xE023 => Ok(Key::Char(char::from_digit(n - 0xE01A, 10).unwrap_or('0'))),
        0xE024 => Ok(Key::Char('*')),
        0xE025 => Ok(Key::Char('+')),
        0xE026 => Ok(Key::Char(',')),
        0xE027 => Ok(Key::Char('-')),
        0xE028 => Ok(Key::Char('.')),
        0xE029 => Ok(Key::Char('/')),
        n @ 0xE031..=0xE03C => named(F_NAMES[(n - 0xE031) as usize]),
        0xE000..=0xF8FF => Err(WdError::new(
            ErrorCode::UnsupportedOperation,
            format!(
                "the WebDriver key U+{:04X} has no key axgate presses (docs/WEBDRIVER.md lists \
                 the keys it does)",
                c as u32
            ),
        )),
        _ => Ok(Key::Char(c)),
    }
}

/// One step of Element Send Keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stroke {
    /// Text typed as it is (`type_text`).
    Text(String),
    /// A key pressed with the modifiers held at that point (`press_key`).
    Press {
        key: Key,
        modifiers: Vec<&'static str>,
    },
}

/// Element Send Keys' text as strokes, as W3C's "dispatch actions for a string" reads it: a
/// modifier codepoint (Shift U+E008, Control, Alt, Meta and their right-hand twins) toggles
/// that modifier, which holds for the keys after it until it comes again, the NULL key
/// U+E000 or the end; any other key codepoint of [`w3c_key`] is pressed (one it cannot press
/// is refused before anything is sent); characters typed with no modifier held go as runs of
/// text, Enter, Return, Tab and Space among them as the characters they type; a character
/// with a modifier held is pressed with it (Shift and `a` give `A`).
pub fn send_keys(text: &str) -> Result<Vec<Stroke>, WdError> {
    let mut strokes = Vec::new();
    let mut run = String::new();
    let mut held: Vec<&'static str> = Vec::new();
    let flush = |run: &mut String, strokes: &mut Vec<Stroke>| {
        if !run.is_empty() {
            strokes.push(Stroke::Text(std::mem::take(run)));
        }
    };
    for c in text.chars() {
        let key = match c {
            '\u{E000}' => {
                flush(&mut run, &mut strokes);
                held.clear();
                continue;
            }
            '\u{E006}' | '\u{E007}' => Key::Char('\n'),
            '\u{E004}' => Key::Char('\t'),
            '\u{E00D}' => Key::Char(' '),
            c => w3c_key(c)?,
        };
        match key {
            Key::Modifier(m) => {
                flush(&mut run, &mut strokes);
                match held.iter().position(|h| *h == m) {
                    Some(i) => {
                        held.remove(i);
                    }
                    None => held.push(m),
                }
            }
            Key::Char(t) if held.is_empty() => run.push(t),
            key => {
                flush(&mut run, &mut strokes);
                // With a modifier held, Return, Tab and Space are keys to press.
                let key = match key {
                    Key::Char('\n') => Key::Named("return"),
                    Key::Char('\t') => Key::Named("tab"),
                    Key::Char(' ') => Key::Named("space"),
                    other => other,
                };
                strokes.push(Stroke::Press {
                    key,
                    modifiers: held.clone(),
                });
            }
        }
    }
    flush(&mut run, &mut strokes);
    Ok(strokes)
}

/// The `press_key` name of a key: a named key as is, a character as itself.
pub fn press_name(key: Key) -> String {
    match key {
        Key::Modifier(m) | Key::Named(m) => m.to_owned(),
        Key::Char(c) => c.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifier_flags_are_mac2s_bits() {
        assert_eq!(modifiers(0).unwrap(), Vec::<&str>::new());
        assert_eq!(modifiers(1 << 1).unwrap(), ["shift"]);
        assert_eq!(modifiers(1 << 2).unwrap(), ["ctrl"]);
        assert_eq!(modifiers(1 << 3).unwrap(), ["opt"]);
        assert_eq!(modifiers(1 << 4).unwrap(), ["cmd"]);
        assert_eq!(modifiers((1 << 4) | (1 << 1)).unwrap(), ["shift", "cmd"]);
        assert_eq!(
            modifiers(1 << 5).unwrap_err().code,
            ErrorCode::UnsupportedOperation
        );
        assert_eq!(
            modifiers(1 << 9).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn xcui_keys_by_name_and_by_raw_string() {
        assert_eq!(
            xcui_key("XCUIKeyboardKeyEscape"),
            Some(Key::Named("escape"))
        );
        assert_eq!(xcui_key("\u{1b}"), Some(Key::Named("escape")));
        assert_eq!(
            xcui_key("XCUIKeyboardKeyDelete"),
            Some(Key::Named("backspace"))
        );
        assert_eq!(xcui_key("XCUIKeyboardKeyF12"), Some(Key::Named("f12")));
        assert_eq!(xcui_key("\u{F705}"), Some(Key::Named("f2")));
        assert_eq!(xcui_key("\u{F700}"), Some(Key::Named("up")));
        assert_eq!(
            xcui_key("XCUIKeyboardKeyCommand"),
            Some(Key::Modifier("cmd"))
        );
        assert_eq!(xcui_key("a"), None);
        assert_eq!(xcui_key("hello"), None);
        assert_eq!(xcui_key("XCUIKeyboardKeyF40"), None);
    }

    #[test]
    fn send_keys_types_text_presses_keys_and_holds_modifiers_until_null() {
        let text = |t: &str| Stroke::Text(t.to_owned());
        let press = |key, modifiers: &[&'static str]| Stroke::Press {
            key,
            modifiers: modifiers.to_vec(),
        };
        assert_eq!(send_keys("ab\u{E007}c").unwrap(), [text("ab\nc")]);
        assert_eq!(
            send_keys("ab\u{E012}\u{E003}x").unwrap(),
            [
                text("ab"),
                press(Key::Named("left"), &[]),
                press(Key::Named("backspace"), &[]),
                text("x")
            ]
        );
        // Shift holds until NULL; Control toggles off when it comes again.
        assert_eq!(
            send_keys("\u{E008}ab\u{E000}c\u{E009}\u{E004}\u{E009}d").unwrap(),
            [
                press(Key::Char('a'), &["shift"]),
                press(Key::Char('b'), &["shift"]),
                text("c"),
                press(Key::Named("tab"), &["ctrl"]),
                text("d")
            ]
        );
        assert_eq!(
            send_keys("\u{E03D}\u{E050}\u{E014}").unwrap(),
            [press(Key::Named("right"), &["cmd", "shift"])]
        );
        // The end releases what is held: nothing is left to send.
        assert_eq!(send_keys("\u{E008}").unwrap(), []);
        assert_eq!(
            send_keys("x\u{E002}").unwrap_err().code,
            ErrorCode::UnsupportedOperation
        );
    }

    #[test]
    fn w3c_codepoints() {
        assert_eq!(w3c_key('\u{E008}').unwrap(), Key::Modifier("shift"));
        assert_eq!(w3c_key('\u{E009}').unwrap(), Key::Modifier("ctrl"));
        assert_eq!(w3c_key('\u{E00A}').unwrap(), Key::Modifier("opt"));
        assert_eq!(w3c_key('\u{E03D}').unwrap(), Key::Modifier("cmd"));
        assert_eq!(w3c_key('\u{E007}').unwrap(), Key::Named("enter"));
        assert_eq!(w3c_key('\u{E012}').unwrap(), Key::Named("left"));
        assert_eq!(w3c_key('\u{E01D}').unwrap(), Key::Char('3'));
        assert_eq!(w3c_key('\u{E035}').unwrap(), Key::Named("f5"));
        assert_eq!(w3c_key('a').unwrap(), Key::Char('a'));
        assert_eq!(
            w3c_key('\u{E002}').unwrap_err().code,
            ErrorCode::UnsupportedOperation
        );
    }
}
