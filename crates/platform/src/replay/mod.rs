//! The replay backend (`--backend replay --recording FILE`): serves a recorded macOS tree
//! (`axgate-recording/1`, docs/RECORDINGS.md) through the decoding, naming, role mapping and
//! walk of the macOS backend (`mac_logic`), on any OS, so every read tool answers as it would
//! on the Mac the recording was made on. Nothing changes, so it sends no events; it cannot
//! act, and every act says so, naming the backend.
//!
//! Files: `format` (the file, parsed into an arena), `source` (the `AxSource` over it),
//! `writer` (recordings from generic attribute reads: what `axgate record` writes).

mod format;
mod source;
pub mod writer;

use std::path::{Path, PathBuf};

use axgate_engine::backend::{Gesture, Pointer};
use axgate_engine::capabilities::{Capabilities, Capability, unsupported, unsupported_because};
use axgate_engine::{
    AppInfo, AxError, AxResult, AxValue, Backend, CallCtx, Capture, EventSink, NodeId, Pid,
    ReadinessCheck, Rect, Snapshot, SnapshotRequest, WindowInfo,
};

pub use format::{FORMAT, Recording};
use source::{ReplayFailure, ReplaySource};

use crate::mac_logic::decode::{self, LINK_ATTR, WINDOW_ATTRS};
use crate::mac_logic::failures::{self, Context, Failure};
use crate::mac_logic::naming::LABEL_ATTRS;
use crate::mac_logic::walk::{self, Limits};

/// Serves one recording.
pub struct ReplayBackend {
    recording: Recording,
    file: PathBuf,
}

impl ReplayBackend {
    /// Loads the recording at `file`; the error names the file and what is wrong with it.
    pub fn open(file: &Path) -> Result<ReplayBackend, String> {
        let text = std::fs::read_to_string(file).map_err(|e| {
            format!(
                "cannot read the recording {}: {e}; give --recording the path of an {FORMAT} file",
                file.display()
            )
        })?;
        let recording =
            Recording::parse(&text).map_err(|e| format!("recording {}: {e}", file.display()))?;
        Ok(ReplayBackend {
            recording,
            file: file.to_owned(),
        })
    }

    fn source(&self) -> ReplaySource<'_> {
        ReplaySource {
            recording: &self.recording,
        }
    }

    /// The recorded app of `pid`, or the error for a pid the recording does not hold.
    fn app(&self, pid: Pid) -> Result<&format::App, AxError> {
        self.recording.app(pid).ok_or(AxError::AppExited { pid })
    }

    /// The node behind a handle of `pid` (ids are arena indexes + 1, stable for the process).
    fn element(&self, pid: Pid, node: NodeId) -> Result<usize, AxError> {
        let app = self.app(pid)?;
        let index = usize::try_from(node.0).ok().and_then(|n| n.checked_sub(1));
        match index {
            Some(i) if (app.root..app.end).contains(&i) => Ok(i),
            _ => Err(self.fail(pid, Some(node), ReplayFailure(-25202))),
        }
    }

    fn fail(&self, pid: Pid, node: Option<NodeId>, failure: ReplayFailure) -> AxError {
        let class = match failure.0 {
            -25204 => Failure::NoAnswer,
            -25202 => Failure::InvalidElement,
            code => Failure::Other(format!("AX error {code} (recorded)")),
        };
        let app = self.recording.app(pid).map_or_else(
            || format!("pid {pid}"),
            |a| format!("{} (pid {pid})", a.name),
        );
        failures::to_ax_error(
            class,
            &Context {
                pid,
                app,
                node,
                running: self.recording.app(pid).is_some(),
                elapsed: std::time::Duration::ZERO,
            },
        )
    }

    /// The error of every act (`what` was asked): a recording cannot be acted on. It is the
    /// "unsupported" error of the `act` capability, with what to do instead.
    fn cannot(&self, what: &str) -> AxError {
        unsupported_because(
            self.name(),
            Capability::Act,
            &format!(
                " (asked to {what}): it serves the recording {}, which nothing can change; \
                 run axgate with the macos backend on the Mac to act",
                self.file.display()
            ),
        )
    }

    /// The windows of an app: its `AXWindows` when recorded, else its children that are
    /// windows.
    fn windows_of(&self, app: &format::App) -> Vec<usize> {
        let root = &self.recording.nodes[app.root];
        if let Some(windows) = root.lists.get("AXWindows") {
            return windows.clone();
        }
        let source = self.source();
        root.children
            .iter()
            .copied()
            .filter(|c| source.value(*c, "AXRole") == decode::AttrValue::Text("AXWindow".into()))
            .collect()
    }
}

/// Node id of an arena index.
fn id_of(index: usize) -> NodeId {
    NodeId(index as u64 + 1)
}

impl Backend for ReplayBackend {
    fn name(&self) -> &'static str {
        "replay"
    }

    fn readiness(&self) -> Vec<ReadinessCheck> {
        vec![ReadinessCheck {
            name: "recording",
            class: axgate_engine::CheckClass::Gate,
            ok: !self.recording.apps.is_empty(),
            detail: if self.recording.apps.is_empty() {
                format!(
                    "the recording {} holds no apps; record one with `axgate record APP --output FILE`",
                    self.file.display()
                )
            } else {
                String::new()
            },
        }]
    }

    /// Reading only (not even `act`): a recording has nothing to type into, press or
    /// capture.
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
    }

    /// Nothing in a recording changes: no events.
    fn set_event_sink(&self, _sink: EventSink) {}

    fn list_apps(&self, _ctx: &mut CallCtx) -> AxResult<Vec<AppInfo>> {
        let source = self.source();
        let recorded_front = self
            .recording
            .apps
            .iter()
            .position(|a| source.value(a.root, "AXFrontmost") == decode::AttrValue::Bool(true));
        Ok(self
            .recording
            .apps
            .iter()
            .enumerate()
            .map(|(i, a)| AppInfo {
                pid: a.pid,
                name: a.name.clone(),
                bundle_id: a.bundle_id.clone(),
                started_at: 0,
                frontmost: recorded_front.unwrap_or(0) == i,
            })
            .collect())
    }

    fn probe(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult {
        let app = self.app(pid)?;
        self.source()
            .read_many(app.root, &["AXRole"], ctx)
            .map(drop)
            .map_err(|f| self.fail(pid, None, f))
    }

    fn snapshot(&self, pid: Pid, req: &SnapshotRequest, ctx: &mut CallCtx) -> AxResult<Snapshot> {
        let root = match req.root {
            None => self.app(pid)?.root,
            Some(node) => self.element(pid, node)?,
        };
        let limits = Limits {
            max_depth: req.max_depth,
            max_nodes: req.max_nodes,
            skip_children: req.skip_children,
        };
        let walked = walk::walk(&self.source(), root, limits, ctx)
            .map_err(|f| self.fail(pid, req.root, f))?;
        let mut nodes = walked.nodes;
        for (node, index) in nodes.iter_mut().zip(walked.elements) {
            node.id = id_of(index);
        }
        Ok(Snapshot {
            nodes,
            truncated: walked.truncated,
            skipped: walked.skipped,
        })
    }

    fn list_windows(&self, pid: Pid, ctx: &mut CallCtx) -> AxResult<Vec<WindowInfo>> {
        let app = self.app(pid)?;
        let source = self.source();
        let mut out = Vec::new();
        for window in self.windows_of(app) {
            let values = match source.read_many(window, WINDOW_ATTRS, ctx) {
                Ok(values) => values,
                Err(ReplayFailure(-25202)) => continue,
                Err(f) => return Err(self.fail(pid, None, f)),
            };
            let mut fields = decode::decode_window(&values);
            if let Some(label) = source
                .reference(window, LINK_ATTR)
                .filter(|_| fields.wants_linked_label(&values))
                && let Ok(label_values) = source.read_many(label, LABEL_ATTRS, ctx)
            {
                fields.apply_linked_label(&label_values);
            }
            out.push(WindowInfo {
                node: id_of(window),
                title: fields.title,
                frame: fields.frame,
                focused: fields.focused,
                minimized: fields.minimized,
            });
        }
        Ok(out)
    }

    fn perform_action(&self, _: Pid, _: NodeId, action: &str, _: &mut CallCtx) -> AxResult {
        Err(self.cannot(&format!("perform `{action}`")))
    }

    fn set_value(&self, _: Pid, _: NodeId, _: &AxValue, _: &mut CallCtx) -> AxResult {
        Err(self.cannot("set values"))
    }

    fn focus(&self, _: Pid, _: NodeId, _: &mut CallCtx) -> AxResult {
        Err(self.cannot("move focus"))
    }

    /// A click is acting (the `act` capability, as every other write); the other gestures
    /// name their own capability.
    fn pointer(&self, _: Pid, act: &Pointer, _: &mut CallCtx) -> AxResult {
        match act.gesture {
            Gesture::Click { .. } => Err(self.cannot("click")),
            _ => Err(unsupported(self.name(), act.gesture.capability())),
        }
    }

    /// The deepest recorded element whose frame holds the point (what the app's own hit test
    /// would have answered, as far as frames tell).
    fn element_at(&self, pid: Pid, at: (f64, f64), ctx: &mut CallCtx) -> AxResult<Option<NodeId>> {
        let app = self.app(pid)?;
        ctx.trips(1);
        let source = self.source();
        let holds = |i: usize| {
            decode::frame(&source.value(i, "AXPosition"), &source.value(i, "AXSize"))
                .is_some_and(|f| at.0 >= f.x && at.1 >= f.y && at.0 < f.x + f.w && at.1 < f.y + f.h)
        };
        let mut found = None;
        let mut level = vec![app.root];
        while let Some(&hit) = level.iter().rev().find(|i| holds(**i)) {
            found = Some(hit);
            level = self.recording.nodes[hit].children.clone();
        }
        if found.is_none() {
            // The app element has no frame: look at its windows.
            level = self.recording.nodes[app.root].children.clone();
            while let Some(&hit) = level.iter().rev().find(|i| holds(**i)) {
                found = Some(hit);
                level = self.recording.nodes[hit].children.clone();
            }
        }
        Ok(found.map(id_of))
    }

    fn screenshot(&self, _: Pid, _: Option<Rect>, _: &mut CallCtx) -> AxResult<Capture> {
        Err(unsupported(self.name(), Capability::Screenshots))
    }
}

impl ReplayBackend {
    /// The OS the recording was made on (`macOS 15.5`), when it says.
    pub fn os(&self) -> Option<&str> {
        self.recording.os.as_deref()
    }
}
