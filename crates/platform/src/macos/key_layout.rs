//! The current keyboard layout and the ASCII-capable one (what macOS matches shortcuts
//! against when the current layout has no Latin letters), read with Text Input Sources and
//! `UCKeyTranslate`: what every virtual key types at each modifier level, the Command level
//! included, turned into a `mac_logic::key_layout::KeyLayout` (which decides). Text Input
//! Sources belongs on the main thread, so the read runs there when the main run loop runs.
//! Layouts are cached by input source id and read again only when the user switches
//! layouts. A layout that cannot be read (no GUI session, a non-Unicode layout) falls back
//! to ANSI.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use core_foundation::base::{CFType, TCFType};
use core_foundation::data::{CFData, CFDataRef};
use core_foundation::string::{CFString, CFStringRef};

use super::runloop;
use crate::mac_logic::key_layout::{CODES, KeyLayout, Level};

type TisInputSourceRef = *const c_void;

#[link(name = "Carbon", kind = "framework")]
unsafe extern "C" {
    /// The keyboard layout the user types with (+1), or null.
    fn TISCopyCurrentKeyboardLayoutInputSource() -> TisInputSourceRef;
    /// The ASCII-capable layout shortcuts fall back to (+1), or null.
    fn TISCopyCurrentASCIICapableKeyboardLayoutInputSource() -> TisInputSourceRef;
    /// A property of an input source (Get rule), or null.
    fn TISGetInputSourceProperty(source: TisInputSourceRef, key: CFStringRef) -> *const c_void;
    static kTISPropertyUnicodeKeyLayoutData: CFStringRef;
    static kTISPropertyInputSourceID: CFStringRef;
    /// The keyboard type `UCKeyTranslate` needs.
    fn LMGetKbdType() -> u8;
    fn UCKeyTranslate(
        layout: *const c_void,
        virtual_key_code: u16,
        key_action: u16,
        modifier_key_state: u32,
        keyboard_type: u32,
        options: u32,
        dead_key_state: *mut u32,
        max_length: usize,
        actual_length: *mut usize,
        unicode_string: *mut u16,
    ) -> i32;
}

/// `kUCKeyActionDisplay`: what the key shows, without side effects.
const KEY_ACTION_DISPLAY: u16 = 3;
/// `1 << kUCKeyTranslateNoDeadKeysBit`: a dead key reports its own character.
const NO_DEAD_KEYS: u32 = 1;
/// The longest the main run loop may take to read the layout.
const WAIT: Duration = Duration::from_secs(1);

/// The layouts read so far, by input source id (a handful at most: users switch between
/// few layouts).
static CACHE: Mutex<Vec<(String, Arc<KeyLayout>)>> = Mutex::new(Vec::new());

/// The layouts a key press needs.
pub(super) struct Layouts {
    /// The layout the user types with now.
    pub(super) current: Arc<KeyLayout>,
    /// The ASCII-capable layout shortcuts fall back to.
    pub(super) ascii: Arc<KeyLayout>,
}

/// The current and the ASCII-capable layouts, now.
pub(super) fn layouts() -> Layouts {
    let read_both = || {
        (
            // SAFETY: no arguments; returns a +1 input source or null.
            read(unsafe { TISCopyCurrentKeyboardLayoutInputSource() }),
            // SAFETY: as above.
            read(unsafe { TISCopyCurrentASCIICapableKeyboardLayoutInputSource() }),
        )
    };
    let (current, ascii) = if runloop::is_running() {
        runloop::run_on_main(WAIT, read_both).unwrap_or((None, None))
    } else {
        read_both()
    };
    let ansi = || Arc::new(KeyLayout::ansi());
    Layouts {
        current: current.unwrap_or_else(ansi),
        ascii: ascii.unwrap_or_else(ansi),
    }
}

/// Reads the layout of the +1 input source `raw` (cached by its id); `None` when it cannot
/// be read.
fn read(raw: TisInputSourceRef) -> Option<Arc<KeyLayout>> {
    if raw.is_null() {
        return None;
    }
    // SAFETY: a non-null CF object we own one reference to (Create rule); released on drop.
    let source = unsafe { CFType::wrap_under_create_rule(raw.cast()) };
    // SAFETY: an immutable framework constant.
    let id = string_property(&source, unsafe { kTISPropertyInputSourceID })?;
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, layout)) = cache.iter().find(|(known, _)| *known == id) {
        return Some(layout.clone());
    }
    // SAFETY: a valid input source and an immutable framework key; Get rule.
    let data = unsafe {
        TISGetInputSourceProperty(source.as_CFTypeRef(), kTISPropertyUnicodeKeyLayoutData)
    };
    if data.is_null() {
        return None;
    }
    // SAFETY: the property is a CFData (Get rule: retained by the wrapper).
    let data = unsafe { CFData::wrap_under_get_rule(data as CFDataRef) };
    let layout = Arc::new(KeyLayout::from_keys(|code, level| {
        translate(&data, code, level)
    }));
    if cache.len() >= 8 {
        cache.remove(0);
    }
    cache.push((id, layout.clone()));
    Some(layout)
}

fn string_property(source: &CFType, key: CFStringRef) -> Option<String> {
    // SAFETY: a valid input source and an immutable framework key; Get rule.
    let value = unsafe { TISGetInputSourceProperty(source.as_CFTypeRef(), key) };
    if value.is_null() {
        return None;
    }
    // SAFETY: the input source id is a CFString (Get rule).
    Some(unsafe { CFString::wrap_under_get_rule(value as CFStringRef) }.to_string())
}

/// What `code` types at `level` on the layout in `data` (a `UCKeyboardLayout`).
fn translate(data: &CFData, code: u16, level: Level) -> Option<String> {
    debug_assert!(CODES.contains(&code));
    let mut dead_keys = 0u32;
    let mut units = [0u16; 4];
    let mut len = 0usize;
    // SAFETY: `data` holds a UCKeyboardLayout and outlives the call; the output buffer and
    // its length agree; the dead-key state is a valid u32.
    let status = unsafe {
        UCKeyTranslate(
            data.bytes().as_ptr().cast(),
            code,
            KEY_ACTION_DISPLAY,
            level.carbon_state(),
            u32::from(LMGetKbdType()),
            NO_DEAD_KEYS,
            &mut dead_keys,
            units.len(),
            &mut len,
            units.as_mut_ptr(),
        )
    };
    if status != 0 || len == 0 {
        return None;
    }
    String::from_utf16(&units[..len.min(units.len())]).ok()
}
