//! The X11 side (x11rb, pure Rust): top-level windows and their owners, raising and focusing
//! one (there may be no window manager, so nobody else does), closing, moving and resizing
//! windows, the keyboard mapping, and reading screen pixels.

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask,
    ImageFormat, InputFocus, MapState, StackMode, Window,
};
use x11rb::rust_connection::RustConnection;

use axgate_engine::{AxError, Pid, Rect};

/// One mapped top-level window.
#[derive(Clone, Debug)]
pub(super) struct TopWindow {
    pub(super) id: Window,
    pub(super) pid: Option<Pid>,
    pub(super) title: String,
    pub(super) rect: Rect,
}

/// A connection to the display in `DISPLAY`, with its root window and size.
pub(super) struct Display {
    pub(super) conn: RustConnection,
    pub(super) root: Window,
    pub(super) width: u16,
    pub(super) height: u16,
}

fn x_err(e: impl std::fmt::Display) -> AxError {
    AxError::Backend(format!("X11: {e}"))
}

impl Display {
    pub(super) fn open() -> Result<Display, AxError> {
        let (conn, screen) = x11rb::connect(None).map_err(|e| {
            AxError::Backend(format!(
                "cannot open the X display {:?}: {e}; set DISPLAY to the desktop's display",
                std::env::var("DISPLAY").unwrap_or_default()
            ))
        })?;
        let s = &conn.setup().roots[screen];
        let (root, width, height) = (s.root, s.width_in_pixels, s.height_in_pixels);
        Ok(Display {
            conn,
            root,
            width,
            height,
        })
    }

    fn atom(&self, name: &str) -> Result<Atom, AxError> {
        Ok(self
            .conn
            .intern_atom(false, name.as_bytes())
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .atom)
    }

    /// Mapped children of the root, bottom to top, with owner pid and title.
    pub(super) fn top_windows(&self) -> Result<Vec<TopWindow>, AxError> {
        let pid_atom = self.atom("_NET_WM_PID")?;
        let name_atom = self.atom("_NET_WM_NAME")?;
        let utf8 = self.atom("UTF8_STRING")?;
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let mut out = Vec::new();
        for &w in &tree.children {
            let Ok(attrs) = self.conn.get_window_attributes(w).map_err(x_err)?.reply() else {
                continue;
            };
            if attrs.map_state != MapState::VIEWABLE {
                continue;
            }
            let Ok(geo) = self.conn.get_geometry(w).map_err(x_err)?.reply() else {
                continue;
            };
            let pid = self
                .conn
                .get_property(false, w, pid_atom, AtomEnum::CARDINAL, 0, 1)
                .map_err(x_err)?
                .reply()
                .ok()
                .and_then(|r| r.value32().and_then(|mut v| v.next()));
            let title = self
                .conn
                .get_property(false, w, name_atom, utf8, 0, 1024)
                .map_err(x_err)?
                .reply()
                .ok()
                .map(|r| String::from_utf8_lossy(&r.value).into_owned())
                .unwrap_or_default();
            out.push(TopWindow {
                id: w,
                pid,
                title,
                rect: Rect {
                    x: f64::from(geo.x),
                    y: f64::from(geo.y),
                    w: f64::from(geo.width),
                    h: f64::from(geo.height),
                },
            });
        }
        Ok(out)
    }

    /// The top-most window of `pid`, preferring one titled `title`, else one containing
    /// `point`, else any.
    pub(super) fn window_of(
        &self,
        pid: Pid,
        title: Option<&str>,
        point: Option<(f64, f64)>,
    ) -> Result<Option<TopWindow>, AxError> {
        let mine: Vec<TopWindow> = self
            .top_windows()?
            .into_iter()
            .filter(|w| w.pid == Some(pid))
            .collect();
        let by_title = title
            .filter(|t| !t.is_empty())
            .and_then(|t| mine.iter().rev().find(|w| w.title == t));
        let by_point = point.and_then(|(x, y)| mine.iter().rev().find(|w| w.rect.contains(x, y)));
        Ok(by_title.or(by_point).or(mine.last()).cloned())
    }

    /// Whether the top-most window at `point` belongs to `pid`.
    pub(super) fn on_top(&self, pid: Pid, point: (f64, f64)) -> Result<bool, AxError> {
        let windows = self.top_windows()?;
        let top = windows
            .iter()
            .rev()
            .find(|w| w.rect.contains(point.0, point.1));
        Ok(top.is_some_and(|w| w.pid == Some(pid)))
    }

    /// Whether `window` has the keyboard focus.
    pub(super) fn has_focus(&self, window: Window) -> Result<bool, AxError> {
        let reply = self
            .conn
            .get_input_focus()
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok(reply.focus == window)
    }

    /// Raises a window to the top and gives it the keyboard focus; waits until the server
    /// has done both.
    pub(super) fn raise(&self, window: Window) -> Result<(), AxError> {
        let aux = ConfigureWindowAux::new().stack_mode(StackMode::ABOVE);
        self.conn.configure_window(window, &aux).map_err(x_err)?;
        self.conn
            .set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME)
            .map_err(x_err)?;
        self.sync()
    }

    /// Waits until the X server has handled every request sent so far (one round trip).
    fn sync(&self) -> Result<(), AxError> {
        self.conn
            .get_input_focus()
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok(())
    }

    /// Asks a window to close (`WM_DELETE_WINDOW`), as a window manager would.
    pub(super) fn close(&self, window: Window) -> Result<(), AxError> {
        let protocols = self.atom("WM_PROTOCOLS")?;
        let delete = self.atom("WM_DELETE_WINDOW")?;
        let event = ClientMessageEvent::new(32, window, protocols, [delete, 0, 0, 0, 0]);
        self.conn
            .send_event(false, window, EventMask::NO_EVENT, event)
            .map_err(x_err)?;
        self.conn.flush().map_err(x_err)
    }

    /// Moves and/or resizes a window.
    pub(super) fn configure(
        &self,
        window: Window,
        aux: &ConfigureWindowAux,
    ) -> Result<(), AxError> {
        self.conn.configure_window(window, aux).map_err(x_err)?;
        self.sync()
    }

    /// The keyboard mapping: first keycode, keysyms per keycode, keysyms.
    pub(super) fn keyboard_mapping(&self) -> Result<(u8, u8, Vec<u32>), AxError> {
        let setup = self.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = self
            .conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok((min, reply.keysyms_per_keycode, reply.keysyms))
    }

    /// Gives each keycode of `assign` its keysym in every column, and waits until the server
    /// has taken the change (its mapping notices then reach every app before later presses).
    pub(super) fn set_keysyms(&self, per: u8, assign: &[(u8, u32)]) -> Result<(), AxError> {
        let per = per.max(2);
        for &(code, sym) in assign {
            let row: Vec<u32> = (0..per).map(|c| if c < 2 { sym } else { 0 }).collect();
            self.conn
                .change_keyboard_mapping(1, code, per, &row)
                .map_err(x_err)?;
        }
        self.sync()
    }

    /// Pixels of a screen rectangle (clamped to the screen) as 8-bit RGB rows, with the
    /// clamped size.
    pub(super) fn capture(&self, rect: Rect) -> Result<(Vec<u8>, u32, u32), AxError> {
        let x0 = rect.x.max(0.0).min(f64::from(self.width)) as i16;
        let y0 = rect.y.max(0.0).min(f64::from(self.height)) as i16;
        let x1 = (rect.x + rect.w).max(0.0).min(f64::from(self.width)) as i32;
        let y1 = (rect.y + rect.h).max(0.0).min(f64::from(self.height)) as i32;
        let (w, h) = (
            (x1 - i32::from(x0)).max(0) as u16,
            (y1 - i32::from(y0)).max(0) as u16,
        );
        if w == 0 || h == 0 {
            return Err(AxError::Backend(
                "the region lies outside the screen".into(),
            ));
        }
        let reply = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.root, x0, y0, w, h, u32::MAX)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let visual = self
            .conn
            .setup()
            .roots
            .iter()
            .find(|s| s.root == self.root)
            .and_then(|s| {
                s.allowed_depths
                    .iter()
                    .flat_map(|d| d.visuals.iter())
                    .find(|v| v.visual_id == s.root_visual)
                    .copied()
            });
        let masks = visual.map_or((0xff0000, 0x00ff00, 0x0000ff), |v| {
            (v.red_mask, v.green_mask, v.blue_mask)
        });
        let rgb = to_rgb(&reply.data, u32::from(w), u32::from(h), masks)?;
        Ok((rgb, u32::from(w), u32::from(h)))
    }
}

/// 32-bit Z-pixmap data (little-endian words, channels found by mask) → 8-bit RGB.
fn to_rgb(data: &[u8], w: u32, h: u32, masks: (u32, u32, u32)) -> Result<Vec<u8>, AxError> {
    let pixels = (w as usize) * (h as usize);
    if data.len() < pixels * 4 {
        return Err(AxError::Unsupported(
            "the X server's pixel format is not 32 bits per pixel".to_owned(),
        ));
    }
    let channel = |p: u32, mask: u32| -> u8 {
        if mask == 0 {
            return 0;
        }
        let v = (p & mask) >> mask.trailing_zeros();
        let bits = (mask >> mask.trailing_zeros()).count_ones();
        if bits >= 8 {
            (v >> (bits - 8)) as u8
        } else {
            ((v * 255) / ((1 << bits) - 1)) as u8
        }
    };
    let mut out = Vec::with_capacity(pixels * 3);
    for px in data.chunks_exact(4).take(pixels) {
        let p = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
        out.extend_from_slice(&[
            channel(p, masks.0),
            channel(p, masks.1),
            channel(p, masks.2),
        ]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgrx_words_become_rgb() {
        // One red and one blue pixel in little-endian 0x00RRGGBB words.
        let data = [0x00, 0x00, 0xff, 0x00, 0xff, 0x00, 0x00, 0x00];
        let rgb = to_rgb(&data, 2, 1, (0xff0000, 0x00ff00, 0x0000ff)).unwrap();
        assert_eq!(rgb, [255, 0, 0, 0, 0, 255]);
        assert!(to_rgb(&data, 3, 1, (0xff0000, 0xff00, 0xff)).is_err());
    }
}
