//! Change events: one `AXObserver` per observed pid. The slow part, registering (creating
//! the observer and subscribing to 25+ notifications, each an IPC round trip to the app), runs
//! on a registrar thread of that app, never on the main run loop and never on the request
//! path: a call that touches a new app only queues the registration, so one slow or hung app
//! cannot stall event delivery, the clipboard or another app, and no snapshot waits for (or
//! is charged) its round trips. Once registered, the observer's run-loop source is added to
//! the main run loop (an observer whose source is on a loop that never runs silently drops
//! events), where callbacks run: each copies what it needs (pid, kind, the id already minted
//! for the element) and hands a [`ChangeEvent`] to the sink, which never blocks. A window
//! announced by a callback is subscribed to by the registrar, not on the main thread.
//! Registration that fails while an app is still launching is retried a bounded number of
//! times. Exits come from [`ExitWatcher`].
#![allow(unsafe_code)]
// Apple's constant names (kAX…) are matched as patterns.
#![allow(non_upper_case_globals)]

use std::collections::HashMap;
use std::ffi::c_void;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock, Weak};
use std::thread;
use std::time::{Duration, Instant};

use accessibility_sys::{
    AXError, AXObserverAddNotification, AXObserverCreateWithInfoCallback,
    AXObserverGetRunLoopSource, AXObserverRef, AXUIElementRef, kAXErrorAPIDisabled,
    kAXErrorCannotComplete, kAXErrorFailure, kAXErrorInvalidUIElement,
    kAXErrorNotificationAlreadyRegistered, kAXErrorSuccess,
};
use core_foundation::base::{CFRelease, CFRetain, CFTypeRef, TCFType};
use core_foundation::dictionary::CFDictionaryRef;
use core_foundation::runloop::{
    CFRunLoopAddSource, CFRunLoopGetMain, CFRunLoopRemoveSource, CFRunLoopSourceRef,
    kCFRunLoopDefaultMode,
};
use core_foundation::string::{CFString, CFStringRef};

use axgate_engine::{CallCtx, ChangeEvent, ChangeKind, EventSink, Pid};

use super::attrs;
use super::element::AxElement;
use super::exits::ExitWatcher;
use super::handles::Handles;
use super::runloop;
use crate::mac_logic::notifications::{self, APP_NOTIFICATIONS, WINDOW_DESTROYED};

/// Registration attempts per process before giving up on its events.
const MAX_ATTEMPTS: u32 = 5;
/// Pause before retrying a registration that failed (the app was probably still launching).
const RETRY_AFTER: Duration = Duration::from_secs(2);
/// The time one registration may take reading the app's windows.
const REGISTER_WAIT: Duration = Duration::from_secs(2);
/// Messaging timeout of each registration call: a slow app only delays its own registrar.
const SLICE: Duration = Duration::from_millis(250);
/// Jobs one app's registrar holds; past it, window subscriptions are dropped (events are
/// hints; the engine re-queries).
const REGISTRAR_QUEUE: usize = 64;

/// The observers of every app the backend has touched.
pub(super) struct Observers {
    shared: Arc<Shared>,
}

struct Shared {
    sink: RwLock<Option<EventSink>>,
    apps: Mutex<HashMap<Pid, App>>,
    handles: Arc<Handles>,
    exits: OnceLock<Option<ExitWatcher>>,
}

/// One observed app: its registration state and its registrar's queue.
struct App {
    state: State,
    registrar: SyncSender<Job>,
}

enum State {
    /// A registration is queued or running on the registrar.
    Registering,
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

/// What one app's registrar thread does.
enum Job {
    /// Register the observer (the attempts made so far); the sender goes into the
    /// callbacks' context, so the thread lives as long as the registration.
    Register {
        attempts: u32,
        registrar: SyncSender<Job>,
    },
    /// Subscribe to a new window's destruction.
    Window(AxElement),
}

/// What a callback needs, owned by its registration and freed on the main thread.
struct Context {
    pid: Pid,
    shared: Weak<Shared>,
    registrar: SyncSender<Job>,
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

impl Registered {
    /// Releases an observer whose source was never added to a run loop: no callback can run,
    /// so any thread may do it.
    fn release_unattached(self) {
        debug_assert!(self.source.is_null());
        // SAFETY: the observer is +1 and owned here; no run loop holds its source, so no
        // callback can see the context, which `register` boxed.
        unsafe {
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

    /// Makes sure `pid` is observed: queues its registration (or a due retry) on the app's
    /// registrar and returns at once. Best effort: events are hints, so failures are logged,
    /// never returned, and nothing is charged to the call.
    pub(super) fn ensure(&self, pid: Pid, _ctx: &mut CallCtx) {
        let shared = &self.shared;
        // Without a main loop nothing can be observed, and nothing is worth retrying.
        if !runloop::is_running()
            || shared
                .sink
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .is_none()
        {
            return;
        }
        let mut apps = shared.apps();
        let attempts = match apps.get(&pid).map(|app| &app.state) {
            None => 0,
            Some(State::Retry { attempts, after }) if Instant::now() >= *after => *attempts,
            Some(_) => return,
        };
        let registrar = match apps.get(&pid) {
            Some(app) => app.registrar.clone(),
            None => match Registrar::start(pid, Arc::downgrade(shared)) {
                Ok(sender) => sender,
                Err(e) => {
                    tracing::warn!(pid, "cannot start the observer registrar: {e}");
                    return;
                }
            },
        };
        let job = Job::Register {
            attempts,
            registrar: registrar.clone(),
        };
        if registrar.try_send(job).is_err() {
            return;
        }
        apps.insert(
            pid,
            App {
                state: State::Registering,
                registrar,
            },
        );
    }
}

/// One app's registrar thread: registers its observer and subscribes to new windows, so the
/// app's slowness costs only this thread. It ends when the app is forgotten (every sender
/// dropped).
struct Registrar {
    pid: Pid,
    shared: Weak<Shared>,
    /// The app's observer once registered, retained by this thread for window subscriptions.
    observer: Option<RetainedObserver>,
}

/// A +1 reference to an observer, released on drop (on any thread: CF retain/release are
/// thread-safe; the run-loop source stays the registration's).
struct RetainedObserver {
    observer: AXObserverRef,
    context: *mut c_void,
}

// SAFETY: a retained CF object, used only for AXObserverAddNotification (IPC, any thread);
// the context pointer is only handed back to the AX API, never dereferenced here.
unsafe impl Send for RetainedObserver {}

impl Drop for RetainedObserver {
    fn drop(&mut self) {
        // SAFETY: balances the CFRetain of `Registrar::run`.
        unsafe { CFRelease(self.observer as CFTypeRef) };
    }
}

impl Registrar {
    fn start(pid: Pid, shared: Weak<Shared>) -> std::io::Result<SyncSender<Job>> {
        let (sender, jobs) = mpsc::sync_channel(REGISTRAR_QUEUE);
        thread::Builder::new()
            .name(format!("axgate-observe-{pid}"))
            .spawn(move || {
                Registrar {
                    pid,
                    shared,
                    observer: None,
                }
                .run(jobs)
            })?;
        Ok(sender)
    }

    /// Serves jobs until every sender is gone: the app's entry (dropped when it exits) and
    /// the callbacks' context (dropped with the registration).
    fn run(mut self, jobs: Receiver<Job>) {
        while let Ok(job) = jobs.recv() {
            let Some(shared) = self.shared.upgrade() else {
                return;
            };
            match job {
                Job::Register {
                    attempts,
                    registrar,
                } => self.register(&shared, attempts, registrar),
                Job::Window(window) => {
                    if let Some(held) = &self.observer {
                        window.set_timeout(SLICE);
                        subscribe(held.observer, &window, WINDOW_DESTROYED, held.context);
                    }
                }
            }
        }
    }

    fn register(&mut self, shared: &Arc<Shared>, attempts: u32, sender: SyncSender<Job>) {
        let pid = self.pid;
        let failure = match register(pid, Arc::downgrade(shared), sender) {
            Ok(registration) => {
                if let Some(inner) = &registration.inner {
                    // SAFETY: a valid observer; balanced by RetainedObserver's drop.
                    unsafe { CFRetain(inner.observer as CFTypeRef) };
                    self.observer = Some(RetainedObserver {
                        observer: inner.observer,
                        context: inner.context.cast(),
                    });
                }
                {
                    let mut apps = shared.apps();
                    // Gone meanwhile (it exited): the registration is dropped and released.
                    let Some(app) = apps.get_mut(&pid) else {
                        return;
                    };
                    app.state = State::Active {
                        _registration: registration,
                    };
                }
                match shared.exits() {
                    Some(watcher) if !watcher.watch(pid) => shared.app_exited(pid),
                    Some(_) => {}
                    None => tracing::debug!(pid, "no exit notice for this app"),
                }
                return;
            }
            Err(code) => format!("AX error {code}"),
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
        if let Some(app) = shared.apps().get_mut(&pid) {
            app.state = state;
        }
    }
}

impl Shared {
    fn apps(&self) -> MutexGuard<'_, HashMap<Pid, App>> {
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

/// Creates the observer for `pid`, subscribes to the app's notifications and its windows'
/// destruction (on the registrar thread), then adds the observer's source to the main run
/// loop. Returns the registration, or the failing code.
fn register(
    pid: Pid,
    shared: Weak<Shared>,
    registrar: SyncSender<Job>,
) -> Result<Registration, AXError> {
    let Some(app) = AxElement::application(pid) else {
        return Err(kAXErrorInvalidUIElement);
    };
    let Some(raw_pid) = super::process::pid_t(pid) else {
        return Err(kAXErrorInvalidUIElement);
    };
    app.set_timeout(SLICE);
    let mut observer: AXObserverRef = ptr::null_mut();
    // SAFETY: a valid callback of the right signature and a valid out pointer; the observer
    // is +1 (Create rule) on success.
    let code = unsafe { AXObserverCreateWithInfoCallback(raw_pid, on_notification, &mut observer) };
    if code != kAXErrorSuccess || observer.is_null() {
        return Err(code);
    }
    let context = Box::into_raw(Box::new(Context {
        pid,
        shared,
        registrar,
    }));
    let mut registered = Registered {
        observer,
        source: ptr::null_mut(),
        context,
    };
    let mut subscribed = 0;
    for (name, _) in APP_NOTIFICATIONS {
        match subscribe(observer, &app, name, context.cast()) {
            kAXErrorSuccess | kAXErrorNotificationAlreadyRegistered => subscribed += 1,
            // The app is launching, gone or not answering, or we lack the grant: retry later.
            code @ (kAXErrorCannotComplete | kAXErrorInvalidUIElement | kAXErrorAPIDisabled) => {
                // No source was added and no callback can have run: release right here.
                registered.release_unattached();
                return Err(code);
            }
            _ => {}
        }
    }
    if subscribed == 0 {
        registered.release_unattached();
        return Err(kAXErrorFailure);
    }
    let mut local = CallCtx::new(Instant::now() + REGISTER_WAIT);
    if let Ok(windows) = attrs::read_elements(&app, "AXWindows", &mut local) {
        for window in &windows {
            window.set_timeout(SLICE);
            subscribe(observer, window, WINDOW_DESTROYED, context.cast());
        }
    }
    tracing::debug!(pid, round_trips = local.round_trips(), "observing the app");
    // SAFETY: a valid observer; its source is returned under the Get rule and owned by it.
    let source = unsafe { AXObserverGetRunLoopSource(observer) };
    registered.source = source;
    if !source.is_null() {
        let attach = SendSource(source);
        // Queued before the registration can be dropped (and its release queued), so the
        // source is added before it is ever removed.
        let posted = runloop::post(Box::new(move || {
            let attach = attach;
            // SAFETY: on the main thread; the source is owned by the observer, which the
            // registration keeps alive until its release, queued after this job.
            unsafe { CFRunLoopAddSource(CFRunLoopGetMain(), attach.0, kCFRunLoopDefaultMode) };
        }));
        if !posted {
            registered.source = ptr::null_mut();
            registered.release_unattached();
            return Err(kAXErrorFailure);
        }
    }
    Ok(Registration {
        inner: Some(registered),
    })
}

/// A run-loop source pointer on its way to the main thread.
struct SendSource(CFRunLoopSourceRef);

// SAFETY: only used on the main thread, by the job that carries it; the source is kept alive
// by its observer (see `register`).
unsafe impl Send for SendSource {}

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
    _observer: AXObserverRef,
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
            // Subscribed by the app's registrar: never an IPC round trip on the main thread.
            let _ = context.registrar.try_send(Job::Window(window.clone()));
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
