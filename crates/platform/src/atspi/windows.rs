//! An app's windows: listed from the accessibility tree (the app root's children with a
//! window role), operated through X11 because AT-SPI has no window operations and there may
//! be no window manager: focus raises and focuses the X window, close sends
//! `WM_DELETE_WINDOW`, move and resize configure it. Minimising needs a window manager.

use x11rb::protocol::xproto::ConfigureWindowAux;

use axgate_engine::backend::WindowAction;
use axgate_engine::{AxError, CallCtx, NodeId, Pid, WindowInfo};

use super::Core;
use super::dbus::{ACCESSIBLE, Calls, ROOT_PATH};
use super::ids::ObjRef;
use super::read;
use super::roles;
use super::states::{bit, has};
use super::x11::Display;

/// The app's top-level windows, dialogs and alerts.
pub(super) fn list_windows(
    core: &Core,
    pid: Pid,
    ctx: &mut CallCtx,
) -> Result<Vec<WindowInfo>, AxError> {
    let (conn, app) = core.app(pid, ctx)?;
    let calls = Calls::new(&conn);
    let root = ObjRef::new(&app.bus, ROOT_PATH);
    let found = core.block(&app.name, ctx, &calls, async {
        let kids = read::children(&calls, &root, 256)
            .await
            .map_err(|f| f.into_ax(pid, &app.name))?;
        let wanted = kids
            .into_iter()
            .enumerate()
            .map(|(i, p)| (p, Some(ROOT_PATH.to_owned()), i as i32))
            .collect();
        let items = read::direct_items(&calls, &app.bus, wanted).await;
        let chosen: Vec<&super::assemble::Item> = items.iter().collect();
        let extras = read::all_extras(&calls, &app.bus, &chosen, app.gtk).await;
        Ok(items.into_iter().zip(extras).collect::<Vec<_>>())
    })?;
    let mut out = Vec::new();
    for (item, extra) in found {
        let role = roles::normalise(item.role, false);
        if !roles::is_window(role) {
            continue;
        }
        out.push(WindowInfo {
            node: core.ids.id_of(&ObjRef::new(&app.bus, &item.path)),
            title: Some(item.name.clone()).filter(|t| !t.is_empty()),
            frame: extra.frame,
            focused: has(item.states, bit::ACTIVE),
            minimized: has(item.states, bit::ICONIFIED) || !has(item.states, bit::SHOWING),
        });
    }
    Ok(out)
}

/// Raises and focuses `pid`'s X window titled `title` (or at `point`, or its top-most);
/// returns the X window.
pub(super) fn x11_raise(
    pid: Pid,
    title: Option<&str>,
    point: Option<(f64, f64)>,
) -> Result<u32, AxError> {
    let display = Display::open()?;
    let window = display
        .window_of(pid, title, point)?
        .ok_or_else(|| AxError::Unsupported(format!("pid {pid} shows no window")))?;
    display.raise(window.id)?;
    Ok(window.id)
}

/// Operates on a window of the app.
pub(super) fn window_action(
    core: &Core,
    pid: Pid,
    window: NodeId,
    action: WindowAction,
    ctx: &mut CallCtx,
) -> Result<(), AxError> {
    let (conn, app) = core.app(pid, ctx)?;
    let obj = core.obj(&app, window)?;
    let calls = Calls::new(&conn);
    let title = core.block(&app.name, ctx, &calls, async {
        calls
            .prop::<String>(&obj, ACCESSIBLE, "Name")
            .await
            .map_err(|f| f.into_ax(pid, &app.name))
    })?;
    let display = Display::open()?;
    let Some(x) = display.window_of(pid, Some(&title), None)? else {
        return Err(AxError::Unsupported(format!(
            "{} has no mapped X window titled {title:?} (it may be minimised or closed)",
            app.name
        )));
    };
    match action {
        WindowAction::Focus => display.raise(x.id),
        WindowAction::Close => close(&display, pid, x.id),
        WindowAction::Move { x: nx, y: ny } => display.configure(
            x.id,
            &ConfigureWindowAux::new()
                .x(nx.round() as i32)
                .y(ny.round() as i32),
        ),
        WindowAction::Resize { w, h } => display.configure(
            x.id,
            &ConfigureWindowAux::new()
                .width(w.round().max(1.0) as u32)
                .height(h.round().max(1.0) as u32),
        ),
        WindowAction::Minimize | WindowAction::Restore => Err(AxError::Unsupported(
            "minimising needs a window manager, and this desktop has none; close or move the \
             window instead"
                .to_owned(),
        )),
        // Zoom and full screen are window-manager states (_NET_WM_STATE); without one an X
        // client can only be configured, which is what move and resize do.
        WindowAction::Maximize | WindowAction::FullScreen => Err(AxError::Unsupported(
            "maximize and full screen need a window manager, and this desktop has none; move \
             the window to 0,0 and resize it to the screen instead"
                .to_owned(),
        )),
    }
}

/// Sends `WM_DELETE_WINDOW`, and once more if the window is still mapped after a moment
/// (GTK now and then drops the first).
fn close(display: &Display, pid: Pid, window: u32) -> Result<(), AxError> {
    display.close(window)?;
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(25));
        let mapped = display
            .top_windows()?
            .iter()
            .any(|w| w.id == window && w.pid == Some(pid));
        if !mapped {
            return Ok(());
        }
    }
    display.close(window)
}
