//! Synthetic pointer and keyboard input through the registry's DeviceEventController (XTest
//! underneath). There may be no window manager, so the target app's window is brought to the
//! front first: `Component.GrabFocus` on the element under the pointer (or on the app's
//! focused element) presents its window; the X server is then asked whether the app's window
//! is really on top, and the window is raised through X11 when it is not. Input is
//! asynchronous: the engine verifies effects afterwards.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use axgate_engine::backend::{Click, MouseButton};
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

struct Clicks {
    x: i32,
    y: i32,
    button: MouseButton,
    count: u32,
}

impl AsyncInput for Clicks {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError> {
        let b = match self.button {
            MouseButton::Left => 1,
            MouseButton::Right => 3,
        };
        mouse(calls, self.x, self.y, "abs").await?;
        if self.count == 2 {
            return mouse(calls, self.x, self.y, &format!("b{b}d")).await;
        }
        for _ in 0..self.count.max(1) {
            mouse(calls, self.x, self.y, &format!("b{b}c")).await?;
        }
        Ok(())
    }
}

pub(super) fn click_at(
    core: &Core,
    pid: Pid,
    click: Click,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let Click {
        point,
        button,
        count,
    } = click;
    bring_front(core, pid, Some(point), ctx)?;
    let clicks = Clicks {
        x: point.0.round() as i32,
        y: point.1.round() as i32,
        button,
        count,
    };
    post(core, ctx, clicks)
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
    let mut codes = Vec::new();
    for m in &mods {
        let (code, _) = find(*m).ok_or_else(|| {
            AxError::Unsupported(format!("the keyboard has no key for modifier 0x{m:x}"))
        })?;
        codes.push(u32::from(code));
    }
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

struct Wheel {
    x: i32,
    y: i32,
    button: u32,
    steps: u32,
}

impl AsyncInput for Wheel {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError> {
        mouse(calls, self.x, self.y, "abs").await?;
        for _ in 0..self.steps {
            mouse(calls, self.x, self.y, &format!("b{}c", self.button)).await?;
        }
        Ok(())
    }
}

/// Scrolls with the wheel (buttons 4 and 5); the registry has no horizontal wheel buttons.
pub(super) fn scroll(
    core: &Core,
    pid: Pid,
    point: (f64, f64),
    delta: (f64, f64),
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    if delta.1 == 0.0 {
        return Err(AxError::Unsupported(
            "horizontal scrolling is not available through AT-SPI; scroll vertically or drag \
             the scroll bar"
                .to_owned(),
        ));
    }
    bring_front(core, pid, Some(point), ctx)?;
    let wheel = Wheel {
        x: point.0.round() as i32,
        y: point.1.round() as i32,
        button: if delta.1 > 0.0 { 5 } else { 4 },
        steps: delta.1.abs().round().max(1.0) as u32,
    };
    post(core, ctx, wheel)
}

struct Drag {
    from: (i32, i32),
    to: (i32, i32),
}

impl AsyncInput for Drag {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError> {
        let (fx, fy) = self.from;
        let (tx, ty) = self.to;
        mouse(calls, fx, fy, "abs").await?;
        mouse(calls, fx, fy, "b1p").await?;
        const STEPS: i32 = 8;
        for i in 1..=STEPS {
            let x = fx + (tx - fx) * i / STEPS;
            let y = fy + (ty - fy) * i / STEPS;
            mouse(calls, x, y, "abs").await?;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        mouse(calls, tx, ty, "b1r").await
    }
}

pub(super) fn drag(
    core: &Core,
    pid: Pid,
    from: (f64, f64),
    to: (f64, f64),
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    bring_front(core, pid, Some(from), ctx)?;
    let round = |p: (f64, f64)| (p.0.round() as i32, p.1.round() as i32);
    post(
        core,
        ctx,
        Drag {
            from: round(from),
            to: round(to),
        },
    )
}
