//! `get_tree`'s frontier cursor: where a walk that a page cut short continues (docs/TOOLS.md,
//! `get_tree`), as the opaque `next_cursor` text a client passes back unchanged, and the checks
//! that refuse it with other arguments than the walk it continues. `pages` makes and follows it.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::mcp::errors::ToolError;

/// One element of the chain from the walk's root to where a page ended.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct Level {
    /// The element's path (as results print it).
    pub(super) p: String,
    /// Its handle when the page was made (`None` for sessionless results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) h: Option<String>,
    /// The index of its next child to read.
    pub(super) n: usize,
    /// How many of its children before `n` have each role (by role name).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) r: BTreeMap<String, usize>,
}

/// Where a walk continues: what it was asked for, and the chain (root first).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct Frontier {
    /// Format version.
    pub(super) v: u8,
    /// The app's pid.
    pub(super) pid: u32,
    /// The walk's depth.
    pub(super) d: u32,
    pub(super) levels: Vec<Level>,
}

pub(super) const VERSION: u8 = 2;

impl Frontier {
    pub(super) fn encode(&self) -> String {
        let json = serde_json::to_vec(self).expect("a frontier serializes");
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
    }

    pub(super) fn decode(text: &str) -> Result<Frontier, ToolError> {
        let bad = || {
            ToolError::Usage(
                "invalid argument `cursor`: pass `next_cursor` from a previous get_tree \
                 unchanged, or leave cursor out to start from the beginning"
                    .into(),
            )
        };
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|_| bad())?;
        let frontier: Frontier = serde_json::from_slice(&bytes).map_err(|_| bad())?;
        if frontier.v != VERSION || frontier.levels.is_empty() {
            return Err(bad());
        }
        Ok(frontier)
    }

    /// The path of the walk's root.
    pub(super) fn root(&self) -> &str {
        &self.levels[0].p
    }

    pub(super) fn depth(&self) -> u32 {
        self.d
    }

    /// Refuses a cursor used with other arguments than the walk it continues.
    pub(super) fn check(
        &self,
        pid: u32,
        depth: Option<u32>,
        root: Option<&str>,
    ) -> Result<(), ToolError> {
        if pid != self.pid {
            return Err(ToolError::Usage(format!(
                "invalid argument `cursor`: it continues a walk of the app with pid {}, not \
                 this one; pass the same app, or leave cursor out",
                self.pid
            )));
        }
        if let Some(depth) = depth.filter(|&d| d != self.d) {
            return Err(ToolError::Usage(format!(
                "invalid argument `cursor`: it continues a walk of depth {}, not {depth}; \
                 pass depth {} (or leave depth out) with this cursor, or leave cursor out to \
                 start again",
                self.d, self.d
            )));
        }
        if let Some(root) = root.filter(|r| *r != self.root()) {
            return Err(ToolError::Usage(format!(
                "invalid argument `cursor`: it continues a walk from root {:?}, not {root:?}; \
                 leave root out with this cursor, or leave cursor out to start again",
                self.root()
            )));
        }
        Ok(())
    }
}
