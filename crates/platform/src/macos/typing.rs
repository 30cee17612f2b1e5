//! Synthetic keyboard input: typed text as one key press per grapheme cluster carrying its
//! text (`CGEventKeyboardSetUnicodeString`) on the key that types it on the current layout
//! when there is one, line breaks and tabs as real keys, and key combos on the key AppKit
//! matches them to (the current layout's Command level, its typing levels, the ASCII-capable
//! layout: `key_layout.rs`), pressed as a user does: modifier keys down (flags-changed
//! events), the key, modifiers up, with the held flags stamped on every event. Strokes, the
//! layout decisions, the event sequence and pacing come from
//! `mac_logic::{keystrokes, key_layout}`; the input guard runs first. While another process
//! holds Secure Input, typing goes ahead and the focused value is read before and after:
//! `mac_logic::typed_text` decides whether to report `secure_input_held_by`. Typed text is
//! never logged.

use std::thread;
use std::time::Duration;

use core_foundation::string::CFString;

use core_graphics::event::{CGEvent, CGEventTapLocation, CGEventType};
use core_graphics::event_source::CGEventSource;

use axgate_engine::keys::{KeyCombo, Modifiers};
use axgate_engine::{AxError, CallCtx, Pid};

use super::{attrs, input, key_layout, permissions, process};
use crate::mac_logic::input_guard::{AppRef, Event};
use crate::mac_logic::key_layout::{KeyLayout, combo_events, text_key};
use crate::mac_logic::keystrokes::{self, KEY_GAP, Stroke};
use crate::mac_logic::typed_text;

/// How long after the last key the focused value is read back, and again if unchanged.
const READ_BACK: [Duration; 2] = [Duration::from_millis(60), Duration::from_millis(150)];

/// Types text into the app's focused element.
pub(super) fn type_text(pid: Pid, text: &str, ctx: &mut CallCtx) -> Result<(), AxError> {
    let strokes = keystrokes::type_strokes(text);
    let needed = keystrokes::strokes_duration(strokes.len());
    let source = input::prepare(pid, Event::Keys, needed, ctx)?;
    let layout = key_layout::layouts().current;
    // Secure Input elsewhere does not stop typing; it only makes the read-back worth it.
    let holder = permissions::secure_input_holder()
        .filter(|holder| *holder != pid)
        .map(|holder| AppRef {
            pid: holder,
            label: process::label(holder),
        });
    let before = holder.as_ref().and_then(|_| focused_value(pid, ctx));
    for stroke in &strokes {
        press(&source, stroke, &layout)?;
    }
    let Some(holder) = holder else {
        return Ok(());
    };
    let target = AppRef {
        pid,
        label: process::label(pid),
    };
    let mut verdict = Ok(());
    for pause in READ_BACK {
        if ctx.remaining() <= pause {
            break;
        }
        thread::sleep(pause);
        let after = focused_value(pid, ctx);
        verdict = typed_text::after_typing(
            text,
            before.as_deref(),
            after.as_deref(),
            Some(&holder),
            &target,
        );
        if verdict.is_ok() {
            break;
        }
    }
    verdict.map_err(AxError::Unsupported)
}

/// The string value of the app's focused element, when it has one that can be read.
fn focused_value(pid: Pid, ctx: &mut CallCtx) -> Option<String> {
    let app = super::element::AxElement::application(pid)?;
    let focused = attrs::read_element(&app, "AXFocusedUIElement", ctx).ok()??;
    let value = attrs::read(&focused, "AXValue", ctx).ok()??;
    value.downcast::<CFString>().map(|s| s.to_string())
}

/// Presses a key combination.
pub(super) fn press_key(pid: Pid, combo: &KeyCombo, ctx: &mut CallCtx) -> Result<(), AxError> {
    let layouts = key_layout::layouts();
    let stroke =
        keystrokes::combo_stroke(combo, &layouts.current, &layouts.ascii).map_err(|reason| {
            AxError::InvalidValue {
                element: "the key combo".to_owned(),
                reason,
            }
        })?;
    let needed = keystrokes::stroke_duration(&stroke);
    let source = input::prepare(pid, Event::Keys, needed, ctx)?;
    press(&source, &stroke, &layouts.current)
}

/// One key press: a text stroke as a down/up pair carrying its text (on the layout's key for
/// it, with shift when that key needs it, else key code 0), a key stroke as its combo's
/// event sequence.
fn press(source: &CGEventSource, stroke: &Stroke, layout: &KeyLayout) -> Result<(), AxError> {
    let keyboard = |code: u16, down: bool| {
        CGEvent::new_keyboard_event(source.clone(), code, down)
            .map_err(|()| AxError::Backend("cannot create a keyboard event".to_owned()))
    };
    match stroke {
        Stroke::Text(units) => {
            let (code, modifiers) = text_key(units, layout).unwrap_or((0, Modifiers::default()));
            for down in [true, false] {
                let event = keyboard(code, down)?;
                event.set_string_from_utf16_unchecked(units);
                event.set_flags(input::flags(modifiers));
                post(&event);
            }
        }
        Stroke::Code { code, modifiers } => {
            for key in combo_events(*code, *modifiers) {
                let event = keyboard(key.code, key.down)?;
                if key.modifier {
                    event.set_type(CGEventType::FlagsChanged);
                }
                event.set_flags(input::flags(key.flags));
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
