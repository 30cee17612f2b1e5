//! Synthetic keyboard input: typed text as one key press per grapheme cluster carrying its
//! text (`CGEventKeyboardSetUnicodeString`), line breaks and tabs as real keys, and key combos
//! on the key that types their character on the current layout (`key_layout.rs`), pressed
//! as a user does: modifier keys down (flags-changed events), the key, modifiers up, with
//! the held flags stamped on every event. Strokes, the layout decision, the event sequence
//! and pacing come from `mac_logic::{keystrokes, key_layout}`; the input guard runs first.
//! Typed text is never logged.

use std::thread;

use core_graphics::event::{CGEvent, CGEventFlags, CGEventTapLocation, CGEventType};
use core_graphics::event_source::CGEventSource;

use axgate_engine::keys::{KeyCombo, Modifiers};
use axgate_engine::{AxError, CallCtx, Pid};

use super::{input, key_layout};
use crate::mac_logic::input_guard::Event;
use crate::mac_logic::key_layout::combo_events;
use crate::mac_logic::keystrokes::{self, KEY_GAP, Stroke};

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
    let layout = key_layout::current();
    let stroke =
        keystrokes::combo_stroke(combo, &layout).map_err(|reason| AxError::InvalidValue {
            element: "the key combo".to_owned(),
            reason,
        })?;
    let needed = keystrokes::stroke_duration(&stroke);
    let source = input::prepare(pid, Event::Keys, needed, ctx)?;
    press(&source, &stroke)
}

/// One key press: a text stroke as a down/up pair carrying its text, a key stroke as its
/// combo's event sequence.
fn press(source: &CGEventSource, stroke: &Stroke) -> Result<(), AxError> {
    let keyboard = |code: u16, down: bool| {
        CGEvent::new_keyboard_event(source.clone(), code, down)
            .map_err(|()| AxError::Backend("cannot create a keyboard event".to_owned()))
    };
    match stroke {
        Stroke::Text(units) => {
            for down in [true, false] {
                let event = keyboard(0, down)?;
                event.set_string_from_utf16_unchecked(units);
                event.set_flags(CGEventFlags::CGEventFlagNull);
                post(&event);
            }
        }
        Stroke::Code { code, modifiers } => {
            for key in combo_events(*code, *modifiers) {
                let event = keyboard(key.code, key.down)?;
                if key.modifier {
                    event.set_type(CGEventType::FlagsChanged);
                }
                event.set_flags(flags(key.flags));
                post(&event);
            }
        }
    }
    Ok(())
}

fn post(event: &CGEvent) {
    event.post(CGEventTapLocation::HID);
    thread::sleep(KEY_GAP);
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
