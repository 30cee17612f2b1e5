//! Synthetic pointer and keyboard input through the registry's DeviceEventController (XTest
//! underneath). There may be no window manager, so the target app's window is brought to the
//! front first: `Component.GrabFocus` on the element under the pointer (or on the app's
//! focused element) presents its window; the X server is then asked whether the app's window
//! is really on top, and the window is raised through X11 when it is not. Input is
//! asynchronous: the engine verifies effects afterwards. Keys held through a pointer gesture
//! are pressed before its first event and released after its last, also when it fails.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use axgate_engine::backend::{Gesture, MouseButton, Pointer};
use axgate_engine::keys::KeyCombo;
use axgate_engine::{AxError, CallCtx, Pid};

use super::Core;
use super::dbus::{ACCESSIBLE, COMPONENT, Calls, REGISTRY};
use super::ids::ObjRef;
use super::keyboard;
use super::states::{bit, has};
use super::x11::Display;

const DEC_PATH: &str = "/org/a11y/atspi/registry/deviceeventcontroller";
const DEC: &str = "org.a11y.atspi.DeviceEventController";
/// `AtspiKeySynthType` values.
const KEY_PRESS: u32 = 0;
const KEY_RELEASE: u32 = 1;
const KEY_PRESSRELEASE: u32 = 2;
const KEY_SYM: u32 = 3;
/// How long a raise may take to show in the X server.
const RAISE_WAIT: Duration = Duration::from_millis(300);

async fn mouse(calls: &Calls<'_>, x: i32, y: i32, name: &str) -> Result<(), AxError> {
    calls
        .call::<_, ()>(
            &(REGISTRY, DEC_PATH),
            DEC,
            "GenerateMouseEvent",
            &(x, y, name),
        )
        .await
        .map_err(|f| AxError::Backend(format!("the registry refused a mouse event: {}", f.0)))
}

async fn key(calls: &Calls<'_>, code: u32, kind: u32) -> Result<(), AxError> {
    calls
        .call::<_, ()>(
            &(REGISTRY, DEC_PATH),
            DEC,
            "GenerateKeyboardEvent",
            &(code as i32, "", kind),
        )
        .await
        .map_err(|f| AxError::Backend(format!("the registry refused a key event: {}", f.0)))
}

/// Brings `pid`'s window (the one at `point`, if given) to the front; for keyboard input
/// (no point) it also needs the X keyboard focus. Nothing is done when that already holds.
/// For a click, `GrabFocus` on the focusable element under the point presents its window
/// (the click would focus it anyway); keyboard input raises and focuses the window through
/// X11 instead, because GTK selects an entry's whole text when it grabs focus, and typing
/// would then replace it.
fn bring_front(
    core: &Core,
    pid: Pid,
    point: Option<(f64, f64)>,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let display = Display::open()?;
    let Some(window) = display.window_of(pid, None, point)? else {
        return Err(AxError::Unsupported(format!("pid {pid} shows no window")));
    };
    let probe = point.unwrap_or_else(|| window.rect.center());
    if display.on_top(pid, probe)? && (point.is_some() || display.has_focus(window.id)?) {
        return Ok(());
    }
    if let Some(p) = point {
        let (conn, app) = core.app(pid, ctx)?;
        let calls = Calls::new(&conn);
        let grabbed = core.block(&app.name, ctx, &calls, async {
            match super::ops::element_at(&calls, &app, p).await? {
                Some(obj) => Ok(grab_if_focusable(&calls, &obj).await),
                None => Ok(false),
            }
        })?;
        let until = Instant::now() + RAISE_WAIT;
        while grabbed && Instant::now() < until {
            if display.on_top(pid, probe)? {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    display.raise(window.id)
}

/// `GrabFocus` on an element that can take focus; whether it did.
async fn grab_if_focusable(calls: &Calls<'_>, obj: &ObjRef) -> bool {
    let focusable = calls
        .call::<_, Vec<u32>>(obj, ACCESSIBLE, "GetState", &())
        .await
        .is_ok_and(|s| has(u64::from(s.first().copied().unwrap_or(0)), bit::FOCUSABLE));
    focusable
        && calls
            .call::<_, bool>(obj, COMPONENT, "GrabFocus", &())
            .await
            .unwrap_or(false)
}

/// Brings an app to the front (`activate_app`, and before keyboard input).
pub(super) fn raise_app(core: &Core, pid: Pid, ctx: &mut CallCtx) -> Result<(), AxError> {
    bring_front(core, pid, None, ctx)
}

/// Runs input calls on the registry under the call's deadline.
fn post(core: &Core, ctx: &mut CallCtx, events: impl AsyncInput) -> Result<(), AxError> {
    let conn = core.conn(ctx)?;
    let calls = Calls::new(&conn);
    core.block("the AT-SPI registry", ctx, &calls, events.run(&calls))
}

/// A batch of input events.
trait AsyncInput {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError>;
}

/// A pointer gesture as `GenerateMouseEvent` names (`abs` moves; `b1p`/`b1r` press and
/// release, `b1c` clicks, `b1d` double-clicks; buttons 4 and 5 are the wheel), with the
/// keycodes of the held keys around it.
struct Mouse {
    held: Vec<u32>,
    /// Each event: where, its name, and how long to wait after it.
    events: Vec<(i32, i32, String, Duration)>,
}

impl AsyncInput for Mouse {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError> {
        let mut pressed = Vec::new();
        let mut out = Ok(());
        for code in &self.held {
            out = key(calls, *code, KEY_PRESS).await;
            if out.is_err() {
                break;
            }
            pressed.push(*code);
        }
        if out.is_ok() {
            for (x, y, name, after) in &self.events {
                out = mouse(calls, *x, *y, name).await;
                if out.is_err() {
                    break;
                }
                if !after.is_zero() {
                    tokio::time::sleep(*after).await;
                }
            }
        }
        // Every key pressed is released, whatever failed on the way.
        for code in pressed.iter().rev() {
            let released = key(calls, *code, KEY_RELEASE).await;
            out = out.and(released);
        }
        out
    }
}

fn button_number(button: MouseButton) -> u8 {
    match button {
        MouseButton::Left => 1,
        MouseButton::Right => 3,
    }
}

/// The events of `act` (after the move onto its point).
fn mouse_events(act: &Pointer) -> Result<Vec<(i32, i32, String, Duration)>, AxError> {
    let round = |p: (f64, f64)| (p.0.round() as i32, p.1.round() as i32);
    let (x, y) = round(act.at);
    let none = Duration::ZERO;
    let mut events = vec![(x, y, "abs".to_owned(), none)];
    match act.gesture {
        Gesture::Click { button, count } => {
            let b = button_number(button);
            if count == 2 {
                events.push((x, y, format!("b{b}d"), none));
            } else {
                for _ in 0..count.clamp(1, 3) {
                    events.push((x, y, format!("b{b}c"), none));
                }
            }
        }
        Gesture::Hover => {}
        Gesture::Press { button, hold } => {
            let b = button_number(button);
            events.push((x, y, format!("b{b}p"), hold));
            events.push((x, y, format!("b{b}r"), none));
        }
        Gesture::Scroll { delta } => {
            if delta.1 == 0.0 || !delta.1.is_finite() {
                return Err(AxError::Unsupported(
                    "horizontal scrolling is not available through AT-SPI; scroll vertically \
                     or drag the scroll bar"
                        .to_owned(),
                ));
            }
            let wheel = if delta.1 > 0.0 { 5 } else { 4 };
            let steps = delta.1.abs().round().clamp(1.0, 10_000.0) as u32;
            for _ in 0..steps {
                events.push((x, y, format!("b{wheel}c"), none));
            }
        }
        Gesture::Drag { to } => {
            let (tx, ty) = round(to);
            events.push((x, y, "b1p".to_owned(), none));
            const STEPS: i32 = 8;
            for i in 1..=STEPS {
                let step = (x + (tx - x) * i / STEPS, y + (ty - y) * i / STEPS);
                events.push((step.0, step.1, "abs".to_owned(), Duration::from_millis(5)));
            }
            events.push((tx, ty, "b1r".to_owned(), none));
        }
    }
    Ok(events)
}

/// The keycodes of modifier keysyms in the keyboard mapping, in order.
fn modifier_codes(min: u8, per: u8, syms: &[u32], mods: &[u32]) -> Result<Vec<u32>, AxError> {
    mods.iter()
        .map(|m| {
            keyboard::find_keycode(min, per, syms, *m)
                .map(|(code, _)| u32::from(code))
                .ok_or_else(|| {
                    AxError::Unsupported(format!("the keyboard has no key for modifier 0x{m:x}"))
                })
        })
        .collect()
}

/// Posts a pointer gesture with its keys held. A hover or a scroll does not raise the app
/// (moving the pointer over a window does not), the rest bring it to the front first.
pub(super) fn pointer(
    core: &Core,
    pid: Pid,
    act: &Pointer,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let events = mouse_events(act)?;
    if !matches!(act.gesture, Gesture::Hover | Gesture::Scroll { .. }) {
        bring_front(core, pid, Some(act.at), ctx)?;
    }
    let held = match keyboard::modifier_keysyms(act.held) {
        mods if mods.is_empty() => Vec::new(),
        mods => {
            let (min, per, syms) = Display::open()?.keyboard_mapping()?;
            modifier_codes(min, per, &syms, &mods)?
        }
    };
    let hold = events.iter().map(|e| e.3).sum::<Duration>();
    if ctx.remaining() < hold {
        return Err(AxError::Unsupported(format!(
            "the gesture takes {hold:?}, more than the call has left ({:?}); hold it shorter",
            ctx.remaining()
        )));
    }
    let releases: Vec<(u32, u32)> = held.iter().rev().map(|c| (*c, KEY_RELEASE)).collect();
    let out = post(core, ctx, Mouse { held, events });
    if out.is_err() && !releases.is_empty() {
        // A gesture cut off by its deadline never reached its releases: send them now.
        let mut spare = CallCtx::new(Instant::now() + Duration::from_secs(1));
        let _ = post(core, &mut spare, Keys(releases));
    }
    out
}

struct Keys(Vec<(u32, u32)>);

impl AsyncInput for Keys {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError> {
        for (code, kind) in self.0 {
            key(calls, code, kind).await?;
        }
        Ok(())
    }
}

/// How long an app is given to handle the presses of one part of a text before the spare
/// keycodes it used are given other keysyms (only for a text with more distinct characters
/// off the keyboard map than the map has spare keycodes). Apps translate a keycode with the
/// mapping as it is when they handle the press, not as it was when it was sent.
const REMAP_SETTLE: Duration = Duration::from_millis(300);

/// The spare keycodes this process gave keysyms, oldest first: reused when no keycode is
/// left empty.
static SPARES: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// One key press: by keycode, or by keysym when the registry must add Shift.
#[derive(Clone, Copy)]
enum Stroke {
    Code(u8),
    Sym(u32),
}

/// Strokes to send, in order.
struct Typed(Vec<Stroke>);

impl AsyncInput for Typed {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError> {
        for stroke in self.0 {
            match stroke {
                Stroke::Code(code) => key(calls, u32::from(code), KEY_PRESSRELEASE).await?,
                Stroke::Sym(sym) => key(calls, sym, KEY_SYM).await?,
            }
        }
        Ok(())
    }
}

/// Strokes for the longest prefix of `wanted` the keyboard mapping can type as it is after
/// the spare keycodes the prefix needs are given its missing keysyms (done here). Keysyms off
/// the map never go through the registry's own remapping of one reserved keycode per press:
/// an app that handles a press after the next remap types the next character instead (seen:
/// "Zoë 日本" typed as "Zo\u{301} 本本", a skin-tone modifier lost under load).
fn map_keys(display: &Display, wanted: &[u32], part: usize) -> Result<Vec<Stroke>, AxError> {
    let (min, per, syms) = display.keyboard_mapping()?;
    let mut spares = SPARES.lock().unwrap_or_else(|p| p.into_inner());
    let plan = keyboard::plan_keys(min, per, &syms, wanted, &spares);
    if plan.keys.is_empty() {
        return Err(AxError::Unsupported(
            "the X keyboard mapping has no spare keycode to type this character with".to_owned(),
        ));
    }
    if !plan.assign.is_empty() {
        if part > 0 {
            std::thread::sleep(REMAP_SETTLE);
        }
        display.set_keysyms(per, &plan.assign)?;
        spares.retain(|c| plan.assign.iter().all(|(a, _)| a != c));
        spares.extend(plan.assign.iter().map(|(code, _)| *code));
    }
    Ok(plan
        .keys
        .iter()
        .zip(wanted)
        .map(|(&(code, shift), &sym)| {
            if shift {
                Stroke::Sym(sym)
            } else {
                Stroke::Code(code)
            }
        })
        .collect())
}

/// Types text, one key press per character. Characters off the keyboard map are first given
/// spare keycodes, all at once, so the mapping does not change while the text is typed.
pub(super) fn type_text(
    core: &Core,
    pid: Pid,
    text: &str,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    bring_front(core, pid, None, ctx)?;
    let display = Display::open()?;
    let wanted: Vec<u32> = text.chars().map(keyboard::char_keysym).collect();
    let mut done = 0;
    let mut part = 0;
    while done < wanted.len() {
        let strokes = map_keys(&display, &wanted[done..], part)?;
        done += strokes.len();
        part += 1;
        post(core, ctx, Typed(strokes))?;
    }
    Ok(())
}

/// Presses a combo: modifiers held by keycode, the key pressed and released, modifiers
/// released in reverse order.
pub(super) fn press_key(
    core: &Core,
    pid: Pid,
    combo: &KeyCombo,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    bring_front(core, pid, None, ctx)?;
    let (mut mods, sym) = keyboard::combo_keysyms(combo);
    let display = Display::open()?;
    let (min, per, syms) = display.keyboard_mapping()?;
    let find = |s: u32| keyboard::find_keycode(min, per, &syms, s);
    let key_code = find(sym);
    if key_code.is_some_and(|(_, shift)| shift) && !mods.contains(&keyboard::SHIFT_L) {
        mods.push(keyboard::SHIFT_L);
    }
    let codes = modifier_codes(min, per, &syms, &mods)?;
    let mut events: Vec<(u32, u32)> = codes.iter().map(|c| (*c, KEY_PRESS)).collect();
    match key_code {
        Some((code, _)) => events.push((u32::from(code), KEY_PRESSRELEASE)),
        None => match map_keys(&display, &[sym], 0)?.first() {
            Some(Stroke::Code(code)) => events.push((u32::from(*code), KEY_PRESSRELEASE)),
            _ => events.push((sym, KEY_SYM)),
        },
    }
    events.extend(codes.iter().rev().map(|c| (*c, KEY_RELEASE)));
    post(core, ctx, Keys(events))
}
