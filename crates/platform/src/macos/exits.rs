//! Process exit notices for observed apps: one kqueue with an `EVFILT_PROC`/`NOTE_EXIT`
//! registration per pid, and one thread that sleeps in `kevent` until a watched process exits.
//! The AX API has no reliable "app quit" notification; the kernel does.
#![allow(unsafe_code)]

use std::io;
use std::mem;
use std::ptr;
use std::thread;

use axgate_engine::Pid;

use super::process;

/// A kqueue watching processes for exit. The queue and its thread live as long as the process.
pub(super) struct ExitWatcher {
    kq: libc::c_int,
}

impl ExitWatcher {
    /// Starts the watcher thread; `on_exit` runs on that thread for each watched pid that exits.
    pub(super) fn start(on_exit: impl Fn(Pid) + Send + 'static) -> io::Result<ExitWatcher> {
        // SAFETY: kqueue has no preconditions; the descriptor is kept for the process lifetime.
        let kq = unsafe { libc::kqueue() };
        if kq < 0 {
            return Err(io::Error::last_os_error());
        }
        thread::Builder::new()
            .name("axgate-exits".to_owned())
            .spawn(move || {
                loop {
                    // SAFETY: `kevent` is a plain C struct; all-zero is a valid value.
                    let mut event: libc::kevent = unsafe { mem::zeroed() };
                    // SAFETY: a valid kqueue, no changes, room for one event, no timeout:
                    // the thread sleeps until a watched process exits.
                    let n = unsafe { libc::kevent(kq, ptr::null(), 0, &mut event, 1, ptr::null()) };
                    if n < 0 {
                        let err = io::Error::last_os_error();
                        if err.kind() == io::ErrorKind::Interrupted {
                            continue;
                        }
                        tracing::error!("the process exit watcher stopped: {err}");
                        return;
                    }
                    if n == 1
                        && event.filter == libc::EVFILT_PROC
                        && let Ok(pid) = Pid::try_from(event.ident)
                    {
                        on_exit(pid);
                    }
                }
            })?;
        Ok(ExitWatcher { kq })
    }

    /// Watches `pid`; false when it has already exited (the caller reports the exit itself).
    pub(super) fn watch(&self, pid: Pid) -> bool {
        let Some(raw) = process::pid_t(pid) else {
            return false;
        };
        // SAFETY: `kevent` is a plain C struct; all-zero is a valid value.
        let mut change: libc::kevent = unsafe { mem::zeroed() };
        change.ident = raw as libc::uintptr_t;
        change.filter = libc::EVFILT_PROC;
        change.flags = libc::EV_ADD | libc::EV_ONESHOT;
        change.fflags = libc::NOTE_EXIT;
        // SAFETY: a valid kqueue and one change record; no events are read here.
        let rc = unsafe { libc::kevent(self.kq, &change, 1, ptr::null_mut(), 0, ptr::null()) };
        rc >= 0
    }
}
