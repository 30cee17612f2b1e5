//! Keys and modifiers, platform-neutral: parsing of `cmd+shift+s`-style combos, and the
//! tables backends use to turn a key into a native key code (macOS virtual key codes, X11
//! keysyms). Kept here so they are tested on every platform.

use std::fmt;

/// A key that is not a printable character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NamedKey {
    Return,
    Tab,
    Escape,
    Backspace,
    Delete,
    Space,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    F(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Named(NamedKey),
    Char(char),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    pub cmd: bool,
    pub ctrl: bool,
    pub opt: bool,
    pub shift: bool,
}

impl Modifiers {
    pub fn is_empty(self) -> bool {
        self == Modifiers::default()
    }

    /// Modifier names (cmd, ctrl, opt, shift and their usual aliases, any case).
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Modifiers, String> {
        let mut mods = Modifiers::default();
        for m in names {
            match m.trim().to_lowercase().as_str() {
                "cmd" | "command" | "meta" | "super" => mods.cmd = true,
                "ctrl" | "control" => mods.ctrl = true,
                "opt" | "option" | "alt" => mods.opt = true,
                "shift" => mods.shift = true,
                other => {
                    return Err(format!(
                        "unknown modifier {other:?}; use cmd, ctrl, opt or shift"
                    ));
                }
            }
        }
        Ok(mods)
    }
}

/// A key with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyCombo {
    pub key: Key,
    pub modifiers: Modifiers,
}

const NAMES: &[(&str, NamedKey)] = &[
    ("return", NamedKey::Return),
    ("enter", NamedKey::Return),
    ("tab", NamedKey::Tab),
    ("escape", NamedKey::Escape),
    ("esc", NamedKey::Escape),
    ("backspace", NamedKey::Backspace),
    ("delete", NamedKey::Delete),
    ("forward_delete", NamedKey::Delete),
    ("space", NamedKey::Space),
    ("up", NamedKey::Up),
    ("down", NamedKey::Down),
    ("left", NamedKey::Left),
    ("right", NamedKey::Right),
    ("home", NamedKey::Home),
    ("end", NamedKey::End),
    ("page_up", NamedKey::PageUp),
    ("pageup", NamedKey::PageUp),
    ("page_down", NamedKey::PageDown),
    ("pagedown", NamedKey::PageDown),
];

impl KeyCombo {
    /// Parses `key` with `modifiers` (cmd, ctrl, opt, shift and their usual aliases), or a
    /// whole combo such as `cmd+shift+s` when `modifiers` is empty.
    pub fn parse(key: &str, modifiers: &[String]) -> Result<KeyCombo, String> {
        let (prefix, key_part) = match key.strip_suffix("++") {
            Some(prefix) => (prefix, "+"),
            None if key.len() > 1 => key.rsplit_once('+').unwrap_or(("", key)),
            None => ("", key),
        };
        let parts = prefix.split('+').filter(|p| !p.is_empty());
        Ok(KeyCombo {
            key: parse_key(key_part)?,
            modifiers: Modifiers::parse(parts.chain(modifiers.iter().map(String::as_str)))?,
        })
    }
}

fn parse_key(text: &str) -> Result<Key, String> {
    let mut chars = text.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(Key::Char(c));
    }
    let lower = text.trim().to_lowercase();
    if let Some((_, k)) = NAMES.iter().find(|(n, _)| *n == lower) {
        return Ok(Key::Named(*k));
    }
    if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok())
        && (1..=20).contains(&n)
    {
        return Ok(Key::Named(NamedKey::F(n)));
    }
    Err(format!(
        "unknown key {text:?}; use one character, f1–f20, or one of {}",
        NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
    ))
}

impl fmt::Display for KeyCombo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.modifiers;
        for (on, name) in [
            (m.cmd, "cmd"),
            (m.ctrl, "ctrl"),
            (m.opt, "opt"),
            (m.shift, "shift"),
        ] {
            if on {
                write!(f, "{name}+")?;
            }
        }
        match self.key {
            Key::Char(c) => write!(f, "{c}"),
            Key::Named(NamedKey::F(n)) => write!(f, "f{n}"),
            Key::Named(k) => {
                let name = NAMES.iter().find(|(_, v)| *v == k).map_or("?", |(n, _)| n);
                f.write_str(name)
            }
        }
    }
}

/// macOS virtual key code (`kVK_*`, ANSI layout) of a named key.
pub fn mac_keycode(key: NamedKey) -> u16 {
    match key {
        NamedKey::Return => 0x24,
        NamedKey::Tab => 0x30,
        NamedKey::Space => 0x31,
        NamedKey::Backspace => 0x33,
        NamedKey::Escape => 0x35,
        NamedKey::Delete => 0x75,
        NamedKey::Home => 0x73,
        NamedKey::PageUp => 0x74,
        NamedKey::End => 0x77,
        NamedKey::PageDown => 0x79,
        NamedKey::Left => 0x7B,
        NamedKey::Right => 0x7C,
        NamedKey::Down => 0x7D,
        NamedKey::Up => 0x7E,
        NamedKey::F(n) => {
            const F: [u16; 20] = [
                0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D, 0x67, 0x6F, 0x69, 0x6B,
                0x71, 0x6A, 0x40, 0x4F, 0x50, 0x5A,
            ];
            F[usize::from(n.clamp(1, 20) - 1)]
        }
    }
}

/// X11 keysym of a named key (for XTest / AT-SPI keyboard events).
pub fn x11_keysym(key: NamedKey) -> u32 {
    match key {
        NamedKey::Return => 0xff0d,
        NamedKey::Tab => 0xff09,
        NamedKey::Escape => 0xff1b,
        NamedKey::Backspace => 0xff08,
        NamedKey::Delete => 0xffff,
        NamedKey::Space => 0x0020,
        NamedKey::Up => 0xff52,
        NamedKey::Down => 0xff54,
        NamedKey::Left => 0xff51,
        NamedKey::Right => 0xff53,
        NamedKey::Home => 0xff50,
        NamedKey::End => 0xff57,
        NamedKey::PageUp => 0xff55,
        NamedKey::PageDown => 0xff56,
        NamedKey::F(n) => 0xffbe + u32::from(n.clamp(1, 20) - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_parse_and_print() {
        let check = |key: &str, mods: &[&str], want: &str| {
            let mods: Vec<String> = mods.iter().map(|s| s.to_string()).collect();
            assert_eq!(
                KeyCombo::parse(key, &mods).map(|k| k.to_string()),
                Ok(want.to_owned()),
                "{key}"
            );
        };
        check("s", &["cmd", "shift"], "cmd+shift+s");
        check("cmd+shift+s", &[], "cmd+shift+s");
        check("Return", &[], "return");
        check("enter", &["option"], "opt+return");
        check("F5", &[], "f5");
        check("+", &[], "+");
        check("ctrl++", &[], "ctrl++");
        assert!(KeyCombo::parse("hyper+a", &[]).is_err());
        assert!(KeyCombo::parse("f99", &[]).is_err());
        assert!(KeyCombo::parse("banana", &[]).is_err());
    }

    #[test]
    fn native_tables() {
        assert_eq!(mac_keycode(NamedKey::Return), 0x24);
        assert_eq!(mac_keycode(NamedKey::F(1)), 0x7A);
        assert_eq!(x11_keysym(NamedKey::F(12)), 0xffc9);
    }
}
