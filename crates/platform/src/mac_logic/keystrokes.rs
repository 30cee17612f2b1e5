//! Text and key combos as keyboard strokes, as plain data. Typed text becomes one key press
//! per grapheme cluster carrying its UTF-16 text (at most 20 units per event, surrogate pairs
//! kept whole), except line breaks and tabs, which need real key codes. A combo's character
//! maps to the key AppKit would match it to (`key_layout::combo_key`: the current layout's
//! Command level, its typing levels, the ASCII-capable layout), adding the shift or option
//! that key needs.

use std::time::Duration;

use axgate_engine::keys::{Key, KeyCombo, Modifiers, NamedKey, mac_keycode};

use super::key_layout::{KeyLayout, combo_events, combo_key};

/// The most UTF-16 units one keyboard event may carry.
pub(crate) const MAX_UNITS: usize = 20;

/// Pause after each key event; apps drop keys that arrive faster.
pub(crate) const KEY_GAP: Duration = Duration::from_millis(12);

/// How long posting `strokes` key presses takes (a down and an up event each, each followed
/// by [`KEY_GAP`]); checked against the deadline before the first is posted.
pub(crate) fn strokes_duration(strokes: usize) -> Duration {
    KEY_GAP * 2 * u32::try_from(strokes).unwrap_or(u32::MAX)
}

/// How long posting one stroke takes: two events for text, a combo's whole sequence
/// (modifier downs and ups included) for a key.
pub(crate) fn stroke_duration(stroke: &Stroke) -> Duration {
    let events = match stroke {
        Stroke::Text(_) => 2,
        Stroke::Code { code, modifiers } => combo_events(*code, *modifiers).len(),
    };
    KEY_GAP * u32::try_from(events).unwrap_or(u32::MAX)
}

/// One key press.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stroke {
    /// A press that types this text (UTF-16), whatever key the layout has for it.
    Text(Vec<u16>),
    /// A real key, by virtual key code, with modifiers.
    Code { code: u16, modifiers: Modifiers },
}

/// The strokes that type `text`.
pub(crate) fn type_strokes(text: &str) -> Vec<Stroke> {
    let mut strokes = Vec::new();
    let mut cluster = String::new();
    let mut regional = 0;
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c == '\n' && prev == Some('\r') {
            prev = Some(c);
            continue;
        }
        let named = match c {
            '\n' | '\r' => Some(NamedKey::Return),
            '\t' => Some(NamedKey::Tab),
            _ => None,
        };
        let is_regional = ('\u{1F1E6}'..='\u{1F1FF}').contains(&c);
        let joins = named.is_none()
            && !cluster.is_empty()
            && (prev == Some('\u{200D}') || extends(c) || (is_regional && regional % 2 == 1));
        if !joins {
            flush(&mut cluster, &mut strokes);
            regional = 0;
        }
        if let Some(key) = named {
            strokes.push(Stroke::Code {
                code: mac_keycode(key),
                modifiers: Modifiers::default(),
            });
        } else {
            cluster.push(c);
            if is_regional {
                regional += 1;
            }
        }
        prev = Some(c);
    }
    flush(&mut cluster, &mut strokes);
    strokes
}

/// Characters that extend the cluster before them: combining marks, variation selectors,
/// zero-width joiners, emoji skin-tone modifiers and tag characters.
fn extends(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0300..=0x036F
            | 0x1AB0..=0x1AFF
            | 0x1DC0..=0x1DFF
            | 0x20D0..=0x20FF
            | 0x3099..=0x309A
            | 0xFE00..=0xFE0F
            | 0xFE20..=0xFE2F
            | 0x200D
            | 0x1F3FB..=0x1F3FF
            | 0xE0020..=0xE007F
            | 0xE0100..=0xE01EF
    )
}

/// Ends a cluster: its text in strokes of at most [`MAX_UNITS`] UTF-16 units, never
/// splitting a surrogate pair.
fn flush(cluster: &mut String, strokes: &mut Vec<Stroke>) {
    let mut units: Vec<u16> = Vec::new();
    let mut buf = [0u16; 2];
    for c in cluster.chars() {
        let encoded = c.encode_utf16(&mut buf);
        if units.len() + encoded.len() > MAX_UNITS {
            strokes.push(Stroke::Text(std::mem::take(&mut units)));
        }
        units.extend_from_slice(encoded);
    }
    if !units.is_empty() {
        strokes.push(Stroke::Text(units));
    }
    cluster.clear();
}

/// The stroke for a key combo on `layout`: its character pressed on the key AppKit matches
/// it to (`key_layout::combo_key`: the Command level, the typing levels, then the
/// ASCII-capable layout `ascii` for shortcuts), with the modifiers that key needs added. A
/// character without a key can still be typed when no modifier other than shift is held;
/// with modifiers it is an error.
pub(crate) fn combo_stroke(
    combo: &KeyCombo,
    layout: &KeyLayout,
    ascii: &KeyLayout,
) -> Result<Stroke, String> {
    let mut modifiers = combo.modifiers;
    match combo.key {
        Key::Named(key) => Ok(Stroke::Code {
            code: mac_keycode(key),
            modifiers,
        }),
        Key::Char(c) => match combo_key(c, modifiers, layout, ascii) {
            Some((code, needs)) => {
                modifiers.shift |= needs.shift;
                modifiers.opt |= needs.opt;
                Ok(Stroke::Code { code, modifiers })
            }
            None if !modifiers.cmd && !modifiers.ctrl && !modifiers.opt => {
                Ok(Stroke::Text(c.encode_utf16(&mut [0u16; 2]).to_vec()))
            }
            None => Err(format!(
                "{combo} has no key on this Mac's keyboard layout nor on its ASCII-capable \
                 layout; press a combo with a character one of them has a key for"
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        type_strokes(text)
            .into_iter()
            .map(|s| match s {
                Stroke::Text(units) => String::from_utf16(&units).unwrap(),
                Stroke::Code { code, .. } => format!("<{code:#x}>"),
            })
            .collect()
    }

    #[test]
    fn one_stroke_per_character() {
        assert_eq!(texts("ab c"), ["a", "b", " ", "c"]);
        assert!(type_strokes("").is_empty());
    }

    #[test]
    fn line_breaks_and_tabs_are_real_keys() {
        assert_eq!(texts("a\nb"), ["a", "<0x24>", "b"]);
        assert_eq!(texts("a\r\nb"), ["a", "<0x24>", "b"]);
        assert_eq!(texts("\t"), ["<0x30>"]);
    }

    #[test]
    fn clusters_stay_together() {
        assert_eq!(texts("e\u{301}x"), ["e\u{301}", "x"]);
        // Family emoji: joined by ZWJ.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
        assert_eq!(texts(family), [family]);
        // Flags are pairs of regional indicators.
        let flags = "\u{1F1EB}\u{1F1F7}\u{1F1E9}\u{1F1EA}";
        assert_eq!(texts(flags), ["\u{1F1EB}\u{1F1F7}", "\u{1F1E9}\u{1F1EA}"]);
        // Skin tone modifier.
        assert_eq!(texts("\u{1F44D}\u{1F3FD}"), ["\u{1F44D}\u{1F3FD}"]);
    }

    #[test]
    fn typing_time_is_two_gaps_per_stroke() {
        assert_eq!(strokes_duration(0), Duration::ZERO);
        assert_eq!(strokes_duration(3), KEY_GAP * 6);
        assert!(strokes_duration(usize::MAX) > Duration::from_secs(86_400));
    }

    #[test]
    fn a_combo_takes_a_gap_per_event_modifiers_included() {
        let cmd_shift_s = combo("cmd+shift+s").unwrap();
        assert_eq!(stroke_duration(&cmd_shift_s), KEY_GAP * 6);
        assert_eq!(stroke_duration(&combo("return").unwrap()), KEY_GAP * 2);
        assert_eq!(stroke_duration(&Stroke::Text(vec![0x61])), KEY_GAP * 2);
    }

    #[test]
    fn surrogate_pairs_are_two_units() {
        let strokes = type_strokes("\u{1F600}");
        assert_eq!(strokes, [Stroke::Text(vec![0xD83D, 0xDE00])]);
    }

    #[test]
    fn long_clusters_are_split_without_breaking_pairs() {
        let text = format!("a{}", "\u{301}".repeat(30));
        let strokes = type_strokes(&text);
        assert_eq!(strokes.len(), 2);
        for stroke in &strokes {
            let Stroke::Text(units) = stroke else {
                panic!("{stroke:?}")
            };
            assert!(units.len() <= MAX_UNITS);
        }
        let emoji = "\u{1F44D}\u{1F3FD}".to_owned() + &"\u{FE0F}".repeat(19);
        for stroke in type_strokes(&emoji) {
            let Stroke::Text(units) = stroke else {
                panic!()
            };
            assert!(String::from_utf16(&units).is_ok(), "split inside a pair");
        }
    }

    fn combo(text: &str) -> Result<Stroke, String> {
        combo_stroke(
            &KeyCombo::parse(text, &[]).unwrap(),
            &KeyLayout::ansi(),
            &KeyLayout::ansi(),
        )
    }

    #[test]
    fn combos_on_the_us_layout_use_ansi_codes() {
        let cmd = Modifiers {
            cmd: true,
            ..Modifiers::default()
        };
        assert_eq!(
            combo("cmd+s"),
            Ok(Stroke::Code {
                code: 0x01,
                modifiers: cmd
            })
        );
        let cmd_shift = Modifiers { shift: true, ..cmd };
        assert_eq!(
            combo("cmd+S"),
            Ok(Stroke::Code {
                code: 0x01,
                modifiers: cmd_shift
            })
        );
        assert_eq!(
            combo("cmd+?"),
            Ok(Stroke::Code {
                code: 0x2C,
                modifiers: cmd_shift
            })
        );
        assert_eq!(
            combo("return"),
            Ok(Stroke::Code {
                code: 0x24,
                modifiers: Modifiers::default()
            })
        );
    }

    #[test]
    fn characters_off_the_layout() {
        assert_eq!(combo("é"), Ok(Stroke::Text(vec![0xE9])));
        assert!(combo("cmd+é").is_err());
    }
}
