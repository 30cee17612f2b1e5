//! Process facts from the kernel (libc), not from the app: whether a pid is alive, and its
//! start time, which tells a relaunched app from the one a handle was minted for.
#![allow(unsafe_code)]

use std::mem;

use objc2::rc::autoreleasepool;
use objc2_app_kit::NSRunningApplication;

use axgate_engine::Pid;

/// The kernel's pid type for a `Pid`, when it fits.
pub(super) fn pid_t(pid: Pid) -> Option<libc::pid_t> {
    libc::pid_t::try_from(pid).ok().filter(|p| *p > 0)
}

/// Start time of a process in seconds since the epoch; `None` when it does not exist (or is
/// not ours to inspect).
pub(super) fn start_time(pid: Pid) -> Option<u64> {
    let pid = pid_t(pid)?;
    // SAFETY: proc_bsdinfo is a plain C struct of integers and byte arrays; all-zero is valid.
    let mut info: libc::proc_bsdinfo = unsafe { mem::zeroed() };
    let size = mem::size_of::<libc::proc_bsdinfo>();
    let size_c = libc::c_int::try_from(size).ok()?;
    // SAFETY: `info` is a writable buffer of exactly `size` bytes for PROC_PIDTBSDINFO.
    let written = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            (&mut info as *mut libc::proc_bsdinfo).cast(),
            size_c,
        )
    };
    (written == size_c).then_some(info.pbi_start_tvsec)
}

/// Whether a process with this pid exists (including ones we may not signal).
pub(super) fn is_running(pid: Pid) -> bool {
    let Some(pid) = pid_t(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks for existence and permission; nothing is delivered.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// How errors name an app: `Name (pid N)`, or `pid N` when it is not a known app.
pub(super) fn label(pid: Pid) -> String {
    let name = pid_t(pid).and_then(|raw| {
        autoreleasepool(|_| {
            NSRunningApplication::runningApplicationWithProcessIdentifier(raw)
                .and_then(|app| app.localizedName())
                .map(|s| s.to_string())
        })
    });
    match name {
        Some(name) => format!("{name} (pid {pid})"),
        None => format!("pid {pid}"),
    }
}
