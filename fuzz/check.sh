#!/usr/bin/env bash
# CI check: the fuzz targets compile and link on stable Rust (libfuzzer-sys
# builds libFuzzer with the system C++ compiler; no sanitizer flags and no
# nightly needed for a plain build). Shares the root target directory so the
# engine's dependencies are reused. Fuzzing itself: fuzz/run.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/../target}"
cargo build --locked --manifest-path "$here/Cargo.toml" --bins
echo "fuzz targets build: $(cd "$here" && ls fuzz_targets | grep -v common | sed 's/\.rs$//' | tr '\n' ' ')"
