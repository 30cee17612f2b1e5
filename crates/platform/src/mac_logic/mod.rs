//! The platform-neutral half of the macOS backend: every decision of the AXUIElement
//! adapter that needs no Apple API, compiled and tested on every OS. `platform/macos` calls
//! into it and keeps only the code that touches Apple frameworks.
//!
//! Tables and rules: `roles` (native role/subrole → [`axgate_engine::Role`], implied actions),
//! `action_names`, `notifications`, `decode` (attribute slots → engine types, value caps),
//! `writes` (write plans, clamping, the verdict on a timed-out write), `failures` (AX
//! failure classes → engine errors), `readiness` (checks and fix texts). Walks: `walk` (the
//! bounded, cycle-guarded tree walk over an [`walk::AxSource`], one round trip per node),
//! `ranges` (what may be big, a table's rows or a text area's text, read in ranges up to the
//! budgets; a slow element skipped and reported), `budget` (timeouts sliced from the deadline, child and text caps) and `handle_table`
//! (`NodeId` ↔ element per process). Input: `input_guard` (may a synthetic event be
//! posted? who owns a point, by the window server's window list; activation fallbacks),
//! `typed_text` (did typed text land while another process held Secure Input?),
//! `gestures`, `keystrokes`, `key_layout` (which key types a character on the current
//! layout, a combo's letter on the Command level or the ASCII-capable layout; the modifier
//! events of a combo). (The click point, activation point or frame centre,
//! is engine-generic: `RawNode::click_point`; so is a screenshot's scale: `ax::Capture`.)
//! Windows: `window_zoom` (zoom button, `AXFullScreen` or full-screen button; when it landed).
//! Chromium/Electron: `tree_fill` (when a tree switched on by `AXManualAccessibility` has
//! filled, measured on the web area; the `AXEnhancedUserInterface` opt-in). Tests only:
//! `fake_ax` (an in-memory AX source that counts round trips and what crosses) and
//! `chromium_expectations` (Chromium's recorded web trees as fake-source subtrees). Processes: `capture` (screencapture arguments and covered area), `launch_spec`, `child`
//! (helper programs with a deadline).
//!
//! Must not know: Apple types (Core Foundation, AX, CoreGraphics), HTTP, MCP or sessions.
// On other hosts the adapter that calls most of this is not compiled; the tests use it all.
#![cfg_attr(not(target_os = "macos"), allow(dead_code))]

pub(crate) mod action_names;
pub(crate) mod attr_value;
pub(crate) mod budget;
pub(crate) mod capture;
pub(crate) mod child;
#[cfg(test)]
pub(crate) mod chromium_expectations;
pub(crate) mod decode;
pub(crate) mod failures;
#[cfg(test)]
pub(crate) mod fake_ax;
pub(crate) mod gestures;
pub(crate) mod handle_table;
pub(crate) mod input_guard;
pub(crate) mod key_layout;
pub(crate) mod keystrokes;
pub(crate) mod launch_spec;
pub(crate) mod naming;
pub(crate) mod notifications;
pub(crate) mod pixels;
pub(crate) mod ranges;
pub(crate) mod readiness;
pub(crate) mod roles;
pub(crate) mod tree_fill;
pub(crate) mod typed_text;
pub(crate) mod walk;
pub(crate) mod window_zoom;
pub(crate) mod writes;
