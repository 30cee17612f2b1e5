#!/usr/bin/env bash
# The soak (docs/PERFORMANCE.md, "Soak"): minutes of mixed load on one axgate — reads, big
# reads, writes with the audit trail on, a subscriber whose stream reconnects with
# Last-Event-ID, sessions opened and abandoned — printing RSS, sessions, streams and
# replay-log bytes every 10 s, and every error. Not in CI. `bench/soak.sh [SECONDS]`
# (default 600). Loopback only; every loop ends with the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --quiet --tests -p axgate -p axgate-ref-rmcp -p axgate-ref-axum -p axgate-load --bins
exec target/release/axgate-load --soak "${1:-600}"
