//! Schematic screenshots of demo apps: a white canvas with every visible element's frame as a
//! 1-px outline and its label in the built-in bitmap font, encoded as an RGB PNG at scale 1.
//! Secure values are drawn as a fixed row of asterisks that reveals nothing, not even length.

use axgate_engine::{AxError, AxValue, CallCtx, Rect, Role, region};

use super::font::{self, ADVANCE, GLYPH_H};
use super::hit::{paint_order, scroll_clip};
use super::roles;
use super::tree::{AppTree, Node};

/// The largest image side we draw, in pixels.
const MAX_SIDE: f64 = 8192.0;

type Rgb = [u8; 3];
const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [20, 20, 20];
const FAINT: Rgb = [150, 150, 150];
const LINE: Rgb = [110, 110, 110];
const FOCUS: Rgb = [0, 100, 220];

/// The window a screenshot captures: with a region, the window that overlaps it most; else
/// (or when none does) the focused window, else the first.
pub(super) fn window_area(tree: &AppTree, region: Option<Rect>) -> Result<Rect, AxError> {
    let app = tree.get(tree.root()).map(|n| n.children.clone());
    let windows: Vec<&Node> = app
        .unwrap_or_default()
        .into_iter()
        .filter_map(|id| tree.get(id))
        .filter(|n| roles::is_window(n.role) && n.states.visible && n.frame.is_some())
        .collect();
    let frames: Vec<Option<Rect>> = windows.iter().map(|n| n.frame).collect();
    region
        .and_then(|r| region::window_for(&frames, r))
        .map(|i| windows[i])
        .or_else(|| windows.iter().find(|n| n.states.focused).copied())
        .or(windows.first().copied())
        .and_then(|n| n.frame)
        .ok_or_else(|| {
            AxError::Unsupported(format!(
                "{} has no open window to capture; open one first",
                tree.name
            ))
        })
}

/// Draws every visible element over `area` (global points) and encodes the PNG. Stops
/// drawing, leaving the picture partial, if the deadline passes.
pub(super) fn render(tree: &AppTree, area: Rect, ctx: &CallCtx) -> Result<Vec<u8>, AxError> {
    let (w, h) = (area.w.round(), area.h.round());
    if !(1.0..=MAX_SIDE).contains(&w) || !(1.0..=MAX_SIDE).contains(&h) {
        return Err(AxError::InvalidValue {
            element: "screenshot region".to_owned(),
            reason: format!("width and height must be between 1 and {MAX_SIDE} points"),
        });
    }
    let mut canvas = Canvas {
        x0: area.x.round() as i64,
        y0: area.y.round() as i64,
        w: w as u32,
        h: h as u32,
        pixels: vec![255; w as usize * h as usize * 3],
        clip: None,
    };
    for (i, id) in paint_order(tree).into_iter().enumerate() {
        if i % 256 == 0 && ctx.expired() {
            break;
        }
        if let Some(node) = tree.get(id) {
            canvas.clip = scroll_clip(tree, id).map(PxRect::from);
            draw_node(&mut canvas, node);
        }
    }
    canvas.encode()
}

fn draw_node(canvas: &mut Canvas, node: &Node) {
    let Some(frame) = node.frame else {
        return;
    };
    let r = PxRect::from(frame);
    if !canvas.overlaps(&r) {
        return;
    }
    if node.role == Role::Menu || roles::is_window(node.role) {
        canvas.fill(&r, WHITE);
    }
    let line = if node.states.focused { FOCUS } else { LINE };
    canvas.outline(&r, line);
    let ink = if node.states.enabled { INK } else { FAINT };
    let text = caption(node);
    if roles::is_window(node.role) {
        let bar = PxRect { h: 22, ..r };
        canvas.outline(&bar, line);
        canvas.text(r.x + 8, r.y + 8, &text, ink, &bar);
    } else if node.children.is_empty() {
        let baseline = r.y + ((r.h - GLYPH_H as i64) / 2).max(1);
        canvas.text(r.x + 4, baseline, &text, ink, &r);
    } else {
        // Containers label their top-left corner, above their children.
        canvas.text(r.x + 4, r.y + 3, &text, ink, &r);
    }
}

/// What a person would read on the element.
fn caption(node: &Node) -> String {
    let title = node.label().unwrap_or("").to_owned();
    let value = match &node.value {
        Some(_) if node.states.secure => "********".to_owned(),
        Some(AxValue::Text(t)) => t.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    match (node.role, &node.value) {
        (Role::CheckBox | Role::RadioButton, Some(AxValue::Bool(on))) => {
            format!("[{}] {title}", if *on { "X" } else { " " })
        }
        (_, Some(AxValue::Bool(_))) if node.states.selected => format!("> {title}"),
        (_, Some(AxValue::Bool(_))) => title,
        (Role::StaticText, Some(_)) => value,
        (Role::PopupButton, Some(_)) => format!("{value} v"),
        (Role::TextArea, _) => value,
        (_, Some(_)) if title.is_empty() => value,
        (_, Some(_)) => format!("{title}: {value}"),
        (_, None) => title,
    }
}

/// A rectangle in whole global pixels.
#[derive(Clone, Copy)]
struct PxRect {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
}

impl From<Rect> for PxRect {
    fn from(r: Rect) -> Self {
        PxRect {
            x: r.x.round() as i64,
            y: r.y.round() as i64,
            w: r.w.round() as i64,
            h: r.h.round() as i64,
        }
    }
}

impl PxRect {
    fn contains(&self, x: i64, y: i64) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.w && y < self.y + self.h
    }
}

/// An RGB image whose top-left pixel is the global point (`x0`, `y0`).
struct Canvas {
    x0: i64,
    y0: i64,
    w: u32,
    h: u32,
    pixels: Vec<u8>,
    /// Drawing outside this global rect is dropped (the current element's scroll clip).
    clip: Option<PxRect>,
}

impl Canvas {
    fn overlaps(&self, r: &PxRect) -> bool {
        r.x < self.x0 + self.w as i64
            && r.y < self.y0 + self.h as i64
            && r.x + r.w > self.x0
            && r.y + r.h > self.y0
    }

    fn put(&mut self, x: i64, y: i64, color: Rgb) {
        if self.clip.is_some_and(|c| !c.contains(x, y)) {
            return;
        }
        let (lx, ly) = (x - self.x0, y - self.y0);
        if lx < 0 || ly < 0 || lx >= self.w as i64 || ly >= self.h as i64 {
            return;
        }
        let at = (ly as usize * self.w as usize + lx as usize) * 3;
        self.pixels[at..at + 3].copy_from_slice(&color);
    }

    fn fill(&mut self, r: &PxRect, color: Rgb) {
        let xs = r.x.max(self.x0)..(r.x + r.w).min(self.x0 + self.w as i64);
        for y in r.y.max(self.y0)..(r.y + r.h).min(self.y0 + self.h as i64) {
            for x in xs.clone() {
                self.put(x, y, color);
            }
        }
    }

    fn outline(&mut self, r: &PxRect, color: Rgb) {
        if r.w <= 0 || r.h <= 0 {
            return;
        }
        let (right, bottom) = (r.x + r.w - 1, r.y + r.h - 1);
        for x in r.x..=right {
            self.put(x, r.y, color);
            self.put(x, bottom, color);
        }
        for y in r.y..=bottom {
            self.put(r.x, y, color);
            self.put(right, y, color);
        }
    }

    /// Draws `text` with its top-left at (`x`, `y`), clipped to `clip`.
    fn text(&mut self, x: i64, y: i64, text: &str, color: Rgb, clip: &PxRect) {
        for (i, c) in text.chars().enumerate() {
            let gx = x + i as i64 * ADVANCE as i64;
            if gx >= clip.x + clip.w {
                break;
            }
            let glyph = font::glyph(c);
            for row in 0..GLYPH_H {
                for col in 0..font::GLYPH_W {
                    let (px, py) = (gx + col as i64, y + row as i64);
                    if font::ink(&glyph, col, row) && clip.contains(px, py) {
                        self.put(px, py, color);
                    }
                }
            }
        }
    }

    fn encode(self) -> Result<Vec<u8>, AxError> {
        let failed = |e: png::EncodingError| AxError::Backend(format!("PNG encoding failed: {e}"));
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.w, self.h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(failed)?;
        writer.write_image_data(&self.pixels).map_err(failed)?;
        writer.finish().map_err(failed)?;
        Ok(out)
    }
}
