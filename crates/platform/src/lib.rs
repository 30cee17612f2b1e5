//! Platform backends behind the one [`axgate_engine::Backend`] trait, the one function that
//! picks a backend, and the process-model hook that macOS needs (the main thread runs the
//! CFRunLoop). `cfg(target_os)` appears only here and inside the platform folders.

use std::sync::Arc;

use axgate_engine::Backend;
use axgate_engine::settings::{BackendChoice, BackendConfig};

#[cfg(target_os = "linux")]
pub mod atspi;
pub mod demo;
pub(crate) mod mac_logic;
#[cfg(target_os = "macos")]
pub mod macos;
pub mod replay;

/// Creates the backend `config.choice` names. `auto` is macos on macOS; on Linux atspi when
/// an accessibility bus is reachable (`org.a11y.Bus` has an owner), else demo; otherwise
/// demo.
pub fn select(config: &BackendConfig) -> Result<Selected, String> {
    let configured = |backend: Arc<dyn Backend>| Selected {
        reason: format!("backend.kind = {}", backend.name()),
        backend,
    };
    match config.choice {
        BackendChoice::Demo => Ok(configured(Arc::new(demo::DemoBackend::new()))),
        BackendChoice::Auto => Ok(auto(config)),
        BackendChoice::Macos => macos_backend(config).map(configured),
        BackendChoice::Atspi => atspi_backend().map(configured),
        BackendChoice::Replay => replay_backend(config),
    }
}

/// The replay backend over `backend.recording`.
fn replay_backend(config: &BackendConfig) -> Result<Selected, String> {
    let Some(file) = &config.recording else {
        return Err(
            "backend.kind = replay needs a recording: give --recording FILE (or backend.recording)"
                .into(),
        );
    };
    let backend = replay::ReplayBackend::open(file)?;
    let reason = format!(
        "backend.kind = replay of {} (recorded on {})",
        file.display(),
        backend.os().unwrap_or("an unrecorded macOS version")
    );
    Ok(Selected {
        backend: Arc::new(backend),
        reason,
    })
}

/// The backend `select` chose, and why, in words for `/readyz`, `axgate check` and the log.
pub struct Selected {
    pub backend: Arc<dyn Backend>,
    pub reason: String,
}

/// `auto` settling for the demo apps: said loudly, since a client then drives no real app.
#[cfg_attr(target_os = "macos", allow(dead_code))]
fn demo_fallback(why: &str) -> Selected {
    let reason = format!(
        "backend.kind = auto found {why}, so it serves the demo apps, not this machine's; \
         set backend.kind to the platform's backend to make that an error instead"
    );
    tracing::warn!(%reason, "no desktop backend: serving the demo apps");
    Selected {
        backend: Arc::new(demo::DemoBackend::new()),
        reason,
    }
}

#[cfg(target_os = "linux")]
fn atspi_backend() -> Result<Arc<dyn Backend>, String> {
    Ok(Arc::new(atspi::AtspiBackend::new()?))
}

#[cfg(not(target_os = "linux"))]
fn atspi_backend() -> Result<Arc<dyn Backend>, String> {
    Err("the atspi backend runs only on Linux; use --backend demo or auto".into())
}

#[cfg(target_os = "macos")]
fn auto(config: &BackendConfig) -> Selected {
    Selected {
        backend: Arc::new(mac(config)),
        reason: "backend.kind = auto on macOS".into(),
    }
}

#[cfg(target_os = "linux")]
fn auto(_config: &BackendConfig) -> Selected {
    if !atspi::bus_available() {
        return demo_fallback("no AT-SPI accessibility bus on the session bus");
    }
    match atspi::AtspiBackend::new() {
        Ok(backend) => Selected {
            backend: Arc::new(backend),
            reason: "backend.kind = auto found the AT-SPI accessibility bus".into(),
        },
        Err(error) => demo_fallback(&format!("an AT-SPI bus it cannot use ({error})")),
    }
}

#[cfg(not(any(target_os = "macos", target_os = "linux")))]
fn auto(_config: &BackendConfig) -> Selected {
    demo_fallback("no accessibility backend for this operating system")
}

#[cfg(target_os = "macos")]
fn macos_backend(config: &BackendConfig) -> Result<Arc<dyn Backend>, String> {
    Ok(Arc::new(mac(config)))
}

/// The macOS backend with the configured call timing and Chrome opt-ins.
#[cfg(target_os = "macos")]
fn mac(config: &BackendConfig) -> macos::MacBackend {
    macos::MacBackend::with_options(
        mac_logic::budget::Slicing {
            floor: config.min_call_slice,
        },
        config.enhanced_ui_apps.clone(),
    )
}

#[cfg(not(target_os = "macos"))]
fn macos_backend(_config: &BackendConfig) -> Result<Arc<dyn Backend>, String> {
    Err("the macos backend runs only on macOS; use --backend demo or auto".into())
}

/// `axgate record`: the recording of the running app named by `app` (name, bundle id or pid),
/// at most `max_nodes` elements within `time`, as the file's text, with a summary of what it
/// holds.
#[cfg(target_os = "macos")]
pub fn record_app(
    app: &str,
    max_nodes: usize,
    time: std::time::Duration,
) -> Result<(String, replay::writer::Summary), String> {
    let (json, summary) = macos::record::record(app, max_nodes, time)?;
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    Ok((text + "\n", summary))
}

#[cfg(not(target_os = "macos"))]
pub fn record_app(
    _app: &str,
    _max_nodes: usize,
    _time: std::time::Duration,
) -> Result<(String, replay::writer::Summary), String> {
    Err("axgate record reads a live app through the macOS accessibility API, so it runs only \
         on macOS; replay its recordings anywhere with `axgate serve --backend replay --recording FILE`"
        .into())
}

/// Runs `work` (which builds the tokio runtime and serves) in the process model the
/// platform needs, and returns its exit code. On macOS the calling main thread runs the
/// CFRunLoop while `work` runs on another thread; elsewhere `work` runs right here.
#[cfg(target_os = "macos")]
pub fn run_main(work: impl FnOnce() -> i32 + Send + 'static) -> i32 {
    macos::run_with_main_loop(work)
}

#[cfg(not(target_os = "macos"))]
pub fn run_main(work: impl FnOnce() -> i32 + Send + 'static) -> i32 {
    work()
}
