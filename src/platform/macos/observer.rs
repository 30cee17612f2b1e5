//! Change events: one `AXObserver` per observed pid, created on the main run loop (an
//! observer whose source is on a loop that never runs silently drops events). The callback
//! runs on the main thread, copies what it needs (pid, kind, the id already minted for the
//! element) and hands a [`ChangeEvent`] to the sink, which never blocks. Apps are observed
//! from the first backend call that touches them; registration that fails while an app is
//! still launching is retried a bounded number of times. Exits come from [`ExitWatcher`].
#![allow(unsafe_code)]
// Apple's constant names (kAX…) are matched as patterns.
#![allow(non_upper_case_globals)]

use std::collections::HashMap;
use std::ffi::c_void;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock, Weak};
use std::time::{Duration, Instant};

use accessibility_sys::{
    AXError, AXObserverAddNotification, AXObserverCreateWithInfoCallback,
    AXObserverGetRunLoopSource, AXObserverRef, AXUIElementRef, kAXErrorAPIDisabled,
    kAXErrorCannotComplete, kAXErrorFailure, kAXErrorInvalidUIElement,
    kAXErrorNotificationAlreadyRegistered, kAXErrorSuccess,
};
use core_foundation::base::{CFRelease, CFTypeRef, TCFType};
use core_foundation::dictionary::CFDictionaryRef;
use core_foundation::runloop::{
    CFRunLoopAddSource, CFRunLoopGetMain, CFRunLoopRemoveSource, CFRunLoopSourceRef,
    kCFRunLoopDefaultMode,
};
use core_foundation::string::{CFString, CFStringRef};

use crate::ax::{CallCtx, ChangeEvent, ChangeKind, EventSink, Pid};

use super::attrs;
use super::element::AxElement;
use super::exits::ExitWatcher;
use super::handles::Handles;
use super::runloop::{self, MainLoopError};
use crate::platform::mac_logic::notifications::{self, APP_NOTIFICATIONS, WINDOW_DESTROYED};

/// Registration attempts per process before giving up on its events.
const MAX_ATTEMPTS: u32 = 5;
/// Pause before retrying a registration that failed (the app was probably still launching).
const RETRY_AFTER: Duration = Duration::from_secs(2);
/// The longest a worker waits for the main loop to register an observer.
const REGISTER_WAIT: Duration = Duration::from_secs(2);
/// Messaging timeout for the calls made on the main thread, which must never block for long.
const MAIN_SLICE: Duration = Duration::from_millis(250);

/// The observers of every app the backend has touched.
pub(super) struct Observers {
    shared: Arc<Shared>,
}

struct Shared {
    sink: RwLock<Option<EventSink>>,
    apps: Mutex<HashMap<Pid, State>>,
    handles: Arc<Handles>,
    exits: OnceLock<Option<ExitWatcher>>,
}

enum State {
    /// Observed; the registration is held for its `Drop`, which releases the observer.
    Active {
        _registration: Registration,
    },
    Retry {
        attempts: u32,
        after: Instant,
    },
    GaveUp,
}

/// What a callback needs, owned by its registration and freed on the main thread.
struct Context {
    pid: Pid,
    shared: Weak<Shared>,
}

/// A live observer. Dropping it releases the observer on the main thread.
struct Registration {
    inner: Option<Registered>,
}

struct Registered {
    observer: AXObserverRef,
    /// The observer's run-loop source once added to the main loop (owned by the observer).
    source: CFRunLoopSourceRef,
    context: *mut Context,
}

// SAFETY: the raw pointers are only dereferenced or released on the main thread: callbacks
// run there, and `Registration::drop` forwards the release there.
unsafe impl Send for Registered {}

impl Registered {
    /// Removes the source, releases the observer and frees the callback context.
    /// Main thread only: no callback can be running concurrently.
    fn release(self) {
        // SAFETY: called on the main thread (see `Registration::drop`); the source belongs to
        // this observer and the context was boxed by `register`. After the source is removed
        // and the observer released, no callback can see the context again.
        unsafe {
            if !self.source.is_null() {
                CFRunLoopRemoveSource(CFRunLoopGetMain(), self.source, kCFRunLoopDefaultMode);
            }
            CFRelease(self.observer as CFTypeRef);
            drop(Box::from_raw(self.context));
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else {
            return;
        };
        if runloop::is_main_thread() {
            inner.release();
        } else {
            // If the loop is gone the process is exiting; the observer is then leaked.
            let _ = runloop::post(Box::new(move || inner.release()));
        }
    }
}

impl Observers {
    pub(super) fn new(handles: Arc<Handles>) -> Self {
        Observers {
            shared: Arc::new(Shared {
                sink: RwLock::new(None),
                apps: Mutex::new(HashMap::new()),
                handles,
                exits: OnceLock::new(),
            }),
        }
    }

    pub(super) fn set_sink(&self, sink: EventSink) {
        *self
            .shared
            .sink
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(sink);
    }

    /// Makes sure `pid` is observed, registering (or retrying) when due. Best effort: events
    /// are hints, so failures are logged, never returned.
    pub(super) fn ensure(&self, pid: Pid, ctx: &mut CallCtx) {
        let shared = &self.shared;
        if shared
            .sink
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
        {
            return;
        }
        let attempts = match shared.apps().get(&pid) {
            None => 0,
            Some(State::Retry { attempts, after }) if Instant::now() >= *after => *attempts,
            Some(_) => return,
        };
        let weak = Arc::downgrade(shared);
        let wait = ctx.remaining().min(REGISTER_WAIT);
        let outcome = runloop::run_on_main(wait, move || register(pid, weak));
        let failure = match outcome {
            Ok(Ok((registration, trips))) => {
                ctx.trips(trips);
                shared.apps().insert(
                    pid,
                    State::Active {
                        _registration: registration,
                    },
                );
                match shared.exits() {
                    Some(watcher) if !watcher.watch(pid) => shared.app_exited(pid),
                    Some(_) => {}
                    None => tracing::debug!(pid, "no exit notice for this app"),
                }
                return;
            }
            // Without a main loop nothing can be observed; nothing to retry either.
            Err(MainLoopError::NotRunning) => return,
            Ok(Err((code, trips))) => {
                ctx.trips(trips);
                format!("AX error {code}")
            }
            Err(e) => e.to_string(),
        };
        let attempts = attempts + 1;
        let state = if attempts >= MAX_ATTEMPTS {
            tracing::warn!(pid, %failure, "giving up observing this app; no change events");
            State::GaveUp
        } else {
            tracing::debug!(pid, %failure, attempts, "observer registration failed; will retry");
            State::Retry {
                attempts,
                after: Instant::now() + RETRY_AFTER,
            }
        };
        shared.apps().insert(pid, state);
    }
}

impl Shared {
    fn apps(&self) -> MutexGuard<'_, HashMap<Pid, State>> {
        self.apps.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn emit(&self, event: ChangeEvent) {
        let sink = self
            .sink
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(sink) = sink {
            sink(event);
        }
    }

    /// The exit watcher, started on first use.
    fn exits(self: &Arc<Self>) -> Option<&ExitWatcher> {
        let weak = Arc::downgrade(self);
        self.exits
            .get_or_init(move || {
                let started = ExitWatcher::start(move |pid| {
                    if let Some(shared) = weak.upgrade() {
                        shared.app_exited(pid);
                    }
                });
                started
                    .map_err(|e| tracing::error!("cannot watch for app exits: {e}"))
                    .ok()
            })
            .as_ref()
    }

    /// Forgets an exited app and reports it.
    fn app_exited(&self, pid: Pid) {
        let removed = self.apps().remove(&pid);
        drop(removed);
        self.handles.forget(pid);
        self.emit(ChangeEvent {
            pid,
            node: None,
            kind: ChangeKind::AppExited,
        });
    }
}

/// Creates the observer for `pid` and subscribes to the app's notifications. Main thread.
/// Returns the registration and the round trips it took, or the failing code.
fn register(pid: Pid, shared: Weak<Shared>) -> Result<(Registration, u64), (AXError, u64)> {
    let Some(app) = AxElement::application(pid) else {
        return Err((kAXErrorInvalidUIElement, 0));
    };
    let Some(raw_pid) = super::process::pid_t(pid) else {
        return Err((kAXErrorInvalidUIElement, 0));
    };
    app.set_timeout(MAIN_SLICE);
    let mut observer: AXObserverRef = ptr::null_mut();
    // SAFETY: a valid callback of the right signature and a valid out pointer; the observer
    // is +1 (Create rule) on success.
    let code = unsafe { AXObserverCreateWithInfoCallback(raw_pid, on_notification, &mut observer) };
    if code != kAXErrorSuccess || observer.is_null() {
        return Err((code, 0));
    }
    let context = Box::into_raw(Box::new(Context { pid, shared }));
    let mut registered = Registered {
        observer,
        source: ptr::null_mut(),
        context,
    };
    let mut trips = 0;
    let mut subscribed = 0;
    for (name, _) in APP_NOTIFICATIONS {
        trips += 1;
        match subscribe(observer, &app, name, context.cast()) {
            kAXErrorSuccess | kAXErrorNotificationAlreadyRegistered => subscribed += 1,
            // The app is launching, gone or not answering, or we lack the grant: retry later.
            code @ (kAXErrorCannotComplete | kAXErrorInvalidUIElement | kAXErrorAPIDisabled) => {
                registered.release();
                return Err((code, trips));
            }
            _ => {}
        }
    }
    if subscribed == 0 {
        registered.release();
        return Err((kAXErrorFailure, trips));
    }
    let mut local = CallCtx::new(Instant::now() + REGISTER_WAIT);
    if let Ok(windows) = attrs::read_elements(&app, "AXWindows", &mut local) {
        for window in &windows {
            trips += 1;
            window.set_timeout(MAIN_SLICE);
            subscribe(observer, window, WINDOW_DESTROYED, context.cast());
        }
    }
    trips += local.round_trips();
    // SAFETY: a valid observer; its source is returned under the Get rule and owned by it.
    let source = unsafe { AXObserverGetRunLoopSource(observer) };
    if !source.is_null() {
        // SAFETY: on the main thread, adding the observer's source to the main loop.
        unsafe { CFRunLoopAddSource(CFRunLoopGetMain(), source, kCFRunLoopDefaultMode) };
        registered.source = source;
    }
    Ok((
        Registration {
            inner: Some(registered),
        },
        trips,
    ))
}

/// Subscribes the observer to one notification of one element; returns the AX code.
fn subscribe(
    observer: AXObserverRef,
    element: &AxElement,
    notification: &str,
    refcon: *mut c_void,
) -> AXError {
    let name = CFString::new(notification);
    // SAFETY: a valid observer, element and name; `refcon` is the registration's context,
    // which outlives the subscription (both end when the observer is released).
    unsafe {
        AXObserverAddNotification(
            observer,
            element.as_ptr(),
            name.as_concrete_TypeRef(),
            refcon,
        )
    }
}

/// The observer callback, on the main thread. Copies what it needs and forwards an event.
unsafe extern "C" fn on_notification(
    observer: AXObserverRef,
    element: AXUIElementRef,
    notification: CFStringRef,
    _info: CFDictionaryRef,
    refcon: *mut c_void,
) {
    let forward = || {
        if refcon.is_null() || notification.is_null() {
            return;
        }
        // SAFETY: `refcon` is the Context of this observer's registration, freed only on
        // this thread after the observer is released, so it is alive during the callback.
        let context = unsafe { &*(refcon as *const Context) };
        // SAFETY: a valid CFString for the duration of the callback (Get rule).
        let name = unsafe { CFString::wrap_under_get_rule(notification) }.to_string();
        let Some(kind) = notifications::change_kind(&name) else {
            return;
        };
        let Some(shared) = context.shared.upgrade() else {
            return;
        };
        // SAFETY: `element` is null or a valid element for the callback's duration.
        let element = unsafe { AxElement::from_get(element as CFTypeRef) };
        if notifications::announces_window(&name)
            && let Some(window) = &element
        {
            window.set_timeout(MAIN_SLICE);
            subscribe(observer, window, WINDOW_DESTROYED, refcon);
        }
        let node = element
            .as_ref()
            .and_then(|e| shared.handles.lookup(context.pid, e));
        shared.emit(ChangeEvent {
            pid: context.pid,
            node,
            kind,
        });
    };
    // Unwinding out of an extern "C" callback would abort the process.
    if panic::catch_unwind(AssertUnwindSafe(forward)).is_err() {
        tracing::error!("the accessibility observer callback panicked");
    }
}
