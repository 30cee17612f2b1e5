#!/usr/bin/env bash
# Installs axgate on a rack Mac as a LaunchAgent of one user and (re)starts it in that
# user's GUI session. Run it on the Mac as the logged-in user (it asks sudo for the
# system-wide steps), or as root (sudo from SSH) with --user. See docs/OPERATIONS.md.
#
# What it does, in order:
#   1. the binary   -> /usr/local/bin/axgate          (replaced atomically: new file + rename)
#   2. the config   -> /usr/local/etc/axgate/axgate.toml   (only if there is none yet)
#   3. log folder      /Users/Shared/axgate/logs, owned by the user
#   4. the plist    -> ~<user>/Library/LaunchAgents/dev.axgate.agent.plist
#   5. launchctl bootout (ignoring failure), bootstrap and kickstart -k in gui/<uid>
#
# --dry-run prints every command instead of running it (works on any OS; the tests use it).
set -euo pipefail

label=dev.axgate.agent
bin_dest=/usr/local/bin/axgate
etc_dir=/usr/local/etc/axgate
config_dest=$etc_dir/axgate.toml
data_dir=/Users/Shared/axgate
log_dir=$data_dir/logs
port=8741

kit_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plist_src=$kit_dir/$label.plist

usage() {
    cat <<EOF
Usage: install.sh [--user NAME] [--binary PATH] [--config PATH] [--dry-run]

Installs axgate as the LaunchAgent $label of a user and starts it in that
user's GUI (Aqua) session.

  --user NAME     the user whose GUI session runs axgate: the auto-login user of
                  the Mac (default: the invoking user; under sudo, \$SUDO_USER)
  --binary PATH   the axgate binary to install to $bin_dest
                  (default: ./axgate). Sign it with your stable identity first.
  --config PATH   the config installed to $config_dest if no
                  config is there yet (default: config/axgate.example.toml of this
                  kit); an existing config is never overwritten
  --dry-run       print the commands instead of running them
  -h, --help      this help

Afterwards grant Accessibility and Screen Recording to $bin_dest
(docs/OPERATIONS.md) and check: curl http://127.0.0.1:$port/readyz
EOF
}

die() {
    echo "install.sh: $*" >&2
    exit 2
}

user=""
binary=./axgate
config=""
dry_run=0
while [ $# -gt 0 ]; do
    case "$1" in
        -h | --help)
            usage
            exit 0
            ;;
        --user)
            [ $# -ge 2 ] || die "--user needs a NAME"
            user=$2
            shift 2
            ;;
        --user=*)
            user=${1#--user=}
            shift
            ;;
        --binary)
            [ $# -ge 2 ] || die "--binary needs a PATH"
            binary=$2
            shift 2
            ;;
        --binary=*)
            binary=${1#--binary=}
            shift
            ;;
        --config)
            [ $# -ge 2 ] || die "--config needs a PATH"
            config=$2
            shift 2
            ;;
        --config=*)
            config=${1#--config=}
            shift
            ;;
        --dry-run)
            dry_run=1
            shift
            ;;
        *)
            usage >&2
            die "unknown argument: $1"
            ;;
    esac
done

if [ -z "$config" ]; then
    config="$(cd "$kit_dir/../.." && pwd)/config/axgate.example.toml"
fi

# Who runs what: system-wide steps need root; launchctl for gui/<uid> needs root or the
# user itself.
is_root=0
if [ "$(id -u)" = 0 ]; then is_root=1; fi
if [ -z "$user" ]; then
    if [ "$is_root" = 1 ]; then
        user=${SUDO_USER:-}
        if [ -z "$user" ] || [ "$user" = root ]; then
            die "running as root: name the GUI user with --user NAME"
        fi
    else
        user=$(id -un)
    fi
fi
[ "$user" != root ] || die "axgate runs in a logged-in user's GUI session, not as root"
[[ $user =~ ^[A-Za-z0-9._-]+$ ]] || die "not a user name: $user"

if uid=$(id -u "$user" 2>/dev/null); then
    :
elif [ "$dry_run" = 1 ]; then
    uid="<uid-of-$user>"
    echo "# dry run: no user $user on this machine; its uid is shown as $uid" >&2
else
    die "no such user: $user"
fi

# How each kind of step runs: root does everything directly (files in the user's home as
# the user); the user itself needs sudo for the system-wide steps. For another user a real
# run needs root; a dry run shows the commands as sudo would run them.
root_prefix=()
user_prefix=()
launchctl_prefix=()
if [ "$is_root" = 1 ]; then
    user_prefix=(sudo -u "$user")
elif [ "$user" = "$(id -un)" ]; then
    root_prefix=(sudo)
elif [ "$dry_run" = 1 ]; then
    echo "# dry run: shown as run through sudo, which installing for $user needs" >&2
    root_prefix=(sudo)
    user_prefix=(sudo -u "$user")
    launchctl_prefix=(sudo)
else
    die "to install for $user, run as $user or as root (sudo $0 --user $user ...)"
fi

home=""
if command -v dscl >/dev/null 2>&1; then
    home=$(dscl . -read "/Users/$user" NFSHomeDirectory 2>/dev/null | awk '{print $2}') || true
fi
if [ -z "$home" ]; then
    home=$(eval echo "~$user")
    case "$home" in "~"*) home=/Users/$user ;; esac
fi
agents_dir=$home/Library/LaunchAgents
plist_dest=$agents_dir/$label.plist
domain=gui/$uid
service=$domain/$label

# Prints a command the way a shell would read it back.
show() {
    local out="" arg
    for arg in "$@"; do
        case "$arg" in
            "" | *[!A-Za-z0-9_./:=@%+,-]*) arg="'${arg//\'/\'\\\'\'}'" ;;
        esac
        out="$out${out:+ }$arg"
    done
    printf '%s\n' "$out"
}

# Runs a command, or prints it under --dry-run.
run() {
    if [ "$dry_run" = 1 ]; then
        show "$@"
    else
        "$@"
    fi
}

# The prefixes may be empty: "${a[@]+"${a[@]}"}" keeps macOS's bash 3.2 quiet under set -u.
# System-wide steps (/usr/local, /Users/Shared).
as_root() { run ${root_prefix[@]+"${root_prefix[@]}"} "$@"; }
# Files in the user's home, so they belong to the user.
as_user() { run ${user_prefix[@]+"${user_prefix[@]}"} "$@"; }
# launchctl for the user's gui/<uid> domain.
as_launchd() { run ${launchctl_prefix[@]+"${launchctl_prefix[@]}"} launchctl "$@"; }

on_mac=0
if [ "$(uname -s)" = Darwin ]; then on_mac=1; fi

for f in "$binary" "$config" "$plist_src"; do
    if [ ! -f "$f" ]; then
        [ "$dry_run" = 1 ] || die "not a file: $f"
        echo "# dry run: $f does not exist" >&2
    fi
done

echo "# Installing axgate for $user (uid $uid) into $domain"

# 1. The binary. A new file renamed over the old one (a new inode): overwriting a signed
#    binary in place can get the next launch killed by the kernel's code-signing cache.
as_root mkdir -p "$(dirname "$bin_dest")"
as_root install -m 0755 "$binary" "$bin_dest.new"
if [ "$on_mac" = 1 ] || [ "$dry_run" = 1 ]; then
    # A binary fetched with a browser carries a quarantine flag that stops launchd.
    as_root xattr -d com.apple.quarantine "$bin_dest.new" 2>/dev/null || true
fi
as_root mv -f "$bin_dest.new" "$bin_dest"

# 2. The config, only if absent: an existing one is the operator's.
if [ -e "$config_dest" ]; then
    echo "# keeping the existing $config_dest"
else
    as_root mkdir -p "$etc_dir"
    as_root install -m 0644 "$config" "$config_dest"
fi

# 3. The log folder named in the plist (launchd does not create it).
as_root mkdir -p "$log_dir"
as_root chown -R "$user" "$data_dir"

# 4. The plist: owned by the user, writable only by it, or launchd refuses it.
as_user mkdir -p "$agents_dir"
as_user install -m 0644 "$plist_src" "$plist_dest"
if [ "$on_mac" = 1 ]; then
    run plutil -lint "$plist_dest"
fi

# 5. (Re)load the agent in the user's GUI session and start it now. A bootstrap right
#    after a bootout can fail while the old instance is still stopping, so retry a little.
as_launchd bootout "$service" 2>/dev/null || true
if [ "$dry_run" = 1 ]; then
    as_launchd bootstrap "$domain" "$plist_dest"
else
    tries=0
    until launchctl bootstrap "$domain" "$plist_dest"; do
        tries=$((tries + 1))
        if [ "$tries" -ge 5 ]; then
            die "launchctl bootstrap $domain failed: is $user logged in to the GUI (auto-login)? From SSH, run this script with sudo and --user $user"
        fi
        sleep 1
    done
fi
as_launchd kickstart -k "$service"

# Report the code signature: permissions follow it.
if [ "$on_mac" = 1 ] && [ "$dry_run" = 0 ]; then
    if codesign -dv "$bin_dest" 2>&1 | grep -q 'Signature=adhoc'; then
        echo "WARNING: $bin_dest is ad-hoc signed: its Accessibility and Screen Recording" >&2
        echo "         grants are lost at every upgrade. Sign builds with one stable identity." >&2
    fi
    echo "# Designated requirement (for an MDM PPPC profile):"
    codesign -d -r- "$bin_dest" 2>&1 | sed -n 's/^designated => /  /p' || true
fi

if [ "$dry_run" = 1 ]; then
    done_line="Dry run: nothing was changed. These commands install and start $service."
else
    done_line="axgate is installed and (re)started as $service."
fi
cat <<EOF

$done_line

Next steps:
  1. Grant Accessibility and Screen Recording to $bin_dest (System Settings >
     Privacy & Security, or an MDM PPPC profile for its code requirement), then
     restart it: launchctl kickstart -k $service
     Grants follow the code signature: sign every build with the same identity, or
     each upgrade loses them.
  2. Check readiness (200 = ready, 503 lists the failing checks):
       curl http://127.0.0.1:$port/readyz
     /readyz comes from the agent itself. \`axgate check\` in Terminal reports Terminal's
     permissions, not the agent's, and fails gui_session from SSH.
  3. Logs: $log_dir/axgate.log
EOF
