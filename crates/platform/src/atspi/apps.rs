//! App discovery: the registry's children are the running accessible apps. Each new app's
//! name, pid (from the bus daemon) and toolkit are read once and kept by bus name, so a hung
//! app never slows a listing down after its first sighting; apps that vanish are forgotten.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use atspi::zbus::zvariant::OwnedObjectPath;
use futures::future::join_all;

use axgate_engine::{AppInfo, AxError, CallCtx, Pid};

use super::dbus::{ACCESSIBLE, Calls, REGISTRY, ROOT_PATH};
use super::ids::ObjRef;

/// How long a first sighting may take per app before the app is left out of this listing.
const FIRST_LOOK: Duration = Duration::from_millis(800);

/// One accessible app.
#[derive(Clone, Debug)]
pub(super) struct AppEntry {
    pub(super) pid: Pid,
    pub(super) bus: String,
    pub(super) name: String,
    /// The app's toolkit is GTK (its action lists are known by role).
    pub(super) gtk: bool,
    pub(super) started_at: u64,
}

impl AppEntry {
    pub(super) fn root(&self) -> ObjRef {
        ObjRef::new(&self.bus, ROOT_PATH)
    }

    pub(super) fn info(&self, frontmost: Pid) -> AppInfo {
        AppInfo {
            pid: self.pid,
            name: self.name.clone(),
            bundle_id: None,
            started_at: self.started_at,
            frontmost: self.pid == frontmost,
        }
    }
}

/// The apps seen so far, by bus name.
#[derive(Default)]
pub(super) struct Apps {
    known: Mutex<HashMap<String, AppEntry>>,
    frontmost: AtomicU32,
}

impl Apps {
    /// Reads the registry's children and returns the running apps. Returns the bus names that
    /// disappeared since the last listing too.
    pub(super) async fn refresh(
        &self,
        calls: &Calls<'_>,
    ) -> Result<(Vec<AppEntry>, Vec<String>), AxError> {
        let children: Vec<(String, OwnedObjectPath)> = calls
            .call(&(REGISTRY, ROOT_PATH), ACCESSIBLE, "GetChildren", &())
            .await
            .map_err(|f| {
                AxError::Backend(format!(
                    "the AT-SPI registry did not list the apps ({}); is at-spi2-registryd running?",
                    f.0
                ))
            })?;
        let known = self
            .known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let new: Vec<&String> = children
            .iter()
            .map(|(bus, _)| bus)
            .filter(|bus| !known.contains_key(*bus) && bus.starts_with(':'))
            .collect();
        let looks = join_all(new.iter().map(|bus| async move {
            tokio::time::timeout(FIRST_LOOK, first_look(calls, bus))
                .await
                .ok()
                .flatten()
        }))
        .await;
        let mut map = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        for entry in looks.into_iter().flatten() {
            map.insert(entry.bus.clone(), entry);
        }
        let live: Vec<&str> = children.iter().map(|(b, _)| b.as_str()).collect();
        let gone: Vec<String> = map
            .keys()
            .filter(|b| !live.contains(&b.as_str()))
            .cloned()
            .collect();
        for bus in &gone {
            map.remove(bus);
        }
        let mut apps: Vec<AppEntry> = children
            .iter()
            .filter_map(|(bus, _)| map.get(bus).cloned())
            .collect();
        apps.sort_by_key(|a| a.pid);
        Ok((apps, gone))
    }

    /// The app with this pid among those seen so far.
    pub(super) fn by_pid(&self, pid: Pid) -> Option<AppEntry> {
        let map = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        map.values().find(|a| a.pid == pid).cloned()
    }

    /// The pid behind a bus name, if seen.
    pub(super) fn pid_of_bus(&self, bus: &str) -> Option<Pid> {
        let map = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(bus).map(|a| a.pid)
    }

    /// Forgets an app (it exited).
    pub(super) fn forget_bus(&self, bus: &str) {
        let mut map = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        map.remove(bus);
    }

    pub(super) fn set_frontmost(&self, pid: Pid) {
        self.frontmost.store(pid, Ordering::Relaxed);
    }

    pub(super) fn frontmost(&self) -> Pid {
        self.frontmost.load(Ordering::Relaxed)
    }
}

/// Name, pid and toolkit of an app seen for the first time.
async fn first_look(calls: &Calls<'_>, bus: &str) -> Option<AppEntry> {
    let root = ObjRef::new(bus, ROOT_PATH);
    let arg = (bus,);
    let pid = calls.call::<_, u32>(
        &("org.freedesktop.DBus", "/org/freedesktop/DBus"),
        "org.freedesktop.DBus",
        "GetConnectionUnixProcessID",
        &arg,
    );
    let name = calls.prop::<String>(&root, ACCESSIBLE, "Name");
    let toolkit = calls.prop::<String>(&root, "org.a11y.atspi.Application", "ToolkitName");
    let (pid, name, toolkit) = futures::join!(pid, name, toolkit);
    let pid = pid.ok()?;
    Some(AppEntry {
        pid,
        bus: bus.to_owned(),
        name: name
            .ok()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("pid {pid}")),
        gtk: toolkit.is_ok_and(|t| t.eq_ignore_ascii_case("gtk")),
        started_at: started_at(pid).unwrap_or(0),
    })
}

/// A process's start time in seconds since the epoch, from `/proc`.
pub(super) fn started_at(pid: Pid) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let boot = std::fs::read_to_string("/proc/stat").ok()?;
    Some(boot_time(&boot)? + start_ticks(&stat)? / CLOCK_TICKS)
}

/// `sysconf(_SC_CLK_TCK)` on every Linux architecture axgate targets.
const CLOCK_TICKS: u64 = 100;

/// Field 22 (start time in clock ticks after boot) of `/proc/<pid>/stat`; the command name
/// in field 2 may contain spaces and parentheses, so fields are counted after the last `)`.
pub(super) fn start_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// The `btime` line of `/proc/stat`.
pub(super) fn boot_time(proc_stat: &str) -> Option<u64> {
    proc_stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

/// Whether a process is gone: no `/proc` entry, or a zombie.
/// How long an app that left the bus is given to finish exiting: its bus connection closes
/// while the process is still tearing down, a moment before it is gone from `/proc` or a
/// zombie, so a call in that moment would call a dying app "not accessible".
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// Whether `pid`, no longer on the bus, is gone or goes within [`EXIT_GRACE`] (and the
/// call's deadline).
pub(super) fn exits_soon(pid: Pid, ctx: &CallCtx) -> bool {
    let until = Instant::now() + EXIT_GRACE.min(ctx.remaining());
    loop {
        if process_gone(pid) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(super) fn process_gone(pid: Pid) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => process_state(&stat).is_none_or(|s| s == 'Z' || s == 'X'),
    }
}

/// The state letter (field 3) of `/proc/<pid>/stat`.
pub(super) fn process_state(stat: &str) -> Option<char> {
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "4242 (python3 (my app)) S 1 4242 4242 0 -1 4194560 1234 0 0 0 \
                        10 5 0 0 20 0 3 0 987654 123456789 2000 18446744073709551615";

    #[test]
    fn proc_stat_fields() {
        assert_eq!(start_ticks(STAT), Some(987654));
        assert_eq!(process_state(STAT), Some('S'));
        assert_eq!(process_state("1 (x) Z 0"), Some('Z'));
        assert_eq!(start_ticks("garbage"), None);
        assert_eq!(
            boot_time("cpu 1 2 3\nbtime 1700000000\nprocesses 5\n"),
            Some(1700000000)
        );
    }

    #[test]
    fn our_own_process_has_a_start_time() {
        let me = std::process::id();
        assert!(started_at(me).is_some_and(|t| t > 1_500_000_000));
        assert!(!process_gone(me));
        assert!(process_gone(u32::MAX - 1));
    }
}
