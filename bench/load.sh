#!/usr/bin/env bash
# The load harness in one command (docs/PERFORMANCE.md, "Core under load"): builds the
# release binaries it starts — axgate, the references axgate-ref-rmcp and axgate-ref-axum,
# and the generator axgate-load — in one `cargo build --release`, then runs the generator.
# `bench/load.sh` for the full run (a few minutes), `bench/load.sh --short` for CI's.
# `--tests` makes cargo resolve features as the test build does (dev-dependencies included),
# so after `scripts/test` only these binaries compile, not the dependency tree again.
# `bench/load.sh --build-only` builds and stops (.ci/prebuild: CI builds them beside the tests).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --quiet --tests -p axgate -p axgate-ref-rmcp -p axgate-ref-axum -p axgate-load --bins
if [ "${1:-}" = --build-only ]; then
    exit 0
fi
exec target/release/axgate-load "$@"
