//! The macOS process model. AX observers and NSWorkspace only work when the process main
//! thread runs its CFRunLoop, so [`run_with_main_loop`] hands the program's real work to a new
//! thread and parks the main thread in `CFRunLoopRun()` until that work returns.
//!
//! Worker threads reach the main run loop through one version-0 `CFRunLoopSource`: a job is
//! pushed onto a queue, the source is signalled and the loop woken, and the loop drains the
//! queue on the main thread. Nothing here polls: the main thread sleeps in the run loop.
#![allow(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::c_void;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError, mpsc};
use std::thread;
use std::time::Duration;

use core_foundation::base::kCFAllocatorDefault;
use core_foundation::runloop::{
    CFRunLoopAddSource, CFRunLoopGetCurrent, CFRunLoopGetMain, CFRunLoopRun,
    CFRunLoopSourceContext, CFRunLoopSourceCreate, CFRunLoopSourceRef, CFRunLoopSourceSignal,
    CFRunLoopStop, CFRunLoopWakeUp, kCFRunLoopCommonModes,
};
use core_graphics::display::CGDisplay;

type Job = Box<dyn FnOnce() + Send>;

/// The exit code when the work panicked (the same as an uncaught Rust panic).
const EXIT_PANICKED: i32 = 101;

/// Jobs waiting for the main run loop.
static JOBS: Mutex<VecDeque<Job>> = Mutex::new(VecDeque::new());
/// The run-loop source that drains [`JOBS`], created once and kept for the process lifetime.
static SOURCE: OnceLock<Option<Source>> = OnceLock::new();
/// True while [`run_with_main_loop`] runs the main loop.
static RUNNING: AtomicBool = AtomicBool::new(false);
/// Set when the work has returned and the loop must stop.
static FINISHED: AtomicBool = AtomicBool::new(false);

struct Source(CFRunLoopSourceRef);

// SAFETY: the source is created once, never released, and only passed to
// CFRunLoopSourceSignal, which CF documents as callable from any thread.
unsafe impl Send for Source {}
// SAFETY: as above.
unsafe impl Sync for Source {}

/// Why a job could not run on the main run loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MainLoopError {
    /// The process did not start through [`run_with_main_loop`], or it is shutting down.
    NotRunning,
    /// The main run loop did not get to the job in time.
    TimedOut,
    /// The job panicked.
    Panicked,
}

impl fmt::Display for MainLoopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MainLoopError::NotRunning => {
                "the main run loop is not running (start axgate through \
                 platform::macos::run_with_main_loop)"
            }
            MainLoopError::TimedOut => "the main run loop did not answer in time",
            MainLoopError::Panicked => "a job on the main run loop panicked",
        })
    }
}

/// Runs `work` on a new thread while the calling thread, which must be the process main
/// thread, runs the main CFRunLoop; returns `work`'s exit code once it has returned and the
/// loop has stopped. Build the tokio runtime inside `work`.
///
/// Called off the main thread, it logs an error and runs `work` inline: the backend then
/// serves queries but delivers no change events.
pub fn run_with_main_loop(work: impl FnOnce() -> i32 + Send + 'static) -> i32 {
    if !is_main_thread() {
        tracing::error!(
            "run_with_main_loop was called off the main thread; running without a main run \
             loop, so no accessibility change events will be delivered"
        );
        return work();
    }
    // Connect to the window server on the main thread before any other thread touches
    // CoreGraphics or AppKit.
    let _ = CGDisplay::main();
    let source = source();
    FINISHED.store(false, Ordering::SeqCst);
    RUNNING.store(true, Ordering::SeqCst);
    let worker = thread::Builder::new()
        .name("axgate-main".to_owned())
        .spawn(move || {
            let code = panic::catch_unwind(AssertUnwindSafe(work)).unwrap_or(EXIT_PANICKED);
            finish();
            code
        });
    let worker = match worker {
        Ok(worker) => worker,
        Err(e) => {
            RUNNING.store(false, Ordering::SeqCst);
            tracing::error!("could not start the work thread: {e}");
            return 1;
        }
    };
    if source.is_none() {
        tracing::error!("could not create the main run-loop source; change events are off");
    }
    while !FINISHED.load(Ordering::SeqCst) {
        // SAFETY: called on the main thread. The loop sleeps until stopped by `finish`; the
        // installed source (common modes) keeps it from returning early for lack of sources,
        // and the FINISHED check re-enters it if anything else stops it.
        unsafe { CFRunLoopRun() };
    }
    RUNNING.store(false, Ordering::SeqCst);
    worker.join().unwrap_or(EXIT_PANICKED)
}

/// Runs `job` on the main run loop and returns its result, waiting at most `wait`. On the
/// main thread itself the job runs inline.
pub(super) fn run_on_main<R: Send + 'static>(
    wait: Duration,
    job: impl FnOnce() -> R + Send + 'static,
) -> Result<R, MainLoopError> {
    if is_main_thread() {
        return Ok(job());
    }
    let (tx, rx) = mpsc::sync_channel(1);
    if !post(Box::new(move || {
        // The caller may have stopped waiting; the result is then dropped here, on the
        // main thread.
        let _ = tx.send(job());
    })) {
        return Err(MainLoopError::NotRunning);
    }
    rx.recv_timeout(wait).map_err(|e| match e {
        mpsc::RecvTimeoutError::Timeout => MainLoopError::TimedOut,
        mpsc::RecvTimeoutError::Disconnected => MainLoopError::Panicked,
    })
}

/// Queues `job` for the main run loop without waiting; false when the loop is not running.
pub(super) fn post(job: Job) -> bool {
    let Some(Some(source)) = SOURCE.get() else {
        return false;
    };
    if !RUNNING.load(Ordering::SeqCst) {
        return false;
    }
    jobs().push_back(job);
    signal(source);
    true
}

/// Whether the main run loop is running (a readiness check).
pub(super) fn is_running() -> bool {
    RUNNING.load(Ordering::SeqCst)
}

/// Whether the caller is the process main thread.
pub(super) fn is_main_thread() -> bool {
    // SAFETY: pthread_main_np has no preconditions.
    unsafe { libc::pthread_main_np() != 0 }
}

fn jobs() -> MutexGuard<'static, VecDeque<Job>> {
    JOBS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The job source, created and added to the main run loop on first use.
fn source() -> Option<&'static Source> {
    SOURCE
        .get_or_init(|| {
            let mut context = CFRunLoopSourceContext {
                version: 0,
                info: ptr::null_mut(),
                retain: None,
                release: None,
                copyDescription: None,
                equal: None,
                hash: None,
                schedule: None,
                cancel: None,
                perform: perform_jobs,
            };
            // SAFETY: `context` is valid for the call (CF copies it). The +1 source is kept
            // for the process lifetime and never released.
            let raw = unsafe { CFRunLoopSourceCreate(kCFAllocatorDefault, 0, &mut context) };
            if raw.is_null() {
                return None;
            }
            // SAFETY: a valid source added to the main loop in the common modes (which
            // include the default mode CFRunLoopRun uses); CF allows this from any thread.
            unsafe { CFRunLoopAddSource(CFRunLoopGetMain(), raw, kCFRunLoopCommonModes) };
            Some(Source(raw))
        })
        .as_ref()
}

fn signal(source: &Source) {
    // SAFETY: a valid source; signalling and waking the main loop are thread-safe.
    unsafe {
        CFRunLoopSourceSignal(source.0);
        CFRunLoopWakeUp(CFRunLoopGetMain());
    }
}

/// Stops the main loop once the work has returned. The stop is also queued as a job, so it
/// lands even if the loop had not started running when the work finished.
fn finish() {
    FINISHED.store(true, Ordering::SeqCst);
    jobs().push_back(Box::new(|| {
        // SAFETY: runs on the main thread, whose run loop is the current one.
        unsafe { CFRunLoopStop(CFRunLoopGetCurrent()) };
    }));
    if let Some(Some(source)) = SOURCE.get() {
        signal(source);
    }
    // SAFETY: stopping and waking the main loop are thread-safe.
    unsafe {
        CFRunLoopStop(CFRunLoopGetMain());
        CFRunLoopWakeUp(CFRunLoopGetMain());
    }
}

/// The source's perform callback, on the main thread: drains the job queue.
extern "C" fn perform_jobs(_info: *const c_void) {
    loop {
        let Some(job) = jobs().pop_front() else {
            break;
        };
        if panic::catch_unwind(AssertUnwindSafe(job)).is_err() {
            tracing::error!("a job on the main run loop panicked");
        }
    }
}
