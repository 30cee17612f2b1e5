//! Synthetic keyboard input: typed text as one key press per grapheme cluster carrying its
//! text (`CGEventKeyboardSetUnicodeString`), line breaks and tabs as real keys, and key combos
//! with their modifier flags stamped on both events. Strokes and pacing come from
//! `mac_logic::keystrokes`; the input guard runs first. Typed text is never logged.

use std::thread;

use core_graphics::event::{CGEvent, CGEventFlags, CGEventTapLocation};
use core_graphics::event_source::CGEventSource;

use crate::ax::keys::{KeyCombo, Modifiers};
use crate::ax::{AxError, CallCtx, Pid};

use super::input;
use crate::platform::mac_logic::input_guard::Event;
use crate::platform::mac_logic::keystrokes::{self, KEY_GAP, Stroke};

/// Types text into the app's focused element.
pub(super) fn type_text(pid: Pid, text: &str, ctx: &mut CallCtx) -> Result<(), AxError> {
    let strokes = keystrokes::type_strokes(text);
    let needed = keystrokes::strokes_duration(strokes.len());
    let source = input::prepare(pid, Event::Keys, needed, ctx)?;
    for stroke in &strokes {
        press(&source, stroke)?;
    }
    Ok(())
}

/// Presses a key combination.
pub(super) fn press_key(pid: Pid, combo: &KeyCombo, ctx: &mut CallCtx) -> Result<(), AxError> {
    let stroke = keystrokes::combo_stroke(combo).map_err(|reason| AxError::InvalidValue {
        element: "the key combo".to_owned(),
        reason,
    })?;
    let source = input::prepare(pid, Event::Keys, keystrokes::strokes_duration(1), ctx)?;
    press(&source, &stroke)
}

/// One key down/up pair.
fn press(source: &CGEventSource, stroke: &Stroke) -> Result<(), AxError> {
    for down in [true, false] {
        let (code, flags) = match stroke {
            Stroke::Text(_) => (0, CGEventFlags::CGEventFlagNull),
            Stroke::Code { code, modifiers } => (*code, flags(*modifiers)),
        };
        let event = CGEvent::new_keyboard_event(source.clone(), code, down)
            .map_err(|()| AxError::Backend("cannot create a keyboard event".to_owned()))?;
        if let Stroke::Text(units) = stroke {
            event.set_string_from_utf16_unchecked(units);
        }
        event.set_flags(flags);
        event.post(CGEventTapLocation::HID);
        thread::sleep(KEY_GAP);
    }
    Ok(())
}

fn flags(modifiers: Modifiers) -> CGEventFlags {
    let mut flags = CGEventFlags::CGEventFlagNull;
    for (on, flag) in [
        (modifiers.cmd, CGEventFlags::CGEventFlagCommand),
        (modifiers.ctrl, CGEventFlags::CGEventFlagControl),
        (modifiers.opt, CGEventFlags::CGEventFlagAlternate),
        (modifiers.shift, CGEventFlags::CGEventFlagShift),
    ] {
        if on {
            flags |= flag;
        }
    }
    flags
}
