#!/usr/bin/env bash
# Installs a released axgate binary for this runner (Linux or macOS, x86_64 or arm64) from the
# GitHub release that .github/workflows/release.yml publishes, after checking its SHA-256
# against the release's SHA256SUMS. Used by action.yml; runs anywhere with bash, curl, tar and
# sha256sum or shasum.
#
# Environment:
#   ACTION_VERSION      a tag (v0.2.0) or "latest" (default)
#   ACTION_REPOSITORY   owner/name whose releases hold the binaries (required unless
#                       ACTION_RELEASE_URL is set)
#   ACTION_RELEASE_URL  base URL of the releases (default https://github.com/<repository>/releases);
#                       archives are fetched from <base>/download/<tag>/<file>
#   ACTION_INSTALL_DIR  where the binary goes (default ~/.local/bin); added to $GITHUB_PATH
#                       when that is set
set -euo pipefail

fail() {
    echo "::error::axgate install: $*" >&2
    exit 1
}

version="${ACTION_VERSION:-latest}"
repository="${ACTION_REPOSITORY:-}"
base="${ACTION_RELEASE_URL:-}"
if [ -z "$base" ]; then
    [ -n "$repository" ] || fail "set the action's repository input (owner/name of the axgate releases) or release-url"
    base="https://github.com/${repository}/releases"
fi
base="${base%/}"
dir="${ACTION_INSTALL_DIR:-$HOME/.local/bin}"

case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) target=x86_64-unknown-linux-gnu ;;
    Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-gnu ;;
    Darwin/arm64) target=aarch64-apple-darwin ;;
    Darwin/x86_64) target=x86_64-apple-darwin ;;
    *) fail "no axgate release for $(uname -s) $(uname -m); releases exist for Linux and macOS on x86_64 and arm64" ;;
esac

fetch() {
    curl --fail --silent --show-error --location --retry 3 --retry-connrefused "$@"
}

if [ "$version" = latest ]; then
    # GitHub answers <base>/latest with a redirect to <base>/tag/<tag>.
    effective="$(fetch --output /dev/null --write-out '%{url_effective}' "$base/latest")" ||
        fail "cannot resolve the latest release at $base/latest"
    version="${effective##*/}"
fi
if ! [[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.-]+)?$ ]]; then
    fail "'$version' is not a release tag like v1.2.3 (the version input)"
fi

name="axgate-${version}-${target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "axgate install: $name.tar.gz from $base/download/$version"
fetch --output "$work/$name.tar.gz" "$base/download/$version/$name.tar.gz" ||
    fail "cannot download $base/download/$version/$name.tar.gz"
fetch --output "$work/SHA256SUMS" "$base/download/$version/SHA256SUMS" ||
    fail "cannot download $base/download/$version/SHA256SUMS"

want="$(awk -v file="$name.tar.gz" '{ f = $2; sub(/^\*/, "", f) } f == file { print $1; exit }' "$work/SHA256SUMS")"
[ -n "$want" ] || fail "SHA256SUMS of $version has no line for $name.tar.gz"
if command -v sha256sum >/dev/null; then
    have="$(sha256sum "$work/$name.tar.gz" | cut -d' ' -f1)"
else
    have="$(shasum -a 256 "$work/$name.tar.gz" | cut -d' ' -f1)"
fi
[ "$have" = "$want" ] || fail "checksum mismatch for $name.tar.gz: SHA256SUMS says $want, the download is $have"

tar -xzf "$work/$name.tar.gz" -C "$work"
[ -x "$work/$name/axgate" ] || fail "$name.tar.gz holds no $name/axgate"
mkdir -p "$dir"
install -m 0755 "$work/$name/axgate" "$dir/axgate"
if [ -n "${GITHUB_PATH:-}" ]; then
    echo "$dir" >> "$GITHUB_PATH"
fi
"$dir/axgate" --version
