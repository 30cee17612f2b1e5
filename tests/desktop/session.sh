#!/usr/bin/env bash
# Runs a command inside a private headless Linux desktop with a working AT-SPI stack:
#   Xvfb on a free display → a private session bus → the accessibility bus launcher (waited
#   for until org.a11y.Bus has an owner, before anything asks for its address) → registryd.
# The command gets DISPLAY, DBUS_SESSION_BUS_ADDRESS and DESKTOP_AXGATE=1 (not AXGATE_*: axgate
# reads every AXGATE_* variable as configuration and refuses unknown ones), with NO_AT_BRIDGE
# unset (it silently hides GTK3 apps). Everything is torn down by pid in reverse order on exit;
# zombies count as gone (pid 1 may not reap them here).
#
#   tests/desktop/session.sh -- cargo test --release --test atspi
#
# Installs the Debian packages it needs when they are missing (it runs as root in CI).
set -euo pipefail

if [ "${1:-}" = "--" ]; then shift; fi
if [ "$#" -eq 0 ]; then
    echo "usage: $0 -- COMMAND [ARGS...]" >&2
    exit 2
fi

PACKAGES=(xvfb xauth x11-utils dbus dbus-x11 at-spi2-core libatk-adaptor gtk-3-examples
    python3-gi gir1.2-gtk-3.0 python3-pyatspi)
LAUNCHER=/usr/libexec/at-spi-bus-launcher
REGISTRYD=/usr/libexec/at-spi2-registryd

log() { printf 'session.sh: %s\n' "$*" >&2; }

missing() {
    command -v Xvfb >/dev/null || return 0
    command -v xdpyinfo >/dev/null || return 0
    command -v dbus-daemon >/dev/null || return 0
    command -v dbus-send >/dev/null || return 0
    command -v gtk3-widget-factory >/dev/null || return 0
    [ -x "$LAUNCHER" ] && [ -x "$REGISTRYD" ] || return 0
    dpkg -s libatk-adaptor >/dev/null 2>&1 || return 0
    /usr/bin/python3 -c 'import gi, pyatspi; gi.require_version("Gtk", "3.0")' 2>/dev/null || return 0
    return 1
}

if missing; then
    log "installing ${PACKAGES[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y --no-install-recommends "${PACKAGES[@]}" >/tmp/axgate-desktop-apt.log 2>&1; then
        apt-get update >>/tmp/axgate-desktop-apt.log 2>&1
        apt-get install -y --no-install-recommends "${PACKAGES[@]}" >>/tmp/axgate-desktop-apt.log 2>&1 || {
            tail -20 /tmp/axgate-desktop-apt.log >&2
            log "package installation failed"
            exit 2
        }
    fi
fi

WORK="$(mktemp -d /tmp/axgate-desktop.XXXXXX)"
PIDS=()

# A pid is gone when it no longer exists or is a zombie.
gone() {
    local pid="$1" state
    [ -e "/proc/$pid" ] || return 0
    state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo X)"
    [ "$state" = "Z" ] || [ "$state" = "X" ]
}

stop_pid() {
    local pid="$1" i
    gone "$pid" && return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 40); do
        gone "$pid" && return 0
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null || true
    for i in $(seq 1 20); do
        gone "$pid" && return 0
        sleep 0.05
    done
    log "pid $pid did not stop"
}

teardown() {
    local i
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        stop_pid "${PIDS[$i]}"
    done
    rm -rf "$WORK"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Waits until "$@" succeeds, for at most $1 tenths of a second.
wait_for() {
    local tenths="$1" i
    shift
    for ((i = 0; i < tenths * 2; i++)); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.05
    done
    return 1
}

# 1. Xvfb on the first free display from :90.
display=""
for n in $(seq 90 199); do
    if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then
        display=":$n"
        break
    fi
done
[ -n "$display" ] || { log "no free X display"; exit 2; }
Xvfb "$display" -screen 0 1280x1024x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
PIDS+=("$!")
export DISPLAY="$display"
wait_for 100 xdpyinfo -display "$display" || { cat "$WORK/xvfb.log" >&2; log "Xvfb did not start"; exit 2; }

# 2. A private session bus.
unset DBUS_SESSION_BUS_ADDRESS AT_SPI_BUS_ADDRESS NO_AT_BRIDGE
dbus-daemon --session --nofork --nopidfile --print-address=3 \
    --address="unix:path=$WORK/session-bus" 3>"$WORK/bus-address" >"$WORK/dbus.log" 2>&1 &
PIDS+=("$!")
wait_for 100 test -s "$WORK/bus-address" || { log "the session bus did not start"; exit 2; }
DBUS_SESSION_BUS_ADDRESS="$(head -n1 "$WORK/bus-address")"
export DBUS_SESSION_BUS_ADDRESS

has_owner() { # $1: bus address or "session"; $2: name
    local where=(--session)
    [ "$1" = session ] || where=(--bus="$1")
    dbus-send "${where[@]}" --print-reply --dest=org.freedesktop.DBus / \
        org.freedesktop.DBus.NameHasOwner "string:$2" 2>/dev/null | grep -q 'boolean true'
}

# 3. The accessibility bus launcher; nothing asks for the bus address before it owns its name.
"$LAUNCHER" --launch-immediately >"$WORK/launcher.log" 2>&1 &
PIDS+=("$!")
wait_for 100 has_owner session org.a11y.Bus || { cat "$WORK/launcher.log" >&2; log "org.a11y.Bus has no owner"; exit 2; }
a11y="$(dbus-send --session --print-reply=literal --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress | tr -d ' ')"
[ -n "$a11y" ] || { log "no accessibility bus address"; exit 2; }

# 4. The registry daemon, started by us so its pid is known.
AT_SPI_BUS_ADDRESS="$a11y" "$REGISTRYD" >"$WORK/registryd.log" 2>&1 &
PIDS+=("$!")
wait_for 100 has_owner "$a11y" org.a11y.atspi.Registry || { cat "$WORK/registryd.log" >&2; log "the registry did not start"; exit 2; }

log "desktop ready on $display (session bus $DBUS_SESSION_BUS_ADDRESS)"
export DESKTOP_AXGATE=1
export GDK_BACKEND=x11
export PYTHONDONTWRITEBYTECODE=1
export XDG_RUNTIME_DIR="$WORK/runtime"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
status=0
"$@" || status=$?
exit "$status"
