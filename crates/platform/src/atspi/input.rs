//! Synthetic pointer and keyboard input through the registry's DeviceEventController (XTest
//! underneath). There may be no window manager, so the target app's window is brought to the
//! front first: `Component.GrabFocus` on the element under the pointer (or on the app's
//! focused element) presents its window; the X server is then asked whether the app's window
//! is really on top, and the window is raised through X11 when it is not. Input is
//! asynchronous: the engine verifies effects afterwards.

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

/// How long a character without a key on the keyboard map is given before the next one.
/// The registry types such a keysym by remapping a spare keycode for the press; the app
/// translates the keycode with the map as it reads it when it handles the press, so a
/// second remap before then makes both presses type the second character (seen: "Zoë 日本"
/// typed as "Zo\u{301} 本本"). 150 ms was too short on a loaded 2-core machine: a
/// skin-tone modifier after an emoji, both remapped, was lost once in three full test runs.
const REMAP_SETTLE: Duration = Duration::from_millis(300);

/// Keysyms to type; those flagged are off the keyboard map and wait [`REMAP_SETTLE`].
struct Typed(Vec<(u32, bool)>);

impl AsyncInput for Typed {
    async fn run(self, calls: &Calls<'_>) -> Result<(), AxError> {
        let mut remapped_before = false;
        for (sym, remapped) in self.0 {
            if remapped || remapped_before {
                tokio::time::sleep(REMAP_SETTLE).await;
            }
            key(calls, sym, KEY_SYM).await?;
            remapped_before = remapped;
        }
        if remapped_before {
            tokio::time::sleep(REMAP_SETTLE).await;
        }
        Ok(())
    }
}

/// Types text, one key event per character (keysyms; the registry finds or maps keycodes),
/// pacing the characters that have no key on the keyboard map.
pub(super) fn type_text(
    core: &Core,
    pid: Pid,
    text: &str,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    bring_front(core, pid, None, ctx)?;
    let (min, per, syms) = Display::open()?.keyboard_mapping()?;
    let keys = text
        .chars()
        .map(|c| {
            let sym = keyboard::char_keysym(c);
            (sym, keyboard::find_keycode(min, per, &syms, sym).is_none())
        })
        .collect();
    post(core, ctx, Typed(keys))
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
    let (min, per, syms) = Display::open()?.keyboard_mapping()?;
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
        None => events.push((sym, KEY_SYM)),
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
