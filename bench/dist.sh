#!/usr/bin/env bash
# The distribution build measured against the release build (docs/PERFORMANCE.md, "The
# distribution build"): builds `--profile dist` (stripped, fat LTO, one codegen unit: what the
# release workflow ships), prints both binaries' sizes (the release one also stripped), then
# runs the load harness's `--versus` mode: list_apps latency and throughput at c = 1 and 32,
# the two builds alternating in one run. Slow (the LTO link takes minutes); not part of CI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --profile dist --quiet --bin axgate
cargo build --release --quiet --tests -p axgate -p axgate-load --bins
release=target/release/axgate
dist=target/dist/axgate
stripped="$(mktemp)"
trap 'rm -f "$stripped"' EXIT
strip -o "$stripped" "$release"
mib() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
printf '# Binary sizes\n\n| build | size |\n|---|---|\n'
printf '| release | %s |\n| release, stripped | %s |\n| dist | %s |\n' \
    "$(mib "$release")" "$(mib "$stripped")" "$(mib "$dist")"
exec target/release/axgate-load --versus "$dist" "$@"
