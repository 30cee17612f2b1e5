//! The engine's and the backends' settings, as the `[backend]` section of the server's
//! configuration gives them: which backend serves, and how calls to it are timed and bounded.
//! The server's `config` parses into these types; the engine and the platforms read them and
//! know nothing of the configuration file.

use std::time::Duration;

/// Which backend serves (`backend.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    #[default]
    Auto,
    Demo,
    Atspi,
    Macos,
    /// A recorded macOS tree (`backend.recording`), served read-only on any OS.
    Replay,
}

impl BackendChoice {
    pub fn parse(text: &str) -> Option<BackendChoice> {
        match text {
            "auto" => Some(BackendChoice::Auto),
            "demo" => Some(BackendChoice::Demo),
            "atspi" => Some(BackendChoice::Atspi),
            "macos" => Some(BackendChoice::Macos),
            "replay" => Some(BackendChoice::Replay),
            _ => None,
        }
    }
}

/// The `[backend]` section.
#[derive(Clone, Debug, PartialEq)]
pub struct BackendConfig {
    pub choice: BackendChoice,
    pub call_timeout: Duration,
    pub unresponsive_after: u32,
    pub probe_interval: Duration,
    /// Calls one app's worker holds, running and waiting (back-pressure).
    pub max_queued_calls: usize,
    pub handle_cap: usize,
    /// The least time one accessibility call is given before it counts as a timeout, unless
    /// the call's deadline is closer (macOS; each call may otherwise take a share of what is
    /// left of its deadline).
    pub min_call_slice: Duration,
    /// macOS: bundle ids that also get `AXEnhancedUserInterface` (Chrome).
    pub enhanced_ui_apps: Vec<String>,
    /// The `axgate-recording/1` file the replay backend serves (`backend.recording`).
    pub recording: Option<std::path::PathBuf>,
}
